// The compute-time model (model/workload/computemodel.cpp) against hand formulas: the device
// roofline, GEMMs on both sides of the roof, tile and wave quantization making odd shapes slower,
// the FlashAttention-2 core, and a layer's FLOPs against Narayanan et al. (SC'21) Eq. 3.
#include "workload/computemodel.h"
#include "workload/deviceefficiency.h"
#include "handcheck.h"
#include "workload/presets.h"

#include <QTest>

#include <array>
#include <cmath>
#include <initializer_list>

using namespace railyard;
using namespace railyard::compute;

namespace {

// The generic entry's GEMM rate the hand formulas below use (handcheck.h): 80 % of the peak.
constexpr double kGemmPeak = 989e12 * 0.80;
using handcheck::kHbm;
using handcheck::kOverhead;
using handcheck::near;

DeviceSpec h100()
{
    return handcheck::uncalibratedH100();
}

/// A dense GPT-style layer shape (LayerNorm, GeLU MLP of 4h, full heads), b x s tokens.
Shape gptShape(double b, double s, double h, double heads, double t)
{
    Shape x;
    x.b = b;
    x.s = s;
    x.h = h;
    x.a = heads;
    x.headDim = h / heads;
    x.kvDim = h;
    x.ffn = 4.0 * h;
    x.t = t;
    x.c = 1.0;
    x.tokens = b * s;
    x.spTokens = x.tokens;
    x.e = 2.0;
    x.gated = false;
    x.gptStyle = true;
    return x;
}

} // namespace

class TestComputeModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void deviceRoofline_data();
    void deviceRoofline();
    void calibratedDefaultsCanBeOverridden();
    void tableEntryPerDeviceAndPrecision();
    void tileModelReproducesCublasLtSweep_data();
    void tileModelReproducesCublasLtSweep();
    void fp8LeavesTheLmHeadAndAttentionInBf16();
    void largeGemmIsComputeBound();
    void gemvIsMemoryBound();
    void oddShapeLosesAWave();
    void shortReductionRunsBelowPeak();
    void linearBackwardIsTwoGemms();
    void streamingKernels();
    void flashAttentionCore();
    void denseLayerFlopsFollowNarayanan();
    void moeLayerScalesWithTheHottestMember();
};

void TestComputeModel::deviceRoofline_data()
{
    QTest::addColumn<int>("precision");
    QTest::addColumn<double>("gemmPeak");
    QTest::addColumn<double>("attentionPeak");
    QTest::addColumn<double>("gemmBytes");
    // fp8 GEMMs run at the fp8 peak with 1-byte inputs; the attention core stays in bf16.
    QTest::newRow("bf16") << int(Precision::Bf16) << 989e12 * 0.8 << 989e12 * 0.8 << 2.0;
    QTest::newRow("fp16") << int(Precision::Fp16) << 989e12 * 0.8 << 989e12 * 0.8 << 2.0;
    QTest::newRow("fp8") << int(Precision::Fp8) << 1979e12 * 0.8 << 989e12 * 0.8 << 1.0;
}

void TestComputeModel::deviceRoofline()
{
    QFETCH(int, precision);
    QFETCH(double, gemmPeak);
    QFETCH(double, attentionPeak);
    QFETCH(double, gemmBytes);
    const Roofline r = compute::deviceRoofline(h100(), static_cast<Precision>(precision));
    COMPARE_NEAR(r.gemmPeak, gemmPeak);
    COMPARE_NEAR(r.attentionPeak, attentionPeak);
    COMPARE_NEAR(r.hbm, kHbm);
    QCOMPARE(r.sms, 132.0);
    COMPARE_NEAR(r.overhead, kOverhead);
    QCOMPARE(r.gemmBytes, gemmBytes);
}

void TestComputeModel::calibratedDefaultsCanBeOverridden()
{
    // A device's own max_efficiency and kernel_overhead_us replace the calibrated defaults; fp16
    // attention uses the fp16 peak.
    DeviceSpec d = h100();
    d.maxEfficiency = 0.5;
    d.kernelOverheadUs = 10.0;
    d.peakTflopsFp16 = 500.0;
    const Roofline r = compute::deviceRoofline(d, Precision::Fp16);
    COMPARE_NEAR(r.gemmPeak, 500e12 * 0.5);
    COMPARE_NEAR(r.attentionPeak, 500e12 * 0.5);
    COMPARE_NEAR(r.overhead, 10e-6);
}

void TestComputeModel::tableEntryPerDeviceAndPrecision()
{
    // The H100 preset takes its own rows of the table: fp8 GEMMs at the fp8 peak times the fp8
    // efficiency, what stays in bf16 at the bf16 peak times the bf16 efficiency. An fp8 GEMM
    // reaches a lower share of its doubled peak than a bf16 GEMM of its own (cuBLASLt: 70.9 %
    // against 80.3 % on H100, ml-engineering MAMF, tests/data/published/devices.json).
    const DeviceSpec d = *devicePreset("h100-sxm");
    const GemmEfficiency fp8 = gemmEfficiency(d, Precision::Fp8);
    const GemmEfficiency bf16 = gemmEfficiency(d, Precision::Bf16);
    QVERIFY(fp8.maxEfficiency < bf16.maxEfficiency);
    QVERIFY(fp8.tileK0 > bf16.tileK0); // the same epilogue time is more K-steps at fp8
    const Roofline r = compute::deviceRoofline(d, Precision::Fp8);
    COMPARE_NEAR(r.gemmPeak, 1979e12 * fp8.maxEfficiency);
    COMPARE_NEAR(r.attentionPeak, 989e12 * bf16.maxEfficiency);
    COMPARE_NEAR(r.flashForward, 989e12 * bf16.attentionForward);
    QCOMPARE(r.tileK0, fp8.tileK0);
    QCOMPARE(r.highPrecision().tileK0, bf16.tileK0);
    QCOMPARE(r.highPrecision().gemmPeak, r.attentionPeak);
    // A scenario's max_efficiency_fp8 replaces the fp8 entry only.
    DeviceSpec o = d;
    o.maxEfficiencyFp8 = 0.5;
    COMPARE_NEAR(compute::deviceRoofline(o, Precision::Fp8).gemmPeak, 1979e12 * 0.5);
    COMPARE_NEAR(compute::deviceRoofline(o, Precision::Bf16).gemmPeak,
                 989e12 * bf16.maxEfficiency);
    // Every row names its basis (the runs it was fitted on, or the measurement).
    for (const GemmEfficiencyRow &row : gemmEfficiencyTable())
        QVERIFY(!row.value.basis.empty());
}

void TestComputeModel::tileModelReproducesCublasLtSweep_data()
{
    // Azure/AI-benchmarking-guide cuBLASLt sweeps (tests/data/published/devices.json,
    // measured_gemm): TFLOP/s at m = n = k and at 6144 x 12288 x 12288.
    QTest::addColumn<QString>("device");
    QTest::addColumn<int>("precision");
    QTest::addColumn<double>("emax"); // the sweep's own plateau (deviceefficiency.cpp)
    QTest::addColumn<double>("m");
    QTest::addColumn<double>("n");
    QTest::addColumn<double>("k");
    QTest::addColumn<double>("tflops");
    for (const auto &[m, n, k, t] : std::initializer_list<std::array<double, 4>>{
             {4096, 4096, 4096, 1216.9}, {8192, 8192, 8192, 1290.1},
             {16384, 16384, 16384, 1377.3}, {6144, 12288, 12288, 1351.4}})
        QTest::addRow("h100 fp8 %gx%gx%g", m, n, k)
            << QStringLiteral("h100-sxm") << int(Precision::Fp8) << 0.715 << m << n << k << t;
    for (const auto &[m, n, k, t] : std::initializer_list<std::array<double, 4>>{
             {4096, 4096, 4096, 228.0}, {8192, 8192, 8192, 253.7},
             {16384, 16384, 16384, 256.5}, {6144, 12288, 12288, 250.8}})
        QTest::addRow("a100 fp16 %gx%gx%g", m, n, k)
            << QStringLiteral("a100-80g") << int(Precision::Fp16) << 0.85 << m << n << k << t;
}

void TestComputeModel::tileModelReproducesCublasLtSweep()
{
    // The table's K0 with the sweep's plateau efficiency and 4 us a kernel reproduces each
    // measured point within 2 %: the shape dependence (tile and wave quantization, short K) is
    // the measured one; the fitted max_efficiency then only scales it.
    QFETCH(QString, device);
    QFETCH(int, precision);
    QFETCH(double, emax);
    QFETCH(double, m);
    QFETCH(double, n);
    QFETCH(double, k);
    QFETCH(double, tflops);
    DeviceSpec d = *devicePreset(device.toStdString());
    d.maxEfficiency = emax;
    d.maxEfficiencyFp8 = emax;
    d.kernelOverheadUs = 4.0;
    const Roofline r = compute::deviceRoofline(d, static_cast<Precision>(precision));
    const Cost c = gemm(r, m, n, k);
    const double predicted = c.flops / c.time / 1e12;
    QVERIFY2(std::abs(predicted / tflops - 1.0) < 0.02,
             qPrintable(QString("predicted %1 TFLOP/s, measured %2").arg(predicted).arg(tflops)));
}

void TestComputeModel::fp8LeavesTheLmHeadAndAttentionInBf16()
{
    // Transformer Engine's fp8_autocast changes only the GEMMs of TE modules: the output layer
    // (Megatron-Core's own ColumnParallelLinear) and the attention core stay bf16, so on the
    // same device they take the same time in an fp8 and in a bf16 run (both rows of the H100
    // table share one kernel overhead). The transformer layer's GEMMs run faster at fp8.
    const DeviceSpec d = *devicePreset("h100-sxm");
    const Roofline fp8 = compute::deviceRoofline(d, Precision::Fp8);
    const Roofline bf16 = compute::deviceRoofline(d, Precision::Bf16);
    QCOMPARE(fp8.overhead, bf16.overhead);
    Shape x = gptShape(1.0, 4096.0, 8192.0, 64.0, 1.0);
    x.vocab = 128256.0;
    const GemmPair headFp8 = outputLayer(fp8, x);
    const GemmPair headBf16 = outputLayer(bf16, x);
    COMPARE_NEAR(headFp8.forward.time, headBf16.forward.time);
    COMPARE_NEAR(headFp8.backward.time, headBf16.backward.time);
    LayerCompute a, b;
    attentionCore(fp8, x, true, a);
    attentionCore(bf16, x, true, b);
    COMPARE_NEAR(a.attentionForward.time, b.attentionForward.time);
    const GemmPair fc1Fp8 = linear(fp8, 4096.0, 4.0 * 8192.0, 8192.0);
    const GemmPair fc1Bf16 = linear(bf16, 4096.0, 4.0 * 8192.0, 8192.0);
    QVERIFY(fc1Fp8.forward.time < 0.75 * fc1Bf16.forward.time);
}

void TestComputeModel::largeGemmIsComputeBound()
{
    // 8192^3: 128x256 tiles, 64 x 32 = 2048 of them in ceil(2048 / 132) = 16 waves, so the grid
    // reaches 2048 / (16 x 132) of the peak (the 128x128 and 64x64 tiles do worse); K = 8192
    // amortises the tile's fixed cost of 48 K-steps by 8192 / 8240. 2 M N K FLOPs; the
    // 6 x 8192^2 bytes moved take 0.14 ms, far below the 1.4 ms of compute.
    const Roofline r = compute::deviceRoofline(h100(), Precision::Bf16);
    const double n = 8192.0;
    const Cost c = gemm(r, n, n, n);
    const double flops = 2.0 * n * n * n;
    const double f = 2048.0 / (16.0 * 132.0) * n / (n + 48.0);
    QCOMPARE(c.flops, flops);
    COMPARE_NEAR(c.time, flops / (kGemmPeak * f) + kOverhead);
    QVERIFY(6.0 * n * n / kHbm < c.time / 10.0);
}

void TestComputeModel::gemvIsMemoryBound()
{
    // One row (a decode step's GEMV): 2 x 8192^2 FLOPs are nothing next to reading the 8192^2
    // weight matrix, so the time is its bytes (plus the row in and out) over HBM.
    const Roofline r = compute::deviceRoofline(h100(), Precision::Bf16);
    const double n = 8192.0;
    const Cost c = gemm(r, 1.0, n, n);
    const double bytes = (1.0 * n + n * n) * 2.0 + 1.0 * n * 2.0;
    COMPARE_NEAR(c.time, bytes / kHbm + kOverhead);
    QCOMPARE(c.flops, 2.0 * n * n);
}

void TestComputeModel::oddShapeLosesAWave()
{
    // M = 1536, N = 2816 is exactly 12 x 11 = 132 tiles of 128x256: one full wave, the whole
    // peak. One more column (N = 2817) needs a 12th tile column: 144 tiles, two waves. The best
    // tile is then 64x64: 24 x 45 = 1080 tiles in 9 waves at 70 % tile throughput, i.e.
    // 1536 x 2817 / (9 x 132 x 64 x 64) x 0.70 = 0.622 of the peak (wave quantization).
    const Roofline r = compute::deviceRoofline(h100(), Precision::Bf16);
    const double m = 1536.0, k = 8192.0;
    const double kShare = k / (k + 48.0);
    const auto achieved = [&](double n) { // share of the peak, without the kernel overhead
        const Cost c = gemm(r, m, n, k);
        return c.flops / (c.time - kOverhead) / kGemmPeak;
    };
    const double even = achieved(2816.0);
    const double odd = achieved(2817.0);
    COMPARE_NEAR(even, 1.0 * kShare);
    COMPARE_NEAR(odd, (1536.0 * 2817.0) / (9.0 * 132.0 * 64.0 * 64.0) * 0.70 * kShare);
    QVERIFY(odd < 0.63 * even);
}

void TestComputeModel::shortReductionRunsBelowPeak()
{
    // The same 1536 x 2816 tile grid with K = 48 reaches K / (K + 48) = 1/2 of the peak, but its
    // few FLOPs then sit under the memory roof: M K + K N inputs and M N outputs, 2 bytes each.
    const Roofline r = compute::deviceRoofline(h100(), Precision::Bf16);
    const double m = 1536.0, n = 2816.0, k = 48.0;
    const Cost c = gemm(r, m, n, k);
    const double compute = 2.0 * m * n * k / (kGemmPeak * 0.5);
    const double memory = ((m * k + k * n) * 2.0 + m * n * 2.0) / kHbm;
    COMPARE_NEAR(c.time, std::max(compute, memory) + kOverhead);
    QVERIFY(memory > compute);
}

void TestComputeModel::linearBackwardIsTwoGemms()
{
    // dgrad [M,K] = dC [M,N] B^T and wgrad [K,N] = A^T dC: twice the forward FLOPs.
    const Roofline r = compute::deviceRoofline(h100(), Precision::Bf16);
    const GemmPair p = linear(r, 4096.0, 1024.0, 8192.0);
    QCOMPARE(p.forward.flops, 2.0 * 4096.0 * 1024.0 * 8192.0);
    QCOMPARE(p.backward.flops, 2.0 * p.forward.flops);
    COMPARE_NEAR(p.backward.time,
        gemm(r, 4096.0, 8192.0, 1024.0).time + gemm(r, 8192.0, 1024.0, 4096.0).time);
}

void TestComputeModel::streamingKernels()
{
    const Roofline r = compute::deviceRoofline(h100(), Precision::Bf16);
    const Cost c = streaming(r, 1e9, 3.0);
    COMPARE_NEAR(c.time, 1e9 / kHbm + 3.0 * kOverhead);
    QCOMPARE(c.flops, 0.0);
}

void TestComputeModel::flashAttentionCore()
{
    // b 1, s 4096, h 4096, 32 heads, t 1: 4 b s^2 h FLOPs (QK^T and AV, no causal discount in the
    // count), of which the causal mask leaves half to do. One thread block per 128 queries and
    // head: 32 x 32 = 1024 blocks in ceil(1024 / 132) = 8 waves. FlashAttention-2 runs the
    // forward at 68 % and the backward (2.5 x the work) at 56 % of the dense peak.
    const Roofline r = compute::deviceRoofline(h100(), Precision::Bf16);
    const Shape x = gptShape(1.0, 4096.0, 4096.0, 32.0, 1.0);
    LayerCompute lc;
    attentionCore(r, x, true, lc);
    const double flops = 4.0 * 4096.0 * 4096.0 * 4096.0;
    const double f = 1024.0 / (8.0 * 132.0);
    QCOMPARE(lc.attentionForward.flops, flops);
    QCOMPARE(lc.attentionBackward.flops, 2.0 * flops);
    COMPARE_NEAR(lc.attentionForward.time, 0.5 * flops / (989e12 * 0.68 * f) + kOverhead);
    COMPARE_NEAR(
        lc.attentionBackward.time, 2.5 * 0.5 * flops / (989e12 * 0.56 * f) + 2.0 * kOverhead);
    // Without FlashAttention the same FLOPs run as batched GEMMs plus a softmax that streams the
    // s x s scores: slower.
    LayerCompute plain;
    attentionCore(r, x, false, plain);
    QCOMPARE(plain.attentionForward.flops, flops);
    QVERIFY(plain.attentionForward.time > lc.attentionForward.time);
}

void TestComputeModel::denseLayerFlopsFollowNarayanan()
{
    // Narayanan et al. SC'21 Eq. 3 counts 24 b s h^2 (1 + s / (6h)) forward FLOPs per layer for
    // the GPT block: QKV 6, projection 2, MLP 16 b s h^2, attention 4 b s^2 h. Tensor
    // parallelism splits all of it over t; the backward does twice the forward.
    const Roofline r = compute::deviceRoofline(h100(), Precision::Bf16);
    const double b = 2.0, s = 2048.0, h = 4096.0;
    for (double t : { 1.0, 2.0, 8.0 }) {
        const LayerCompute lc = layerCompute(r, gptShape(b, s, h, 32.0, t), false, true);
        const double eq3 = 24.0 * b * s * h * h * (1.0 + s / (6.0 * h));
        COMPARE_NEAR(lc.forward.flops, eq3 / t);
        COMPARE_NEAR(lc.backward.flops, 2.0 * eq3 / t);
    }
}

void TestComputeModel::moeLayerScalesWithTheHottestMember()
{
    // An MoE layer (8 experts, top-2, ep 4) replaces the MLP by a router [T, E, h] and the local
    // experts: balanced, every rank's experts see T topK tokens in all, 2 T topK (2 ffn h + ffn h)
    // FLOPs for a gated MLP. With skewed routing the busiest member sees expertLoad times that.
    const Roofline r = compute::deviceRoofline(h100(), Precision::Bf16);
    Shape x = gptShape(1.0, 2048.0, 1024.0, 16.0, 1.0);
    x.gated = true;
    x.gptStyle = false;
    x.ffn = 2048.0;
    x.experts = 8;
    x.topK = 2;
    x.ep = 4;
    const double T = x.tokens, h = x.h, ffn = x.ffn;
    const double attention
        = 2.0 * T * (h + 2.0 * x.kvDim) * h + 2.0 * T * h * h + 4.0 * x.b * x.s * x.s * h;
    const double router = 2.0 * T * 8.0 * h;
    const double experts = 2.0 * T * 2.0 * (2.0 * ffn * h + ffn * h);
    for (double load : { 1.0, 2.0 }) {
        x.expertLoad = load;
        const LayerCompute lc = layerCompute(r, x, true, true);
        COMPARE_NEAR(lc.forward.flops, attention + router + load * experts);
    }
}

QTEST_GUILESS_MAIN(TestComputeModel)
#include "tst_computemodel.moc"
