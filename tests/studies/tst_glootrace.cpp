// The real profiler: tests/data/make_gloo_trace.py runs a 2-process gloo job on CPU under
// Debian's python3-torch (1.13.1) with two process groups over ranks {0, 1} - the default one
// and dist.new_group([0, 1]) - and torch.profiler exports each rank's Chrome trace. The reader
// (io/kinetotrace.h) reads them as that release writes them, and the comparison
// (studies/trainingcomparison.h) against a 2-rank data-parallel scenario ties every collective
// of both groups to dp: the trace carries no process-group args, and dp is the layout's only
// dimension above 1. Skipped (QSKIP) only when `python3 -c 'import torch'` fails.
#include "cost/costengine.h"
#include "fixtures.h"
#include "io/kinetotrace.h"
#include "studies/trainingcomparison.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace railyard;

namespace {

// Debian's interpreter, which python3-torch installs into (not a pyenv shim on PATH).
const QString kPython = QStringLiteral("/usr/bin/python3");

} // namespace

class TestGlooTrace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void readerAssignsBothGroupsToDp();

private:
    QTemporaryDir m_dir;
};

void TestGlooTrace::initTestCase()
{
    QProcess probe;
    probe.start(kPython, { QStringLiteral("-c"), QStringLiteral("import torch") });
    if (!probe.waitForFinished(120000) || probe.exitStatus() != QProcess::NormalExit
        || probe.exitCode() != 0) {
        if (probe.state() != QProcess::NotRunning) {
            probe.kill();
            probe.waitForFinished(5000);
        }
        QSKIP("python3 -c 'import torch' fails: install python3-torch (railyard.sh's list) to "
              "run the real profiler");
    }
    QVERIFY(m_dir.isValid());
    // The job: two processes the script spawns and joins; it ends with them. On a loaded
    // machine importing torch twice takes tens of seconds, hence the generous limit.
    QProcess job;
    job.setProcessChannelMode(QProcess::MergedChannels);
    job.start(kPython,
        { QString::fromUtf8(RAILYARD_SOURCE_DIR) + QStringLiteral("/tests/data/make_gloo_trace.py"),
            m_dir.path() });
    QVERIFY2(job.waitForStarted(30000), qPrintable(job.errorString()));
    if (!job.waitForFinished(240000)) {
        job.kill(); // its two processes die with it (PR_SET_PDEATHSIG in the script)
        job.waitForFinished(10000);
        QFAIL("make_gloo_trace.py did not finish in 240 s");
    }
    QVERIFY2(
        job.exitStatus() == QProcess::NormalExit && job.exitCode() == 0, job.readAll().constData());
}

void TestGlooTrace::readerAssignsBothGroupsToDp()
{
    for (const char *name : { "/rank0.json", "/rank1.json" }) {
        const std::string path = m_dir.path().toStdString() + name;
        // Told from its content, as calibrate and the explorer tell it.
        QVERIFY(measuredFileFormat(path) == MeasurementFormat::KinetoTrace);
        const KinetoTrace t = readKinetoTrace(path);
        QVERIFY(t.cpuTrace);
        QCOMPARE(t.windows.size(), std::size_t(3)); // the three recorded steps
        // Per step: all-reduce on the default group, all-reduce and broadcast on the second.
        QCOMPARE(t.ncclKernels, 9LL);
        QCOMPARE(t.ungroupedNcclKernels, 9LL);
        for (const TraceStepMeasure &s : traceStepsByGroup(t)) {
            QVERIFY(s.computeTime > 0.0 && s.computeTime < s.stepTime);
            QVERIFY(s.commTime > 0.0 && s.exposedComm <= s.commTime + 1e-12);
        }

        // Compared with 2 ranks, data-parallel only (one 2-GPU server).
        const CostEngine engine(fixtures::smallDense(1, 2, fixtures::degrees(1, 1, 2)));
        const TrainingComparison c
            = compareTraining(engine, { path }, { MeasurementFormat::KinetoTrace }, 0.0);
        QCOMPARE(c.json.size(), std::size_t(1));
        const nlohmann::json &j = c.json[0];
        QCOMPARE(j["ungrouped_dimension"].get<std::string>(), std::string("dp"));
        QVERIFY(j["exposed_s"]["dp"]["traced"].get<bool>());
        QVERIFY(j["exposed_s"]["dp"]["measured_s"].get<double>() > 0.0);
        QVERIFY(!j["exposed_s"]["tp"]["traced"].get<bool>());
        QCOMPARE(j["unassigned_exposed_s"].get<double>(), 0.0);
        // The lane of the typical step: its three collectives, each on dp, beside compute.
        QCOMPARE(c.runs.size(), std::size_t(1));
        int dp = 0, other = 0, compute = 0;
        for (const MeasuredPhase &p : c.runs[0].phases) {
            if (p.kind == MeasuredPhase::Kind::Compute)
                ++compute;
            else if (p.kind == MeasuredPhase::Kind::Communication)
                (p.dim == Dim::Dp ? dp : other) += 1;
        }
        QCOMPARE(dp, 3);
        QCOMPARE(other, 0);
        QVERIFY(compute >= 2); // the two matrix products at least
        QVERIFY2(c.runs[0].why.find("step took") != std::string::npos, c.runs[0].why.c_str());
    }
}

QTEST_GUILESS_MAIN(TestGlooTrace)
#include "tst_glootrace.moc"
