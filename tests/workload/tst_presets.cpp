#include "workload/presets.h"
#include "workload/workloadplan.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace railyard;

class TestPresets : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void modelShapes_data();
    void modelShapes();
    void modelParameterCounts_data();
    void modelParameterCounts();
    void devices_data();
    void devices();
    void fabricDefaults_data();
    void fabricDefaults();
    void namesAndUnknowns();
    void presetsPlan();
};

void TestPresets::modelShapes_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("layers");
    QTest::addColumn<int>("hidden");
    QTest::addColumn<int>("heads");
    QTest::addColumn<int>("kvHeads");
    QTest::addColumn<int>("ffn");
    QTest::addColumn<bool>("gated");
    QTest::addColumn<int>("seq");
    QTest::addColumn<int>("vocab");
    QTest::addColumn<int>("experts");
    QTest::addColumn<int>("topK");

    // GPT-3 paper Table 2.1; Llama 2 paper / config; Llama 3 paper Table 3; Mixtral Table 1.
    QTest::newRow("gpt3-175b") << "gpt3-175b" << 96 << 12288 << 96 << 0 << 49152 << false << 2048
                               << 50257 << 0 << 0;
    QTest::newRow("llama2-70b") << "llama2-70b" << 80 << 8192 << 64 << 8 << 28672 << true << 4096
                                << 32000 << 0 << 0;
    QTest::newRow("llama3-8b") << "llama3-8b" << 32 << 4096 << 32 << 8 << 14336 << true << 8192
                               << 128256 << 0 << 0;
    QTest::newRow("llama3-70b") << "llama3-70b" << 80 << 8192 << 64 << 8 << 28672 << true << 8192
                                << 128256 << 0 << 0;
    QTest::newRow("llama3-405b") << "llama3-405b" << 126 << 16384 << 128 << 8 << 53248 << true
                                 << 8192 << 128256 << 0 << 0;
    QTest::newRow("mixtral-8x7b") << "mixtral-8x7b" << 32 << 4096 << 32 << 8 << 14336 << true
                                  << 32768 << 32000 << 8 << 2;
}

void TestPresets::modelShapes()
{
    QFETCH(QString, name);
    QFETCH(int, layers);
    QFETCH(int, hidden);
    QFETCH(int, heads);
    QFETCH(int, kvHeads);
    QFETCH(int, ffn);
    QFETCH(bool, gated);
    QFETCH(int, seq);
    QFETCH(int, vocab);
    QFETCH(int, experts);
    QFETCH(int, topK);

    const std::optional<ModelSpec> m = modelPreset(name.toStdString());
    QVERIFY(m.has_value());
    QCOMPARE(QString::fromStdString(m->name), name);
    QCOMPARE(m->layers, layers);
    QCOMPARE(m->hidden, hidden);
    QCOMPARE(m->heads, heads);
    QCOMPARE(m->kvHeads, kvHeads);
    QCOMPARE(m->ffn, ffn);
    QCOMPARE(m->gatedMlp, gated);
    QCOMPARE(m->seq, seq);
    QCOMPARE(m->vocab, vocab);
    QCOMPARE(m->experts, experts);
    QCOMPARE(m->topK, topK);
    QCOMPARE(m->moeLayerFreq, 1);
}

void TestPresets::modelParameterCounts_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("billions"); // published total parameters

    // GPT-3 175B (Brown et al.), Llama 2 70B, Llama 3 8B/70B/405B, Mixtral 46.7B total.
    QTest::newRow("gpt3-175b") << "gpt3-175b" << 175.0;
    QTest::newRow("llama2-70b") << "llama2-70b" << 69.0;
    QTest::newRow("llama3-8b") << "llama3-8b" << 8.03;
    QTest::newRow("llama3-70b") << "llama3-70b" << 70.6;
    QTest::newRow("llama3-405b") << "llama3-405b" << 405.0;
    QTest::newRow("mixtral-8x7b") << "mixtral-8x7b" << 46.7;
}

void TestPresets::modelParameterCounts()
{
    QFETCH(QString, name);
    QFETCH(double, billions);
    const ModelSpec m = *modelPreset(name.toStdString());
    TrainingSpec t;
    t.globalBatch = 8;
    t.microBatch = 1;
    ParallelDegrees d;
    const WorkloadPlan plan = planWorkload(m, t, *devicePreset("h100-sxm"), d);
    // Within 1 % (vocabulary padding to a multiple of 128 and norms are the difference).
    const double got = plan.parametersTotal / 1e9;
    QVERIFY2(std::abs(got - billions) / billions < 0.01,
             qPrintable(QString("%1: %2 B").arg(name).arg(got)));
}

void TestPresets::devices_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("bf16");
    QTest::addColumn<double>("fp8");
    QTest::addColumn<double>("hbmGB");
    QTest::addColumn<double>("hbmGBps");
    QTest::addColumn<int>("sms");

    // Vendor datasheets, dense peaks.
    QTest::newRow("a100-80g") << "a100-80g" << 312.0 << 0.0 << 80.0 << 2039.0 << 108;
    QTest::newRow("h100-sxm") << "h100-sxm" << 989.0 << 1979.0 << 80.0 << 3350.0 << 132;
    QTest::newRow("h200") << "h200" << 989.0 << 1979.0 << 141.0 << 4800.0 << 132;
    QTest::newRow("b200") << "b200" << 2250.0 << 4500.0 << 180.0 << 8000.0 << 148;
}

void TestPresets::devices()
{
    QFETCH(QString, name);
    QFETCH(double, bf16);
    QFETCH(double, fp8);
    QFETCH(double, hbmGB);
    QFETCH(double, hbmGBps);
    QFETCH(int, sms);

    const std::optional<DeviceSpec> d = devicePreset(name.toStdString());
    QVERIFY(d.has_value());
    QCOMPARE(QString::fromStdString(d->name), name);
    QCOMPARE(d->peakTflopsBf16, bf16);
    QCOMPARE(d->peakTflopsFp16, bf16);
    QCOMPARE(d->peakTflopsFp8, fp8);
    QCOMPARE(d->hbmBytes, hbmGB * 1e9);
    QCOMPARE(d->hbmGBps, hbmGBps);
    QCOMPARE(d->streamingMultiprocessors, sms);
    // 0 = the calibrated defaults of the compute model.
    QCOMPARE(d->maxEfficiency, 0.0);
    QCOMPARE(d->kernelOverheadUs, 0.0);
}

void TestPresets::fabricDefaults_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("scaleUp");
    QTest::addColumn<double>("nic");

    // NVLink per direction: 300, 450, 450, 900 GB/s -> Gbit/s; NICs HDR 200, NDR 400, CX-7 400.
    QTest::newRow("a100-80g") << "a100-80g" << 2400.0 << 200.0;
    QTest::newRow("h100-sxm") << "h100-sxm" << 3600.0 << 400.0;
    QTest::newRow("h200") << "h200" << 3600.0 << 400.0;
    QTest::newRow("b200") << "b200" << 7200.0 << 400.0;
    QTest::newRow("unknown") << "tpu-v9" << 3600.0 << 400.0;
}

void TestPresets::fabricDefaults()
{
    QFETCH(QString, name);
    QFETCH(double, scaleUp);
    QFETCH(double, nic);
    const DeviceFabricDefaults f = deviceFabricDefaults(name.toStdString());
    QCOMPARE(f.scaleUpGbps, scaleUp);
    QCOMPARE(f.nicGbps, nic);
}

void TestPresets::namesAndUnknowns()
{
    const std::vector<std::string> models = modelPresetNames();
    QCOMPARE(models.size(), std::size_t{6});
    QCOMPARE(models.front(), std::string("gpt3-175b"));
    for (const std::string &n : models)
        QVERIFY(modelPreset(n).has_value());
    const std::vector<std::string> devices = devicePresetNames();
    QCOMPARE(devices.size(), std::size_t{6});
    QVERIFY(std::find(devices.begin(), devices.end(), "gb200") != devices.end());
    QVERIFY(std::find(devices.begin(), devices.end(), "b200") != devices.end());
    for (const std::string &n : devices)
        QVERIFY(devicePreset(n).has_value());
    QVERIFY(!modelPreset("gpt4").has_value());
    QVERIFY(!modelPreset("GPT3-175B").has_value()); // names are exact
    QVERIFY(!devicePreset("").has_value());
}

void TestPresets::presetsPlan()
{
    // Every model preset plans on every device that has its precision, with a layout of the
    // kind used in practice, and the larger device computes faster.
    ParallelDegrees d;
    d.tp = 8;
    d.pp = 2;
    d.dp = 2;
    TrainingSpec t;
    t.globalBatch = 16;
    t.sequenceParallel = true;
    for (const std::string &name : modelPresetNames()) {
        const ModelSpec m = *modelPreset(name);
        ParallelDegrees dd = d;
        if (m.experts > 0)
            dd.ep = 2;
        const WorkloadPlan a100 = planWorkload(m, t, *devicePreset("a100-80g"), dd);
        const WorkloadPlan b200 = planWorkload(m, t, *devicePreset("b200"), dd);
        QCOMPARE(a100.stages.size(), std::size_t{2});
        QVERIFY2(b200.stages[0].forwardTime < a100.stages[0].forwardTime, name.c_str());
        QVERIFY(a100.boundaryActivationBytes > 0.0);
        QVERIFY(a100.memory[0].parameters > 0.0);
    }
}

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
