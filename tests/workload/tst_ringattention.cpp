// PyTorch's context-parallel attention (model/workload/ringattention.h, CpAttention::
// TorchAllGather) against hand derivations: one Llama 3.1 8B layer at 256K on cp 8 (the SDPA
// FLOPs at FlashAttention's rate, the merge kernels' bytes term by term, the exchanges), the
// plan's CP ops and their windows, the stack's default, each exchange hidden only behind its own
// SDPA step, and the scenario key.
#include "base/scenarioerror.h"
#include "cost/stagetiming.h"
#include "scenario/scenariosections.h"
#include "workload/computemodel.h"
#include "handcheck.h"
#include "workload/presets.h"
#include "workload/ringattention.h"
#include "workload/workloadnames.h"
#include "workload/workloadplan.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

using namespace railyard;
using namespace railyard::compute;

namespace {

using handcheck::kHbm;
using handcheck::kOverhead;
using handcheck::near;

DeviceSpec genericH100()
{
    return handcheck::uncalibratedH100();
}

/// One Llama 3.1 8B layer (h 4096, 32 heads of 128, 8 KV heads) at s = 256K, b = 1, cp 8.
Shape llamaLayerCp8()
{
    Shape x;
    x.b = 1;
    x.s = 262144;
    x.h = 4096;
    x.a = 32;
    x.headDim = 128;
    x.kvDim = 8 * 128;
    x.ffn = 14336;
    x.t = 1;
    x.c = 8;
    x.tokens = x.b * x.s / x.c;
    x.spTokens = x.tokens;
    return x;
}

ModelSpec smallLlama()
{
    ModelSpec m;
    m.name = "small-llama";
    m.layers = 4;
    m.hidden = 1024;
    m.heads = 16;
    m.kvHeads = 4;
    m.ffn = 3584;
    m.gatedMlp = true;
    m.seq = 8192;
    m.vocab = 32000;
    return m;
}

TrainingSpec fsdp2Training()
{
    TrainingSpec t;
    t.microBatch = 1;
    t.globalBatch = 1;
    t.sequenceParallel = false;
    t.recompute = Recompute::Full;
    t.distributedOptimizer = true;
    t.dpSharding = DpSharding::OptimGradsParams;
    t.stack = SoftwareStack::Fsdp2;
    return t;
}

ParallelDegrees cpDegrees(int cp)
{
    ParallelDegrees d;
    d.cp = cp;
    return d;
}

std::vector<const CommOp *> cpOps(const WorkloadPlan &plan)
{
    std::vector<const CommOp *> ops;
    for (const CommOp &op : plan.ops)
        if (op.dim == Dim::Cp)
            ops.push_back(&op);
    return ops;
}

const CommOp *cpOp(const WorkloadPlan &plan, const std::string &what)
{
    for (const CommOp &op : plan.ops)
        if (op.dim == Dim::Cp && op.what == what)
            return &op;
    return nullptr;
}

} // namespace

class TestRingAttention : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneLayerAtCp8();
    void planOps();
    void stackDefault();
    void exchangesHideBehindTheirStep();
    void scenarioKey();
};

void TestRingAttention::oneLayerAtCp8()
{
    const Roofline r = deviceRoofline(genericH100(), Precision::Bf16);
    const Shape x = llamaLayerCp8();

    // The SDPA calls: 4 b (s/c) s w / t FLOPs, half of them under the causal mask (the
    // round-robin split balances them over the ranks), one 128-query block per thread block:
    // 256 x 32 = 8192 blocks on 132 SMs, 63 waves, f = 8192 / (63 x 132).
    LayerCompute core;
    attentionCore(r, x, true, core);
    const double flops = 4.0 * 1 * 32768 * 262144 * 4096;
    QCOMPARE(core.attentionForward.flops, flops);
    const double f = 8192.0 / (63.0 * 132.0);
    const double sdpaForward = 0.5 * flops / (989e12 * 0.68 * f) + kOverhead;
    const double sdpaBackward = 2.5 * 0.5 * flops / (989e12 * 0.56 * f) + 2.0 * kOverhead;
    COMPARE_NEAR(core.attentionForward.time, sdpaForward);
    COMPARE_NEAR(core.attentionBackward.time, sdpaBackward);

    // The ring's tensors: U = b (s/c) (a headDim) / t = 32768 x 4096 elements (torchtitan's
    // repeat_kv gives K and V all 32 heads), K and V bf16 (4U bytes), dK and dV fp32 (8U).
    const TorchRingAttention ring = torchRingAttention(r, x);
    const double u = 32768.0 * 4096.0;
    QCOMPARE(ring.elements, u);
    QCOMPARE(ring.kvBytes, 536870912.0); // 512 MiB a rank; the all-gather brings 8 x that
    QCOMPARE(ring.dkvBytes, 1073741824.0);

    // Forward on the last rank, 7 ring steps after the local one: K, V copies 8U; 7 K/V
    // concatenations 7 x 8U; 8 fp32 casts 8 x 6U; 7 merges of three fp32 passes 7 x (12 + 8 +
    // 12)U; the cast back 6U.
    const double forwardBytes = 8 * u + 7 * 8 * u + 8 * 6 * u + 7 * 32 * u + 6 * u;
    QCOMPARE(forwardBytes, 342.0 * u);
    COMPARE_NEAR(ring.mergeForwardBytes, forwardBytes);
    // Backward: fp32 zeros 12U; K, V copies 8U; 7 K/V concatenations 7 x 8U; the first step's
    // dK, dV additions 2 x 10U; 7 half-shard additions and concatenations 7 x 2 x 13U; 8 dK/dV
    // concatenations 8 x 16U; 8 dQ additions 8 x 10U; casts back 6U + 12U.
    const double backwardBytes
        = 12 * u + 8 * u + 7 * 8 * u + 2 * 10 * u + 7 * 26 * u + 8 * 16 * u + 8 * 10 * u + 18 * u;
    QCOMPARE(backwardBytes, 504.0 * u);
    COMPARE_NEAR(ring.mergeBackwardBytes, backwardBytes);
    // Kernels: forward 2 + 7 + 8 + 7 x 8 + 1 = 74, backward 3 + 2 + 7 + 2 + 7 x 4 + 8 x 2 + 2 = 60.
    COMPARE_NEAR(ring.mergeForward.time, forwardBytes / kHbm + 74 * kOverhead);
    COMPARE_NEAR(ring.mergeBackward.time, backwardBytes / kHbm + 60 * kOverhead);
    // 45.9 GB and 67.6 GB: 16.4 ms and 24.0 ms at 2.85 TB/s, beside 106 ms and 322 ms of SDPA.
    QVERIFY(ring.mergeForward.time > 0.016 && ring.mergeForward.time < 0.0165);
    QVERIFY(ring.mergeBackward.time > 0.0235 && ring.mergeBackward.time < 0.0242);

    // The layer: the merges join the attention core and the passes.
    LayerCompute layer = core;
    layer.forward = core.attentionForward;
    layer.backward = core.attentionBackward;
    addTorchRingMerges(r, x, layer);
    COMPARE_NEAR(layer.attentionForward.time, sdpaForward + ring.mergeForward.time);
    COMPARE_NEAR(layer.attentionBackward.time, sdpaBackward + ring.mergeBackward.time);
    COMPARE_NEAR(layer.forward.time, sdpaForward + ring.mergeForward.time);
    QCOMPARE(layer.attentionForward.flops, flops); // element-wise kernels add no FLOPs
}

void TestRingAttention::planOps()
{
    const DeviceSpec device = *devicePreset("h100-sxm");
    TrainingSpec torchRing = fsdp2Training();
    TrainingSpec teRing = torchRing;
    teRing.cpAttention = CpAttention::TeP2p;
    const WorkloadPlan torch = planWorkload(smallLlama(), torchRing, device, cpDegrees(4));
    const WorkloadPlan te = planWorkload(smallLlama(), teRing, device, cpDegrees(4));

    // TE's ring keeps Megatron's two ops on the GQA K/V: S = 2 b s kvDim e / t.
    QCOMPARE(cpOps(te).size(), std::size_t(2));
    QCOMPARE(cpOps(te)[0]->bytes, 2.0 * 8192 * 256 * 2);
    QVERIFY(!cpOps(te)[0]->stepwise);

    // PyTorch's: U = b (s/c) w / t = 2048 x 1024; K/V all-gathers of S = c x 4U, the dK/dV
    // passes on S = c x 8U, each hidden behind its own SDPA step (1/c of the core).
    const double u = 2048.0 * 1024.0;
    QCOMPARE(cpOps(torch).size(), std::size_t(5));
    for (const CommOp *op : cpOps(torch)) {
        QVERIFY(op->stepwise);
        QCOMPARE(op->collective, Collective::AllGather);
    }
    const double layers = 4.0;
    const double coreForward = te.stages[0].attentionCoreForwardTime / layers;
    // Full recompute: the backward core holds the recomputed forward too.
    const double coreBackward = te.stages[0].attentionCoreBackwardTime / layers - coreForward;
    const CommOp *forward = cpOp(torch, "K/V all-gather");
    const CommOp *recompute = cpOp(torch, "K/V all-gather (recompute)");
    const CommOp *backward = cpOp(torch, "K/V all-gather (backward)");
    const CommOp *dkv = cpOp(torch, "dK/dV ring (fp32)");
    const CommOp *last = cpOp(torch, "dK/dV last pass (fp32)");
    QVERIFY(forward && recompute && backward && dkv && last);
    QCOMPARE(forward->pass, OpPass::Forward);
    QCOMPARE(forward->bytes, 4.0 * 4 * u);
    QCOMPARE(forward->count, layers);
    COMPARE_NEAR(forward->overlapTime, coreForward / 4);
    QCOMPARE(recompute->count, layers);
    COMPARE_NEAR(recompute->overlapTime, coreForward / 4);
    COMPARE_NEAR(backward->overlapTime, coreBackward / 4);
    QCOMPARE(dkv->bytes, 4.0 * 8 * u);
    QCOMPARE(dkv->count, layers); // c - 1 passes a run
    COMPARE_NEAR(dkv->overlapTime, 3.0 * coreBackward / 4);
    COMPARE_NEAR(last->count, layers / 3.0); // one pass a layer
    QCOMPARE(last->overlapTime, 0.0);

    // The merges: the passes grow by the ring's element-wise kernels, layer by layer.
    Shape x;
    x.b = 1;
    x.s = 8192;
    x.h = 1024;
    x.a = 16;
    x.headDim = 64;
    x.t = 1;
    x.c = 4;
    const TorchRingAttention ring = torchRingAttention(deviceRoofline(device, Precision::Bf16), x);
    COMPARE_NEAR(ring.mergeForwardBytes, (20.0 + 46.0 * 3) * u);
    QVERIFY(near(torch.stages[0].forwardTime - te.stages[0].forwardTime,
        layers * ring.mergeForward.time, 1e-9));
    // Full recompute re-runs the forward's merges before the backward's.
    QVERIFY(near(torch.stages[0].backwardTime - te.stages[0].backwardTime,
        layers * (ring.mergeForward.time + ring.mergeBackward.time), 1e-9));
    QVERIFY(near(torch.stages[0].attentionCoreForwardTime - te.stages[0].attentionCoreForwardTime,
        layers * ring.mergeForward.time, 1e-9));
    // Element-wise work adds no FLOPs.
    QCOMPARE(torch.stages[0].forwardFlops, te.stages[0].forwardFlops);

    // torchtitan's op-level selective checkpointing saves the SDPA output: no second forward
    // ring in the backward. Megatron's selective recompute re-runs the attention core with it.
    TrainingSpec sac = torchRing;
    sac.recompute = Recompute::Selective;
    QVERIFY(
        !cpOp(planWorkload(smallLlama(), sac, device, cpDegrees(4)), "K/V all-gather (recompute)"));
    sac.stack = SoftwareStack::MegatronCoreTe;
    sac.cpAttention = CpAttention::TorchAllGather;
    sac.dpSharding = DpSharding::Optim;
    QVERIFY(
        cpOp(planWorkload(smallLlama(), sac, device, cpDegrees(4)), "K/V all-gather (recompute)"));

    // Without CP neither adds anything.
    const WorkloadPlan single = planWorkload(smallLlama(), torchRing, device, cpDegrees(1));
    QVERIFY(cpOps(single).empty());
}

void TestRingAttention::stackDefault()
{
    TrainingSpec t;
    QCOMPARE(cpAttentionOf(t), CpAttention::TeP2p); // no stack: the calibrated (Megatron) one
    for (const SoftwareStack s : kSoftwareStacks) {
        t.stack = s;
        QCOMPARE(cpAttentionOf(t),
            s == SoftwareStack::Fsdp2 ? CpAttention::TorchAllGather : CpAttention::TeP2p);
    }
    t.stack = SoftwareStack::Fsdp2;
    t.cpAttention = CpAttention::TeP2p; // set, the key wins over the stack
    QCOMPARE(cpAttentionOf(t), CpAttention::TeP2p);
    t.stack = SoftwareStack::MegatronCoreTe;
    t.cpAttention = CpAttention::TorchAllGather;
    QCOMPARE(cpAttentionOf(t), CpAttention::TorchAllGather);
}

void TestRingAttention::exchangesHideBehindTheirStep()
{
    // One stage, forward core 10 ms; a Megatron ring op of 4 runs of 3 ms hides behind the whole
    // core (12 ms > 10 ms: 2 ms out); PyTorch's op of 4 runs of 3 ms beside 1 ms steps exposes
    // 4 x 2 ms; a last pass with no window exposes all of its run.
    WorkloadPlan plan;
    plan.stages.assign(1, {});
    plan.stages[0].forwardTime = 0.05;
    plan.stages[0].attentionCoreForwardTime = 0.010;
    CommOp ring;
    ring.dim = Dim::Cp;
    ring.collective = Collective::AllGather;
    ring.pass = OpPass::Forward;
    ring.bytes = 1.0;
    ring.count = 4;
    plan.ops = { ring };
    PhaseTimes times;
    times.op = { 0.003 };
    COMPARE_NEAR(stagePasses(plan, times, OpPass::Forward, std::nullopt)[0].comm, 0.002);

    CommOp step = ring;
    step.stepwise = true;
    step.overlapTime = 0.001;
    CommOp last = step;
    last.count = 0.5;
    last.overlapTime = 0.0;
    plan.ops = { step, last };
    times.op = { 0.003, 0.003 };
    COMPARE_NEAR(
        stagePasses(plan, times, OpPass::Forward, std::nullopt)[0].comm, 4 * 0.002 + 0.5 * 0.003);
    // Switched off (the per-dimension exposure), CP costs nothing.
    QCOMPARE(stagePasses(plan, times, OpPass::Forward, Dim::Cp)[0].comm, 0.0);
}

void TestRingAttention::scenarioKey()
{
    using nlohmann::json;
    QVERIFY(!scenariosections::readTraining(json::object()).cpAttention);
    QCOMPARE(
        *scenariosections::readTraining(json { { "cp_attention", "torch-allgather" } }).cpAttention,
        CpAttention::TorchAllGather);
    QCOMPARE(*scenariosections::readTraining(json { { "cp_attention", "te-p2p" } }).cpAttention,
        CpAttention::TeP2p);
    for (const CpAttention a : kCpAttentions) {
        CpAttention back = CpAttention::TeP2p;
        QVERIFY(parseCpAttention(cpAttentionName(a), back));
        QCOMPARE(back, a);
    }
    try {
        scenariosections::readTraining(json { { "cp_attention", "ulysses" } });
        QFAIL("an unknown cp_attention was accepted");
    } catch (const ScenarioError &e) {
        const std::string what = e.what();
        QVERIFY2(what.find("cp_attention") != std::string::npos, e.what());
        QVERIFY2(what.find("te-p2p") != std::string::npos, e.what());
    }
}

QTEST_GUILESS_MAIN(TestRingAttention)
#include "tst_ringattention.moc"
