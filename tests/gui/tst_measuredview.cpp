// "Measured vs Predicted" as a user drives it (offscreen): File ▸ Import Training Log or Trace…
// on the trace sample (tests/data/training-logs/kineto-trace.json, one rank of a TP4 PP2 DP2
// job on 2 x 8 GPUs) and the Megatron-LM log sample. The pipeline timeline gets a measured lane
// per file under its stages (the trace's compute and each dimension's communication, the log's
// one step), the dock's table shows the study's measured, predicted and error cells and its
// "why" line, and "Fit Compute to This Step" makes the compute calibration the summary bar names
// (file, device, date), one undo step. The network badge names nccl-tests, its runs and date.
#include "chartformat.h"
#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "fixtures.h"
#include "mainwindow.h"
#include "measuredcontroller.h"
#include "measuredpanel.h"
#include "scripteddialogs.h"
#include "summarybar.h"
#include "timelinecanvas.h"
#include "timelineview.h"

#include <QAction>
#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace railyard;

namespace {

QString sample(const char *name)
{
    return QString::fromUtf8(RAILYARD_SOURCE_DIR) + QStringLiteral("/tests/data/training-logs/")
        + QLatin1String(name);
}

struct Fixture
{
    MainWindow window;
    ScriptedDialogs *dialogs;

    Fixture()
    {
        auto owned = std::make_unique<ScriptedDialogs>();
        dialogs = owned.get();
        dialogs->saveChoice = UserDialogs::SaveChoice::Discard;
        window.setDialogs(std::move(owned));
    }
    ScenarioDocument *doc() const { return window.document(); }
    MeasuredController *controller() const { return window.findChild<MeasuredController *>(); }
};

/// The sample trace's job: TP4 PP2 DP2 on two 8-GPU servers; 2 layers of sequence 1024, so that
/// its 10 ms step lies within what the compute fit can reach (5 % to 100 % of the peak).
Scenario traceJob()
{
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(4, 2, 2));
    s.model.layers = 2;
    s.model.seq = 1024; // predicted about 5 ms: the fit has something to do
    return s;
}

} // namespace

class TestMeasuredView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void laneTableAndWhy();
    void fitComputeShowsInSummary();
    void networkBadgeNamesItsSource();
    void malformedFileKeepsWhatWasOpen();
};

void TestMeasuredView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
}

void TestMeasuredView::laneTableAndWhy()
{
    Fixture f;
    f.doc()->load(traceJob());
    f.doc()->waitForEvaluation();
    MeasuredController *c = f.controller();
    QVERIFY(c != nullptr);
    QVERIFY(!c->dockWidget()->isVisibleTo(&f.window));
    QVERIFY(c->dockWidget()->objectName() == QStringLiteral("measuredDock"));
    QCOMPARE(c->importAction()->text(), QStringLiteral("Import Training &Log or Trace…"));

    f.dialogs->trainingFiles = { sample("kineto-trace.json"), sample("megatron.log") };
    c->importAction()->trigger();
    QVERIFY2(f.dialogs->errors.isEmpty(), qPrintable(f.dialogs->errors.join('\n')));
    QVERIFY(c->dockWidget()->isVisibleTo(&f.window));

    // What the study says for the same files and the same engine: the reference.
    const TrainingComparison ref = compareTraining(f.doc()->engine(),
        { sample("kineto-trace.json").toStdString(), sample("megatron.log").toStdString() },
        { MeasurementFormat::KinetoTrace, MeasurementFormat::Megatron }, 0.0);
    QCOMPARE(ref.runs.size(), std::size_t(2));
    const nlohmann::json &tj = ref.json[0];

    // (a) The lanes: one per file under the two stages; the trace's step 3 (its first step goes
    // as warm-up, io/traininglog.h) as the trace ran it.
    TimelineCanvas *canvas = f.window.timelineView()->canvas();
    QCOMPARE(canvas->measuredLanes().size(), std::size_t(2));
    const TimelinePainter::MeasuredLane &trace = canvas->measuredLanes()[0];
    QCOMPARE(trace.phases.size(), ref.runs[0].phases.size());
    QCOMPARE(trace.detail, QStringLiteral("st 0 · rk 0"));
    int compute = 0, tp = 0, dp = 0, pp = 0;
    double computeTime = 0.0;
    for (std::size_t i = 0; i < trace.phases.size(); ++i) {
        const MeasuredPhase &p = trace.phases[i];
        QCOMPARE(p.start, ref.runs[0].phases[i].start);
        QCOMPARE(p.end, ref.runs[0].phases[i].end);
        QVERIFY(p.start >= 0.0 && p.end <= 0.010 + 1e-12); // inside the 10 ms window
        if (p.kind == MeasuredPhase::Kind::Compute) {
            ++compute;
            computeTime += p.end - p.start;
        } else if (p.dim == Dim::Tp)
            ++tp;
        else if (p.dim == Dim::Dp)
            ++dp;
        else if (p.dim == Dim::Pp)
            ++pp;
    }
    QVERIFY(compute > 0 && tp > 0 && dp > 0 && pp > 0);
    QCOMPARE(ref.runs[0].laneStep, 3LL);
    // The lane's compute is that step's compute time (README: 6.8 ms).
    QVERIFY(std::abs(computeTime - 0.0068) < 1e-9);
    // The log: one bar, as long as its steady step.
    const TimelinePainter::MeasuredLane &log = canvas->measuredLanes()[1];
    QCOMPARE(log.phases.size(), std::size_t(1));
    QVERIFY(log.phases[0].kind == MeasuredPhase::Kind::Step);
    QCOMPARE(log.phases[0].end, ref.json[1]["step_time_s"].get<double>());
    // Drawn under the predicted stages; its tooltip names what runs there.
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    // The dock beside the pipeline never widens the window past a 1280-pixel screen (its
    // header's file name once set its minimum width).
    QVERIFY2(f.window.minimumSizeHint().width() <= 1280,
        qPrintable(QString::number(f.window.minimumSizeHint().width())));
    int lastStageEvent = -1;
    for (int i = 0; i < static_cast<int>(canvas->timeline().events.size()); ++i)
        if (canvas->timeline().events[static_cast<std::size_t>(i)].stage == 1)
            lastStageEvent = i;
    QVERIFY(lastStageEvent >= 0);
    const QRectF bar = canvas->measuredPhaseRect(1, 0);
    QVERIFY(bar.top() > canvas->eventCenter(lastStageEvent).y());
    QVERIFY(canvas->measuredPhaseRect(0, 0).top() > canvas->eventCenter(lastStageEvent).y());
    QVERIFY(bar.top() > canvas->measuredPhaseRect(0, 0).top());
    const QString tip = canvas->toolTipAt(bar.center().toPoint());
    QVERIFY2(tip.contains(QStringLiteral("megatron.log")) && tip.contains(QStringLiteral("step")),
        qPrintable(tip));

    // (b) The table of the trace: step, compute, then tp, pp, dp with the study's figures.
    MeasuredPanel *panel = c->panel();
    QCOMPARE(panel->runBox()->count(), 2);
    QCOMPARE(panel->currentRun(), 0);
    QTableWidget *t = panel->table();
    QCOMPARE(t->rowCount(), static_cast<int>(ref.runs[0].rows.size()));
    const auto rowOf = [t](const QString &what) {
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->item(r, 0)->text() == what)
                return r;
        return -1;
    };
    const int stepRow = rowOf(QStringLiteral("step"));
    QCOMPARE(stepRow, 0);
    QCOMPARE(t->item(stepRow, 1)->text(), chartformat::seconds(tj["step_time_s"].get<double>()));
    QCOMPARE(t->item(stepRow, 2)->text(),
        chartformat::seconds(tj["predicted_step_time_s"].get<double>()));
    QCOMPARE(
        t->item(stepRow, 3)->text(), MeasuredPanel::errorText(tj["step_time_error"].get<double>()));
    const int computeRow = rowOf(QStringLiteral("compute"));
    QVERIFY(computeRow > 0);
    QCOMPARE(t->item(computeRow, 1)->text(), chartformat::seconds(0.0068)); // README: step 3
    QCOMPARE(t->item(computeRow, 2)->text(),
        chartformat::seconds(tj["predicted_compute_time_s"].get<double>()));
    for (const char *d : { "tp", "pp", "dp" }) {
        const int r = rowOf(QString::fromLatin1(d) + QStringLiteral(" exposed communication"));
        QVERIFY2(r > 0, d);
        const double measured = tj["exposed_s"][d]["measured_s"].get<double>();
        const double predicted = tj["exposed_s"][d]["predicted_s"].get<double>();
        QCOMPARE(t->item(r, 1)->text(), chartformat::seconds(measured));
        QCOMPARE(t->item(r, 2)->text(), chartformat::seconds(predicted));
        QCOMPARE(
            t->item(r, 3)->text(), MeasuredPanel::errorText((predicted - measured) / measured));
    }
    // The README's step 3: TP 1.2 ms, PP 0.5 ms exposed.
    QCOMPARE(t->item(rowOf(QStringLiteral("tp exposed communication")), 1)->text(),
        chartformat::seconds(0.0012));
    QCOMPARE(t->item(rowOf(QStringLiteral("pp exposed communication")), 1)->text(),
        chartformat::seconds(0.0005));
    // The why line: the study's sentence, word for word.
    QCOMPARE(panel->whyLabel()->text(),
        QStringLiteral("Why: ") + QString::fromStdString(tj["why"].get<std::string>()));
    QVERIFY(panel->whyLabel()->text().contains(QStringLiteral("differs most is")));

    // The log's table has the step only, and its why says what a log cannot tell.
    panel->runBox()->setCurrentIndex(1);
    QCOMPARE(t->rowCount(), 1);
    QCOMPARE(t->item(0, 1)->text(), chartformat::seconds(ref.json[1]["step_time_s"].get<double>()));
    QVERIFY(panel->whyLabel()->text().contains(QStringLiteral("a profiler trace tells")));

    // Another document: nothing of the files is left.
    c->startClean();
    QVERIFY(canvas->measuredLanes().empty());
    QCOMPARE(panel->table()->rowCount(), 0);
    QVERIFY(!c->dockWidget()->isVisibleTo(&f.window));
}

void TestMeasuredView::fitComputeShowsInSummary()
{
    Fixture f;
    f.doc()->load(traceJob());
    f.doc()->waitForEvaluation();
    MeasuredController *c = f.controller();
    QVERIFY(c->openFiles({ sample("kineto-trace.json") }));
    SummaryBar *bar = f.window.summaryBar();
    QVERIFY(!bar->computeBadge()->isVisibleTo(&f.window));
    QVERIFY(!bar->calibratedBadge()->isVisibleTo(&f.window));
    const double measured = c->comparison().runs[0].stepTime;
    const double before = f.doc()->report().iterationTime;
    QVERIFY(std::abs(before - measured) / measured > 0.01); // there is something to fit

    const int steps = f.doc()->undoStack()->count();
    QVERIFY(c->panel()->fitButton()->isEnabled());
    QTest::mouseClick(c->panel()->fitButton(), Qt::LeftButton);
    f.doc()->waitForEvaluation();
    QVERIFY2(f.dialogs->errors.isEmpty(), qPrintable(f.dialogs->errors.join('\n')));
    QCOMPARE(f.doc()->undoStack()->count(), steps + 1);
    // The whole engine now predicts the measured step (the fit's bisection tolerance).
    QVERIFY2(std::abs(f.doc()->report().iterationTime - measured) / measured < 0.01,
        qPrintable(QString::number(f.doc()->report().iterationTime)));
    // The table followed the new report: the step's error is about zero.
    QVERIFY(c->panel()->table()->item(0, 3)->text().startsWith(QStringLiteral("+0."))
        || c->panel()->table()->item(0, 3)->text().startsWith(QStringLiteral("-0.")));
    // The summary bar: compute calibrated, from which file, device and date.
    QLabel *badge = bar->computeBadge();
    QVERIFY(badge->isVisibleTo(&f.window));
    const QString today = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd"));
    QVERIFY2(badge->text().contains(QStringLiteral("compute")), qPrintable(badge->text()));
    QVERIFY2(
        badge->text().contains(QStringLiteral("kineto-trace.json")), qPrintable(badge->text()));
    QVERIFY2(badge->text().contains(QString::fromStdString(f.doc()->scenario().device.name)),
        qPrintable(badge->text()));
    QVERIFY2(badge->text().contains(today), qPrintable(badge->text()));
    QVERIFY(badge->toolTip().contains(QStringLiteral("max efficiency")));
    QVERIFY(!bar->calibratedBadge()->isVisibleTo(&f.window)); // no network calibration
    // The bar as a 1280-pixel window shows it, for the eye (RAILYARD_SCREENSHOT_DIR).
    const QByteArray dir = qgetenv("RAILYARD_SCREENSHOT_DIR");
    if (!dir.isEmpty()) {
        f.window.resize(1280, 720);
        f.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&f.window));
        QVERIFY(
            bar->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/summary-compute.png")));
    }

    // Undo takes the efficiency back, and the badge with it; redo brings both.
    f.doc()->undoStack()->undo();
    f.doc()->waitForEvaluation();
    QVERIFY(!badge->isVisibleTo(&f.window));
    QCOMPARE(f.doc()->report().iterationTime, before);
    f.doc()->undoStack()->redo();
    f.doc()->waitForEvaluation();
    QVERIFY(badge->isVisibleTo(&f.window));
}

void TestMeasuredView::networkBadgeNamesItsSource()
{
    Fixture f;
    Scenario s = traceJob();
    CalibratedTier tier;
    tier.tier = Tier::Leaf;
    tier.stepLatencyUs = 8.0;
    tier.bandwidthScale = 0.9;
    tier.runs = 2;
    s.calibration.measuredAt = "2026-08-20T10:00:00Z";
    s.calibration.tiers.push_back(tier);
    s.calibration.runs.resize(2);
    s.calibration.runs[0].file = "dp-allreduce.log";
    s.calibration.runs[1].file = "tp-allreduce.log";
    f.doc()->load(s);
    f.doc()->waitForEvaluation();
    QLabel *badge = f.window.summaryBar()->calibratedBadge();
    QVERIFY(badge->isVisibleTo(&f.window));
    QVERIFY2(badge->text().contains(QStringLiteral("network"))
            && badge->text().contains(QStringLiteral("nccl-tests"))
            && badge->text().contains(QStringLiteral("2 runs · 2026-08-20")),
        qPrintable(badge->text()));
}

void TestMeasuredView::malformedFileKeepsWhatWasOpen()
{
    Fixture f;
    f.doc()->load(traceJob());
    f.doc()->waitForEvaluation();
    MeasuredController *c = f.controller();
    QVERIFY(c->openFiles({ sample("kineto-trace.json") }));
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.log"));
    QFile file(bad);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(" iteration        1/  10 | elapsed time per iteration (ms): 1000.0 |\n"
               " iteration        2/  10 | elapsed time per iteration (ms): nan |\n");
    file.close();
    QVERIFY(!c->openFiles({ bad }));
    QCOMPARE(f.dialogs->errors.size(), 1);
    QVERIFY2(f.dialogs->errors.front().contains(QStringLiteral("bad.log:2")),
        qPrintable(f.dialogs->errors.front()));
    // The trace stays open and drawn.
    QCOMPARE(c->comparison().runs.size(), std::size_t(1));
    QCOMPARE(f.window.timelineView()->canvas()->measuredLanes().size(), std::size_t(1));
    // nccl-tests output is no training log: refused with what it is for.
    const QString nccl = dir.filePath(QStringLiteral("nccl.txt"));
    QFile n(nccl);
    QVERIFY(n.open(QIODevice::WriteOnly));
    n.write("# nThread 1 nGpus 1\n");
    n.close();
    QVERIFY(!c->openFiles({ nccl }));
    QVERIFY(f.dialogs->errors.back().contains(QStringLiteral("calibrates the network")));
}

QTEST_MAIN(TestMeasuredView)
#include "tst_measuredview.moc"
