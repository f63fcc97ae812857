#include "workload/computemodel.h"

#include "base/units.h"
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

/// A tile's fixed work (prologue, epilogue) in units of K, so short reductions run below peak.
constexpr double kTileK0 = 48.0;

/// FlashAttention-2 relative to a large GEMM on the same GPU: forward ~73 % of peak vs ~85 %
/// for GEMMs, backward lower, and the backward does 2.5x the forward's matmul work [Dao23].
constexpr double kFlashForwardRelative = 0.85;
constexpr double kFlashBackwardRelative = 0.70;
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
 * quantization), short K leaves the tile's fixed prologue/epilogue unamortised [NvGemm].
 */

} // namespace

Roofline deviceRoofline(const DeviceSpec &device, Precision precision)
{
    const double effMax = device.maxEfficiency > 0.0 ? device.maxEfficiency : kDefaultMaxEfficiency;
    const double overheadUs =
        device.kernelOverheadUs > 0.0 ? device.kernelOverheadUs : kDefaultKernelOverheadUs;
    const Precision attention = precision == Precision::Fp16 ? Precision::Fp16 : Precision::Bf16;
    Roofline r;
    r.gemmPeak = peakTflops(device, precision) * 1e12 * effMax;
    r.attentionPeak = peakTflops(device, attention) * 1e12 * effMax;
    r.hbm = device.hbmGBps * 1e9 * kHbmEfficiency;
    r.sms = device.streamingMultiprocessors;
    r.overhead = microseconds(overheadUs);
    r.gemmBytes = precisionBytes(precision);
    return r;
}

Cost gemm(const Roofline &r, double m, double n, double k, double batch)
{
    const double flops = 2.0 * m * n * k * batch;
    const double f = tileEfficiency(m, n, batch, r.sms) * k / (k + kTileK0);
    const double bytes = ((m * k + k * n) * r.gemmBytes + m * n * 2.0) * batch;
    const double time = std::max(flops / (r.gemmPeak * f), bytes / r.hbm) + r.overhead;
    return {time, flops};
}


GemmPair linear(const Roofline &r, double m, double n, double k, double batch)
{
    GemmPair p;
    p.forward = gemm(r, m, n, k, batch);
    p.dgrad = gemm(r, m, k, n, batch);
    p.wgrad = gemm(r, k, n, m, batch);
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
 * keys. FLOPs follow [Narayanan21]: 4 b s^2 h (2 for QK^T, 2 for AV), here 4 b (s/c) s h / t per
 * rank, no causal discount, so the totals reproduce Eq. 3. Time: with FlashAttention the causal
 * mask skips half the blocks (load-balanced under CP), at FlashAttention-2's efficiency, the
 * backward doing 2.5x the forward's work [Dao23]; without it (Megatron 2021), batched GEMMs over
 * the full s x s scores plus the fused scale-mask-softmax streaming the scores.
 */
void attentionCore(const Roofline &r, const Shape &x, bool flash, LayerCompute &out)
{
    const double heads = x.a / x.t;
    const double queries = x.s / x.c;
    const double flops = 4.0 * x.b * queries * x.s * x.h / x.t;
    if (flash) {
        const double work = 0.5 * flops;
        // One thread block per (batch, head, 128-query block); whole waves over the SMs.
        const double blocks = std::ceil(queries / kFlashQueryBlock) * x.b * heads;
        const double f = (queries / kFlashQueryBlock * x.b * heads)
                         / (std::ceil(blocks / r.sms) * r.sms);
        out.attentionForward = {work / (r.attentionPeak * kFlashForwardRelative * f) + r.overhead,
                                flops};
        out.attentionBackward = {kFlashBackwardWork * work
                                         / (r.attentionPeak * kFlashBackwardRelative * f)
                                     + 2.0 * r.overhead,
                                 2.0 * flops};
        return;
    }
    Roofline bf16 = r;
    bf16.gemmPeak = r.attentionPeak;
    bf16.gemmBytes = 2.0;
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
 * QKV [T, (h + 2 kvDim)/t, h], projection [T, h, h/t], MLP fc1 [T, (2 if gated else 1) ffn/t, h]
 * and fc2 [T, h, ffn/t] ([Shoeybi19] column/row-parallel split); an MoE layer replaces the MLP by
 * a router [T/t, E, h] and E/ep local experts, each seeing T topK ep / E tokens under balanced
 * routing (each token goes to topK experts; the EP all-to-all brings every rank T topK/t routed
 * tokens per TP rank and the expert-TP all-gather makes it T topK, Megatron-Core's alltoall
 * dispatcher with expert TP = tp), so per rank the expert FLOPs are 2 T topK P_expert / t, i.e.
 * 2 tokens topK P_expert / (ep t) counted over the EP group's ep T tokens.
 * Element-wise traffic (bytes, forward; the backward streams about twice as much):
 * 2 norms read+write 2 e T_sp h each; 2 residual adds read 2, write 1 (plus a 1-byte dropout
 * mask in the GPT block); the activation reads ffn (2 ffn gated) and writes ffn per token over t;
 * rotary embeddings rewrite Q and K in the Llama block.
 */
LayerCompute layerCompute(const Roofline &r, const Shape &x, bool moe, bool flash)
{
    LayerCompute lc;
    const double T = x.tokens;
    const double ew = kElementwiseBytes;
    const GemmPair qkv = linear(r, T, (x.h + 2.0 * x.kvDim) / x.t, x.h);
    const GemmPair proj = linear(r, T, x.h, x.h / x.t);
    lc.qkv = qkv;
    lc.proj = proj;
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
        lc.forward += fc1.forward;
        lc.forward += fc2.forward;
        lc.backward += fc1.backward;
        lc.backward += fc2.backward;
        activationBytes = (up + 1.0) * ew * T * x.ffn / x.t;
    } else {
        const double local = static_cast<double>(x.experts) / x.ep;
        // Skewed routing: the busiest member sees expertLoad times the balanced tokens and, since
        // the combine all-to-all waits for it, sets the layer's time (He et al., FasterMoE,
        // PPoPP'22 §3; model/workload/eprouting.cpp).
        const double perExpert = T * x.topK * x.ep / x.experts * x.expertLoad;
        const GemmPair router = linear(r, x.spTokens, x.experts, x.h);
        const GemmPair fc1 = linear(r, perExpert, up * x.ffn / x.t, x.h, local);
        const GemmPair fc2 = linear(r, perExpert, x.h, x.ffn / x.t, local);
        lc.fc1 = fc1;
        lc.fc2 = fc2;
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
    const double norms = 2.0 * 2.0 * ew * x.spTokens * x.h;
    const double residual = 2.0 * (3.0 * ew + (x.gptStyle ? 1.0 : 0.0)) * x.spTokens * x.h;
    const double rotary = x.gptStyle ? 0.0 : 2.0 * ew * T * (x.h + x.kvDim) / x.t;
    const double kernels = x.gptStyle ? 5.0 : 6.0;
    const double bytes = norms + residual + rotary + activationBytes;
    lc.forward += streaming(r, bytes, kernels);
    lc.backward += streaming(r, 2.0 * bytes, 2.0 * kernels);
    return lc;
}

/**
 * The output layer on the last stage: logits GEMM [T, V/t, h] (2 b s h V / t FLOPs forward,
 * [Narayanan21] Eq. 3's 6 b s h V over forward+backward) and Megatron's vocab-parallel cross
 * entropy, which keeps fp32 exponentials (read e, write 4 bytes per logit; backward reads 4,
 * writes e), plus the final norm.
 */
GemmPair outputLayer(const Roofline &r, const Shape &x)
{
    const double logits = x.tokens * x.vocab / x.t;
    GemmPair p = linear(r, x.tokens, x.vocab / x.t, x.h);
    p.forward += streaming(r, logits * (x.e + 2.0 * 4.0) + 4.0 * kElementwiseBytes * x.spTokens * x.h, 3);
    p.backward += streaming(r, logits * (4.0 + x.e) + 8.0 * kElementwiseBytes * x.spTokens * x.h, 3);
    return p;
}

} // namespace railyard::compute
