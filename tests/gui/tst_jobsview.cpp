// Several jobs in the explorer (docs/shared-fabric.md, "In the GUI"), offscreen on the two-job
// sample with job b's global batch doubled (so its figures differ from a's): every job's GPUs
// drawn in its hue and the free ones free, the links coloured by the load summed over the jobs,
// the job selector switching the palette, inspector and summary to job b (its figures equal to
// evaluate's jobs[]), a drag onto b's GPU refused, a whole-job move and its undo, and the "place
// a new job" dialog applied as one undo step.
#include "cost/costenginejobs.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "inspectorpanel.h"
#include "jobscontroller.h"
#include "jobspanel.h"
#include "legenditem.h"
#include "mainactions.h"
#include "mainwindow.h"
#include "placejobdialog.h"
#include "scenario/scenariofile.h"
#include "scripteddialogs.h"
#include "serveritem.h"
#include "slotitem.h"
#include "summarybar.h"

#include "base/quantityformat.h"
#include "fabric/fabric.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>

#include <cmath>

using namespace railyard;

class TestJobsView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void everyJobInItsHue();
    void linksShowEveryJobsLoad();
    void selectorShowsJobB();
    void dragOntoAnotherJobIsRefused();
    void moveJobThenUndo();
    void ctrlDragMovesTheWholeJob();
    void placeNewJobApplied();

private:
    Scenario m_file;
    std::unique_ptr<MainWindow> m_window;
    ScriptedDialogs *m_dialogs = nullptr;
    JobsController *m_jobs = nullptr;
};

namespace {

QString seconds(double s)
{
    return QString::fromStdString(formatSeconds(s));
}

/// The chip of `slot` (every slot of the sample has one).
const SlotItem &chip(const FabricItem *root, int slot)
{
    const SlotItem *item = root->slotItem(slot);
    if (!item)
        qFatal("no item for slot %d", slot);
    return *item;
}

QPoint slotPos(const FabricView &view, int slot)
{
    return view.mapFromScene(chip(view.rootItem(), slot).sceneBoundingRect().center());
}

/// The middle of `server`'s bar (its drag handle), in viewport coordinates.
QPoint barPos(const FabricView &view, int server)
{
    const FabricItem *root = view.rootItem();
    return view.mapFromScene(
        root->serverItem(server)->mapToScene(root->layout().barRect().center()));
}

} // namespace

void TestJobsView::init()
{
    m_file = loadScenario(RAILYARD_SOURCE_DIR "/samples/two-jobs.json");
    m_file.jobs[1].training.globalBatch = 32; // b's iteration differs from a's
    m_window = std::make_unique<MainWindow>();
    auto dialogs = std::make_unique<ScriptedDialogs>();
    m_dialogs = dialogs.get();
    m_window->setDialogs(std::move(dialogs));
    m_window->resize(1400, 900);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    m_window->document()->load(m_file);
    m_window->document()->waitForEvaluation();
    m_jobs = m_window->findChild<JobsController *>();
    QVERIFY(m_jobs);
    QVERIFY(m_jobs->report());
}

void TestJobsView::cleanup()
{
    m_window.reset();
}

void TestJobsView::everyJobInItsHue()
{
    const FabricItem *root = m_window->fabricView()->rootItem();
    const QColor hueA(0xe6, 0x9f, 0x00), hueB(0x56, 0xb4, 0xe9);
    for (int slot = 0; slot < 128; ++slot) {
        const SlotItem *item = &chip(root, slot);
        const int server = slot / 8;
        const int job = server == 0 || server == 8 ? 0 : server == 1 || server == 9 ? 1 : -1;
        QCOMPARE(item->data(SlotItem::kJobKey).toInt(), job);
        if (job == 0) { // the active job: its ranks, its hue as the band
            QVERIFY(item->rank() >= 0);
            QCOMPARE(item->jobColour(), hueA);
        } else if (job == 1) { // job b: its hue, its rank there, no chip of the active job
            QCOMPARE(item->rank(), -1);
            QCOMPARE(item->jobColour(), hueB);
            QVERIFY(item->otherJobRank() >= 0);
            QCOMPARE(item->fillColour(), SlotItem::otherJobFill(hueB));
        } else { // free
            QCOMPARE(item->rank(), -1);
            QCOMPARE(item->otherJobRank(), -1);
            QVERIFY(!item->jobColour().isValid());
        }
    }
    QCOMPARE(chip(root, 72).otherJobRank(), 8); // b's rank 8 on server 9 GPU 0
    // The selector names both jobs; the summary the one on show.
    QComboBox *selector = m_jobs->jobSelector();
    QCOMPARE(selector->count(), 2);
    QCOMPARE(selector->itemText(0), QStringLiteral("a"));
    QCOMPARE(selector->itemText(1), QStringLiteral("b"));
    QVERIFY(selector->isVisibleTo(m_window.get()));
    QVERIFY(m_window->summaryBar()->jobLabel()->isVisible());
    QVERIFY(m_window->summaryBar()->jobLabel()->text().contains(QStringLiteral("Job a of 2")));
}

void TestJobsView::linksShowEveryJobsLoad()
{
    // At rest every link shows the shared evaluation's utilisation summed over the jobs.
    const FabricItem *root = m_window->fabricView()->rootItem();
    QVERIFY(root->hasJobLoads());
    const SharedFabricReport shared = evaluateJobs(m_file);
    int both = 0;
    for (int l = 0; l < shared.fabric->linkCount(); ++l) {
        const double want = shared.linkUtilisation[static_cast<std::size_t>(l)];
        QVERIFY2(std::abs(root->shownUtilisation(l) - want) <= 1e-9 * std::max(1.0, want),
            qPrintable(QString::fromStdString(shared.fabric->linkName(l))));
        both += root->shownUtilisation(l) > m_window->document()->report().utilisation(l) * 1.5;
    }
    QVERIFY(both >= 4); // the four spine links both jobs cross show both loads
    // The legend names the jobs and the busiest link of them all (a spine uplink, not job a's
    // own NVLink bottleneck).
    const LegendItem *legend = m_window->fabricView()->legendItem();
    QCOMPARE(legend->caption(),
        QStringLiteral("job a on show; b in their hues; links: every job's load"));
    QCOMPARE(legend->bottleneckText(),
        QString::fromStdString(shared.fabric->linkName(shared.bottleneckLink)));
}

void TestJobsView::selectorShowsJobB()
{
    ScenarioDocument *doc = m_window->document();
    const SharedFabricReport shared = evaluateJobs(m_file);
    // Choose b's row in the Jobs dock: the real tree widget.
    QTreeWidget *tree = m_jobs->panel()->jobsTree();
    tree->setCurrentItem(tree->topLevelItem(1));
    QTRY_COMPARE(doc->activeJob(), 1);
    doc->waitForEvaluation();
    QCOMPARE(m_jobs->jobSelector()->currentIndex(), 1);
    // The palette's rank 0 is b's: on server 1; a's GPUs are another job's now.
    const FabricItem *root = m_window->fabricView()->rootItem();
    QCOMPARE(chip(root, 8).rank(), 0);
    QCOMPARE(chip(root, 8).data(SlotItem::kJobKey).toInt(), 1);
    QCOMPARE(chip(root, 0).otherJobRank(), 0);
    // The inspector edits b: its global batch.
    auto *batch
        = m_window->inspector()->findChild<QSpinBox *>(QStringLiteral("training.global_batch"));
    QVERIFY(batch);
    QCOMPARE(batch->value(), 32);
    // The summary: b's own iteration (evaluate's alone_iteration_time_s) and, in its job
    // column, b's shared iteration (iteration_time_s).
    const JobReport &b = shared.jobs[1];
    QVERIFY(b.aloneIterationTime != shared.jobs[0].aloneIterationTime);
    QVERIFY(
        m_window->summaryBar()->iterationLabel()->text().contains(seconds(b.aloneIterationTime)));
    const QString job = m_window->summaryBar()->jobLabel()->text();
    QVERIFY2(job.contains(QStringLiteral("Job b of 2")) && job.contains(seconds(b.iterationTime)),
        qPrintable(job));
    QVERIFY(job.contains(QStringLiteral("×%1").arg(b.slowdown(), 0, 'f', 3)));
    // The links still show every job's load.
    QVERIFY(std::abs(root->shownUtilisation(shared.bottleneckLink)
                - shared.linkUtilisation[static_cast<std::size_t>(shared.bottleneckLink)])
        < 1e-9);
    // And back with the toolbar's combo (a key press, as the user would).
    QComboBox *selector = m_jobs->jobSelector();
    selector->setFocus();
    QTest::keyClick(selector, Qt::Key_Up);
    QTRY_COMPARE(doc->activeJob(), 0);
    doc->waitForEvaluation();
    QCOMPARE(chip(root, 0).rank(), 0);
    QVERIFY(!doc->isModified());
}

void TestJobsView::dragOntoAnotherJobIsRefused()
{
    ScenarioDocument *doc = m_window->document();
    FabricView *view = m_window->fabricView();
    view->fitAll();
    QWidget *vp = view->viewport();
    const QPoint from = slotPos(*view, 0), onB = slotPos(*view, 8), free = slotPos(*view, 16);
    QTest::mousePress(vp, Qt::LeftButton, {}, from);
    QTest::mouseMove(vp, from + QPoint(20, 20));
    QTest::mouseMove(vp, onB);
    QVERIFY(!doc->isPreviewing()); // no preview onto b's GPU
    QTest::mouseRelease(vp, Qt::LeftButton, {}, onB);
    QCOMPARE(doc->undoStack()->count(), 0);
    QVERIFY2(m_window->statusBar()->currentMessage().contains(QStringLiteral("is job \"b\"'s")),
        qPrintable(m_window->statusBar()->currentMessage()));
    // Onto a free GPU it moves, one undo step.
    QTest::mousePress(vp, Qt::LeftButton, {}, from);
    QTest::mouseMove(vp, from + QPoint(20, 20));
    QTest::mouseMove(vp, free);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, free);
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(doc->mapping().slotOf(0), 16);
}

void TestJobsView::moveJobThenUndo()
{
    ScenarioDocument *doc = m_window->document();
    const FabricItem *root = m_window->fabricView()->rootItem();
    // Show b, move it to servers 4 and 12 through the action and its question.
    QCOMPARE(doc->setActiveJob(1), QString());
    m_dialogs->textAnswer = QStringLiteral("4,12");
    m_jobs->moveJobAction()->trigger();
    doc->waitForEvaluation();
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(chip(root, 32).rank(), 0);
    QCOMPARE(chip(root, 8).data(SlotItem::kJobKey).toInt(), -1); // server 1 free again
    // Off a's spine links: a runs at its alone time (the dock's figures).
    const JobReport &a = m_jobs->report()->jobs[0];
    QCOMPARE(a.iterationTime, a.aloneIterationTime);
    // Onto a's servers: refused naming a, nothing pushed.
    m_dialogs->textAnswer = QStringLiteral("0,8");
    m_jobs->moveJobAction()->trigger();
    QCOMPARE(doc->undoStack()->count(), 1);
    QVERIFY2(
        m_window->statusBar()->currentMessage().contains(QStringLiteral("is taken by job \"a\"")),
        qPrintable(m_window->statusBar()->currentMessage()));
    // Undo: b back on servers 1 and 9.
    m_window->actions()->action(QStringLiteral("actionUndo"))->trigger();
    doc->waitForEvaluation();
    QCOMPARE(chip(root, 8).rank(), 0);
    QCOMPARE(doc->fileScenario(), m_file);
    QVERIFY(m_jobs->report()->jobs[0].iterationTime > m_jobs->report()->jobs[0].aloneIterationTime);
}

void TestJobsView::ctrlDragMovesTheWholeJob()
{
    // Ctrl+drag of one of b's server bars moves all of b by the same number of servers, as
    // "Move Job to Servers…" does: server 1 onto server 4 puts b on servers 4 and 12.
    ScenarioDocument *doc = m_window->document();
    FabricView *view = m_window->fabricView();
    const FabricItem *root = view->rootItem();
    QCOMPARE(doc->setActiveJob(1), QString());
    doc->waitForEvaluation();
    view->fitAll();
    QWidget *vp = view->viewport();
    const QPoint press = barPos(*view, 1);
    QTest::mousePress(vp, Qt::LeftButton, Qt::ControlModifier, press);
    QTest::mouseMove(vp, press + QPoint(20, 20));
    // Over a's server 0: b's second server would land on a's server 8; refused, no preview.
    QTest::mouseMove(vp, barPos(*view, 0));
    QVERIFY(!doc->isPreviewing());
    QVERIFY2(m_window->statusBar()->currentMessage().contains(QStringLiteral("job \"a\"")),
        qPrintable(m_window->statusBar()->currentMessage()));
    // Over server 4: the preview shows all of b moved.
    QTest::mouseMove(vp, barPos(*view, 4));
    QVERIFY(doc->isPreviewing());
    QVERIFY2(m_window->statusBar()->currentMessage().startsWith(
                 QStringLiteral("Move job \"b\" by 3 servers")),
        qPrintable(m_window->statusBar()->currentMessage()));
    QTest::mouseRelease(vp, Qt::LeftButton, Qt::ControlModifier, barPos(*view, 4));
    doc->waitForEvaluation();
    QCOMPARE(doc->undoStack()->count(), 1); // one step for the whole job
    for (int r = 0; r < 16; ++r) {
        const int from = m_file.jobs[1].slots[static_cast<std::size_t>(r)];
        QCOMPARE(doc->mapping().slotOf(r), from + 3 * 8); // GPU index (rail) kept
    }
    QCOMPARE(chip(root, 32).rank(), 0);
    QCOMPARE(chip(root, 8).data(SlotItem::kJobKey).toInt(), -1); // server 1 free again
    // As through the dialog: off a's spine links, a runs at its alone time.
    const JobReport &a = m_jobs->report()->jobs[0];
    QCOMPARE(a.iterationTime, a.aloneIterationTime);
    // Four servers on would put b's second server past the fabric's last (12 + 4 = 16 of 16):
    // no preview, and the drop moves nothing.
    const QPoint again = barPos(*view, 4);
    QTest::mousePress(vp, Qt::LeftButton, Qt::ControlModifier, again);
    QTest::mouseMove(vp, again + QPoint(20, 20));
    QTest::mouseMove(vp, barPos(*view, 8));
    QVERIFY(!doc->isPreviewing());
    QTest::mouseRelease(vp, Qt::LeftButton, Qt::ControlModifier, barPos(*view, 8));
    QCOMPARE(doc->undoStack()->count(), 1);
    QVERIFY2(m_window->statusBar()->currentMessage().contains(QStringLiteral("on the fabric")),
        qPrintable(m_window->statusBar()->currentMessage()));
    // Undo: b back on servers 1 and 9.
    m_window->actions()->action(QStringLiteral("actionUndo"))->trigger();
    doc->waitForEvaluation();
    QCOMPARE(doc->fileScenario(), m_file);
}

void TestJobsView::placeNewJobApplied()
{
    ScenarioDocument *doc = m_window->document();
    m_jobs->placeJobAction()->trigger();
    auto *dialog = m_window->findChild<PlaceJobDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->placement());
    QTableWidget *table = dialog->table();
    QVERIFY(table->rowCount() >= 4);
    // A copy of job a, named "a-2": where it hurts nobody, two servers under tor-0.
    QCOMPARE(dialog->placement()->job.name, std::string("a-2"));
    QCOMPARE(table->item(0, PlaceJobDialog::ServersColumn)->text(), QStringLiteral("2, 3"));
    QCOMPARE(table->item(0, PlaceJobDialog::FixedColumns)->text(), QStringLiteral("×1.000"));
    QCOMPARE(table->item(0, PlaceJobDialog::FreeColumn)->text(), QStringLiteral("10"));
    QVERIFY(dialog->fragmentationText()->toPlainText().contains(
        QStringLiteral("10 free servers; 5 more jobs of 2 servers fit")));
    QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
    doc->waitForEvaluation();
    QCOMPARE(doc->undoStack()->count(), 1);
    QCOMPARE(doc->fileScenario().jobs.size(), std::size_t(3));
    const FabricItem *root = m_window->fabricView()->rootItem();
    QCOMPARE(chip(root, 16).data(SlotItem::kJobKey).toInt(), 2);
    QCOMPARE(m_jobs->jobSelector()->count(), 3);
    QCOMPARE(m_jobs->panel()->jobsTree()->topLevelItemCount(), 3);
    // The running jobs keep their figures: the new job shares no link with them.
    QCOMPARE(m_jobs->report()->jobs[0].iterationTime, evaluateJobs(m_file).jobs[0].iterationTime);
    m_window->actions()->action(QStringLiteral("actionUndo"))->trigger();
    doc->waitForEvaluation();
    QCOMPARE(doc->fileScenario(), m_file);
    QCOMPARE(chip(root, 16).data(SlotItem::kJobKey).toInt(), -1);
}

QTEST_MAIN(TestJobsView)
#include "tst_jobsview.moc"
