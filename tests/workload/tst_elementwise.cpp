// What each stack fuses of a layer's element-wise kernels (model/workload/elementwise.cpp),
// derived by hand for one Llama 3.1 8B layer on one H100: eager PyTorch (torchtitan's block),
// torch.compile (Inductor) and Transformer Engine, each as kernels x overhead + bytes /
// (0.85 x HBM bandwidth), and the difference they make to a layer and to a whole plan.
#include "workload/computemodel.h"
#include "workload/elementwise.h"
#include "workload/presets.h"
#include "workload/workloadplan.h"

#include <QTest>

#include <cmath>

using namespace railyard;
using namespace railyard::compute;

namespace {

bool nearRel(double a, double b, double rel = 1e-9)
{
    return std::abs(a - b) <= rel * std::max({ 1e-300, std::abs(a), std::abs(b) });
}

#define ELEMENTWISE_NEAR(actual, expected)                                                         \
    QVERIFY2(nearRel((actual), (expected)),                                                        \
        qPrintable(QStringLiteral("%1 = %2, expected %3")                                          \
                       .arg(QStringLiteral(#actual))                                               \
                       .arg((actual), 0, 'g', 15)                                                  \
                       .arg((expected), 0, 'g', 15)))

// Llama 3.1 8B as torchtitan trains it (benchmarks/llama3_h100_202412_torchtitan.md, Table 1):
// hidden 4096, 32 heads of 128, 8 KV heads, SwiGLU ffn 14336, micro-batch 2 of 8192 tokens, no
// tensor parallelism.
constexpr double kH = 4096.0;
constexpr double kKv = 8.0 * 128.0;
constexpr double kFfn = 14336.0;
constexpr double kTokens = 2.0 * 8192.0;

// The H100 SXM's HBM3, 3350 GB/s, at the engine's 85 % streaming share, and a 4 us kernel
// overhead (the efficiency table's generic entry, so the numbers do not move with a refit).
constexpr double kHbm = 3350e9 * 0.85;
constexpr double kOverhead = 4e-6;

Shape llama8b()
{
    Shape x;
    x.b = 2.0;
    x.s = 8192.0;
    x.h = kH;
    x.a = 32.0;
    x.headDim = 128.0;
    x.kvDim = kKv;
    x.ffn = kFfn;
    x.t = 1.0;
    x.c = 1.0;
    x.tokens = kTokens;
    x.spTokens = kTokens;
    x.e = 2.0;
    x.gated = true;
    x.gptStyle = false;
    x.repeatKv = true;
    return x;
}

Roofline h100()
{
    DeviceSpec d = *devicePreset("h100-sxm");
    d.name = "h100-uncalibrated";
    return deviceRoofline(d, Precision::Bf16);
}

} // namespace

class TestElementwise : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eagerCompiledAndTransformerEngineByHand();
    void layerTimeDiffersByTheElementwiseAlone();
    void gptBlockEagerIsTheFusedCount();
    void planCompileOnAgainstOff();
};

void TestElementwise::eagerCompiledAndTransformerEngineByHand()
{
    const double T = kTokens, h = kH, kv = kKv, w = kH, ffn = kFfn;
    // Eager (torchtitan's block): two RMSNorms of 8 kernels and 36 bytes per element (fp32 cast,
    // pow, mean, add, rsqrt, multiply, cast back, weight), two residual adds (6 bytes), rotary on
    // Q and K (3 kernels and 20 bytes per element each), repeat_kv's two copies (read kv, write w
    // per token, 2 bytes), silu and the product (10 bytes per ffn element).
    const double eagerBytes = 2.0 * 36.0 * T * h + 2.0 * 6.0 * T * h + 20.0 * T * (w + kv)
        + 2.0 * 2.0 * T * (kv + w) + 10.0 * T * ffn;
    const double eagerKernels = 16.0 + 2.0 + 6.0 + 2.0 + 2.0;
    // Inductor: one kernel per norm (4 bytes), the first residual add inside the second norm
    // (2 bytes saved), rotary one kernel per tensor (4 bytes), the copies, SwiGLU one kernel
    // (6 bytes per ffn element).
    const double inductorBytes = 2.0 * 4.0 * T * h + 2.0 * 6.0 * T * h - 2.0 * T * h
        + 4.0 * T * (w + kv) + 2.0 * 2.0 * T * (kv + w) + 6.0 * T * ffn;
    const double inductorKernels = 2.0 + 1.0 + 2.0 + 2.0 + 1.0;
    // Transformer Engine: norms, residuals, rotary and SwiGLU fused, no copies: the count the
    // device table was fitted with.
    const double teBytes
        = 2.0 * 4.0 * T * h + 2.0 * 6.0 * T * h + 4.0 * T * (w + kv) + 6.0 * T * ffn;
    const double teKernels = 6.0;

    const Shape x = llama8b();
    const ElementwiseTraffic eager = layerElementwise(x, false, Fusion::Eager);
    const ElementwiseTraffic inductor = layerElementwise(x, false, Fusion::Inductor);
    const ElementwiseTraffic te = layerElementwise(x, false, Fusion::TransformerEngine);
    ELEMENTWISE_NEAR(eager.bytes, eagerBytes);
    QCOMPARE(eager.kernels, eagerKernels);
    ELEMENTWISE_NEAR(inductor.bytes, inductorBytes);
    QCOMPARE(inductor.kernels, inductorKernels);
    ELEMENTWISE_NEAR(te.bytes, teBytes);
    QCOMPARE(te.kernels, teKernels);

    // The forward time each costs: 3.6 ms eager, 1.2 ms compiled, 1.1 ms with TE per layer.
    const Roofline r = h100();
    const auto timeOf
        = [](double bytes, double kernels) { return kernels * kOverhead + bytes / kHbm; };
    ELEMENTWISE_NEAR(
        streaming(r, eager.bytes, eager.kernels).time, timeOf(eagerBytes, eagerKernels));
    ELEMENTWISE_NEAR(streaming(r, inductor.bytes, inductor.kernels).time,
        timeOf(inductorBytes, inductorKernels));
    ELEMENTWISE_NEAR(streaming(r, te.bytes, te.kernels).time, timeOf(teBytes, teKernels));
    QVERIFY(timeOf(eagerBytes, eagerKernels) > 3.4e-3 && timeOf(eagerBytes, eagerKernels) < 3.8e-3);
    QVERIFY(timeOf(inductorBytes, inductorKernels) < 1.3e-3);
    QVERIFY(timeOf(teBytes, teKernels) < timeOf(inductorBytes, inductorKernels));
}

void TestElementwise::layerTimeDiffersByTheElementwiseAlone()
{
    // The GEMMs and the attention core do not depend on the fusion: a layer's forward differs
    // by the element-wise forward, its backward by twice that.
    const Roofline r = h100();
    Shape x = llama8b();
    x.fusion = Fusion::TransformerEngine;
    const LayerCompute te = layerCompute(r, x, false, true);
    x.fusion = Fusion::Eager;
    const LayerCompute eager = layerCompute(r, x, false, true);
    const ElementwiseTraffic e = layerElementwise(x, false, Fusion::Eager);
    const ElementwiseTraffic f = layerElementwise(x, false, Fusion::TransformerEngine);
    const double delta = (e.kernels - f.kernels) * kOverhead + (e.bytes - f.bytes) / kHbm;
    ELEMENTWISE_NEAR(eager.forward.time - te.forward.time, delta);
    ELEMENTWISE_NEAR(eager.backward.time - te.backward.time, 2.0 * delta);
    QCOMPARE(eager.forward.flops, te.forward.flops);
}

void TestElementwise::gptBlockEagerIsTheFusedCount()
{
    // A GPT-style eager block (MPT in llm-foundry): nn.LayerNorm and GeLU are single native
    // kernels, the biases ride the GEMM's epilogue, no dropout: Transformer Engine's count.
    Shape x = llama8b();
    x.gated = false;
    x.gptStyle = true;
    x.kvDim = kH;
    x.ffn = 4.0 * kH;
    x.repeatKv = false;
    const ElementwiseTraffic eager = layerElementwise(x, false, Fusion::Eager);
    const ElementwiseTraffic te = layerElementwise(x, false, Fusion::TransformerEngine);
    QCOMPARE(eager.kernels, 5.0);
    QCOMPARE(te.kernels, 5.0);
    // Norms 2 x 4, residual adds 2 x (6 + 1 mask byte), GeLU 4 bytes per ffn element.
    ELEMENTWISE_NEAR(eager.bytes, (8.0 + 14.0) * kTokens * kH + 4.0 * kTokens * 4.0 * kH);
    ELEMENTWISE_NEAR(te.bytes, eager.bytes);
}

void TestElementwise::planCompileOnAgainstOff()
{
    // A whole fsdp2 plan, Llama 3 8B on one 8-GPU FSDP group: compile on makes each stage's
    // forward faster by the layers' eager-minus-Inductor element-wise time (the stack's rate
    // factor scales the GEMMs, not HBM), the backward by twice it; a Megatron-Core run keeps
    // Transformer Engine's count whatever the stack's neighbours do.
    ModelSpec m = *modelPreset("llama3-8b");
    TrainingSpec t;
    t.microBatch = 2;
    t.globalBatch = 16;
    t.sequenceParallel = false;
    t.recompute = Recompute::None;
    t.stack = SoftwareStack::Fsdp2;
    t.dpSharding = DpSharding::OptimGradsParams;
    DeviceSpec d = *devicePreset("h100-sxm");
    d.name = "h100-uncalibrated";
    ParallelDegrees p;
    p.dp = 8;
    t.compile = false;
    const WorkloadPlan eager = planWorkload(m, t, d, p);
    t.compile = true;
    const WorkloadPlan compiled = planWorkload(m, t, d, p);
    const Shape x = llama8b();
    const ElementwiseTraffic e = layerElementwise(x, false, Fusion::Eager);
    const ElementwiseTraffic i = layerElementwise(x, false, Fusion::Inductor);
    const double perLayer = (e.kernels - i.kernels) * kOverhead + (e.bytes - i.bytes) / kHbm;
    ELEMENTWISE_NEAR(eager.stages[0].forwardTime - compiled.stages[0].forwardTime, 32.0 * perLayer);
    ELEMENTWISE_NEAR(
        eager.stages[0].backwardTime - compiled.stages[0].backwardTime, 2.0 * 32.0 * perLayer);
    // 32 layers x 2.4 ms forward: about 0.08 s of a step of about 2.5 s.
    QVERIFY(32.0 * perLayer > 0.07 && 32.0 * perLayer < 0.09);

    // Unset = off (torchtitan's default): the eager plan.
    t.compile.reset();
    QCOMPARE(planWorkload(m, t, d, p).stages[0].forwardTime, eager.stages[0].forwardTime);

    // fsdp2's selective recompute is torchtitan's op-level policy: every element-wise operator
    // and the even matmuls (wk, wo, w3) run again before the backward, the attention kernel
    // does not. Compile on/off then differs by three times the forward's element-wise time in
    // the backward, and the recompute adds 2 T (h kv + w h + h ffn) FLOPs per layer.
    t.recompute = Recompute::Selective;
    t.compile = false;
    const WorkloadPlan sacEager = planWorkload(m, t, d, p);
    t.compile = true;
    const WorkloadPlan sacCompiled = planWorkload(m, t, d, p);
    ELEMENTWISE_NEAR(sacEager.stages[0].backwardTime - sacCompiled.stages[0].backwardTime,
        3.0 * 32.0 * perLayer);
    const double recomputed = 2.0 * kTokens * (kH * kKv + kH * kH + kH * kFfn);
    ELEMENTWISE_NEAR(
        sacCompiled.stages[0].backwardFlops - compiled.stages[0].backwardFlops, 32.0 * recomputed);
}

QTEST_GUILESS_MAIN(TestElementwise)
#include "tst_elementwise.moc"
