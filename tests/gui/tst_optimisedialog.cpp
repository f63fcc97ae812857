// Study ▸ Optimise Placement… driven through its real widgets (offscreen): the search runs on
// its worker thread, the result applied is the one optimise() returns for the same seed and
// move budget, one undo puts the start back, Cancel and closing leave the document byte for
// byte as it was, and the Compare A/B dock shows the start as baseline A with the explanation.
#include "comparepanel.h"
#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "mainwindow.h"
#include "optimise/optimiser.h"
#include "optimisedialog.h"
#include "scenario/scenariofile.h"
#include "scripteddialogs.h"
#include "scriptedwindow.h"
#include "studies/compare.h"
#include "studycontroller.h"

#include <QAction>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLocale>
#include <QMenu>
#include <QPixmap>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace railyard;

namespace {

Scenario seed128()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

OptimiseOptions movesBudget(StartFrom from, std::uint64_t seed, long long moves)
{
    OptimiseOptions o;
    o.objective = Objective::Iteration;
    o.keep = KeepConstraint::TpInServer;
    o.from = from;
    o.seed = seed;
    o.seconds = 0.0;
    o.maxMoves = moves;
    return o;
}

OptimiseOptions secondsBudget(double seconds)
{
    OptimiseOptions o;
    o.from = StartFrom::Scattered;
    o.seconds = seconds;
    o.maxMoves = 0;
    return o;
}

bool closeTo(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

struct Fixture : ScriptedWindow
{
    Fixture()
    {
        doc()->load(seed128());
        settle();
    }
    StudyController *studies() const { return window.studies(); }
    ComparePanel *panel() const { return studies()->comparePanel(); }
    void settle()
    {
        doc()->waitForEvaluation();
        QCoreApplication::processEvents();
    }
    std::string json() const { return scenarioToText(doc()->scenario()); }
};

} // namespace

class TestOptimiseDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void menuOpensTheDialog();
    void formReadsBack();
    void appliedResultIsTheOptimisersForTheSeed();
    void undoRestoresTheStart();
    void cancelKeepsTheDocument();
    void stopKeepsTheBestSoFar();
    void closingWhileRunningJoinsTheWorker();
    void refusedSearchSaysWhy();
    void screenshot();
};

void TestOptimiseDialog::menuOpensTheDialog()
{
    Fixture f;
    QString title, intro;
    f.dialogs->onDialog = [&title, &intro](QDialog *d) {
        title = d->windowTitle();
        if (auto *label = d->findChild<QLabel *>(QStringLiteral("optimiseIntro")))
            intro = label->text();
        return qobject_cast<OptimiseDialog *>(d) ? QDialog::Rejected : QDialog::Accepted;
    };
    auto *action = f.window.findChild<QAction *>(QStringLiteral("actionOptimisePlacement"));
    QVERIFY(action);
    QVERIFY(f.studies()->menu()->actions().contains(action));
    action->trigger();
    QCOMPARE(f.dialogs->dialogsShown, 1);
    QCOMPARE(title, QStringLiteral("Optimise Placement"));
    QVERIFY2(intro.contains(QLatin1String("(128 ranks)")), qPrintable(intro));
    QCOMPARE(f.doc()->undoStack()->count(), 0);
}

void TestOptimiseDialog::formReadsBack()
{
    OptimiseDialog dialog(seed128());
    OptimiseOptions o;
    o.objective = Objective::P99;
    o.keep = KeepConstraint::None;
    o.from = StartFrom::RailAligned;
    o.seed = 42;
    o.maxMoves = 1234;
    o.seconds = 0.0;
    dialog.setOptions(o);
    QCOMPARE(dialog.objectiveBox()->currentText(), QStringLiteral("p99 link busy time"));
    QCOMPARE(dialog.movesBox()->value(), 1234);
    const OptimiseOptions back = dialog.options();
    QCOMPARE(back.objective, Objective::P99);
    QCOMPARE(back.keep, KeepConstraint::None);
    QCOMPARE(back.from, StartFrom::RailAligned);
    QCOMPARE(back.seed, std::uint64_t { 42 });
    QCOMPARE(back.maxMoves, 1234LL);
    QCOMPARE(back.seconds, 0.0);

    // The user picks a time budget in the combo box: moves no longer limit the run.
    dialog.budgetKindBox()->setCurrentIndex(0);
    dialog.secondsBox()->setValue(2.5);
    QCOMPARE(dialog.options().maxMoves, 0LL);
    QCOMPARE(dialog.options().seconds, 2.5);
    QVERIFY(!dialog.runButton()->isHidden() && dialog.runButton()->isEnabled());
    QVERIFY(!dialog.stopButton()->isEnabled());
    QVERIFY(!dialog.applyButton()->isEnabled()); // nothing to apply before a run
}

void TestOptimiseDialog::appliedResultIsTheOptimisersForTheSeed()
{
    Fixture f;
    const Scenario original = f.doc()->scenario();
    const OptimiseOptions options = movesBudget(StartFrom::Scattered, 7, 3000);
    // What the engine returns for the same scenario, seed and budget, off any GUI.
    const OptimiseResult expected = optimise(original, options);
    QVERIFY(expected.improved);
    QVERIFY(expected.result.iteration < expected.start.iteration);
    QVERIFY(expected.ranksMoved > 0);

    bool previewed = false;
    QString status;
    int progress = 0;
    f.dialogs->onDialog = [&](QDialog *d) {
        auto *dialog = qobject_cast<OptimiseDialog *>(d);
        if (!dialog)
            return QDialog::Rejected;
        dialog->show();
        dialog->setOptions(options);
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        if (!dialog->isRunning() || dialog->runButton()->isEnabled())
            return QDialog::Rejected;
        if (!dialog->waitForFinished(120000))
            return QDialog::Rejected;
        previewed = f.doc()->isPreviewing(); // the result drawn on the fabric
        status = dialog->statusLabel()->text();
        progress = dialog->progressBar()->value();
        QTest::mouseClick(dialog->applyButton(), Qt::LeftButton);
        return dialog->result() == QDialog::Accepted && dialog->hasResult() ? QDialog::Accepted
                                                                            : QDialog::Rejected;
    };
    QVERIFY(f.studies()->optimisePlacement());
    f.settle();
    QVERIFY(previewed);
    QCOMPARE(progress, 1000);
    QVERIFY2(
        status.startsWith(QStringLiteral("Finished after %1 moves").arg(QLocale().toString(3000))),
        qPrintable(status));
    QVERIFY(!f.doc()->isPreviewing());

    // The document holds the optimiser's mapping, with its iteration time, in one undo step.
    QCOMPARE(f.doc()->scenario().slots, expected.scenario.slots);
    QCOMPARE(f.doc()->scenario().mappingVersion, original.mappingVersion + 1);
    QVERIFY2(closeTo(f.doc()->report().iterationTime, expected.result.iteration),
        qPrintable(QStringLiteral("%1 vs %2")
                       .arg(f.doc()->report().iterationTime, 0, 'g', 17)
                       .arg(expected.result.iteration, 0, 'g', 17)));
    QCOMPARE(f.doc()->undoStack()->count(), 1);
    QVERIFY(f.doc()->undoStack()->text(0).contains(QLatin1String("Optimise placement")));

    // Compare A/B: baseline A is the scattered start, B the result, with the explanation.
    QVERIFY(f.studies()->hasBaseline());
    QCOMPARE(f.studies()->baseline()->scenario().slots, expected.startSlots);
    QVERIFY(expected.startSlots != original.slots); // scattered, not the file's rail-aligned
    QVERIFY(closeTo(f.studies()->baseline()->report().iterationTime, expected.start.iteration));
    QVERIFY(f.studies()->compareDock()->isVisible());
    QCOMPARE(f.panel()->figureText(QStringLiteral("Iteration time"), 1),
        QString::fromStdString(
            formatFigure(ComparedFigure::Unit::Seconds, expected.start.iteration)));
    QCOMPARE(f.panel()->figureText(QStringLiteral("Iteration time"), 2),
        QString::fromStdString(
            formatFigure(ComparedFigure::Unit::Seconds, expected.result.iteration)));
    const QString explanation = f.panel()->explanation();
    QVERIFY(explanation.contains(QLatin1String("scattered")));
    QCOMPARE(f.panel()->tabs()->currentWidget(), f.panel()->explanationView());

    // One undo: the file's own mapping, byte for byte; the explanation stays with baseline A.
    f.doc()->undoStack()->undo();
    f.settle();
    QCOMPARE(scenarioToText(f.doc()->scenario()), scenarioToText(original));

    // Clearing the baseline drops the explanation with it.
    f.studies()->clearBaseline();
    QVERIFY(f.panel()->explanation().isEmpty());
}

void TestOptimiseDialog::undoRestoresTheStart()
{
    // Start from the document's own mapping, made scattered first: the start is then the
    // document, and one undo of Apply brings exactly that mapping back.
    Fixture f;
    f.doc()->applyPlacement(Placement::Scattered);
    f.settle();
    const Scenario start = f.doc()->scenario();
    const int steps = f.doc()->undoStack()->count();
    const OptimiseOptions options = movesBudget(StartFrom::Current, 3, 2000);
    const OptimiseResult expected = optimise(start, options);
    QVERIFY(expected.improved);
    f.dialogs->onDialog = [&](QDialog *d) {
        auto *dialog = qobject_cast<OptimiseDialog *>(d);
        dialog->setOptions(options);
        dialog->run();
        dialog->waitForFinished(120000);
        dialog->applyButton()->click();
        return dialog->result();
    };
    QVERIFY(f.studies()->optimisePlacement());
    f.settle();
    QCOMPARE(f.doc()->scenario().slots, expected.scenario.slots);
    QCOMPARE(f.doc()->undoStack()->count(), steps + 1);
    QCOMPARE(f.studies()->baseline()->scenario().slots, start.slots);
    f.doc()->undoStack()->undo();
    f.settle();
    QCOMPARE(scenarioToText(f.doc()->scenario()), scenarioToText(start));
    QVERIFY(closeTo(f.doc()->report().iterationTime, expected.start.iteration));
}

void TestOptimiseDialog::cancelKeepsTheDocument()
{
    Fixture f;
    const std::string before = f.json();
    const int steps = f.doc()->undoStack()->count();
    bool sawPreview = false;
    qint64 cancelMs = -1;
    bool stillRunning = true;
    f.dialogs->onDialog = [&](QDialog *d) {
        auto *dialog = qobject_cast<OptimiseDialog *>(d);
        dialog->show();
        dialog->setOptions(secondsBudget(60.0)); // far more than the test waits
        QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
        // Wait until the best-so-far is on the fabric (the scattered start is worse than the
        // file's mapping, so the preview differs from it at once).
        QElapsedTimer clock;
        clock.start();
        while (!f.doc()->isPreviewing() && clock.elapsed() < 30000)
            QTest::qWait(OptimiseDialog::kRefreshMs / 2);
        sawPreview = f.doc()->isPreviewing();
        clock.restart();
        QTest::mouseClick(dialog->cancelButton(), Qt::LeftButton);
        cancelMs = clock.elapsed();
        stillRunning = dialog->isRunning();
        return dialog->result();
    };
    QVERIFY(!f.studies()->optimisePlacement());
    QVERIFY(sawPreview);
    QVERIFY(!stillRunning);
    QVERIFY2(cancelMs >= 0 && cancelMs < 10000, qPrintable(QString::number(cancelMs)));
    f.settle();
    QVERIFY(!f.doc()->isPreviewing());
    QCOMPARE(f.json(), before);
    QCOMPARE(f.doc()->undoStack()->count(), steps);
    QVERIFY(!f.doc()->isModified());
    QVERIFY(!f.studies()->hasBaseline());
    // The links show the document's own mapping again.
    const CostEngine fresh(f.doc()->scenario());
    QVERIFY(closeTo(f.doc()->report().iterationTime, fresh.report().iterationTime));
}

void TestOptimiseDialog::stopKeepsTheBestSoFar()
{
    OptimiseDialog dialog(seed128());
    dialog.setOptions(secondsBudget(60.0));
    QVERIFY(dialog.run());
    QVERIFY(!dialog.run()); // one search at a time
    QTest::qWait(600);
    QVERIFY(dialog.isRunning());
    QTest::mouseClick(dialog.stopButton(), Qt::LeftButton);
    QVERIFY(dialog.waitForFinished(10000));
    QVERIFY(dialog.hasResult());
    QVERIFY(dialog.optimiseResult().cancelled);
    QVERIFY(dialog.optimiseResult().evaluated > 0);
    QVERIFY(dialog.optimiseResult().seconds < 30.0);
    // The best of a stopped search is never worse than its start, and it can be applied.
    QVERIFY(dialog.optimiseResult().result.iteration <= dialog.optimiseResult().start.iteration);
    QVERIFY(dialog.applyButton()->isEnabled());
    QVERIFY(dialog.statusLabel()->text().startsWith(QStringLiteral("Stopped")));
    QVERIFY(!dialog.reportView()->toPlainText().isEmpty());
}

void TestOptimiseDialog::closingWhileRunningJoinsTheWorker()
{
    // Closing the window (its close button: closeEvent -> reject) stops and joins the search.
    {
        OptimiseDialog dialog(seed128());
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.setOptions(secondsBudget(60.0));
        QVERIFY(dialog.run());
        QTest::qWait(300);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(dialog.close());
        QVERIFY(!dialog.isRunning());
        QVERIFY(clock.elapsed() < 10000);
        QCOMPARE(dialog.result(), int(QDialog::Rejected));
    }
    // Destroying it mid-search (the application quits) joins the worker too.
    QElapsedTimer clock;
    clock.start();
    {
        auto dialog = std::make_unique<OptimiseDialog>(seed128());
        dialog->setOptions(secondsBudget(60.0));
        QVERIFY(dialog->run());
        QTest::qWait(200);
    }
    QVERIFY(clock.elapsed() < 10000);
}

void TestOptimiseDialog::refusedSearchSaysWhy()
{
    // TP inside one scale-up domain with tp larger than a server's 8 GPUs cannot be met.
    Scenario s = seed128();
    s.degrees.tp = 16;
    s.degrees.dp = s.degrees.dp / 2;
    s.slots.clear();
    OptimiseOptions o = movesBudget(StartFrom::Packed, 1, 100);
    o.keep = KeepConstraint::TpInScaleUp;
    std::string message;
    try {
        optimise(s, o);
    } catch (const std::exception &e) {
        message = e.what();
    }
    QVERIFY2(!message.empty(), "the engine accepted TP 16 inside an 8-GPU scale-up domain");
    OptimiseDialog dialog(s);
    dialog.setOptions(o);
    QVERIFY(dialog.run());
    QVERIFY(dialog.waitForFinished(30000));
    QVERIFY(!dialog.hasResult());
    QCOMPARE(dialog.errorText(), QString::fromStdString(message));
    QVERIFY(dialog.statusLabel()->text().contains(QString::fromStdString(message)));
    QVERIFY(!dialog.applyButton()->isEnabled());
    QVERIFY(dialog.runButton()->isEnabled());
}

void TestOptimiseDialog::screenshot()
{
    // The README's picture: a finished search from the Scattered preset. Written when
    // RAILYARD_SCREENSHOT_DIR is set (e.g. resources/screenshots); the grab is checked always.
    OptimiseDialog dialog(seed128());
    dialog.resize(960, 680);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.setOptions(movesBudget(StartFrom::Scattered, 1, 3000));
    QVERIFY(dialog.run());
    QVERIFY(dialog.waitForFinished(120000));
    QVERIFY(dialog.hasResult());
    QCOMPARE(dialog.progressBar()->value(), 1000);
    QVERIFY(dialog.reportView()->toPlainText().contains(QLatin1String("stage by stage")));
    const QPixmap shot = dialog.grab();
    QCOMPARE(shot.size(), dialog.size() * shot.devicePixelRatio());
    const QByteArray dir = qgetenv("RAILYARD_SCREENSHOT_DIR");
    if (!dir.isEmpty())
        QVERIFY(shot.save(QString::fromLocal8Bit(dir) + QStringLiteral("/optimise-dialog.png")));
}

QTEST_MAIN(TestOptimiseDialog)
#include "tst_optimisedialog.moc"
