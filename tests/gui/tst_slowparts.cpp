// Slow parts from the fabric's context menu (docs/stragglers.md): marking node004's GPU 0 slow on
// the 128-GPU sample is one undo step, the engine's numbers follow, and the status bar names the
// groups and stages that wait on it with the engine's figures; a bad speed is refused.
#include "cost/costengine.h"
#include "cost/costenginejobs.h"
#include "document/scenariodocument.h"
#include "fabricview.h"
#include "mainwindow.h"
#include "presentationmode.h"
#include "scenario/scenariofile.h"
#include "scriptedwindow.h"
#include "slowparts.h"
#include "spotlightcontroller.h"
#include "spotlightitem.h"
#include "studies/blastradius.h"
#include "studycontroller.h"

#include <QAction>
#include <QMenu>
#include <QStatusBar>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace railyard;

class TestSlowParts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void slotMenuMarksAGpuSlowInOneStep();
    void nicFromTheSameMenu();
    void badSpeedIsRefused();
    void aSharedFabricNamesTheJobsThatWait();
};

void TestSlowParts::slotMenuMarksAGpuSlowInOneStep()
{
    ScriptedWindow w;
    ScenarioDocument *doc = w.doc();
    doc->waitForEvaluation();
    const double healthy = doc->report().iterationTime;
    const int steps = doc->undoStack()->count();
    // Right-click on node004/gpu0 (slot 32, rank (d 0, p 1, t 0)) > Mark GPU node004/gpu0 Slow…
    w.dialogs->textAnswer = QStringLiteral("0.5");
    QMenu *menu = w.window.studies()->slotMenu(32);
    QAction *slow = menu->findChild<QAction *>(QStringLiteral("actionSlowGpu"));
    QVERIFY(slow);
    QVERIFY(slow->text().contains(QLatin1String("node004/gpu0")));
    slow->trigger();
    doc->waitForEvaluation();
    QCoreApplication::processEvents();
    QVERIFY2(w.dialogs->errors.isEmpty(), qPrintable(w.dialogs->errors.join(QLatin1Char('\n'))));
    QCOMPARE(doc->undoStack()->count(), steps + 1);
    const std::vector<Degradation> &parts = doc->scenario().degradations.parts;
    QCOMPARE(parts.size(), std::size_t { 1 });
    QCOMPARE(parts[0].kind, Degradation::Kind::Gpu);
    QCOMPARE(parts[0].index, 32);
    QCOMPARE(parts[0].computeSpeed, 0.5);
    // The numbers on screen are the engine's for the degraded scenario (what evaluate prints).
    QCOMPARE(doc->report().iterationTime, evaluate(doc->scenario()).iterationTime);
    QVERIFY(doc->report().iterationTime > healthy);
    // The blast radius in the status bar: TP group 4 = (d 0, p 1), DP group 8 = (p 1, t 0),
    // pipeline 0 = (d 0, t 0), every stage later; its delay is the engine's.
    const QString status = w.window.statusBar()->currentMessage();
    QVERIFY2(status.startsWith(QLatin1String("gpu:32 (node004/gpu0), compute 50 %: +")),
        qPrintable(status));
    QVERIFY2(status.contains(QLatin1String("waiting: tp 4, dp 8, pp 0; stages 0 +")),
        qPrintable(status));
    QCOMPARE(status, slowparts::blastRadiusLine(doc->engine(), 0));
    // The waiting groups are lit: the 8 + 4 + 4 ranks of TP 4, DP 8 and pipeline 0, rank 32 in
    // all three (14 slots), and nothing else.
    SpotlightController *spotlight = w.window.presentation()->spotlight();
    QVERIFY(spotlight->isActive());
    QCOMPARE(spotlight->caption(), QStringLiteral("what waits on gpu:32 (3 groups)"));
    const std::vector<int> lit = w.window.fabricView()->spotlight()->slots();
    QCOMPARE(lit.size(), std::size_t { 14 });
    // One undo step puts the healthy GPU back.
    doc->undoStack()->undo();
    doc->waitForEvaluation();
    QVERIFY(doc->scenario().degradations.empty());
    QCOMPARE(doc->report().iterationTime, healthy);
}

void TestSlowParts::nicFromTheSameMenu()
{
    ScriptedWindow w;
    ScenarioDocument *doc = w.doc();
    w.dialogs->textAnswer = QStringLiteral("50%");
    // node001/gpu2 (slot 10) sends through node001's NIC 2 (nic:10).
    QMenu *menu = w.window.studies()->slotMenu(10);
    menu->findChild<QAction *>(QStringLiteral("actionSlowNic"))->trigger();
    doc->waitForEvaluation();
    const std::vector<Degradation> &parts = doc->scenario().degradations.parts;
    QCOMPARE(parts.size(), std::size_t { 1 });
    QCOMPARE(parts[0].kind, Degradation::Kind::Nic);
    QCOMPARE(parts[0].index, 10);
    QCOMPARE(parts[0].bandwidthFactor, 0.5);
    QVERIFY2(w.window.statusBar()->currentMessage().contains(QLatin1String("waiting: dp 2, pp 10")),
        qPrintable(w.window.statusBar()->currentMessage()));
}

void TestSlowParts::badSpeedIsRefused()
{
    ScriptedWindow w;
    ScenarioDocument *doc = w.doc();
    const int steps = doc->undoStack()->count();
    w.dialogs->textAnswer = QStringLiteral("1.5");
    QVERIFY(!slowparts::askAndMark(&w.window, Degradation::Kind::Gpu, 32));
    QCOMPARE(w.dialogs->errors.size(), 1);
    QVERIFY(w.dialogs->errors.front().contains(QLatin1String("'1.5' is no speed")));
    QCOMPARE(doc->undoStack()->count(), steps);
    QVERIFY(doc->scenario().degradations.empty());
}

void TestSlowParts::aSharedFabricNamesTheJobsThatWait()
{
    // samples/two-jobs.json with job a on show: node001's NIC 0 (nic:8) carries job b's DP
    // ring only (b on servers 1 and 9, a on 0 and 8), so the status names b and not a.
    ScriptedWindow w;
    ScenarioDocument *doc = w.doc();
    doc->load(loadScenario(RAILYARD_SOURCE_DIR "/samples/two-jobs.json"));
    doc->waitForEvaluation();
    QCOMPARE(doc->activeJob(), 0);
    const SharedFabricReport healthy = evaluateJobs(doc->fileScenario());
    w.dialogs->textAnswer = QStringLiteral("5%");
    w.window.studies()
        ->slotMenu(8)
        ->findChild<QAction *>(QStringLiteral("actionSlowNic"))
        ->trigger();
    doc->waitForEvaluation();
    QCoreApplication::processEvents();
    QVERIFY2(w.dialogs->errors.isEmpty(), qPrintable(w.dialogs->errors.join(QLatin1Char('\n'))));
    QCOMPARE(doc->fileScenario().degradations.parts.size(), std::size_t { 1 });
    const QString status = w.window.statusBar()->currentMessage();
    QVERIFY2(status.contains(QLatin1String("; jobs waiting: b +")), qPrintable(status));
    QVERIFY2(!status.contains(QLatin1String(" a +")), qPrintable(status));
    // b's delay is the shared evaluation's: b alone on the fabric, degraded minus healthy.
    const SharedFabricReport slow = evaluateJobs(doc->fileScenario());
    const std::vector<JobWait> waits = jobsWaitingOn(doc->fileScenario(), 0);
    QCOMPARE(waits.size(), std::size_t { 1 });
    QCOMPARE(waits[0].job, std::string("b"));
    QVERIFY(std::abs(waits[0].delay
                - (slow.jobs[1].aloneIterationTime - healthy.jobs[1].aloneIterationTime))
        <= 1e-9);
    QCOMPARE(slow.jobs[0].aloneIterationTime, healthy.jobs[0].aloneIterationTime);
}

QTEST_MAIN(TestSlowParts)
#include "tst_slowparts.moc"
