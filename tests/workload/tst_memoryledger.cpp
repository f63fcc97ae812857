// The memory ledger's allowance (model/workload/memoryledger.cpp) against its stated formulas,
// its scenario overrides, and "fits" on a published configuration: Llama 3 405B on 8,192 H100
// (TP8 PP16 DP64, seq 8192), which its authors trained in 80 GB ("The Llama 3 Herd of Models",
// arXiv:2407.21783, Table 4 and §3.3.2).
#include "cost/costengine.h"
#include "fixtures.h"
#include "workload/memoryledger.h"
#include "workload/presets.h"
#include "workload/workloadplan.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace railyard;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
/// NCCL_BUFFSIZE (4 MiB) x 16 channels (NCCL docs, "Environment Variables").
constexpr double kPerPeerProtocol = 4.0 * kMiB * 16.0;

/// Llama 3 405B at 8K as Meta ran it: TP8 PP16 DP64 on 1,024 eight-GPU servers, micro-batch 1,
/// global batch 2,048 sequences (16M tokens), bf16, sequence parallelism, the distributed
/// optimizer with gradients sharded too (Meta's FSDP: optimizer state and gradients sharded,
/// parameters kept after the forward), 1F1B. 128 layers: the even split of 8 per stage that
/// the paper's middle stages hold (126 layers, one fewer on the first and the last stage).
Scenario llama405b(Recompute recompute)
{
    Scenario s;
    s.name = "llama3-405b-8192";
    s.fabric = fixtures::railFabric(1024, 8, 32, 128);
    s.fabric.nic.gbps = 400.0;
    s.fabric.fabricPort.gbps = 400.0;
    s.degrees = fixtures::degrees(8, 16, 64);
    s.model = *modelPreset("llama3-405b");
    s.model.layers = 128;
    s.device = *devicePreset("h100-sxm");
    TrainingSpec &t = s.training;
    t.microBatch = 1;
    t.globalBatch = 2048;
    t.precision = Precision::Bf16;
    t.sequenceParallel = true;
    t.recompute = recompute;
    t.distributedOptimizer = true;
    t.dpSharding = DpSharding::OptimGrads;
    t.schedule = ScheduleKind::OneFOneB;
    t.interleave = 1;
    t.flashAttention = true;
    return s;
}

} // namespace

class TestMemoryLedger : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ncclBuffersPerCommunicator_data();
    void ncclBuffersPerCommunicator();
    void allowanceOverrides();
    void allowanceAddsToTheLedger();
    void llama3_405bFitsWithMetasSplit();
    void dualPipeHoldsTwoStages();
    void weightGradIsTheWeightGemms();
};

void TestMemoryLedger::ncclBuffersPerCommunicator_data()
{
    // A ring/tree communicator connects 2 peers with 3 protocols (LL, LL128, Simple), a
    // point-to-point one (pipeline sends, all-to-all) every peer it talks to with Simple only.
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<double>("expected");
    const double ring = kPerPeerProtocol * 2.0 * 3.0;
    QTest::newRow("one gpu") << 1 << 1 << 1 << 0.0;
    QTest::newRow("tp8") << 8 << 1 << 1 << ring;
    QTest::newRow("tp8 dp4") << 8 << 1 << 4 << 2.0 * ring;
    QTest::newRow("pp2: one neighbour") << 1 << 2 << 1 << kPerPeerProtocol;
    QTest::newRow("tp8 pp16 dp64") << 8 << 16 << 64 << 2.0 * ring + 2.0 * kPerPeerProtocol;
}

void TestMemoryLedger::ncclBuffersPerCommunicator()
{
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, dp);
    QFETCH(double, expected);
    const Allowance a = memoryAllowance({}, fixtures::degrees(tp, pp, dp), *modelPreset("llama3-8b"));
    QCOMPARE(a.nccl, expected);
    QCOMPARE(a.cudaContext, 0.75e9);
    QCOMPARE(a.fragmentationShare, 0.05);
}

void TestMemoryLedger::allowanceOverrides()
{
    MemoryAllowanceSpec spec;
    spec.cudaContextBytes = 1.0e9;
    spec.ncclBytes = 0.0;
    spec.fragmentation = 0.1;
    const Allowance a = memoryAllowance(spec, fixtures::degrees(8, 4, 4), *modelPreset("llama3-8b"));
    QCOMPARE(a.cudaContext, 1.0e9);
    QCOMPARE(a.nccl, 0.0);
    QCOMPARE(a.fragmentationShare, 0.1);
}

void TestMemoryLedger::allowanceAddsToTheLedger()
{
    // The engine's per-stage total is the tensors plus the allowance, the fragmentation a share
    // of the tensors.
    const CostEngine engine(fixtures::seed128());
    for (const MemoryLedger &m : engine.report().memory) {
        const double tensors = m.parameters + m.gradients + m.optimizer + m.activations;
        QCOMPARE(m.ledger(), tensors);
        QCOMPARE(m.cudaContext, 0.75e9);
        QVERIFY(m.nccl > 0.0);
        QVERIFY(std::abs(m.total() - (tensors * 1.05 + m.cudaContext + m.nccl)) < 1.0);
    }
}

void TestMemoryLedger::llama3_405bFitsWithMetasSplit()
{
    // Hand check of the middle stages (8 layers, no embedding or output layer) per rank:
    // parameters per layer h (q + 2 kv) + q h + 3 h ffn + 2 h with h = q = 16384, kv = 1024,
    // ffn = 53248: 3.187e9, so 8 layers over TP8 hold 3.187e9 parameters, 6.37 GB in bf16.
    // Gradients (fp32) and Adam state (12 bytes) are sharded over DP64: 0.2 + 0.6 GB. Each
    // micro-batch stores per layer and token (SP: everything split by 8) 8h of norm, QKV and fc1
    // inputs, 2(q + kv) + 2 kv + 2q for Q, K, V and the projection input, 6 ffn for the SwiGLU
    // MLP: 65,024 bytes, i.e. 0.533 GB per layer at 8,192 tokens, 4.26 GB for 8 layers; the
    // second stage of 1F1B keeps 15 micro-batches in flight: 63.9 GB.
    const CostEngine engine(llama405b(Recompute::Selective));
    const CostReport &r = engine.report();
    const std::vector<MemoryLedger> &mem = r.memory;
    QCOMPARE(mem.size(), std::size_t{16});
    const MemoryLedger &middle = mem[1];
    const double layerParams = 16384.0 * (16384.0 + 2048.0) + 16384.0 * 16384.0
                               + 3.0 * 16384.0 * 53248.0 + 2.0 * 16384.0;
    const double rankParams = 8.0 * layerParams / 8.0;
    QVERIFY(std::abs(middle.parameters / (2.0 * rankParams) - 1.0) < 1e-9);
    QVERIFY(std::abs(middle.gradients / (4.0 * rankParams / 64.0) - 1.0) < 1e-9);
    QVERIFY(std::abs(middle.optimizer / (12.0 * rankParams / 64.0) - 1.0) < 1e-9);
    const double perToken = 8.0 * 16384.0 / 8.0
                            + (2.0 * (16384.0 + 1024.0) + 2.0 * 1024.0 + 2.0 * 16384.0
                               + 6.0 * 53248.0)
                                  / 8.0;
    QVERIFY(std::abs(middle.activationsPerMicrobatch / (8.0 * 8192.0 * perToken) - 1.0) < 1e-9);
    const double peak = *std::max_element(r.timeline.peakInflight.begin(),
                                          r.timeline.peakInflight.end());
    qInfo("Llama 3 405B TP8 PP16 DP64, seq 8192, selective recompute: fullest stage %.1f GB of "
          "80 (stage 1: parameters %.2f, gradients %.2f, optimizer %.2f, activations %.2f "
          "(%.0f in flight), CUDA context %.2f, NCCL %.2f, fragmentation %.2f GB); peak in "
          "flight %.0f",
          r.maxMemoryPerRank / 1e9, middle.parameters / 1e9, middle.gradients / 1e9,
          middle.optimizer / 1e9, middle.activations / 1e9,
          middle.activations / middle.activationsPerMicrobatch, middle.cudaContext / 1e9,
          middle.nccl / 1e9, middle.fragmentation() / 1e9, peak);
    for (std::size_t s = 0; s < mem.size(); ++s)
        qInfo("  stage %zu: %.1f GB (activations %.1f GB)", s, mem[s].total() / 1e9,
              mem[s].activations / 1e9);
    // Even split: every stage but the first fits. The first keeps all 16 warm-up micro-batches
    // in flight plus the embedding and goes over by a little, the imbalance Meta describes
    // (§3.3.2, "the first stage consumes more memory due to the embedding and the warm-up
    // micro-batches"), which they removed by taking one layer off the first and last stage.
    for (std::size_t s = 1; s < mem.size(); ++s)
        QVERIFY2(mem[s].total() <= 80e9, qPrintable(QString("stage %1").arg(s)));
    QVERIFY(!r.memoryFits);
    QVERIFY(mem[0].total() < 80e9 * 1.03);
    // Meta's split: the first stage with 7 layers. One layer less is one layer's state and its
    // activations for each of the 16 micro-batches in flight; the fragmentation share follows.
    const double layerState = (middle.parameters + middle.gradients + middle.optimizer) / 8.0;
    const double layerActivations = mem[0].activations / 8.0;
    MemoryLedger first = mem[0];
    first.parameters -= layerState * middle.parameters
                        / (middle.parameters + middle.gradients + middle.optimizer);
    first.gradients -= layerState * middle.gradients
                       / (middle.parameters + middle.gradients + middle.optimizer);
    first.optimizer -= layerState * middle.optimizer
                       / (middle.parameters + middle.gradients + middle.optimizer);
    first.activations -= layerActivations;
    qInfo("  first stage with 7 layers (Meta's uneven split): %.1f GB", first.total() / 1e9);
    QVERIFY2(first.total() <= 80e9, qPrintable(QString("%1 GB").arg(first.total() / 1e9)));
    // Without recompute the same layout needs full activations too: here the same bytes, since
    // FlashAttention already keeps no s x s scores (selective recompute's target).
    const CostEngine none(llama405b(Recompute::None));
    QCOMPARE(none.report().maxMemoryPerRank, r.maxMemoryPerRank);
}

void TestMemoryLedger::dualPipeHoldsTwoStages()
{
    // DeepSeek-V3 Table 2: DualPipe keeps 2x the parameters (rank r holds stage r of one
    // direction and stage p-1-r of the other) and p+1 micro-batches of activations. Llama 3
    // 405B on PP16 with 128 layers: the middle stages hold 8 layers each, the same state.
    Scenario one = llama405b(Recompute::Selective);
    Scenario dual = one;
    dual.training.schedule = ScheduleKind::DualPipe;
    const WorkloadPlan a = planWorkload(one.model, one.training, one.device, one.degrees);
    const WorkloadPlan b = planWorkload(dual.model, dual.training, dual.device, dual.degrees);
    const int pp = one.degrees.pp;
    for (int s = 0; s < pp; ++s) {
        const MemoryLedger &own = a.memory[std::size_t(s)];
        const MemoryLedger &mirror = a.memory[std::size_t(pp - 1 - s)];
        const MemoryLedger &both = b.memory[std::size_t(s)];
        QCOMPARE(both.parameters, own.parameters + mirror.parameters);
        QCOMPARE(both.gradients, own.gradients + mirror.gradients);
        QCOMPARE(both.optimizer, own.optimizer + mirror.optimizer);
    }
    const MemoryLedger &middle = a.memory[5];
    QCOMPARE(b.memory[5].parameters, 2.0 * middle.parameters);
    QCOMPARE(b.memory[5].activationsPerMicrobatch, middle.activationsPerMicrobatch);
    // Stage 0 pairs with the last stage: the embedding and the output layer on one rank.
    QVERIFY(b.memory[0].parameters > 2.0 * middle.parameters);

    // The engine's ledger: 32 micro-batches (2048 / dp 64) = 2 pp, DualPipe's minimum; p+1 =
    // 17 in flight on every rank against 1F1B's 16 on stage 0 and 16 - s on stage s.
    const CostEngine oneEngine(one);
    const CostEngine dualEngine(dual);
    const auto &oneMem = oneEngine.report().memory;
    const auto &dualMem = dualEngine.report().memory;
    QCOMPARE(oneMem[5].activations, 11.0 * middle.activationsPerMicrobatch);
    QCOMPARE(dualMem[5].activations, 17.0 * middle.activationsPerMicrobatch);
    QVERIFY(dualEngine.report().maxMemoryPerRank > oneEngine.report().maxMemoryPerRank);
}

void TestMemoryLedger::weightGradIsTheWeightGemms()
{
    // W (Qi et al. 2024 §2) is the weight-gradient GEMMs alone: part of the backward, without
    // the attention core's backward, and the same with or without recompute (which re-runs
    // forwards, all on B's side).
    const Scenario none = llama405b(Recompute::None);
    const Scenario full = llama405b(Recompute::Full);
    const WorkloadPlan a = planWorkload(none.model, none.training, none.device, none.degrees);
    const WorkloadPlan b = planWorkload(full.model, full.training, full.device, full.degrees);
    for (std::size_t s = 0; s < a.stages.size(); ++s) {
        const StageCompute &c = a.stages[s];
        QVERIFY(c.weightGradTime > 0.0);
        QVERIFY(c.weightGradTime < c.backwardTime - c.attentionCoreBackwardTime);
        QCOMPARE(b.stages[s].weightGradTime, c.weightGradTime);
        QVERIFY(b.stages[s].backwardTime > c.backwardTime);
        // A weight-gradient GEMM costs one forward GEMM's FLOPs: W is about a third of the
        // 2x-forward backward's GEMMs, never more than the whole forward.
        QVERIFY(c.weightGradTime <= c.forwardTime * 1.05);
        QVERIFY(c.weightGradTime >= 0.25 * c.forwardTime);
    }
}

QTEST_GUILESS_MAIN(TestMemoryLedger)
#include "tst_memoryledger.moc"
