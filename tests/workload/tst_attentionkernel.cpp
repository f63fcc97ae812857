// Each stack's attention kernel (model/workload/deviceefficiency.cpp, attentionKernelOf and
// flashAttention2Shares): fsdp2 (PyTorch SDPA's flash backend) and composer (the flash-attn
// package) run FlashAttention-2 at its published H100 rates (Shah et al., FlashAttention-3,
// 2024: causal forward 298 TFLOP/s at seq 2K, 319 at 4K, 333 at 8K, 335 at 16K; backward
// without mask 291, 310, 318, 322, taken causal by the forward's causal / unmasked ratio, 362,
// 368, 370, 370), Megatron-Core with Transformer Engine cuDNN's fused attention at the device
// table's 59 % / 47 % of the bf16 peak. One Llama 3 8B layer's attention core derived by hand
// as FLOPs / (peak x rate).
#include "workload/deviceefficiency.h"
#include "workload/presets.h"
#include "workload/workloadplan.h"

#include <QTest>

#include <cmath>

using namespace railyard;

namespace {

bool nearRel(double a, double b, double rel = 1e-9)
{
    return std::abs(a - b) <= rel * std::max({ 1e-300, std::abs(a), std::abs(b) });
}

#define ATTENTION_NEAR(actual, expected)                                                           \
    QVERIFY2(nearRel((actual), (expected)),                                                        \
        qPrintable(QStringLiteral("%1 = %2, expected %3")                                          \
                       .arg(QStringLiteral(#actual))                                               \
                       .arg((actual), 0, 'g', 15)                                                  \
                       .arg((expected), 0, 'g', 15)))

} // namespace

class TestAttentionKernel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void kernelPerStack();
    void flashAttention2PublishedRates();
    void oneLayerFsdp2AgainstTransformerEngine();
};

void TestAttentionKernel::kernelPerStack()
{
    QCOMPARE(attentionKernelOf(SoftwareStack::Fsdp2), AttentionKernel::FlashAttention2);
    QCOMPARE(attentionKernelOf(SoftwareStack::Composer), AttentionKernel::FlashAttention2);
    QCOMPARE(attentionKernelOf(SoftwareStack::MegatronCoreTe), AttentionKernel::DeviceTable);
    QCOMPARE(attentionKernelOf(SoftwareStack::MegatronLm), AttentionKernel::DeviceTable);
    QCOMPARE(attentionKernelOf(SoftwareStack::DeepSpeed), AttentionKernel::DeviceTable);
    QCOMPARE(attentionKernelOf(std::nullopt), AttentionKernel::DeviceTable);
}

void TestAttentionKernel::flashAttention2PublishedRates()
{
    // At the published lengths: the charts' TFLOP/s over the H100 SXM's 989.
    const auto at8k = flashAttention2Shares("h100-sxm", 8192.0);
    QVERIFY(at8k);
    ATTENTION_NEAR(at8k->forward, 333.0 / 989.0);
    ATTENTION_NEAR(at8k->backward, 318.0 * 333.0 / 370.0 / 989.0);
    const auto at2k = flashAttention2Shares("h100-sxm", 2048.0);
    QVERIFY(at2k);
    ATTENTION_NEAR(at2k->forward, 298.0 / 989.0);
    ATTENTION_NEAR(at2k->backward, 291.0 * 298.0 / 362.0 / 989.0);
    // Between them, linear in log2 of the length: 3072 is 0.585 of the way from 2K to 4K.
    const double u = std::log2(3072.0 / 2048.0);
    const auto at3k = flashAttention2Shares("h100-sxm", 3072.0);
    QVERIFY(at3k);
    ATTENTION_NEAR(at3k->forward, (298.0 + u * (319.0 - 298.0)) / 989.0);
    const double b2k = 291.0 * 298.0 / 362.0;
    const double b4k = 310.0 * 319.0 / 368.0;
    ATTENTION_NEAR(at3k->backward, (b2k + u * (b4k - b2k)) / 989.0);
    // Beyond the charts the end values hold: 32K is the 16K plateau (335 TFLOP/s, 34 %).
    const auto at32k = flashAttention2Shares("h100-sxm", 32768.0);
    QVERIFY(at32k);
    ATTENTION_NEAR(at32k->forward, 335.0 / 989.0);
    ATTENTION_NEAR(at32k->backward, 322.0 * 335.0 / 370.0 / 989.0);
    QVERIFY(at32k->forward > 0.33 && at32k->forward < 0.35);
    // The H200 has the H100's compute die; A100 (whose table entry is FlashAttention-2 already)
    // and Blackwell (no published FlashAttention-2 figure) keep the table.
    QVERIFY(flashAttention2Shares("h200", 8192.0));
    QVERIFY(!flashAttention2Shares("a100-80g", 8192.0));
    QVERIFY(!flashAttention2Shares("b200", 8192.0));
    QVERIFY(!flashAttention2Shares("gb200", 8192.0));
}

void TestAttentionKernel::oneLayerFsdp2AgainstTransformerEngine()
{
    // Llama 3 8B (32 layers, 32 heads of 128, hidden 4096), micro-batch 2 of 8192 tokens, bf16,
    // one H100 SXM per FSDP rank: the same plan under fsdp2 and megatron-core-te.
    ModelSpec m = *modelPreset("llama3-8b");
    m.seq = 8192;
    TrainingSpec t;
    t.microBatch = 2;
    t.globalBatch = 16;
    t.precision = Precision::Bf16;
    t.sequenceParallel = false;
    t.recompute = Recompute::None;
    t.dpSharding = DpSharding::OptimGradsParams;
    const DeviceSpec d = *devicePreset("h100-sxm");
    ParallelDegrees p;
    p.dp = 8;
    t.stack = SoftwareStack::Fsdp2;
    const WorkloadPlan fsdp2 = planWorkload(m, t, d, p);
    t.stack = SoftwareStack::MegatronCoreTe;
    const WorkloadPlan te = planWorkload(m, t, d, p);
    QCOMPARE(fsdp2.stages.size(), std::size_t { 1 });
    QCOMPARE(fsdp2.stages[0].layers, 32);

    // Causal work of one layer's forward: 4 b s^2 (a x 128) / 2; the backward 2.5x it. One
    // thread block per (batch, head, 128 queries): 64 x 2 x 32 = 4096 blocks in 32 waves of
    // 132 SMs. One kernel overhead (10 us, the H100 entry) forward, two backward.
    const double work = 4.0 * 2.0 * 8192.0 * 8192.0 * 4096.0 / 2.0;
    const double waves = 4096.0 / (32.0 * 132.0);
    const double overhead = 10e-6;
    const double peak = 989e12;
    // Transformer Engine: cuDNN at 59 % forward, 47 % backward of the peak, stack factor 1.
    const double teForward = work / (peak * 0.59 * waves) + overhead;
    const double teBackward = 2.5 * work / (peak * 0.47 * waves) + 2.0 * overhead;
    // fsdp2: FlashAttention-2 at 8K, 333 TFLOP/s forward and 318 x 333 / 370 backward, times the
    // stack's fitted share of the device's rates.
    const double k = stackComputeFactor(SoftwareStack::Fsdp2);
    const double fa2Forward = work / (333e12 * k * waves) + overhead;
    const double fa2Backward = 2.5 * work / (318e12 * 333.0 / 370.0 * k * waves) + 2.0 * overhead;
    ATTENTION_NEAR(te.stages[0].attentionCoreForwardTime / 32.0, teForward);
    ATTENTION_NEAR(te.stages[0].attentionCoreBackwardTime / 32.0, teBackward);
    ATTENTION_NEAR(fsdp2.stages[0].attentionCoreForwardTime / 32.0, fa2Forward);
    ATTENTION_NEAR(fsdp2.stages[0].attentionCoreBackwardTime / 32.0, fa2Backward);
    // About 4.3 ms against 2.0 ms forward a layer: FlashAttention-2's 34 % of the peak times the
    // stack's share (0.79) against cuDNN's 59 %.
    QVERIFY(fa2Forward > 4.2e-3 && fa2Forward < 4.4e-3);
    QVERIFY(teForward > 1.9e-3 && teForward < 2.0e-3);
}

QTEST_APPLESS_MAIN(TestAttentionKernel)
#include "tst_attentionkernel.moc"
