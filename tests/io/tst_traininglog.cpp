// The training-log readers (model/io/traininglog.cpp) on samples written here in the formats of
// Megatron-LM, NeMo (1.x progress bar, 2.x printer), torchtitan and Composer
// (tests/data/training-logs, README there), on the ways consoles keep them (launcher labels, ANSI
// colours, timestamps,
// '\r' redraws, text around) and on malformed lines, which must be refused with file and line.
#include "base/scenarioerror.h"
#include "io/traininglog.h"

#include <QTest>

#include <fstream>
#include <sstream>

using namespace railyard;

namespace {

std::string sample(const std::string &name)
{
    return std::string(RAILYARD_SOURCE_DIR) + "/tests/data/training-logs/" + name;
}

std::string slurp(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

QString errorOf(const std::string &text, MeasurementFormat format)
{
    try {
        parseTrainingLog(text, "bad.log", format);
    } catch (const ScenarioError &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

std::vector<double> stepTimes(const TrainingLog &log)
{
    std::vector<double> out;
    for (const TrainingStep &s : log.steps)
        out.push_back(s.stepTime);
    return out;
}

} // namespace

class TestTrainingLog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void detection_data();
    void detection();
    void megatron();
    void megatronLabelled();
    void nemoProgressBar();
    void nemo2();
    void torchtitan();
    void composer();
    void embeddedAndPrefixed();
    void steadyState();
    void malformed_data();
    void malformed();
};

void TestTrainingLog::detection_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("format");
    QTest::newRow("megatron") << "megatron.log"
                              << "megatron";
    QTest::newRow("megatron srun") << "megatron-srun.log"
                                   << "megatron";
    QTest::newRow("nemo bar") << "nemo-progressbar.log"
                              << "nemo";
    QTest::newRow("nemo 2") << "nemo2.log"
                            << "nemo";
    QTest::newRow("torchtitan") << "torchtitan.log"
                                << "torchtitan";
    QTest::newRow("composer") << "composer.log"
                              << "composer";
    QTest::newRow("kineto") << "kineto-trace.json"
                            << "kineto-trace";
}

void TestTrainingLog::detection()
{
    QFETCH(QString, file);
    QFETCH(QString, format);
    const std::string text = slurp(sample(file.toStdString()));
    QVERIFY(!text.empty());
    QCOMPARE(
        QString::fromStdString(std::string(measurementFormatName(detectMeasurementFormat(text)))),
        format);
    // nccl-tests output is none of these.
    QCOMPARE(detectMeasurementFormat("#  Rank  0 Group  0 Pid 1 on node device 0\n"),
        MeasurementFormat::NcclTests);
    QCOMPARE(detectMeasurementFormat("{\"nccl_version\": 22602, \"results\": []}"),
        MeasurementFormat::NcclTests);
}

void TestTrainingLog::megatron()
{
    const TrainingLog log = readTrainingLog(sample("megatron.log"));
    QCOMPARE(log.format, MeasurementFormat::Megatron);
    QCOMPARE(static_cast<int>(log.steps.size()), 7); // the validation line is not a step
    QCOMPARE(log.steps.front().step, 1LL);
    QCOMPARE(log.steps.front().stepTime, 9.8765);
    QCOMPARE(log.steps[1].step, 10LL);
    QCOMPARE(log.steps[1].stepTime, 1.4002);
    QCOMPARE(log.steps[1].tflopsPerGpu, 366.2);
    QCOMPARE(log.steps[1].line, 6);
    QCOMPARE(log.steps.back().step, 60LL);
    // Two ranks' memory reports: the larger max allocated / reserved.
    QCOMPARE(log.maxAllocatedMiB, 61234.5);
    QCOMPARE(log.maxReservedMiB, 66000.0);
    const SteadyStepTime s = steadyStepTime(stepTimes(log));
    QCOMPARE(s.skipped, 2); // iteration 1 and the unsettled iteration 10
    QCOMPARE(s.used, 5);
    QCOMPARE(s.median, 1.2506);
}

void TestTrainingLog::megatronLabelled()
{
    const TrainingLog plain = readTrainingLog(sample("megatron.log"));
    const TrainingLog labelled = readTrainingLog(sample("megatron-srun.log"));
    QCOMPARE(stepTimes(labelled), stepTimes(plain));
    QCOMPARE(labelled.maxAllocatedMiB, plain.maxAllocatedMiB);
}

void TestTrainingLog::nemoProgressBar()
{
    const TrainingLog log = readTrainingLog(sample("nemo-progressbar.log"));
    QCOMPARE(log.format, MeasurementFormat::NeMo);
    QCOMPARE(static_cast<int>(log.steps.size()), 8);
    QCOMPARE(log.repeatedLines, 8); // every step drawn twice
    QCOMPARE(log.steps.front().step, 0LL); // global_step=0.000
    QCOMPARE(log.steps.front().stepTime, 7.912);
    QCOMPARE(log.steps.back().step, 7LL);
    QCOMPARE(log.steps.back().line, 4); // '\r' redraws share one line
    const SteadyStepTime s = steadyStepTime(stepTimes(log));
    QCOMPARE(s.skipped, 1);
    QCOMPARE(s.median, 3.131);
}

void TestTrainingLog::nemo2()
{
    const TrainingLog log = readTrainingLog(sample("nemo2.log"));
    QCOMPARE(static_cast<int>(log.steps.size()), 6);
    QCOMPARE(log.steps[1].step, 1LL);
    QCOMPARE(log.steps[1].stepTime, 2.505);
    QCOMPARE(steadyStepTime(stepTimes(log)).median, 2.304);
}

void TestTrainingLog::torchtitan()
{
    const TrainingLog log = readTrainingLog(sample("torchtitan.log"));
    QCOMPARE(log.format, MeasurementFormat::Torchtitan);
    QCOMPARE(static_cast<int>(log.steps.size()), 5); // "validate step:" is not training
    QCOMPARE(log.repeatedLines, 5); // rank 1's lines
    const TrainingStep &s = log.steps[2];
    QCOMPARE(s.step, 20LL);
    QCOMPARE(s.tokensPerSecond, 5605.0);
    QCOMPARE(s.tflopsPerGpu, 324.6);
    QCOMPARE(s.mfuPercent, 32.82);
    QCOMPARE(s.memoryPeakGiB, 67.03);
    QVERIFY(s.stepTime < 0.0); // torchtitan prints no step time
}

void TestTrainingLog::composer()
{
    // Batches 1 and 10 carry no throughput (SpeedMonitor's window is not full yet); from batch
    // 20 on, the step time is 1 / batches_per_sec: 1 / 0.1250 = 8.0 s, then 6.3012, 6.25,
    // 6.2383 and 6.25 s. The steady median leaves batch 20 out: 6.25 s.
    const TrainingLog log = readTrainingLog(sample("composer.log"));
    QCOMPARE(log.format, MeasurementFormat::Composer);
    QCOMPARE(static_cast<int>(log.steps.size()), 5);
    QCOMPARE(log.steps.front().step, 20LL);
    QCOMPARE(log.steps.front().stepTime, 8.0);
    QCOMPARE(log.steps.front().line, 51);
    QCOMPARE(log.steps[1].stepTime, 1.0 / 0.1587);
    QCOMPARE(log.steps.back().step, 60LL);
    const SteadyStepTime s = steadyStepTime(stepTimes(log));
    QCOMPARE(s.skipped, 1);
    QCOMPARE(s.median, 6.25);
    // Behind srun's labels, with the header and a metric on one line, the same steps.
    std::string labelled;
    std::istringstream in(slurp(sample("composer.log")));
    for (std::string line; std::getline(in, line);)
        labelled += "0: " + line + "\n";
    QCOMPARE(stepTimes(parseTrainingLog(labelled, "x.log", MeasurementFormat::Composer)),
        stepTimes(log));
    const TrainingLog oneLine
        = parseTrainingLog("[epoch=1][batch=7/9]: Train throughput/batches_per_sec: 0.5000",
            "y.log", MeasurementFormat::Composer);
    QCOMPARE(oneLine.steps.front().step, 7LL);
    QCOMPARE(oneLine.steps.front().stepTime, 2.0);
}

void TestTrainingLog::embeddedAndPrefixed()
{
    // The same Megatron line behind each launcher label, a timestamp, colour, and inside other
    // text, gives the same step.
    const std::string line
        = " iteration      100/  500000 | consumed samples:        25600 | elapsed "
          "time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): "
          "410.2 | learning rate: 3.000000E-04 |";
    for (const std::string &prefix : { std::string(), std::string("[rank0]: "), std::string("0: "),
             std::string("[1,0]<stdout>:"), std::string("2026-12-06T04:51:00.123Z "),
             std::string("\x1b[32m"), std::string("INFO:megatron:") }) {
        const TrainingLog log
            = parseTrainingLog("some text before\r\n" + prefix + line + "\x1b[0m\r\nafter\n",
                "x.log", MeasurementFormat::Megatron);
        QCOMPARE(static_cast<int>(log.steps.size()), 1);
        QCOMPARE(log.steps[0].step, 100LL);
        QCOMPARE(log.steps[0].stepTime, 1.2345);
        QCOMPARE(log.steps[0].tflopsPerGpu, 410.2);
        QCOMPARE(log.steps[0].line, 2);
    }
    // DLLogger's JSON form of NeMo's metric.
    const TrainingLog dll = parseTrainingLog("DLLL {\"step\": 16, \"data\": {\"global_step\": "
                                             "16.0, \"train_step_timing in s\": 92.28}}\n",
        "x.log", MeasurementFormat::NeMo);
    QCOMPARE(dll.steps[0].step, 16LL);
    QCOMPARE(dll.steps[0].stepTime, 92.28);
}

void TestTrainingLog::steadyState()
{
    // One entry: used as is.
    QCOMPARE(steadyStepTime({ 2.0 }).skipped, 0);
    QCOMPARE(steadyStepTime({ 2.0 }).median, 2.0);
    // Warm-up that decays over three steps: all three go, never more than half.
    const SteadyStepTime s = steadyStepTime({ 9.0, 3.0, 2.5, 2.0, 2.01, 1.99, 2.0, 2.02 });
    QCOMPARE(s.skipped, 3);
    QCOMPARE(s.median, 2.0);
    QVERIFY(s.rule.find("10 %") != std::string::npos);
    QCOMPARE(steadyStepTime({ 9.0, 9.0, 9.0, 1.0 }).skipped, 2); // never more than half
}

void TestTrainingLog::malformed_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("format");
    QTest::addColumn<QString>("message");
    const int meg = static_cast<int>(MeasurementFormat::Megatron);
    const int nemo = static_cast<int>(MeasurementFormat::NeMo);
    const int titan = static_cast<int>(MeasurementFormat::Torchtitan);
    QTest::newRow("nan time")
        << "x\n iteration 10/ 100 | elapsed time per iteration (ms): nan |" << meg
        << "bad.log:2: 'elapsed time per iteration (ms):' is not a finite number";
    QTest::newRow("no number")
        << " iteration 10/ 100 | elapsed time per iteration (ms): | " << meg
        << "bad.log:1: 'elapsed time per iteration (ms):' is not followed by a number";
    QTest::newRow("zero time") << " iteration 10/ 100 | elapsed time per iteration (ms): 0.0 |"
                               << meg
                               << "bad.log:1: 'elapsed time per iteration (ms):' must be positive";
    QTest::newRow("no iteration")
        << "elapsed time per iteration (ms): 12.0 |" << meg
        << "bad.log:1: an 'elapsed time per iteration (ms):' line without";
    QTest::newRow("bad memory")
        << "a\nb\n[Rank 0] (after 1 iterations) memory (MB) | max allocated: x" << meg
        << "bad.log:3: 'max allocated:' is not followed by a number";
    QTest::newRow("no steps") << "hello\nworld\n"
                              << meg << "bad.log:3: no megatron step line in the log";
    QTest::newRow("nemo negative") << "global_step=3, train_step_timing in s=-1.0]" << nemo
                                   << "bad.log:1: 'train_step_timing in s' must be positive";
    QTest::newRow("nemo no separator")
        << "train_step_timing in s 3.0" << nemo
        << "bad.log:1: 'train_step_timing in s' is not followed by '=' or ':'";
    QTest::newRow("nemo no step")
        << "loss=3, train_step_timing in s=3.0" << nemo
        << "bad.log:1: a 'train_step_timing in s' line without global_step";
    QTest::newRow("titan tps") << "\n\nstep: 10  loss: 7.0  tps: abc" << titan
                               << "bad.log:3: 'tps:' is not followed by a number";
    const int composer = static_cast<int>(MeasurementFormat::Composer);
    QTest::newRow("composer zero rate")
        << "[batch=3/9]:\n\t Train throughput/batches_per_sec: 0.0000" << composer
        << "bad.log:2: 'Train throughput/batches_per_sec:' must be positive";
    QTest::newRow("composer no header")
        << "\t Train throughput/batches_per_sec: 0.5" << composer
        << "bad.log:1: 'Train throughput/batches_per_sec:' before any '[batch=N/M]' header";
    QTest::newRow("composer bad batch")
        << "[batch=x/9]:" << composer << "bad.log:1: '[batch=' is not followed by a batch number";
    QTest::newRow("composer no rate") << "[batch=1/9]:\n\t Train loss/train/total: 3.0\n"
                                      << composer << "bad.log:3: no composer step line in the log";
    QTest::newRow("titan zero tps")
        << "step: 10  loss: 7.0  tps: 0" << titan << "bad.log:1: 'tps:' must be positive";
}

void TestTrainingLog::malformed()
{
    QFETCH(QString, text);
    QFETCH(int, format);
    QFETCH(QString, message);
    const QString e = errorOf(text.toStdString(), static_cast<MeasurementFormat>(format));
    QVERIFY2(e.startsWith(message), qPrintable(e));
}

QTEST_GUILESS_MAIN(TestTrainingLog)
#include "tst_traininglog.moc"
