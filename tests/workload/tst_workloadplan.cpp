#include "workload/presets.h"
#include "base/scenarioerror.h"
#include "workload/workloadnames.h"
#include "workload/workloadplan.h"
#include "fixtures.h"
#include "smallworkload.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <string>

using namespace railyard;

using railyard::smallworkload::h100;
using railyard::smallworkload::smallModel;
using railyard::smallworkload::smallTraining;

namespace {

using fixtures::degrees;

const CommOp *findOp(const WorkloadPlan &plan, Dim dim, Collective c, OpPass pass,
                     const std::string &whatPrefix, int stage = 0)
{
    for (const CommOp &op : plan.ops) {
        if (op.dim == dim && op.collective == c && op.pass == pass && op.stage == stage
            && op.what.rfind(whatPrefix, 0) == 0)
            return &op;
    }
    return nullptr;
}

int countOps(const WorkloadPlan &plan, Dim dim)
{
    int n = 0;
    for (const CommOp &op : plan.ops)
        n += op.dim == dim ? 1 : 0;
    return n;
}

bool near(double a, double b, double rel = 1e-9)
{
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

/// Parameters of the small GPT model per Narayanan et al. Eq. 2 (plus the final LayerNorm).
double smallModelParameters()
{
    const double h = 1024, l = 4, V = 51200, s = 2048;
    return l * (12 * h * h + 13 * h) + V * h + s * h + 2 * h;
}

} // namespace

class TestWorkloadPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void tensorParallelOps_data();
    void tensorParallelOps();
    void noTensorOpsWithoutTp();
    void boundaryBytes_data();
    void boundaryBytes();
    void fp8KeepsMessagesBf16();
    void dataParallelSync_data();
    void dataParallelSync();
    void deepSpeedBf16PipelineAllReduces();
    void expertAllToAll_data();
    void expertAllToAll();
    void contextParallelRing();
    void flopsMatchNarayananEq3();
    void activationMemory_data();
    void activationMemory();
    void computeTimeDependsOnShape();
    void recomputeCostsTime();
};

// ---------------------------------------------------------------------------------------------

void TestWorkloadPlan::tensorParallelOps_data()
{
    QTest::addColumn<bool>("sequenceParallel");
    QTest::addColumn<int>("recompute");
    QTest::addColumn<int>("forwardCollective");
    QTest::addColumn<double>("forwardCount");   // per op kind, per micro-batch
    QTest::addColumn<double>("backwardCount");

    // L = 4: two ops per layer (attention + MLP) -> 4 of each kind.
    QTest::newRow("tp2 no SP") << false << int(Recompute::None) << int(Collective::AllReduce)
                               << 4.0 << 4.0;
    QTest::newRow("tp2 SP") << true << int(Recompute::None) << int(Collective::AllGather) << 4.0
                            << 4.0;
    QTest::newRow("tp2 no SP full recompute")
        << false << int(Recompute::Full) << int(Collective::AllReduce) << 4.0 << 8.0;
    QTest::newRow("tp2 SP full recompute")
        << true << int(Recompute::Full) << int(Collective::AllGather) << 4.0 << 8.0;
    QTest::newRow("tp2 SP selective") << true << int(Recompute::Selective)
                                      << int(Collective::AllGather) << 4.0 << 4.0;
}

void TestWorkloadPlan::tensorParallelOps()
{
    QFETCH(bool, sequenceParallel);
    QFETCH(int, recompute);
    QFETCH(int, forwardCollective);
    QFETCH(double, forwardCount);
    QFETCH(double, backwardCount);

    TrainingSpec t = smallTraining();
    t.sequenceParallel = sequenceParallel;
    t.recompute = static_cast<Recompute>(recompute);
    const WorkloadPlan plan = planWorkload(smallModel(), t, h100(), degrees(2));
    // S = b s h e / c = 1 * 2048 * 1024 * 2 bytes.
    const double S = 4194304.0;
    const auto fc = static_cast<Collective>(forwardCollective);
    for (const char *block : {"attention", "MLP"}) {
        const CommOp *fwd = findOp(plan, Dim::Tp, fc, OpPass::Forward, block);
        QVERIFY2(fwd, block);
        QCOMPARE(fwd->bytes, S);
        QCOMPARE(fwd->count, forwardCount);
        const CommOp *bwd = findOp(plan, Dim::Tp, fc, OpPass::Backward, block);
        QVERIFY2(bwd, block);
        QCOMPARE(bwd->bytes, S);
        // The backward's conjugate collectives, and full recompute's repeat of the forward's
        // (listed apart: they overlap different GEMMs). tst_iterationtiming checks the SP re-gather.
        double backward = 0.0;
        for (const CommOp &op : plan.ops)
            if (op.dim == Dim::Tp && op.collective == fc && op.pass == OpPass::Backward
                && op.what.rfind(block, 0) == 0 && op.what.find("re-gather") == std::string::npos)
                backward += op.count;
        QCOMPARE(backward, backwardCount);
        if (sequenceParallel) {
            // SP pairs every all-gather with a reduce-scatter of the same S.
            const CommOp *rs = findOp(plan, Dim::Tp, Collective::ReduceScatter, OpPass::Forward,
                                      block);
            QVERIFY(rs);
            QCOMPARE(rs->bytes, S);
            QCOMPARE(rs->count, forwardCount);
            QVERIFY(!findOp(plan, Dim::Tp, Collective::AllReduce, OpPass::Forward, block));
        } else {
            QVERIFY(!findOp(plan, Dim::Tp, Collective::AllGather, OpPass::Forward, block));
        }
    }
    // The single stage also carries the embedding's and the output layer's TP ops.
    QVERIFY(findOp(plan, Dim::Tp, sequenceParallel ? Collective::ReduceScatter
                                                   : Collective::AllReduce,
                   OpPass::Forward, "embedding"));
    const CommOp *ce = findOp(plan, Dim::Tp, Collective::AllReduce, OpPass::Forward,
                              "cross-entropy");
    QVERIFY(ce);
    QCOMPARE(ce->bytes, 2048.0 * 4.0);
    QCOMPARE(ce->count, 3.0);
}

void TestWorkloadPlan::noTensorOpsWithoutTp()
{
    const WorkloadPlan plan = planWorkload(smallModel(), smallTraining(), h100(), degrees(1, 1, 2));
    QCOMPARE(countOps(plan, Dim::Tp), 0);
    QCOMPARE(countOps(plan, Dim::Cp), 0);
    QCOMPARE(countOps(plan, Dim::Ep), 0);
    QCOMPARE(plan.boundaryActivationBytes, 0.0);
    QCOMPARE(plan.microbatches, 4); // 8 / (1 * 2)
}

// ---------------------------------------------------------------------------------------------

void TestWorkloadPlan::boundaryBytes_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<bool>("sequenceParallel");
    QTest::addColumn<bool>("scatterGather");
    QTest::addColumn<int>("precision");
    QTest::addColumn<double>("expected");

    const double full = 2048.0 * 1024.0 * 2.0; // b s h e
    QTest::newRow("tp1") << 1 << 1 << false << true << int(Precision::Bf16) << full;
    QTest::newRow("tp2 SP") << 2 << 1 << true << false << int(Precision::Bf16) << full / 2;
    QTest::newRow("tp2 scatter-gather") << 2 << 1 << false << true << int(Precision::Bf16)
                                        << full / 2;
    QTest::newRow("tp2 full tensor") << 2 << 1 << false << false << int(Precision::Bf16) << full;
    QTest::newRow("tp2 cp2 SP") << 2 << 2 << true << true << int(Precision::Bf16) << full / 4;
    // fp8 (Transformer Engine) casts inside its GEMMs only: the boundary tensor stays bf16.
    QTest::newRow("tp2 SP fp8") << 2 << 1 << true << true << int(Precision::Fp8) << full / 2;
}

void TestWorkloadPlan::fp8KeepsMessagesBf16()
{
    // Transformer Engine casts to fp8 inside its GEMMs only: TP, pipeline and DP messages of an
    // fp8 run have the bf16 run's bytes. The one exchange that can be fp8 is the distributed
    // optimizer's parameter all-gather, with fp8_param_gather (Megatron-LM --fp8-param-gather):
    // 1 byte a parameter instead of 2. Gradients keep their type: fp32 (4 bytes, Megatron's
    // accumulate_allreduce_grads_in_fp32) unless grad_reduce_bf16.
    TrainingSpec bf16 = smallTraining();
    bf16.sequenceParallel = true;
    bf16.distributedOptimizer = true;
    TrainingSpec fp8 = bf16;
    fp8.precision = Precision::Fp8;
    TrainingSpec gather = fp8;
    gather.fp8ParamGather = true;
    const ParallelDegrees d = degrees(2, 2, 2);
    const WorkloadPlan a = planWorkload(smallModel(), bf16, h100(), d);
    const WorkloadPlan b = planWorkload(smallModel(), fp8, h100(), d);
    const WorkloadPlan c = planWorkload(smallModel(), gather, h100(), d);
    QCOMPARE(a.ops.size(), b.ops.size());
    QCOMPARE(a.ops.size(), c.ops.size());
    int gathers = 0, scatters = 0;
    for (std::size_t i = 0; i < a.ops.size(); ++i) {
        QCOMPARE(b.ops[i].bytes, a.ops[i].bytes);
        const bool paramGather =
            a.ops[i].dim == Dim::Dp && a.ops[i].collective == Collective::AllGather;
        QCOMPARE(c.ops[i].bytes, paramGather ? a.ops[i].bytes / 2.0 : a.ops[i].bytes);
        gathers += paramGather ? 1 : 0;
        if (a.ops[i].dim == Dim::Dp && a.ops[i].collective == Collective::ReduceScatter) {
            // The same parameters as the all-gather, at 4 bytes against 2.
            ++scatters;
            QCOMPARE(a.ops[i].bytes, 2.0 * a.ops[i + 1].bytes);
        }
    }
    QVERIFY(gathers > 0);
    QCOMPARE(scatters, gathers);
    QCOMPARE(b.boundaryActivationBytes, a.boundaryActivationBytes);
    // With bf16 gradients the reduce-scatter halves too.
    TrainingSpec bf16Grads = fp8;
    bf16Grads.gradReduceBf16 = true;
    const WorkloadPlan e = planWorkload(smallModel(), bf16Grads, h100(), d);
    for (std::size_t i = 0; i < a.ops.size(); ++i)
        if (a.ops[i].dim == Dim::Dp && a.ops[i].collective == Collective::ReduceScatter)
            QCOMPARE(e.ops[i].bytes, a.ops[i].bytes / 2.0);
}

void TestWorkloadPlan::boundaryBytes()
{
    QFETCH(int, tp);
    QFETCH(int, cp);
    QFETCH(bool, sequenceParallel);
    QFETCH(bool, scatterGather);
    QFETCH(int, precision);
    QFETCH(double, expected);

    TrainingSpec t = smallTraining();
    t.sequenceParallel = sequenceParallel;
    t.pipelineScatterGather = scatterGather;
    t.precision = static_cast<Precision>(precision);
    const WorkloadPlan plan = planWorkload(smallModel(), t, h100(), degrees(tp, 2, 1, cp));
    QCOMPARE(plan.boundaryActivationBytes, expected);
    QCOMPARE(int(plan.stages.size()), 2);
    QCOMPARE(plan.stages[0].layers, 2);
    QCOMPARE(plan.stages[1].layers, 2);
}

// ---------------------------------------------------------------------------------------------

void TestWorkloadPlan::dataParallelSync_data()
{
    QTest::addColumn<bool>("distributed");
    QTest::addColumn<int>("precision");
    QTest::addColumn<double>("bytesPerParameter"); // the ledger's params + grads + optimizer

    // Megatron-LM README, distributed optimizer table, d = 4.
    QTest::newRow("bf16 plain 18") << false << int(Precision::Bf16) << 18.0;
    QTest::newRow("bf16 distributed 6+12/d") << true << int(Precision::Bf16) << 6.0 + 12.0 / 4;
    QTest::newRow("fp16 plain 20") << false << int(Precision::Fp16) << 20.0;
    QTest::newRow("fp16 distributed 4+16/d") << true << int(Precision::Fp16) << 4.0 + 16.0 / 4;
    QTest::newRow("fp8 distributed 6+12/d") << true << int(Precision::Fp8) << 6.0 + 12.0 / 4;
}

void TestWorkloadPlan::dataParallelSync()
{
    QFETCH(bool, distributed);
    QFETCH(int, precision);
    QFETCH(double, bytesPerParameter);

    TrainingSpec t = smallTraining();
    t.distributedOptimizer = distributed;
    t.precision = static_cast<Precision>(precision);
    const WorkloadPlan plan = planWorkload(smallModel(), t, h100(), degrees(2, 1, 4));
    const double perRank = smallModelParameters() / 2; // tp 2
    const double gradBytes = t.precision == Precision::Fp16 ? 2.0 : 4.0;

    QVERIFY(near(plan.parametersTotal, smallModelParameters()));
    const MemoryLedger &m = plan.memory[0];
    QVERIFY(near(m.parameters, perRank * 2.0));
    QVERIFY(near(m.gradients, perRank * gradBytes));
    // The table's fp16 rows count the fp32 main gradients (4 bytes, sharded with the
    // distributed optimizer); they exist only during the optimizer step, so the ledger books
    // them apart (MemoryLedger::optimizerStep), beside the activations rather than on top.
    QVERIFY(near(m.parameters + m.gradients + m.optimizer + m.optimizerStep,
                 perRank * bytesPerParameter));
    QVERIFY(near(m.optimizer, perRank * 12.0 / (distributed ? 4.0 : 1.0)));

    if (distributed) {
        const CommOp *rs = findOp(plan, Dim::Dp, Collective::ReduceScatter, OpPass::Iteration,
                                  "dense gradient");
        const CommOp *ag = findOp(plan, Dim::Dp, Collective::AllGather, OpPass::Iteration,
                                  "dense parameter");
        QVERIFY(rs && ag);
        QVERIFY(near(rs->bytes, perRank * gradBytes));
        QVERIFY(near(ag->bytes, perRank * 2.0));
        QCOMPARE(rs->count, 1.0);
        QVERIFY(!findOp(plan, Dim::Dp, Collective::AllReduce, OpPass::Iteration, "dense"));
    } else {
        const CommOp *ar = findOp(plan, Dim::Dp, Collective::AllReduce, OpPass::Iteration,
                                  "dense gradient");
        QVERIFY(ar);
        QVERIFY(near(ar->bytes, perRank * gradBytes));
        QCOMPARE(ar->count, 1.0);
    }
    QCOMPARE(countOps(plan, Dim::Dp), distributed ? 2 : 1);
}

void TestWorkloadPlan::deepSpeedBf16PipelineAllReduces()
{
    // DeepSpeed's pipeline engine in bf16 (BF16_Optimizer, ZeRO-1; BLOOM's runs) all-reduces the
    // fp32 gradients whole, then all-gathers the updated bf16 parameters
    // (PipelineEngine._bf16_reduce_grads); Megatron's distributed optimizer, DeepSpeed without a
    // pipeline and fp16 reduce-scatter the same bytes.
    const auto sync = [](std::optional<SoftwareStack> stack, Precision precision, int pp) {
        TrainingSpec t = smallTraining();
        t.stack = stack;
        t.precision = precision;
        t.distributedOptimizer = true;
        t.dpSharding = DpSharding::Optim;
        return planWorkload(smallModel(), t, h100(), degrees(2, pp, 4));
    };
    const WorkloadPlan deepSpeed = sync(SoftwareStack::DeepSpeed, Precision::Bf16, 2);
    const WorkloadPlan megatron = sync(std::nullopt, Precision::Bf16, 2);
    for (int stage = 0; stage < 2; ++stage) {
        const CommOp *ar = findOp(deepSpeed, Dim::Dp, Collective::AllReduce, OpPass::Iteration,
            "dense gradient all-reduce (BF16_Optimizer)", stage);
        const CommOp *rs = findOp(megatron, Dim::Dp, Collective::ReduceScatter, OpPass::Iteration,
            "dense gradient", stage);
        QVERIFY(ar && rs);
        QVERIFY(near(ar->bytes, rs->bytes)); // the stage's parameters x 4 bytes (fp32)
        QVERIFY(!findOp(
            deepSpeed, Dim::Dp, Collective::ReduceScatter, OpPass::Iteration, "dense", stage));
        const CommOp *ag = findOp(
            deepSpeed, Dim::Dp, Collective::AllGather, OpPass::Iteration, "dense parameter", stage);
        QVERIFY(ag);
        QVERIFY(near(ag->bytes, rs->bytes / 2.0)); // bf16
    }
    // Without a pipeline, or in fp16: DeepSpeed's ZeRO-1 reduce-scatters.
    for (const WorkloadPlan &plan : { sync(SoftwareStack::DeepSpeed, Precision::Bf16, 1),
             sync(SoftwareStack::DeepSpeed, Precision::Fp16, 2) }) {
        QVERIFY(
            findOp(plan, Dim::Dp, Collective::ReduceScatter, OpPass::Iteration, "dense gradient"));
        QVERIFY(!findOp(plan, Dim::Dp, Collective::AllReduce, OpPass::Iteration, "dense"));
    }
}

// ---------------------------------------------------------------------------------------------

namespace {
ModelSpec smallMoe()
{
    ModelSpec m = smallModel();
    m.gatedMlp = true;
    m.kvHeads = 4;
    m.ffn = 2048;
    m.experts = 8;
    m.topK = 2;
    m.layers = 2;
    return m;
}
} // namespace

void TestWorkloadPlan::expertAllToAll_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("ep");
    QTest::addColumn<bool>("sequenceParallel");
    QTest::addColumn<double>("a2aBytes");

    // S = tokens_per_rank * topK * h * e, tokens_per_rank = b s / c, / t with SP.
    QTest::newRow("tp1 ep4") << 1 << 4 << false << 2048.0 * 2 * 1024 * 2;
    QTest::newRow("tp2 ep4 SP") << 2 << 4 << true << 1024.0 * 2 * 1024 * 2;
    QTest::newRow("tp1 ep2") << 1 << 2 << false << 2048.0 * 2 * 1024 * 2;
}

void TestWorkloadPlan::expertAllToAll()
{
    QFETCH(int, tp);
    QFETCH(int, ep);
    QFETCH(bool, sequenceParallel);
    QFETCH(double, a2aBytes);

    TrainingSpec t = smallTraining();
    t.sequenceParallel = sequenceParallel;
    t.globalBatch = 8;
    const WorkloadPlan plan = planWorkload(smallMoe(), t, h100(), degrees(tp, 1, 8, 1, ep));
    QCOMPARE(plan.stages[0].moeLayers, 2);
    const CommOp *fwd = findOp(plan, Dim::Ep, Collective::AllToAll, OpPass::Forward, "token");
    const CommOp *bwd = findOp(plan, Dim::Ep, Collective::AllToAll, OpPass::Backward, "token");
    QVERIFY(fwd && bwd);
    QCOMPARE(fwd->bytes, a2aBytes);
    QCOMPARE(fwd->count, 4.0); // dispatch + combine, 2 MoE layers
    QCOMPARE(bwd->count, 4.0);

    // Expert gradients sync over the expert-data-parallel group (dp 8 / ep), named "expert".
    const CommOp *edp = findOp(plan, Dim::Dp, Collective::AllReduce, OpPass::Iteration,
                               "expert gradient");
    QVERIFY(edp);
    const double expertParams = 2.0 * 8 * 3 * 1024.0 * 2048; // layers * E * 3 h ffn
    QVERIFY(near(edp->bytes, expertParams / (ep * tp) * 4.0));
    // The optimizer shard of expert parameters is 1/edp (distributed optimizer).
    const WorkloadPlan plain = planWorkload(smallMoe(), t, h100(), degrees(tp, 1, 8, 1, ep));
    t.distributedOptimizer = true;
    const WorkloadPlan dist = planWorkload(smallMoe(), t, h100(), degrees(tp, 1, 8, 1, ep));
    QVERIFY(dist.memory[0].optimizer < plain.memory[0].optimizer);
}

// ---------------------------------------------------------------------------------------------

void TestWorkloadPlan::contextParallelRing()
{
    ModelSpec m = smallModel();
    m.kvHeads = 4; // GQA: kvDim = 4 * 64 = 256
    TrainingSpec t = smallTraining();
    t.sequenceParallel = true;
    t.recompute = Recompute::Selective;
    const WorkloadPlan plan = planWorkload(m, t, h100(), degrees(2, 1, 1, 2));
    // S = 2 b s kvDim e / t = 2 * 2048 * 256 * 2 / 2.
    const CommOp *fwd = findOp(plan, Dim::Cp, Collective::AllGather, OpPass::Forward, "K/V");
    const CommOp *bwd = findOp(plan, Dim::Cp, Collective::AllGather, OpPass::Backward, "K/V");
    QVERIFY(fwd && bwd);
    QCOMPARE(fwd->bytes, 1048576.0);
    QCOMPARE(fwd->count, 4.0);
    QCOMPARE(bwd->count, 4.0 * 3); // dK/dV doubles it, selective recompute re-runs the ring
    // TP messages shrink by c: b (s/c) h e.
    const CommOp *tpag = findOp(plan, Dim::Tp, Collective::AllGather, OpPass::Forward, "attention");
    QVERIFY(tpag);
    QCOMPARE(tpag->bytes, 2048.0 / 2 * 1024 * 2);
    QVERIFY(plan.stages[0].attentionCoreForwardTime > 0.0);
    QVERIFY(plan.stages[0].attentionCoreBackwardTime > plan.stages[0].attentionCoreForwardTime);
    QVERIFY(plan.stages[0].attentionCoreForwardTime < plan.stages[0].forwardTime);
}

// ---------------------------------------------------------------------------------------------

void TestWorkloadPlan::flopsMatchNarayananEq3()
{
    // GPT-3 shape, V 51200 (Narayanan et al. Table 1 / §5.1), full recompute: the per-stage
    // hardware FLOPs summed over stages, ranks and micro-batches must equal Eq. 3,
    // F = 96 B s l h^2 (1 + s/6h + V/16lh), and the model FLOPs Korthikanti's
    // 72 B s l h^2 (1 + s/6h + V/12lh).
    ModelSpec m = *modelPreset("gpt3-175b");
    m.vocab = 51200;
    TrainingSpec t = smallTraining();
    t.recompute = Recompute::Full;
    t.globalBatch = 16;
    const ParallelDegrees d = degrees(8, 8, 2);
    const WorkloadPlan plan = planWorkload(m, t, h100(), d);
    QCOMPARE(plan.microbatches, 8);

    double perMicrobatchRank = 0.0;
    for (const StageCompute &s : plan.stages) {
        QCOMPARE(s.layers, 12);
        perMicrobatchRank += s.forwardFlops + s.backwardFlops;
    }
    const double total = perMicrobatchRank * d.tp * d.cp * plan.microbatches * d.dp;
    const double B = 16, s = 2048, l = 96, h = 12288, V = 51200;
    const double eq3 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    QVERIFY2(near(total, eq3, 1e-12), qPrintable(QString::number(total / eq3, 'g', 15)));
    const double model = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    QVERIFY(near(plan.modelFlopsPerIteration, model, 1e-12));

    // Backward = 2 x forward on a middle stage without recompute.
    t.recompute = Recompute::None;
    const WorkloadPlan none = planWorkload(m, t, h100(), d);
    QVERIFY(near(none.stages[3].backwardFlops, 2.0 * none.stages[3].forwardFlops, 1e-12));
    // Selective adds the attention core forward: 4 b s^2 h / t per layer.
    t.recompute = Recompute::Selective;
    const WorkloadPlan sel = planWorkload(m, t, h100(), d);
    QVERIFY(near(sel.stages[3].backwardFlops - none.stages[3].backwardFlops,
                 12 * 4 * s * s * h / 8, 1e-12));
    // The last stage adds the logits GEMM, 2 b s h V / t forward.
    QVERIFY(near(none.stages[7].forwardFlops - none.stages[3].forwardFlops, 2 * s * h * V / 8,
                 1e-12));

    // Parameters: Narayanan Eq. 2, 12 l h^2 (1 + 13/12h + (V + s)/12lh), plus the final norm.
    const double eq2 = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h)) + 2 * h;
    QVERIFY(near(plan.parametersTotal, eq2, 1e-12));
}

// ---------------------------------------------------------------------------------------------

void TestWorkloadPlan::activationMemory_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<bool>("sequenceParallel");
    QTest::addColumn<int>("recompute");
    QTest::addColumn<double>("perLayer");

    // Korthikanti et al. 2022 §4, bytes per layer per micro-batch (b = 1).
    const double s = 2048, b = 1, h = 1024, a = 16;
    const double sbh = s * b * h;
    QTest::newRow("no parallelism") << 1 << false << int(Recompute::None)
                                    << sbh * (34 + 5 * a * s / h);
    QTest::newRow("tp2") << 2 << false << int(Recompute::None)
                         << sbh * (10 + 24.0 / 2 + 5 * a * s / (h * 2));
    QTest::newRow("tp2 SP") << 2 << true << int(Recompute::None)
                            << sbh / 2 * (34 + 5 * a * s / h);
    QTest::newRow("tp2 SP selective") << 2 << true << int(Recompute::Selective) << 34 * sbh / 2;
    QTest::newRow("tp2 selective") << 2 << false << int(Recompute::Selective)
                                   << sbh * (10 + 24.0 / 2);
    QTest::newRow("full recompute") << 2 << false << int(Recompute::Full) << 2 * sbh;
    QTest::newRow("full recompute SP") << 2 << true << int(Recompute::Full) << 2 * sbh / 2;
}

void TestWorkloadPlan::activationMemory()
{
    QFETCH(int, tp);
    QFETCH(bool, sequenceParallel);
    QFETCH(int, recompute);
    QFETCH(double, perLayer);

    ModelSpec m = smallModel();
    m.layers = 6;
    TrainingSpec t = smallTraining();
    t.sequenceParallel = sequenceParallel;
    t.recompute = static_cast<Recompute>(recompute);
    // pp 3: the middle stage holds 2 layers and neither embedding nor output layer.
    const WorkloadPlan plan = planWorkload(m, t, h100(), degrees(tp, 3));
    QVERIFY(near(plan.memory[1].activationsPerMicrobatch, 2 * perLayer));
    // The ends add Korthikanti's extras: the last stage 4 s b h / t (1 + V/h) with SP.
    QVERIFY(plan.memory[2].activationsPerMicrobatch > plan.memory[1].activationsPerMicrobatch);
    QCOMPARE(plan.memory[1].activations, 0.0); // set by the engine
    // Context parallelism divides every term by c (tokens per rank s/c).
    if (recompute != int(Recompute::None)) {
        const WorkloadPlan cp = planWorkload(m, t, h100(), degrees(tp, 3, 1, 2));
        QVERIFY(near(cp.memory[1].activationsPerMicrobatch, perLayer));
    }
}

// ---------------------------------------------------------------------------------------------

void TestWorkloadPlan::computeTimeDependsOnShape()
{
    // Achieved FLOP rate of a middle stage: lower for small GEMMs (tile/wave quantization,
    // short K, kernel overhead) than for GPT-3-sized ones, and below the calibrated maximum.
    const auto rate = [](int hidden, int heads) {
        ModelSpec m = smallModel();
        m.hidden = hidden;
        m.heads = heads;
        m.ffn = 4 * hidden;
        m.layers = 6;
        TrainingSpec t = smallTraining();
        const WorkloadPlan plan = planWorkload(m, t, *devicePreset("a100-80g"), degrees(1, 3));
        const StageCompute &s = plan.stages[1];
        return (s.forwardFlops + s.backwardFlops) / (s.forwardTime + s.backwardTime) / 312e12;
    };
    const double small = rate(1024, 16);
    const double large = rate(12288, 96);
    QVERIFY2(small < large, qPrintable(QString("%1 vs %2").arg(small).arg(large)));
    QVERIFY(large < 0.80);
    QVERIFY(large > 0.60);
    QVERIFY(small < 0.9 * large);

    // Doubling the micro-batch less than doubles the time of a small model (better GEMM
    // utilisation), i.e. time is not FLOPs over a constant.
    TrainingSpec t = smallTraining();
    const WorkloadPlan b1 = planWorkload(smallModel(), t, h100(), degrees(2));
    t.microBatch = 2;
    const WorkloadPlan b2 = planWorkload(smallModel(), t, h100(), degrees(2));
    QVERIFY(near(b2.stages[0].forwardFlops, 2 * b1.stages[0].forwardFlops, 1e-12));
    QVERIFY(b2.stages[0].forwardTime < 2.0 * b1.stages[0].forwardTime);
    QVERIFY(b2.stages[0].forwardTime > b1.stages[0].forwardTime);

    // A faster device is faster; fp8 GEMMs run faster than bf16 on H100.
    const WorkloadPlan a100 = planWorkload(smallModel(), smallTraining(), *devicePreset("a100-80g"),
                                           degrees(2));
    QVERIFY(b1.stages[0].forwardTime < a100.stages[0].forwardTime);
    TrainingSpec fp8 = smallTraining();
    fp8.precision = Precision::Fp8;
    ModelSpec big = smallModel();
    big.hidden = 8192;
    big.heads = 64;
    big.ffn = 32768;
    const WorkloadPlan bf = planWorkload(big, smallTraining(), h100(), degrees(1));
    const WorkloadPlan f8 = planWorkload(big, fp8, h100(), degrees(1));
    QVERIFY(f8.stages[0].forwardTime < 0.8 * bf.stages[0].forwardTime);
    QVERIFY(near(f8.stages[0].forwardFlops, bf.stages[0].forwardFlops));

    // The device's own constants override the calibrated defaults.
    DeviceSpec slow = h100();
    slow.maxEfficiency = 0.25; // well under the calibrated bf16 value (0.603)
    const WorkloadPlan s = planWorkload(big, smallTraining(), slow, degrees(1));
    QVERIFY(s.stages[0].forwardTime > 1.5 * bf.stages[0].forwardTime);
    QVERIFY(bf.stages[0].optimizerTime > 0.0);
}

void TestWorkloadPlan::recomputeCostsTime()
{
    ModelSpec m = smallModel();
    m.layers = 6;
    TrainingSpec t = smallTraining();
    const auto plan = [&](Recompute r) {
        t.recompute = r;
        return planWorkload(m, t, h100(), degrees(2, 3)).stages[1];
    };
    const StageCompute none = plan(Recompute::None);
    const StageCompute selective = plan(Recompute::Selective);
    const StageCompute full = plan(Recompute::Full);
    // A middle stage: full recompute re-runs exactly its layers' forward, selective the
    // attention core forward (Korthikanti et al. 2022 §5).
    QVERIFY(near(full.backwardTime - none.backwardTime, none.forwardTime, 1e-9));
    QVERIFY(near(selective.backwardTime - none.backwardTime, none.attentionCoreForwardTime, 1e-9));
    QVERIFY(none.attentionCoreForwardTime > 0.0);
    QVERIFY(none.backwardTime > 1.5 * none.forwardTime);
    QVERIFY(none.backwardTime < 2.5 * none.forwardTime);
}

QTEST_GUILESS_MAIN(TestWorkloadPlan)
#include "tst_workloadplan.moc"
