// railyard-cli calibrate with training logs and profiler traces (tests/data/training-logs,
// written here in each tool's format): the steady step time and, from the trace, the exposed
// time per dimension beside the prediction, in text and --json; nccl-tests logs mixed in still
// fit; --step-time alone; bad files exit 1 naming file and line and write nothing.
#include "base/sha256.h"
#include "clirun.h"
#include "cost/costengine.h"
#include "fixtures.h"
#include "scenario/scenariofile.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace railyard;

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/training-logs/") + QLatin1String(name);
}

/// The job of the samples: two 8-GPU servers, TP 4, PP 2, DP 2 (Megatron's rank order).
QString writeJob(const QTemporaryDir &dir)
{
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(4, 2, 2));
    const QString file = dir.filePath(QStringLiteral("job.json"));
    saveScenario(s, file.toStdString());
    return file;
}

nlohmann::json runJson(const QStringList &args, int expectedExit = 0)
{
    const CliRun r = runRailyardCli(args);
    if (r.exitCode != expectedExit) {
        qWarning("%s", r.err.constData());
        return nullptr;
    }
    return nlohmann::json::parse(r.out.toStdString());
}

} // namespace

class TestCliCalibrateTraining : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void logs();
    void trace();
    void evaluateMeasured();
    void stepTimeAndMixed();
    void computeOut();
    void badInput_data();
    void badInput();
};

void TestCliCalibrateTraining::logs()
{
    QTemporaryDir dir;
    const QString job = writeJob(dir);
    const double predicted = CostEngine(loadScenario(job.toStdString())).report().iterationTime;
    const nlohmann::json j = runJson(
        { QStringLiteral("calibrate"), job, QStringLiteral("--measured"), sample("megatron.log"),
            sample("nemo2.log"), sample("torchtitan.log"), QStringLiteral("--json") });
    QVERIFY(j.is_object());
    QVERIFY(j.at("calibration").is_null());
    const nlohmann::json &t = j.at("training");
    QCOMPARE(static_cast<int>(t.size()), 3);
    QCOMPARE(t[0].at("format").get<std::string>(), std::string("megatron"));
    QCOMPARE(t[0].at("step_time_s").get<double>(), 1.2506);
    QCOMPARE(t[0].at("skipped_steps").get<int>(), 2);
    QCOMPARE(t[0].at("used_steps").get<int>(), 5);
    QCOMPARE(t[0].at("predicted_step_time_s").get<double>(), predicted);
    QVERIFY(std::fabs(t[0].at("step_time_error").get<double>() - (predicted - 1.2506) / 1.2506)
        < 1e-12);
    QVERIFY(std::fabs(t[0].at("memory_peak_gib").get<double>() - 61234.5 / 1024.0) < 1e-12);
    QCOMPARE(t[1].at("step_time_s").get<double>(), 2.304);
    // torchtitan: a step is tokens per step / (tps x GPUs); step 1 is skipped, the median of
    // the times of tps 5480, 5605, 5598, 5611 is the mean of those of 5605 and 5598.
    QCOMPARE(t[2].at("step_time_from").get<std::string>(), std::string("tps"));
    const Scenario s = loadScenario(job.toStdString());
    const double tokens = static_cast<double>(s.training.globalBatch) * s.model.seq / 16.0;
    const double expected = 0.5 * (tokens / 5605.0 + tokens / 5598.0);
    QVERIFY2(
        std::fabs(t[2].at("step_time_s").get<double>() - expected) < 1e-9, t[2].dump().c_str());
    // The text says the same.
    const CliRun text = runRailyardCli({ QStringLiteral("calibrate"), job,
        QStringLiteral("--measured"), sample("megatron-srun.log") });
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("median of 5 steady steps; skipped 2"), text.out.constData());
    QVERIFY(text.out.contains("predicted"));
}

void TestCliCalibrateTraining::trace()
{
    QTemporaryDir dir;
    const QString job = writeJob(dir);
    const CostReport report = CostEngine(loadScenario(job.toStdString())).report();
    const nlohmann::json j = runJson({ QStringLiteral("calibrate"), job,
        QStringLiteral("--measured"), sample("kineto-trace.json"), QStringLiteral("--json") });
    QVERIFY(j.is_object());
    const nlohmann::json &t = j.at("training").at(0);
    QCOMPARE(t.at("format").get<std::string>(), std::string("kineto-trace"));
    QCOMPARE(t.at("rank").get<int>(), 0);
    // Two steps: the first skipped, the second used (README: TP 1.2, DP 1.0, PP 0.5 ms).
    QCOMPARE(t.at("skipped_steps").get<int>(), 1);
    QVERIFY(std::fabs(t.at("step_time_s").get<double>() - 0.010) < 1e-9);
    QVERIFY(std::fabs(t.at("compute_time_s").get<double>() - 0.0068) < 1e-9);
    const nlohmann::json &e = t.at("exposed_s");
    QVERIFY(std::fabs(e.at("tp").at("measured_s").get<double>() - 0.0012) < 1e-9);
    QVERIFY(std::fabs(e.at("dp").at("measured_s").get<double>() - 0.0010) < 1e-9);
    QVERIFY(std::fabs(e.at("pp").at("measured_s").get<double>() - 0.0005) < 1e-9);
    QCOMPARE(
        e.at("tp").at("predicted_s").get<double>(), report.dimExposed[static_cast<int>(Dim::Tp)]);
    QCOMPARE(e.at("cp").at("traced").get<bool>(), false);
    QCOMPARE(t.at("unassigned_exposed_s").get<double>(), 0.0);
    // Each group with its dimension and the layout's group kind.
    int matched = 0;
    for (const nlohmann::json &g : t.at("groups"))
        matched += !g.at("dimension").is_null();
    QCOMPARE(matched, 3);

    // Why the step differs: the engine's compute on rank 0's stage (its micro-batches, global
    // batch / (micro-batch x dp), times its forward and backward per micro-batch) and each
    // traced dimension's exposed time; the sentence names the part whose figures differ most.
    const Scenario sc = loadScenario(job.toStdString());
    const int m = sc.training.globalBatch / (sc.training.microBatch * sc.degrees.dp);
    const double computePredicted
        = m * (report.stages[0].computeForward + report.stages[0].computeBackward);
    QVERIFY(std::fabs(t.at("predicted_compute_time_s").get<double>() - computePredicted)
        < 1e-12 * std::max(1.0, computePredicted));
    std::string largest = "compute";
    double gap = std::fabs(0.0068 - computePredicted);
    for (const char *dim : { "tp", "dp", "pp" }) {
        const double d = std::fabs(
            e.at(dim).at("measured_s").get<double>() - e.at(dim).at("predicted_s").get<double>());
        if (d > gap) {
            gap = d;
            largest = std::string(dim) + " exposed communication";
        }
    }
    const std::string why = t.at("why").get<std::string>();
    QVERIFY2(why.find("differs most is " + largest + ":") != std::string::npos, why.c_str());
    QVERIFY2(why.find("the step took 10 ms") != std::string::npos, why.c_str());
}

// evaluate --measured: the same comparison beside the evaluation (JSON "measured" equals
// calibrate's "training"); an nccl-tests log is refused there, nothing written.
void TestCliCalibrateTraining::evaluateMeasured()
{
    QTemporaryDir dir;
    const QString job = writeJob(dir);
    const nlohmann::json cal = runJson({ QStringLiteral("calibrate"), job,
        QStringLiteral("--measured"), sample("kineto-trace.json"), QStringLiteral("--json") });
    const nlohmann::json ev = runJson({ QStringLiteral("evaluate"), job,
        QStringLiteral("--measured"), sample("kineto-trace.json"), QStringLiteral("--json") });
    QVERIFY(cal.is_object() && ev.is_object());
    QCOMPARE(ev.at("measured"), cal.at("training"));
    const CliRun text = runRailyardCli({ QStringLiteral("evaluate"), job,
        QStringLiteral("--measured"), sample("megatron.log"), sample("kineto-trace.json") });
    QVERIFY2(text.exitCode == 0, text.err.constData());
    QVERIFY(text.out.contains("Measured beside predicted"));
    QVERIFY(text.out.contains("why: the step took"));
    const QString out = dir.filePath(QStringLiteral("out.json"));
    const QString nccl
        = QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/published/nccl-tests/"
                                             "nvidia-dgxc-dgx-h100-1node-all_reduce.txt");
    const CliRun refused = runRailyardCli({ QStringLiteral("evaluate"), job,
        QStringLiteral("--measured"), nccl, QStringLiteral("--json"), QStringLiteral("-o"), out });
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("calibrate"), refused.err.constData());
    QVERIFY(!QFile::exists(out));
}

void TestCliCalibrateTraining::stepTimeAndMixed()
{
    QTemporaryDir dir;
    const QString job = writeJob(dir);
    const nlohmann::json j = runJson({ QStringLiteral("calibrate"), job,
        QStringLiteral("--step-time"), QStringLiteral("2.5"), QStringLiteral("--json") });
    QVERIFY(j.is_object());
    QCOMPARE(j.at("training").at(0).at("format").get<std::string>(), std::string("step-time"));
    QCOMPARE(j.at("training").at(0).at("step_time_s").get<double>(), 2.5);
    // A published nccl-tests log beside a training log: the network fit and the comparison.
    const QString nccl
        = QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/published/nccl-tests/"
                                             "nvidia-dgxc-dgx-h100-1node-all_reduce.txt");
    const CliRun mixed = runRailyardCli({ QStringLiteral("calibrate"), job,
        QStringLiteral("--measured"), nccl, sample("nemo-progressbar.log"), QStringLiteral("--run"),
        QStringLiteral("0-7=") + nccl });
    QVERIFY2(mixed.exitCode == 0, mixed.err.constData());
    QVERIFY(mixed.out.contains("scale_up"));
    QVERIFY(mixed.out.contains("measured beside predicted"));
}

void TestCliCalibrateTraining::computeOut()
{
    QTemporaryDir dir;
    const QString job = writeJob(dir);
    const double predicted = CostEngine(loadScenario(job.toStdString())).report().iterationTime;
    // A NeMo 2 log of a job 30 % slower than predicted (its first step a warm-up).
    const QString log = dir.filePath(QStringLiteral("nemo.log"));
    {
        QFile f(log);
        QVERIFY(f.open(QIODevice::WriteOnly));
        for (int i = 0; i < 4; ++i)
            f.write(QStringLiteral(
                "Training epoch 0, iteration %1/9 | global_step: %1 | reduced_train_loss: 1.0 | "
                "train_step_timing in s: %2\n")
                        .arg(i)
                        .arg(i == 0 ? 5.0 * predicted : 1.3 * predicted, 0, 'g', 17)
                        .toUtf8());
    }
    const QString cal = dir.filePath(QStringLiteral("cal.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("calibrate"), job,
        QStringLiteral("--measured"), log, QStringLiteral("--compute-out"), cal });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("compute fit"), r.out.constData());
    QFile f(cal);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const nlohmann::json c
        = nlohmann::json::parse(f.readAll().toStdString()).at("calibration").at("compute");
    QCOMPARE(c.at("version").get<int>(), 1);
    // The job names no stack; a NeMo log is a format, not a stack, so the stack is "unknown".
    QCOMPARE(c.at("stack").get<std::string>(), std::string("unknown"));
    QCOMPARE(c.at("log_format").get<std::string>(), std::string("nemo"));
    QCOMPARE(c.at("device").get<std::string>(), loadScenario(job.toStdString()).device.name);
    QCOMPARE(c.at("provenance").at("files").at(0).at("sha256").get<std::string>(),
        sha256OfFile(log.toStdString()));
    // Slower than predicted: a lower efficiency than the table's, and the engine then predicts
    // the measured step.
    QVERIFY(c.at("max_efficiency").get<double>() < c.at("table_max_efficiency").get<double>());
    QVERIFY(std::fabs(c.at("predicted_step_time_s").at("after").get<double>() - 1.3 * predicted)
        < 1e-6 * predicted);
    QVERIFY(!c.at("provenance").at("measured_at").get<std::string>().empty());
    // --calibration-out is the same option: the same fit, the same section (but its time).
    const QString calAlias = dir.filePath(QStringLiteral("cal-alias.json"));
    const CliRun alias = runRailyardCli({ QStringLiteral("calibrate"), job,
        QStringLiteral("--measured"), log, QStringLiteral("--calibration-out"), calAlias });
    QVERIFY2(alias.exitCode == 0, alias.err.constData());
    QFile g(calAlias);
    QVERIFY(g.open(QIODevice::ReadOnly));
    nlohmann::json a
        = nlohmann::json::parse(g.readAll().toStdString()).at("calibration").at("compute");
    a["provenance"]["measured_at"] = c.at("provenance").at("measured_at");
    QCOMPARE(a.dump(), c.dump());

    // Carried to another layout of the same device (4 servers, TP 8 x DP 4): evaluate
    // --calibration predicts with the fitted efficiency, exactly as the scenario with that
    // device efficiency set by hand; generate --calibration writes it into the scenario.
    Scenario big = fixtures::smallDense(4, 8, fixtures::degrees(8, 1, 4));
    const QString bigFile = dir.filePath(QStringLiteral("big.json"));
    saveScenario(big, bigFile.toStdString());
    const nlohmann::json carried = runJson({ QStringLiteral("evaluate"), bigFile,
        QStringLiteral("--calibration"), cal, QStringLiteral("--json") });
    QVERIFY(carried.is_object());
    Scenario byHand = big;
    byHand.device.maxEfficiency = c.at("max_efficiency").get<double>();
    byHand.device.kernelOverheadUs = c.at("kernel_overhead_us").get<double>();
    const double expected = CostEngine(byHand).report().iterationTime;
    QVERIFY(std::fabs(carried.at("iteration_time_s").get<double>() - expected) <= 1e-9 * expected);
    QVERIFY(std::fabs(carried.at("iteration_time_s").get<double>()
                - CostEngine(big).report().iterationTime)
        > 1e-6 * expected);
    QCOMPARE(carried.at("compute_calibration").at("file").get<std::string>(), cal.toStdString());
    const CliRun text = runRailyardCli(
        { QStringLiteral("evaluate"), bigFile, QStringLiteral("--calibration"), cal });
    QVERIFY2(text.out.contains("compute calibration "), text.out.constData());
    // Another device: refused with both named, nothing written.
    Scenario other = big;
    other.device.name = "a100-80g";
    const QString otherFile = dir.filePath(QStringLiteral("other.json"));
    saveScenario(other, otherFile.toStdString());
    const QString out = dir.filePath(QStringLiteral("out.json"));
    const CliRun refused = runRailyardCli({ QStringLiteral("evaluate"), otherFile,
        QStringLiteral("--calibration"), cal, QStringLiteral("-o"), out });
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(
        refused.err.contains("was measured on device " + QByteArray::fromStdString(big.device.name)
            + "; the scenario's device is a100-80g"),
        refused.err.constData());
    QVERIFY(!QFile::exists(out));

    // Two step times: which one to fit is not said; refused, nothing written.
    const QString cal2 = dir.filePath(QStringLiteral("cal2.json"));
    const CliRun two = runRailyardCli({ QStringLiteral("calibrate"), job,
        QStringLiteral("--measured"), log, QStringLiteral("--step-time"), QStringLiteral("1"),
        QStringLiteral("--compute-out"), cal2 });
    QCOMPARE(two.exitCode, 1);
    QVERIFY2(two.err.contains("--compute-out: fits one measured step time"), two.err.constData());
    QVERIFY(!QFile::exists(cal2));
    // A step faster than the engine at 100 % efficiency: not compute; refused.
    const CliRun fast
        = runRailyardCli({ QStringLiteral("calibrate"), job, QStringLiteral("--step-time"),
            QString::number(predicted * 1e-3, 'g', 17), QStringLiteral("--compute-out"), cal2 });
    QCOMPARE(fast.exitCode, 1);
    QVERIFY2(fast.err.contains("faster than the engine predicts at 100 %"), fast.err.constData());
    QVERIFY(!QFile::exists(cal2));
}

void TestCliCalibrateTraining::badInput_data()
{
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("message");
    QTest::newRow("megatron nan")
        << QStringLiteral("hello\n iteration 10/ 100 | elapsed time per iteration (ms): nan |\n")
        << QStringLiteral(":2: 'elapsed time per iteration (ms):' is not a finite number");
    QTest::newRow("trace syntax") << QStringLiteral("{\"traceEvents\": [\n{\"ph\": \"X\",,}]}")
                                  << QStringLiteral(":2: not valid JSON");
    QTest::newRow("trace dur") << QStringLiteral(
        "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, "
        "\"dur\": -1}]}") << QStringLiteral(": traceEvents[0].dur: must not be negative");
}

void TestCliCalibrateTraining::badInput()
{
    QFETCH(QString, content);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString job = writeJob(dir);
    const QString bad = dir.filePath(QStringLiteral("bad.log"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(content.toUtf8());
    f.close();
    const QString out = dir.filePath(QStringLiteral("out.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("calibrate"), job,
        QStringLiteral("--measured"), bad, sample("megatron.log"), QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains((bad + message).toUtf8()), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

QTEST_GUILESS_MAIN(TestCliCalibrateTraining)
#include "tst_cli_calibratetraining.moc"
