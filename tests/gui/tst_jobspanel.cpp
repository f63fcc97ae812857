// The Jobs dock on the two-job sample (docs/shared-fabric.md), offscreen: it opens with the
// file, each job in its own hue with its iteration alone and shared as evaluate prints them,
// the spine links where the neighbour costs it under it, the free slots above; a single-job
// scenario hides it again.
#include "document/evaluator.h"
#include "document/scenariodocument.h"
#include "jobscontroller.h"
#include "jobspanel.h"
#include "mainwindow.h"
#include "scenario/scenariofile.h"

#include <QDockWidget>
#include <QLabel>
#include <QTest>
#include <QTreeWidget>

using namespace railyard;

namespace {

/// Shows `window` at `size` on its default (single-job) scenario, evaluated.
bool showWindow(MainWindow &window, const QSize &size)
{
    window.resize(size);
    window.show();
    if (!QTest::qWaitForWindowExposed(&window))
        return false;
    window.document()->waitForEvaluation();
    return true;
}

/// Opens samples/two-jobs.json in `window`'s document.
void openTwoJobs(MainWindow &window)
{
    const QString path = QStringLiteral(RAILYARD_SOURCE_DIR "/samples/two-jobs.json");
    window.document()->load(loadScenario(path.toStdString()), path);
    window.document()->waitForEvaluation();
}

} // namespace

class TestJobsPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void showsEveryJobInItsHue();
    void evaluatesALargeFabricOffTheUiThread();
    void opensBesideThePipelineWhereBothFit_data();
    void opensBesideThePipelineWhereBothFit();
};

void TestJobsPanel::showsEveryJobInItsHue()
{
    MainWindow window;
    QVERIFY(showWindow(window, QSize(1400, 900)));
    ScenarioDocument *doc = window.document();
    auto *dock = window.findChild<QDockWidget *>(QStringLiteral("jobsDock"));
    QVERIFY(dock);
    QVERIFY(!dock->isVisible()); // the default scenario holds one job

    openTwoJobs(window);
    QVERIFY(dock->isVisible());
    auto *panel = qobject_cast<JobsPanel *>(dock->widget());
    QVERIFY(panel);
    QCOMPARE(panel->summaryLabel()->text(),
        QStringLiteral("2 jobs, 96 of 128 GPU slots free; phases overlap: worst"));
    QTreeWidget *tree = panel->jobsTree();
    QCOMPARE(tree->topLevelItemCount(), 2);
    const QTreeWidgetItem *a = tree->topLevelItem(0);
    const QTreeWidgetItem *b = tree->topLevelItem(1);
    QCOMPARE(a->text(JobsPanel::JobColumn), QStringLiteral("a"));
    QCOMPARE(b->text(JobsPanel::JobColumn), QStringLiteral("b"));
    // Each job in its own hue (the file's colours).
    QCOMPARE(a->data(JobsPanel::JobColumn, Qt::UserRole).value<QColor>(), QColor(0xe6, 0x9f, 0x00));
    QCOMPARE(b->data(JobsPanel::JobColumn, Qt::UserRole).value<QColor>(), QColor(0x56, 0xb4, 0xe9));
    QVERIFY(a->data(JobsPanel::JobColumn, Qt::UserRole).value<QColor>()
        != b->data(JobsPanel::JobColumn, Qt::UserRole).value<QColor>());
    // The times evaluate prints: b costs a 171 ms through the spine links.
    QCOMPARE(a->text(JobsPanel::RanksColumn), QStringLiteral("16"));
    QCOMPARE(a->text(JobsPanel::AloneColumn), QStringLiteral("1.535 s"));
    QCOMPARE(a->text(JobsPanel::SharedColumn), QStringLiteral("1.706 s"));
    QCOMPARE(a->text(JobsPanel::SlowdownColumn), QStringLiteral("×1.111"));
    QCOMPARE(a->childCount(), 4);
    QCOMPARE(a->child(0)->text(JobsPanel::JobColumn),
        QStringLiteral("tor-0 -> spine-p0-0: b adds 160.7 ms"));

    // A single-job scenario: the dock goes away.
    const QString seed = QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    doc->load(loadScenario(seed.toStdString()), seed);
    doc->waitForEvaluation();
    QVERIFY(!dock->isVisible());
    QCOMPARE(tree->topLevelItemCount(), 0);
}

void TestJobsPanel::evaluatesALargeFabricOffTheUiThread()
{
    // Above the document's threshold for evaluating off the UI thread (here every scenario),
    // the jobs are evaluated on Qt's thread pool: a drop returns at once, the rows on show stay
    // marked as being updated, and the result is the one the UI thread computes.
    MainWindow window;
    QVERIFY(showWindow(window, QSize(1400, 900)));
    ScenarioDocument *doc = window.document();
    doc->evaluator()->setAsyncThreshold(0);
    auto *jobs = window.findChild<JobsController *>();
    QVERIFY(jobs);
    auto *panel = jobs->panel();

    openTwoJobs(window);
    QTRY_VERIFY(!jobs->isEvaluating());
    QVERIFY(jobs->report());
    QCOMPARE(panel->summaryLabel()->text(),
        QStringLiteral("2 jobs, 96 of 128 GPU slots free; phases overlap: worst"));
    QTreeWidget *tree = panel->jobsTree();
    QCOMPARE(tree->topLevelItemCount(), 2);
    QCOMPARE(tree->topLevelItem(0)->text(JobsPanel::AloneColumn), QStringLiteral("1.535 s"));
    QCOMPARE(tree->topLevelItem(0)->text(JobsPanel::SharedColumn), QStringLiteral("1.706 s"));

    // A drop (two of job a's ranks swap servers): the refresh starts and returns; the rows stay.
    const SharedFabricReport *before = jobs->report();
    doc->swapRanks(0, 8);
    doc->waitForEvaluation();
    QVERIFY(jobs->isEvaluating());
    QCOMPARE(tree->topLevelItemCount(), 2);
    QVERIFY(panel->summaryLabel()->text().endsWith(QStringLiteral("updating…")));
    QTRY_VERIFY(!jobs->isEvaluating());
    QVERIFY(jobs->report() != before);
    QCOMPARE(panel->summaryLabel()->text(),
        QStringLiteral("2 jobs, 96 of 128 GPU slots free; phases overlap: worst"));
    // Two refreshes in a row: the first's result, landing later, is not shown over the second.
    jobs->refresh();
    jobs->refresh();
    QTRY_VERIFY(!jobs->isEvaluating());
    const double shared = jobs->report()->jobs[0].iterationTime;
    QTest::qWait(50);
    QCOMPARE(jobs->report()->jobs[0].iterationTime, shared);
}

void TestJobsPanel::opensBesideThePipelineWhereBothFit_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("beside");
    QTest::newRow("1280x720: beside the pipeline") << QSize(1280, 720) << true;
    QTest::newRow("900x540: a tab in front") << QSize(900, 540) << false;
}

void TestJobsPanel::opensBesideThePipelineWhereBothFit()
{
    // Opening a scenario with jobs never makes the window wider than it is: side by side the
    // two panels need their minimum widths together, which 900 pixels do not have.
    QFETCH(QSize, size);
    QFETCH(bool, beside);
    MainWindow window;
    QVERIFY(showWindow(window, size));
    openTwoJobs(window);
    for (int i = 0; i < 5; ++i) {
        QCoreApplication::processEvents();
        QTest::qWait(20);
    }
    auto *jobs = window.findChild<QDockWidget *>(QStringLiteral("jobsDock"));
    auto *timeline = window.findChild<QDockWidget *>(QStringLiteral("timelineDock"));
    QVERIFY(jobs->isVisible());
    QCOMPARE(window.size(), size);
    QCOMPARE(window.tabifiedDockWidgets(jobs).contains(timeline), !beside);
    if (beside)
        QVERIFY(timeline->isVisible());
}

QTEST_MAIN(TestJobsPanel)
#include "tst_jobspanel.moc"
