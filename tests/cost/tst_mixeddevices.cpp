// Mixed devices on one fabric (docs/mixed-devices.md): each stage computes on the device of its
// slowest rank, the slow stage paces the 1F1B pipeline (hand derivation), memory fits per
// device, one device kind changes nothing, and the layer split that balances the stages.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/mixeddevices.h"
#include "fixtures.h"
#include "optimise/layoutsearch.h"
#include "studies/remapresult.h"
#include "workload/presets.h"
#include "workload/workloadplan.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace railyard;

namespace {

CostReport evaluateMixed(const Scenario &s)
{
    return CostEngine(s).report();
}

/// A pool of `device` on the listed servers.
DevicePool pool(const char *device, std::vector<int> servers)
{
    DevicePool p;
    p.device = device;
    p.servers = std::move(servers);
    return p;
}

std::vector<int> serverRange(int first, int last)
{
    std::vector<int> v;
    for (int s = first; s <= last; ++s)
        v.push_back(s);
    return v;
}

void compareReports(const CostReport &a, const CostReport &b)
{
    QCOMPARE(a.iterationTime, b.iterationTime);
    QCOMPARE(a.pipelineMakespan, b.pipelineMakespan);
    QCOMPARE(a.mfu, b.mfu);
    QCOMPARE(a.dpSyncTime, b.dpSyncTime);
    QCOMPARE(a.maxMemoryPerRank, b.maxMemoryPerRank);
    QCOMPARE(a.memoryFits, b.memoryFits);
    QCOMPARE(a.phases.size(), b.phases.size());
    for (std::size_t p = 0; p < a.phases.size(); ++p)
        QCOMPARE(a.phases[p].time, b.phases[p].time);
    QCOMPARE(a.stageForward, b.stageForward);
    QCOMPARE(a.stageBackward, b.stageBackward);
    QCOMPARE(a.warnings, b.warnings);
}

/// seed-128 (tp 8 x pp 4 x dp 4, packed: stage p on servers 4p..4p+3) with B200 servers
/// everywhere but stage 1's, which keep the scenario's H100.
Scenario b200ButStage1()
{
    Scenario s = fixtures::seed128();
    s.fabric.devicePools = { pool("b200", { 0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15 }) };
    return s;
}

} // namespace

class TestMixedDevices : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneDeviceKindChangesNothing();
    void eachStageComputesOnItsDevice();
    void slowDeviceStagePacesThePipeline();
    void slowestMemberSetsTheStage();
    void memoryFitsPerDevice();
    void searchAndSummariesUseEachStagesDevice();
    void movesCarryTheDeviceAlong();
    void balancedLayersHandDerivation_data();
    void balancedLayersHandDerivation();
    void suggestionBalancesTheStages();
    void unknownPoolDeviceIsRefused();
};

void TestMixedDevices::oneDeviceKindChangesNothing()
{
    // Property: pools that name the scenario's own device, or a device no rank sits on, leave
    // every figure as it was without pools.
    const Scenario plain = fixtures::seed128();
    Scenario same = plain;
    same.fabric.devicePools = { pool(plain.device.name.c_str(), serverRange(0, 15)) };
    compareReports(evaluateMixed(plain), evaluateMixed(same));
    QVERIFY(evaluateMixed(same).stageDevices.empty()); // one device kind: no device figures

    Scenario small = fixtures::smallDense(4, 8, fixtures::degrees(8, 2, 1)); // servers 0-1
    Scenario idle = small;
    idle.fabric.devicePools = { pool("h200", { 2, 3 }) };
    const CostReport a = evaluateMixed(small), b = evaluateMixed(idle);
    QCOMPARE(a.iterationTime, b.iterationTime);
    QCOMPARE(a.stageForward, b.stageForward);
    QCOMPARE(a.stageBackward, b.stageBackward);
    QVERIFY(std::abs(a.mfu - b.mfu) <= 1e-12 * a.mfu); // the same peaks, summed rank by rank
    QCOMPARE(b.stageDevices, std::vector<std::string>({ small.device.name, small.device.name }));
    QVERIFY(b.suggestedLayersPerStage.empty()); // both stages on one device kind
}

void TestMixedDevices::eachStageComputesOnItsDevice()
{
    // Each stage's compute is the workload planned on its device, to the bit: stages 0, 2 and 3
    // on B200, stage 1 on the scenario's H100.
    const Scenario s = b200ButStage1();
    const CostReport r = evaluateMixed(s);
    const WorkloadPlan h100 = planWorkload(s.model, s.training, s.device, s.degrees);
    const WorkloadPlan b200 = planWorkload(s.model, s.training, *devicePreset("b200"), s.degrees);
    QCOMPARE(r.stageDevices, std::vector<std::string>({ "b200", s.device.name, "b200", "b200" }));
    for (std::size_t st = 0; st < 4; ++st) {
        const StageCompute &want = st == 1 ? h100.stages[st] : b200.stages[st];
        QCOMPARE(r.stages[st].computeForward, want.forwardTime);
        QCOMPARE(r.stages[st].computeBackward, want.backwardTime);
    }
    // The B200's 2250 against the H100's 989 dense bf16 TFLOP/s (presets.cpp, the datasheets):
    // the B200 stages compute in well under the H100's time, never below the peak ratio's share
    // of it less the H100's lower GEMM efficiency (deviceefficiency.cpp: within 25 %).
    const double ratio = (b200.stages[2].forwardTime) / h100.stages[2].forwardTime;
    QVERIFY2(ratio < 0.6 && ratio > 0.75 * 989.0 / 2250.0, qPrintable(QString::number(ratio)));
    // MFU over each rank's own peak: 32 H100 and 96 B200 ranks.
    const double peaks = (32 * 989.0 + 96 * 2250.0) * 1e12;
    const double mfu = h100.modelFlopsPerIteration / (r.iterationTime * peaks);
    QVERIFY(std::abs(r.mfu - mfu) <= 1e-12 * mfu);
}

void TestMixedDevices::slowDeviceStagePacesThePipeline()
{
    // The H100 stage is the bottleneck of the 1F1B pipeline, as a slow GPU's stage is
    // (tst_stragglers' derivation, Narayanan et al. SC'21): with F_s, B_s the stages' times
    // per micro-batch and sigma a boundary send, stage 1 starts after stage 0's first forward
    // and a send, runs its m forwards and backwards back to back except for one wait for
    // micro-batch 0 to pass stages 2 and 3 and come back,
    //   max(0, F_2 + F_3 + B_3 + B_2 + 4 sigma - 2 F_1),
    // and stage 0's last backward follows it:
    //   makespan = F_0 + B_0 + 2 sigma + m (F_1 + B_1) + that wait.
    const Scenario s = b200ButStage1();
    const CostReport r = evaluateMixed(s);
    const int m = CostEngine(s).plan().microbatches;
    const std::vector<double> &F = r.stageForward, &B = r.stageBackward;
    QVERIFY(F[1] + B[1] > 1.5 * (F[0] + B[0])); // the H100 stage is the slow one
    const double sigma = r.boundaryForward[0];
    const double wait = std::max(0.0, F[2] + F[3] + B[3] + B[2] + 4 * sigma - 2 * F[1]);
    const double makespan = F[0] + B[0] + 2 * sigma + m * (F[1] + B[1]) + wait;
    QVERIFY2(std::abs(r.pipelineMakespan - makespan) <= 0.01 * makespan,
        qPrintable(QString::number(r.pipelineMakespan) + " vs " + QString::number(makespan)));
    // Faster than all H100, slower than all B200.
    Scenario allB200 = fixtures::seed128();
    allB200.device = *devicePreset("b200");
    QVERIFY(r.iterationTime < evaluateMixed(fixtures::seed128()).iterationTime);
    QVERIFY(r.iterationTime > evaluateMixed(allB200).iterationTime);
}

void TestMixedDevices::slowestMemberSetsTheStage()
{
    // Stage 0 on servers 0-3: three B200 servers and one H100 (server 0). Its TP groups on
    // server 0 compute at the H100's pace and the stage's DP sync waits for them, so the stage
    // computes as on H100 alone.
    const Scenario plain = fixtures::seed128();
    Scenario s = plain;
    s.fabric.devicePools = { pool("b200", serverRange(1, 15)) };
    const CostReport r = evaluateMixed(s);
    const CostReport h = evaluateMixed(plain);
    QCOMPARE(r.stageDevices[0], plain.device.name);
    QCOMPARE(r.stages[0].computeForward, h.stages[0].computeForward);
    QCOMPARE(r.stages[0].computeBackward, h.stages[0].computeBackward);
    QVERIFY(r.stages[1].computeForward < 0.6 * h.stages[1].computeForward);
}

void TestMixedDevices::memoryFitsPerDevice()
{
    // seed-128 with micro-batch 8 (16 micro-batches per replica) needs 117 GB per rank in stage
    // 0, 93 GB in stage 1: more than an H100's 80 GB and less than an H200's 141 GB. It fits on
    // H200 servers only.
    Scenario s = fixtures::seed128();
    s.training.microBatch = 8;
    s.training.globalBatch = 8 * 4 * 16;
    const CostReport h100 = evaluateMixed(s);
    QVERIFY(!h100.memoryFits);
    QVERIFY(h100.maxMemoryPerRank < 141e9);
    std::size_t fullest = 0;
    for (std::size_t st = 0; st < h100.memory.size(); ++st)
        if (h100.memory[st].total() > h100.memory[fullest].total())
            fullest = st;
    Scenario h200 = s;
    h200.fabric.devicePools = { pool("h200", serverRange(0, 15)) };
    const CostReport all = evaluateMixed(h200);
    QVERIFY(all.memoryFits);
    QCOMPARE(all.stageHbmBytes, std::vector<double>(4, 141e9));
    // The fullest stage's servers back on H100: it no longer fits, and the warning names it.
    std::vector<int> others;
    for (int server = 0; server < 16; ++server)
        if (server / 4 != static_cast<int>(fullest))
            others.push_back(server);
    Scenario mixed = s;
    mixed.fabric.devicePools = { pool("h200", others) };
    const CostReport r = evaluateMixed(mixed);
    QVERIFY(!r.memoryFits);
    QCOMPARE(r.stageHbmBytes[fullest], 80e9);
    QCOMPARE(r.stageHbmDevices[fullest], s.device.name);
    const std::string warning = "memory: a rank of stage " + std::to_string(fullest) + " needs";
    QVERIFY(std::any_of(r.warnings.begin(), r.warnings.end(), [&](const std::string &w) {
        return w.rfind(warning, 0) == 0
            && w.find("but its h100-sxm has 80.000 GB") != std::string::npos;
    }));
}

void TestMixedDevices::searchAndSummariesUseEachStagesDevice()
{
    // The layout of memoryFitsPerDevice (117 GB a rank in its fullest stage) on H200 servers
    // only, the scenario's device still the H100: the layout search's pre-check keeps it (it fits
    // the H200s' 141 GB; the engine decides per stage), the headroom is 141 GB less the ledger,
    // and the summaries show the fullest stage against the H200 it sits on.
    Scenario s = fixtures::seed128();
    s.training.microBatch = 8;
    s.training.globalBatch = 8 * 4 * 16;
    QCOMPARE(pruneReason(s), std::string("memory")); // on the H100s: nowhere to fit
    s.fabric.devicePools = { pool("h200", serverRange(0, 15)) };
    QCOMPARE(pruneReason(s), std::string());
    const CostReport r = evaluateMixed(s);
    QVERIFY(r.memoryFits);
    QCOMPARE(memoryHeadroom(r, s.device.hbmBytes), 141e9 - r.maxMemoryPerRank);
    const TightestMemory shown = tightestMemory(r, s.device.hbmBytes);
    QCOMPARE(shown.used, r.maxMemoryPerRank);
    QCOMPARE(shown.capacity, 141e9);
    QCOMPARE(shown.device, std::string("h200"));
    const RemapSummary summary = remapSummary(CostEngine(s));
    QCOMPARE(summary.deviceMemory, 141e9);
    QCOMPARE(summary.memoryUsed, r.maxMemoryPerRank);
    QCOMPARE(summary.memoryDevice, std::string("h200"));
    // One device kind: the largest ledger against the scenario's device, no device named.
    const CostReport one = evaluateMixed(fixtures::seed128());
    QCOMPARE(memoryHeadroom(one, 80e9), 80e9 - one.maxMemoryPerRank);
    QCOMPARE(tightestMemory(one, 80e9).device, std::string());
}

void TestMixedDevices::movesCarryTheDeviceAlong()
{
    // Swapping a rank of the H100 stage with one of a B200 stage makes both stages H100-paced;
    // the incremental report equals a fresh evaluation of the swapped mapping.
    const Scenario s = b200ButStage1();
    CostEngine engine(s);
    engine.swapRanks(32, 64); // (d0,p1,t0) on server 4 <-> (d0,p2,t0) on server 8
    Scenario swapped = s;
    swapped.slots = engine.mapping().slots();
    const CostReport fresh = evaluateMixed(swapped);
    compareReports(engine.report(), fresh);
    QCOMPARE(engine.report().stageDevices,
        std::vector<std::string>({ "b200", s.device.name, s.device.name, "b200" }));
}

void TestMixedDevices::balancedLayersHandDerivation_data()
{
    QTest::addColumn<int>("layers");
    QTest::addColumn<std::vector<double>>("perLayer");
    QTest::addColumn<std::vector<double>>("fixed");
    QTest::addColumn<std::vector<int>>("want");
    // Layer time in proportion to 1 / peak: H100 989 and B200 2250 TFLOP/s (presets.cpp). The
    // split is in proportion to the peaks: 80 x 989 / 3239 = 24.43 and 80 x 2250 / 3239 =
    // 55.57, rounded to 24 and 56.
    QTest::newRow("h100-b200") << 80 << std::vector<double> { 1.0 / 989.0, 1.0 / 2250.0 }
                               << std::vector<double> { 0.0, 0.0 } << std::vector<int> { 24, 56 };
    // H100 vs H200: the same 989 TFLOP/s, an even split.
    QTest::newRow("h100-h200") << 80 << std::vector<double> { 1.0 / 989.0, 1.0 / 989.0 }
                               << std::vector<double> { 0.0, 0.0 } << std::vector<int> { 40, 40 };
    // A fixed part (the LM head) on the second stage: T = (10 + 1 / 2) / (1 + 1 / 2) = 7, so
    // stage 0 takes 7 layers and stage 1 (7 - 1) / 2 = 3.
    QTest::newRow("fixed part") << 10 << std::vector<double> { 1.0, 2.0 }
                                << std::vector<double> { 0.0, 1.0 } << std::vector<int> { 7, 3 };
    // A fixed part longer than the common end: that stage keeps one layer, the rest go to the
    // other (T = (4 + 10) / 2 = 7 gives stage 1 -3 layers).
    QTest::newRow("pinned") << 4 << std::vector<double> { 1.0, 1.0 }
                            << std::vector<double> { 0.0, 10.0 } << std::vector<int> { 3, 1 };
    // Three stages 1 : 2 : 1 in speed, 10 layers: 2.5, 5, 2.5 -> the remainder to the lower
    // stage: 3, 5, 2.
    QTest::newRow("remainders") << 10 << std::vector<double> { 2.0, 1.0, 2.0 }
                                << std::vector<double> { 0.0, 0.0, 0.0 }
                                << std::vector<int> { 3, 5, 2 };
}

void TestMixedDevices::balancedLayersHandDerivation()
{
    QFETCH(int, layers);
    QFETCH(std::vector<double>, perLayer);
    QFETCH(std::vector<double>, fixed);
    QFETCH(std::vector<int>, want);
    QCOMPARE(balancedLayers(layers, perLayer, fixed), want);
}

void TestMixedDevices::suggestionBalancesTheStages()
{
    // Two stages: H100 servers 0-7, B200 servers 8-15 (tp 8 x pp 2 x dp 8). The engine
    // suggests more layers on the B200 stage; applied through layers_per_stage, the two stages'
    // time per micro-batch come within one layer of each other and the iteration is shorter
    // than with the even split (14.91 against 18.21 s; docs/mixed-devices.md).
    Scenario s = fixtures::seed128();
    s.degrees = fixtures::degrees(8, 2, 8);
    s.training.globalBatch = 64 * 8; // 64 micro-batches per replica: the steady state dominates
    s.fabric.devicePools = { pool("b200", serverRange(8, 15)) };
    const CostReport even = evaluateMixed(s);
    const std::vector<int> &split = even.suggestedLayersPerStage;
    QCOMPARE(split.size(), std::size_t { 2 });
    QCOMPARE(split[0] + split[1], s.model.layers);
    // Near the peak ratio's 24 / 56 (balancedLayers' h100-b200 row); the H100's higher share of
    // its peak and the B200's LM head on the last stage move it a few layers towards the H100.
    QVERIFY2(split[0] >= 24 && split[0] <= 34, qPrintable(QString::number(split[0])));
    Scenario balanced = s;
    balanced.training.layersPerStage = split;
    const CostReport r = evaluateMixed(balanced);
    // Per micro-batch, compute and exposed communication: the pace of each stage.
    const double t0 = r.stageForward[0] + r.stageBackward[0];
    const double t1 = r.stageForward[1] + r.stageBackward[1];
    const double oneLayer = std::max(t0 / split[0], t1 / split[1]);
    QVERIFY2(std::abs(t0 - t1) <= oneLayer,
        qPrintable(QString::number(t0) + " vs " + QString::number(t1)));
    QVERIFY2(r.iterationTime < 0.9 * even.iterationTime,
        qPrintable(
            QString::number(r.iterationTime) + " vs " + QString::number(even.iterationTime)));
    // Applied, the suggestion stands.
    QCOMPARE(r.suggestedLayersPerStage, split);
}

void TestMixedDevices::unknownPoolDeviceIsRefused()
{
    Scenario s = fixtures::seed128();
    s.fabric.devicePools = { pool("h200", { 0 }), pool("h300", { 1 }) };
    try {
        CostEngine engine(s);
        QFAIL("an unknown device was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(
            QString::fromStdString(e.field()), QStringLiteral("fabric.device_pools[1].device"));
        QVERIFY(std::string(e.what()).find("unknown device \"h300\"") != std::string::npos);
    }
}

QTEST_GUILESS_MAIN(TestMixedDevices)
#include "tst_mixeddevices.moc"
