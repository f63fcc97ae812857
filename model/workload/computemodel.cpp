#include "workload/computemodel.h"

#include "base/units.h"
#include "workload/deviceefficiency.h"
#include "workload/elementwise.h"
#include "workload/workloadnames.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace railyard::compute {

namespace {

/**
 * GEMM tile shapes a cuBLAS/CUTLASS-style heuristic picks from, with the relative throughput of
 * each: smaller tiles reuse less data per loaded byte, so they run below the large-tile peak but
 * fill more SMs on small problems [NvGemm, "Tile quantization" and "Wave quantization"].
 */
struct TileShape
{
    double m;
    double n;
    double relative;
};
constexpr std::array<TileShape, 3> kTiles{{{128, 256, 1.00}, {128, 128, 0.92}, {64, 64, 0.70}}};

/// The fused attention's backward does 2.5x the forward's matmul work [Dao23]; its throughput
/// per device is in the efficiency table (deviceefficiency.cpp).
constexpr double kFlashBackwardWork = 2.5;
constexpr double kFlashQueryBlock = 128.0;

/**
 * Share of the peak a GEMM tile grid reaches: the best over the tile shapes of
 * (useful MN work / work of whole waves of whole tiles) * tile throughput, i.e. tile and wave
 * quantization [NvGemm]. `batch` independent problems share the waves.
 */
double tileEfficiency(double m, double n, double batch, double sms)
{
    double best = 0.0;
    for (const TileShape &tile : kTiles) {
        const double tiles = std::ceil(m / tile.m) * std::ceil(n / tile.n) * batch;
        const double waves = std::ceil(tiles / sms);
        const double eff = (m * n * batch) / (waves * sms * tile.m * tile.n) * tile.relative;
        best = std::max(best, eff);
    }
    return best;
}

/**
 * One GEMM C[M,N] = A[M,K] B[K,N] (`batch` of them): 2MNK FLOPs each. Time is the roofline
 * max(FLOPs / (peak * effMax * f), bytes / HBM) plus one kernel overhead [Williams09], with
 * f = tileEfficiency(M, N) * K / (K + K0): small M or N leave SMs idle (tile and wave
 * quantization), short K leaves the tile's fixed prologue/epilogue unamortised [NvGemm]. K0 is
 * per device and precision (deviceefficiency.cpp, from measured cuBLASLt sweeps).
 */

} // namespace

Roofline deviceRoofline(const DeviceSpec &device, Precision precision)
{
    const Precision high = precision == Precision::Fp16 ? Precision::Fp16 : Precision::Bf16;
    const GemmEfficiency g = gemmEfficiency(device, precision);
    const GemmEfficiency h = gemmEfficiency(device, high);
    Roofline r;
    r.gemmPeak = peakTflops(device, precision) * 1e12 * g.maxEfficiency;
    r.attentionPeak = peakTflops(device, high) * 1e12 * h.maxEfficiency;
    r.flashForward = peakTflops(device, high) * 1e12 * h.attentionForward;
    r.flashBackward = peakTflops(device, high) * 1e12 * h.attentionBackward;
    r.hbm = device.hbmGBps * 1e9 * kHbmEfficiency;
    r.sms = device.streamingMultiprocessors;
    r.overhead = microseconds(g.kernelOverheadUs);
    r.tileK0 = g.tileK0;
    r.highTileK0 = h.tileK0;
    r.gemmBytes = precisionBytes(precision);
    r.fp8 = precision == Precision::Fp8;
    return r;
}

void useAttentionKernel(
    Roofline &r, const DeviceSpec &device, Precision precision, AttentionKernel kernel, double seq)
{
    if (kernel != AttentionKernel::FlashAttention2)
        return;
    const std::optional<AttentionShares> fa2 = flashAttention2Shares(device.name, seq);
    if (!fa2)
        return;
    // The attention core runs at bf16/fp16 whatever the GEMM precision (attentionCore()).
    const Precision high = precision == Precision::Fp16 ? Precision::Fp16 : Precision::Bf16;
    r.flashForward = peakTflops(device, high) * 1e12 * fa2->forward;
    r.flashBackward = peakTflops(device, high) * 1e12 * fa2->backward;
}

Cost gemm(const Roofline &r, double m, double n, double k, double batch)
{
    const double flops = 2.0 * m * n * k * batch;
    const double f = tileEfficiency(m, n, batch, r.sms) * k / (k + r.tileK0);
    const double bytes = ((m * k + k * n) * r.gemmBytes + m * n * 2.0) * batch;
    const double time = std::max(flops / (r.gemmPeak * f), bytes / r.hbm) + r.overhead;
    return {time, flops};
}


/**
 * Forward GEMM plus its backward. At fp8 Transformer Engine runs all three GEMMs (fprop, dgrad,
 * wgrad) in fp8 and adds casts around them (TE docs, "Using FP8 with Transformer Engine";
 * Micikevicius et al., "FP8 Formats for Deep Learning", 2022): Hopper's fp8 GEMMs take only the
 * TN layout (cuBLASLt, cublasLtMatmul fp8 requirements), so every fp8 input also needs a
 * transposed fp8 copy. The cast of the forward input is fused into the kernel that produces it
 * (LayerNormLinear, the fused activation), which still writes the transposed byte per element;
 * the output gradient arrives in bf16 and one cast-transpose kernel reads it (2 bytes) and writes
 * both fp8 copies (2 bytes). Weights are cast once per iteration (is_first_microbatch), which
 * this per-micro-batch cost leaves out.
 */
GemmPair linear(const Roofline &r, double m, double n, double k, double batch)
{
    GemmPair p;
    p.forward = gemm(r, m, n, k, batch);
    p.dgrad = gemm(r, m, k, n, batch);
    p.wgrad = gemm(r, k, n, m, batch);
    if (r.fp8) {
        p.forward += {m * k * batch / r.hbm, 0.0};
        // The output gradient's cast-transpose runs before the dgrad GEMM that reads it.
        p.dgrad += streaming(r, 4.0 * m * n * batch, 1);
    }
    p.backward = p.dgrad;
    p.backward += p.wgrad;
    return p;
}

/// A memory-bound (element-wise) kernel sequence: bytes over HBM plus one overhead per kernel.
Cost streaming(const Roofline &r, double bytes, double kernels)
{
    return {bytes / r.hbm + kernels * r.overhead, 0.0};
}



/**
 * The attention core: scores QK^T and context AV over a/t heads, s/c queries per rank against s
 * keys. FLOPs follow [Narayanan21]: 4 b s^2 h (2 for QK^T, 2 for AV), here 4 b (s/c) s w / t per
 * rank with w = a x headDim the attention width (h in the GPT and Llama blocks), no causal
 * discount, so the totals reproduce Eq. 3. The core runs in bf16 even in an fp8 run
 * (Transformer Engine's DotProductAttention stays out of fp8 unless fp8_dpa is set). Time: with FlashAttention the causal
 * mask skips half the blocks (load-balanced under CP), at the device's measured fused-attention
 * throughput (deviceefficiency.cpp), the backward doing 2.5x the forward's work [Dao23]; without it (Megatron 2021), batched GEMMs over
 * the full s x s scores plus the fused scale-mask-softmax streaming the scores.
 */
void attentionCore(const Roofline &r, const Shape &x, bool flash, LayerCompute &out)
{
    const double heads = x.a / x.t;
    const double queries = x.s / x.c;
    const double flops = 4.0 * x.b * queries * x.s * attentionWidth(x) / x.t;
    if (flash) {
        const double work = 0.5 * flops;
        // One thread block per (batch, head, 128-query block); whole waves over the SMs.
        const double blocks = std::ceil(queries / kFlashQueryBlock) * x.b * heads;
        const double f = (queries / kFlashQueryBlock * x.b * heads)
                         / (std::ceil(blocks / r.sms) * r.sms);
        out.attentionForward = {work / (r.flashForward * f) + r.overhead, flops};
        out.attentionBackward = {kFlashBackwardWork * work / (r.flashBackward * f)
                                     + 2.0 * r.overhead,
                                 2.0 * flops};
        return;
    }
    const Roofline bf16 = r.highPrecision();
    const double batch = x.b * heads;
    const double scores = batch * queries * x.s;
    const GemmPair qk = linear(bf16, queries, x.s, x.headDim, batch);
    const GemmPair av = linear(bf16, queries, x.headDim, x.s, batch);
    // Fused scale+mask+softmax+dropout: read scores, write probabilities and a 1-byte mask;
    // backward reads probabilities, their gradient and the mask, writes the score gradient.
    out.attentionForward = qk.forward;
    out.attentionForward += av.forward;
    out.attentionForward += streaming(bf16, scores * (2.0 * 2.0 + 1.0), 1);
    out.attentionBackward = qk.backward;
    out.attentionBackward += av.backward;
    out.attentionBackward += streaming(bf16, scores * (3.0 * 2.0 + 1.0), 1);
}

/**
 * One transformer layer (dense or MoE) on one rank. GEMM shapes with M = T tokens:
 * QKV [T, (w + 2 kvDim)/t, h], projection [T, h, w/t] (w = a x headDim, h unless the model sets
 * head_dim), MLP fc1 [T, (2 if gated else 1) ffn/t, h]
 * and fc2 [T, h, ffn/t] ([Shoeybi19] column/row-parallel split); an MoE layer replaces the MLP by
 * a router [T/t, E, h] and E/ep local experts, each seeing T topK ep / E tokens under balanced
 * routing (each token goes to topK experts; the EP all-to-all brings every rank T topK/t routed
 * tokens per TP rank and the expert-TP all-gather makes it T topK, Megatron-Core's alltoall
 * dispatcher with expert TP = tp), so per rank the expert FLOPs are 2 T topK P_expert / t, i.e.
 * 2 tokens topK P_expert / (ep t) counted over the EP group's ep T tokens.
 * Element-wise traffic: the norms, residual adds, rotary and activation as the stack fuses them
 * (layerElementwise(), elementwise.cpp, which counts them per stack); the backward streams about
 * twice as much. An MoE layer's experts read their activation input and write its output per
 * routed token, and the tokens are permuted before and after them.
 */
LayerCompute layerCompute(const Roofline &r, const Shape &x, bool moe, bool flash)
{
    LayerCompute lc;
    const double T = x.tokens;
    const double ew = kElementwiseBytes;
    const double w = attentionWidth(x);
    const GemmPair qkv = linear(r, T, (w + 2.0 * x.kvDim) / x.t, x.h);
    const GemmPair proj = linear(r, T, x.h, w / x.t);
    lc.qkv = qkv;
    lc.proj = proj;
    lc.weightGrad = qkv.wgrad;
    lc.weightGrad += proj.wgrad;
    lc.forward = qkv.forward;
    lc.forward += proj.forward;
    lc.backward = qkv.backward;
    lc.backward += proj.backward;
    attentionCore(r, x, flash, lc);
    lc.forward += lc.attentionForward;
    lc.backward += lc.attentionBackward;

    const double up = x.gated ? 2.0 : 1.0;
    double activationBytes = 0.0;
    if (!moe) {
        const GemmPair fc1 = linear(r, T, up * x.ffn / x.t, x.h);
        const GemmPair fc2 = linear(r, T, x.h, x.ffn / x.t);
        lc.fc1 = fc1;
        lc.fc2 = fc2;
        lc.weightGrad += fc1.wgrad;
        lc.weightGrad += fc2.wgrad;
        lc.forward += fc1.forward;
        lc.forward += fc2.forward;
        lc.backward += fc1.backward;
        lc.backward += fc2.backward;
    } else {
        const double local = static_cast<double>(x.experts) / x.ep;
        // Skewed routing: the busiest member sees expertLoad times the balanced tokens and, since
        // the combine all-to-all waits for it, sets the layer's time (He et al., FasterMoE,
        // PPoPP'22 §3; model/workload/eprouting.cpp).
        const double perExpert = T * x.topK * x.ep / x.experts * x.expertLoad;
        // The router is a plain (not Transformer Engine) linear layer: bf16 in an fp8 run.
        const GemmPair router = linear(r.highPrecision(), x.spTokens, x.experts, x.h);
        const GemmPair fc1 = linear(r, perExpert, up * x.ffn / x.t, x.h, local);
        const GemmPair fc2 = linear(r, perExpert, x.h, x.ffn / x.t, local);
        lc.fc1 = fc1;
        lc.fc2 = fc2;
        lc.weightGrad += router.wgrad;
        lc.weightGrad += fc1.wgrad;
        lc.weightGrad += fc2.wgrad;
        lc.forward += router.forward;
        lc.forward += fc1.forward;
        lc.forward += fc2.forward;
        lc.backward += router.backward;
        lc.backward += fc1.backward;
        lc.backward += fc2.backward;
        const double routed = T * x.topK * x.expertLoad;
        // Permute before and unpermute after the experts: read + write each routed token.
        activationBytes = (up + 1.0) * ew * routed * x.ffn / x.t + 2.0 * 2.0 * ew * routed * x.h;
    }
    // Norms, residual adds, rotary and the dense activation as the stack fuses them
    // (elementwise.cpp); an MoE layer adds its experts' activation and permutation, one kernel.
    ElementwiseTraffic elementwise = layerElementwise(x, moe, x.fusion);
    if (moe) {
        elementwise.bytes += activationBytes;
        elementwise.kernels += 1.0;
    }
    lc.elementwiseForward = streaming(r, elementwise.bytes, elementwise.kernels);
    lc.forward += lc.elementwiseForward;
    lc.backward += streaming(r, 2.0 * elementwise.bytes, 2.0 * elementwise.kernels);
    return lc;
}

/**
 * The output layer on the last stage: logits GEMM [T, V/t, h] (2 b s h V / t FLOPs forward,
 * [Narayanan21] Eq. 3's 6 b s h V over forward+backward), in bf16 even in an fp8 run
 * (Megatron-Core's output layer is its own ColumnParallelLinear, not a Transformer Engine module,
 * so fp8_autocast leaves it alone), and Megatron's vocab-parallel cross
 * entropy, which keeps fp32 exponentials (read e, write 4 bytes per logit; backward reads 4,
 * writes e), plus the final norm.
 */
GemmPair outputLayer(const Roofline &r, const Shape &x)
{
    const double logits = x.tokens * x.vocab / x.t;
    const Roofline bf16 = r.highPrecision();
    GemmPair p = linear(bf16, x.tokens, x.vocab / x.t, x.h);
    p.forward += streaming(r, logits * (x.e + 2.0 * 4.0) + 4.0 * kElementwiseBytes * x.spTokens * x.h, 3);
    p.backward += streaming(r, logits * (4.0 + x.e) + 8.0 * kElementwiseBytes * x.spTokens * x.h, 3);
    return p;
}

} // namespace railyard::compute
