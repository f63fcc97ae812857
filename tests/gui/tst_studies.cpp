// The Study menu as a user drives it: pin a baseline, change the placement, read the A/B
// comparison (figures, changed links outlined on the fabric, moved ranks, aligned timelines).
#include "legenditem.h"
#include "studies/compare.h"
#include "comparepanel.h"
#include "cost/costengine.h"
#include "epmatrixview.h"
#include "expertpanel.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "studies/failureremap.h"
#include "inferencepanel.h"
#include "mainwindow.h"
#include "remapdialog.h"
#include "document/scenariodocument.h"
#include "scenario/scenariofile.h"
#include "scripteddialogs.h"
#include "scriptedwindow.h"
#include "studycontroller.h"
#include "summarybar.h"
#include "timelinecanvas.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QTableWidget>
#include <QTest>
#include <QUndoStack>

using namespace railyard;

namespace {

struct Fixture : ScriptedWindow
{
    StudyController *studies() const { return window.studies(); }
    ComparePanel *panel() const { return studies()->comparePanel(); }
    QAction *action(const char *name) const
    {
        return studies()->menu()->findChild<QAction *>(QString::fromLatin1(name));
    }
    /// Lets the coalesced refresh run.
    void settle() const { QCoreApplication::processEvents(); }
};

} // namespace

class TestStudies : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void studyMenuSitsBeforeHelp();
    void pinShowsTheSamePlacementAsUnchanged();
    void swapAfterPinShowsWorseSpineAndOutlinesLinks();
    void undoReturnsToNoChange();
    void timelinesShareOneAxis();
    void badBaselineFileKeepsEverything();
    void clearForgetsTheBaseline();
    void serverMenuRemapsAndComparesWithHealthy();
    void cancelledRemapChangesNothing();
    void badFailureTextIsRefused();
    void expertRoutingEditIsUndoableAndShown();
    void exponentIsTypedWhole();
    void inferenceScenarioColoursKvLinks();
};

void TestStudies::studyMenuSitsBeforeHelp()
{
    Fixture f;
    const QList<QAction *> menus = f.window.menuBar()->actions();
    int study = -1, help = -1;
    for (int i = 0; i < menus.size(); ++i) {
        const QString text = menus[i]->text().remove(QLatin1Char('&'));
        if (text == QLatin1String("Study"))
            study = i;
        if (text == QLatin1String("Help"))
            help = i;
    }
    QVERIFY(study >= 0);
    QCOMPARE(study + 1, help);
    QCOMPARE(
        f.action("actionPinBaseline")->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
}

void TestStudies::pinShowsTheSamePlacementAsUnchanged()
{
    Fixture f;
    QVERIFY(!f.panel()->hasComparison());
    f.action("actionPinBaseline")->trigger();
    f.settle();
    QVERIFY(f.studies()->hasBaseline());
    QVERIFY(f.studies()->compareDock()->isVisible());
    QVERIFY(f.panel()->hasComparison());
    // Nothing changed yet: every delta reads "=".
    QTableWidget *t = f.panel()->figureTable();
    QVERIFY(t->rowCount() >= 15);
    for (int row = 0; row < t->rowCount(); ++row)
        QCOMPARE(t->item(row, 3)->text(), QStringLiteral("="));
    QCOMPARE(f.panel()->linkTable()->rowCount(), 0);
    QCOMPARE(f.panel()->rankTable()->rowCount(), 0);
}

void TestStudies::swapAfterPinShowsWorseSpineAndOutlinesLinks()
{
    Fixture f;
    QTest::mouseClick(
        f.panel()->findChild<QWidget *>(QStringLiteral("comparePin")), Qt::LeftButton);
    f.settle();
    QVERIFY(f.studies()->hasBaseline());

    // The 128-GPU sample's same-rail DP is broken by swapping ranks 0 and 9 (different t, servers).
    f.doc()->swapRanks(0, 9);
    f.settle();

    const Comparison expected = compareEngines(*f.studies()->baseline(), f.doc()->engine(), 200);
    const ComparedFigure *spine = expected.figure("spine_bytes");
    QCOMPARE(spine->a, 0.0);
    QVERIFY(spine->b > 0.0);
    QCOMPARE(f.panel()->figureText(QStringLiteral("Bytes over leaf-spine links"), 1),
        QStringLiteral("0 B"));
    QCOMPARE(f.panel()->figureText(QStringLiteral("Bytes over leaf-spine links"), 2),
        QString::fromStdString(formatFigure(spine->unit, spine->b)));
    QCOMPARE(
        f.panel()->figureText(QStringLiteral("TP groups across servers"), 3), QStringLiteral("+2"));

    // The link table lists the engine's changes, largest first, and the fabric outlines them.
    QTableWidget *links = f.panel()->linkTable();
    QCOMPARE(links->rowCount(), static_cast<int>(expected.links.size()));
    QCOMPARE(links->item(0, 0)->data(Qt::UserRole).toInt(), expected.links.front().link);
    const std::vector<int> outlined = f.window.fabricView()->rootItem()->emphasis();
    QVERIFY(!outlined.empty());
    QVERIFY(
        std::find(outlined.begin(), outlined.end(), expected.links.front().link) != outlined.end());

    // Two ranks moved, listed by coordinates.
    QCOMPARE(f.panel()->rankTable()->rowCount(), 2);

    // Unticking the box removes the outline; ticking brings it back.
    f.panel()->highlightBox()->setChecked(false);
    QVERIFY(f.window.fabricView()->rootItem()->emphasis().empty());
    f.panel()->highlightBox()->setChecked(true);
    QCOMPARE(f.window.fabricView()->rootItem()->emphasis().size(), outlined.size());
}

void TestStudies::undoReturnsToNoChange()
{
    Fixture f;
    f.action("actionPinBaseline")->trigger();
    f.doc()->swapRanks(0, 9);
    f.settle();
    QVERIFY(f.panel()->figureText(QStringLiteral("Bytes over leaf-spine links"), 3)
        != QStringLiteral("="));
    f.doc()->undoStack()->undo();
    f.settle();
    QCOMPARE(f.panel()->figureText(QStringLiteral("Bytes over leaf-spine links"), 3),
        QStringLiteral("="));
    QCOMPARE(f.panel()->rankTable()->rowCount(), 0);
    QVERIFY(f.window.fabricView()->rootItem()->emphasis().empty());
}

void TestStudies::timelinesShareOneAxis()
{
    Fixture f;
    f.action("actionPinBaseline")->trigger();
    // B: fewer micro-batches per replica, so a shorter iteration.
    Scenario next = f.doc()->scenario();
    next.training.globalBatch = 32;
    QVERIFY(f.doc()->editScenario(next, QStringLiteral("Global batch")).isEmpty());
    f.settle();
    TimelineCanvas *a = f.panel()->timelineA();
    TimelineCanvas *b = f.panel()->timelineB();
    QVERIFY(f.studies()->baseline()->report().iterationTime > f.doc()->report().iterationTime);
    QCOMPARE(a->totalSpan(), b->totalSpan());
    QCOMPARE(a->timeline().makespan, f.studies()->baseline()->report().timeline.makespan);
    QCOMPARE(b->timeline().makespan, f.doc()->report().timeline.makespan);
    // Panning one pans the other.
    a->zoomBy(4.0, a->width() / 2.0);
    a->setViewStart(a->totalSpan() * 0.3);
    QCOMPARE(b->viewStart(), a->viewStart());
    QCOMPARE(b->viewSpan(), a->viewSpan());
}

void TestStudies::badBaselineFileKeepsEverything()
{
    Fixture f;
    f.action("actionPinBaseline")->trigger();
    const double before = f.studies()->baseline()->report().iterationTime;
    f.dialogs->openName = QStringLiteral(RAILYARD_SOURCE_DIR "/tests/golden/csv.csv");
    f.action("actionCompareWithFile")->trigger();
    QCOMPARE(f.dialogs->errors.size(), 1);
    QVERIFY(f.studies()->hasBaseline());
    QCOMPARE(f.studies()->baseline()->report().iterationTime, before);

    f.dialogs->openName = QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128-tor.json");
    f.action("actionCompareWithFile")->trigger();
    f.settle();
    QCOMPARE(f.dialogs->errors.size(), 1);
    QCOMPARE(f.studies()->baseline()->scenario().name, std::string("seed-128-tor"));
    QVERIFY(f.panel()->linkTable()->rowCount() == 0); // different fabrics: no link table
}

void TestStudies::clearForgetsTheBaseline()
{
    Fixture f;
    f.action("actionPinBaseline")->trigger();
    QVERIFY(f.action("actionClearBaseline")->isEnabled());
    f.action("actionClearBaseline")->trigger();
    QVERIFY(!f.studies()->hasBaseline());
    QVERIFY(!f.panel()->hasComparison());
    QVERIFY(!f.action("actionClearBaseline")->isEnabled());
    f.doc()->swapRanks(0, 9); // no baseline: nothing to compare, nothing crashes
    f.settle();
    QVERIFY(!f.panel()->hasComparison());
}

void TestStudies::serverMenuRemapsAndComparesWithHealthy()
{
    Fixture f;
    f.dialogs->onDialog = [](QDialog *d) {
        auto *remap = qobject_cast<RemapDialog *>(d);
        return remap && remap->setStrategy(RemapStrategy::DropDp) ? QDialog::Accepted
                                                                  : QDialog::Rejected;
    };
    // Right-click on node003 > Mark node003 Failed and Remap…
    QMenu *menu = f.studies()->serverMenu(3);
    QAction *fail = menu->findChild<QAction *>(QStringLiteral("actionFailServer"));
    QVERIFY(fail);
    QVERIFY(fail->text().contains(QLatin1String("node003")));
    fail->trigger();
    f.settle();
    QCOMPARE(f.dialogs->dialogsShown, 1);
    QVERIFY2(f.dialogs->errors.isEmpty(), qPrintable(f.dialogs->errors.join(QLatin1Char('\n'))));

    // The 128-GPU sample with server 3 failed: drop DP keeps TP and PP, 96 ranks, version 2, nothing on node003.
    const Scenario &s = f.doc()->scenario();
    QCOMPARE(s.degrees.dp, 3);
    QCOMPARE(static_cast<int>(s.slots.size()), 96);
    QCOMPARE(s.mappingVersion, 2);
    QCOMPARE(s.failures.size(), std::size_t { 1 });
    for (int slot : s.slots)
        QVERIFY(slot / 8 != 3);
    // The healthy placement is baseline A: 32 ranks dropped, the deltas shown.
    QVERIFY(f.studies()->hasBaseline());
    QCOMPARE(f.studies()->baseline()->report().ranks, 128);
    QCOMPARE(f.panel()->figureText(QStringLiteral("Ranks"), 3), QStringLiteral("-32"));
    QCOMPARE(
        f.panel()->figureText(QStringLiteral("TP groups across servers"), 2), QStringLiteral("0"));
    QCOMPARE(f.panel()->rankTable()->rowCount(), 32);
    // One undo step restores the healthy document.
    f.doc()->undoStack()->undo();
    f.settle();
    QCOMPARE(static_cast<int>(f.doc()->scenario().slots.size()), 128);
    QVERIFY(f.doc()->scenario().failures.empty());
}

void TestStudies::cancelledRemapChangesNothing()
{
    Fixture f;
    const int before = f.doc()->undoStack()->count();
    QVERIFY(!f.studies()->remapAfterFailure({ { FailedComponent::Kind::Gpu, 17 } }));
    QCOMPARE(f.dialogs->dialogsShown, 1);
    QCOMPARE(f.doc()->undoStack()->count(), before);
    QVERIFY(f.doc()->scenario().failures.empty());
    QVERIFY(!f.studies()->hasBaseline());
}

void TestStudies::badFailureTextIsRefused()
{
    Fixture f;
    f.dialogs->textAnswer = QStringLiteral("server:3, rack:2");
    f.action("actionFailureRemap")->trigger();
    QCOMPARE(f.dialogs->errors.size(), 1);
    QVERIFY(f.dialogs->errors.front().contains(QLatin1String("rack")));
    QCOMPARE(f.dialogs->dialogsShown, 0);
    f.dialogs->textAnswer = QStringLiteral("server:99");
    f.action("actionFailureRemap")->trigger();
    QCOMPARE(f.dialogs->errors.size(), 2); // outside the 16-server fabric
    QVERIFY(f.doc()->scenario().failures.empty());
}

void TestStudies::expertRoutingEditIsUndoableAndShown()
{
    Fixture f;
    QVERIFY(f.window.openFile(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/mixtral-ep8.json")));
    f.action("actionExpertRouting")->trigger();
    f.settle();
    ExpertPanel *panel = f.studies()->expertPanel();
    QVERIFY(f.studies()->expertDock()->isVisible());
    QVERIFY(panel->matrixView()->summary().present);
    QCOMPARE(panel->matrixView()->summary().skew, 1.0); // uniform
    const double uniformTime = f.doc()->report().iterationTime;

    // Zipf s = 1 over 8 experts, top-2: member shares are the capped Zipf weights.
    panel->routingBox()->setCurrentIndex(
        panel->routingBox()->findData(static_cast<int>(RoutingKind::Zipf)));
    panel->exponentBox()->setValue(1.0);
    f.settle();
    QCOMPARE(f.doc()->scenario().model.routing.kind, RoutingKind::Zipf);
    QCOMPARE(f.doc()->scenario().model.routing.zipfExponent, 1.0);
    const EpSummary &shown = panel->matrixView()->summary();
    const std::vector<double> h = memberShares(f.doc()->scenario().model.routing, 8, 8, 2);
    QCOMPARE(shown.skew, 8.0 * *std::max_element(h.begin(), h.end()));
    QVERIFY(shown.skew > 1.0);
    QVERIFY(f.doc()->report().iterationTime > uniformTime); // the hot expert is a straggler

    // Both edits merge into one undo step ("Expert routing"); undo returns to uniform.
    f.doc()->undoStack()->undo();
    f.settle();
    QCOMPARE(f.doc()->scenario().model.routing.kind, RoutingKind::Uniform);
    QCOMPARE(panel->routingBox()->currentData().toInt(), static_cast<int>(RoutingKind::Uniform));
    QCOMPARE(panel->matrixView()->summary().skew, 1.0);
    QCOMPARE(f.doc()->report().iterationTime, uniformTime);
}

void TestStudies::exponentIsTypedWhole()
{
    // Typing 1.5 committed after the first digit ("1"), and the refresh wrote 1.00 over the rest.
    Fixture f;
    QVERIFY(f.window.openFile(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/mixtral-ep8.json")));
    f.action("actionExpertRouting")->trigger();
    f.settle();
    ExpertPanel *panel = f.studies()->expertPanel();
    panel->routingBox()->setCurrentIndex(
        panel->routingBox()->findData(static_cast<int>(RoutingKind::Zipf)));
    f.settle();
    QDoubleSpinBox *box = panel->exponentBox();
    box->setFocus();
    box->selectAll();
    QTest::keyClicks(box, QStringLiteral("1.5"));
    f.settle();
    QCOMPARE(box->text(), QStringLiteral("1.5")); // still being typed, nothing written over it
    QTest::keyClick(box, Qt::Key_Return);
    f.settle();
    QCOMPARE(f.doc()->scenario().model.routing.zipfExponent, 1.5);
    QCOMPARE(box->value(), 1.5);
}

void TestStudies::inferenceScenarioColoursKvLinks()
{
    Fixture f;
    const QString path
        = QStringLiteral(RAILYARD_SOURCE_DIR "/samples/inference-disaggregated.json");
    QVERIFY(f.window.openFile(path));
    f.settle();
    f.settle();
    QVERIFY(f.studies()->kvOverlay());
    QVERIFY(f.studies()->inferencePanel()->hasReport());
    // The panel shows the engine's report for the file (the CLI's numbers).
    const Scenario s = loadScenario(path.toStdString());
    const InferenceReport expected = evaluateInference(s, f.doc()->engine().fabric());
    QCOMPARE(f.studies()->inferencePanel()->report().kvTransferTime, expected.kvTransferTime);
    QVERIFY(f.studies()->inferencePanel()->classificationLabel()->text().contains(
        QLatin1String("Distributed")));
    QVERIFY(!expected.kvLinks.empty());
    // Turning the overlay off and back on follows the action.
    QVERIFY(f.window.fabricView()->rootItem()->hasLinkOverlay());
    // The KV paths are outlined, the hottest one among them, with the overlay's value.
    const std::vector<int> &outlined = f.window.fabricView()->rootItem()->emphasis();
    QCOMPARE(outlined.size(), expected.kvLinks.size());
    QCOMPARE(f.window.fabricView()->rootItem()->emphasisCaption(),
        QStringLiteral(
            "outlined: KV paths prefill (node000, node001) → decode (node002, node003)"));
    QVERIFY(std::find(outlined.begin(), outlined.end(), expected.kvLinks.front().link)
        != outlined.end());
    QCOMPARE(f.window.fabricView()->rootItem()->shownUtilisation(expected.kvLinks.front().link),
        expected.kvLinks.front().utilisation);
    // Beside KV-coloured links the summary shows the serving figures (it showed the training
    // step's iteration, MFU, bubble and bottleneck).
    SummaryBar *summary = f.window.summaryBar();
    QVERIFY(summary->showsKvFigures());
    QVERIFY2(summary->iterationLabel()->text().contains(QStringLiteral("TTFT")),
        qPrintable(summary->iterationLabel()->text()));
    QVERIFY(summary->bottleneckLabel()->text().contains(QStringLiteral("KV")));
    QVERIFY(!summary->iterationLabel()->text().contains(QStringLiteral("Iteration")));
    // The legend names the hottest KV link (it named the training step's NVSwitch bottleneck).
    const LegendItem *legend = f.window.fabricView()->legendItem();
    QCOMPARE(legend->bottleneckText(),
        QString::fromStdString(f.doc()->engine().fabric().linkName(expected.kvLinks.front().link)));
    f.action("actionKvOverlay")->setChecked(false);
    QVERIFY(!f.studies()->kvOverlay());
    QVERIFY(!f.window.fabricView()->rootItem()->hasLinkOverlay());
    QVERIFY(summary->iterationLabel()->text().contains(QStringLiteral("Iteration")));
    f.action("actionKvOverlay")->setChecked(true);
    QVERIFY(f.studies()->kvOverlay());
    QVERIFY(f.window.fabricView()->rootItem()->hasLinkOverlay());
    // A training scenario has no pools: the overlay switches off and the action is disabled.
    QVERIFY(f.window.openFile(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json")));
    f.settle();
    QVERIFY(!f.studies()->kvOverlay());
    QVERIFY(!f.window.fabricView()->rootItem()->hasLinkOverlay());
    QVERIFY(f.window.fabricView()->rootItem()->emphasis().empty());
    QVERIFY(!f.action("actionKvOverlay")->isEnabled());
    QVERIFY(!f.studies()->inferencePanel()->hasReport());
}

QTEST_MAIN(TestStudies)
#include "tst_studies.moc"
