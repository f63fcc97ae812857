// Step times of an inference replica on the compute model of planWorkload() (issue #5); the
// sources ([Kwon23], [Patel24], [Williams09], [Narayanan21]) are listed in inference.cpp.
#include "studies/inferenceimpl.h"

#include "workload/workloadnames.h"

#include <algorithm>
#include <cstdint>

namespace railyard::inference {

using namespace compute;

Roofline servingRoofline(const DeviceSpec &device, Precision precision)
{
    // As planWorkload(): the calibrated GEMM efficiency and kernel overhead, the HBM roof.
    Roofline r;
    const double eff = device.maxEfficiency > 0.0 ? device.maxEfficiency : kDefaultMaxEfficiency;
    const double us
        = device.kernelOverheadUs > 0.0 ? device.kernelOverheadUs : kDefaultKernelOverheadUs;
    const double peak = precision == Precision::Fp8 ? device.peakTflopsFp8
        : precision == Precision::Fp16              ? device.peakTflopsFp16
                                                    : device.peakTflopsBf16;
    r.gemmPeak = peak * 1e12 * eff;
    r.attentionPeak = (precision == Precision::Fp16 ? device.peakTflopsFp16 : device.peakTflopsBf16)
        * 1e12 * eff;
    r.hbm = device.hbmGBps * 1e9 * kHbmEfficiency;
    r.sms = device.streamingMultiprocessors;
    r.overhead = microseconds(us);
    r.gemmBytes = precisionBytes(precision);
    return r;
}

Shape shapeOf(const ModelSpec &m, const PoolSpec &pool, Precision precision, double tokens)
{
    Shape x;
    x.b = 1;
    x.s = tokens;
    x.h = m.hidden;
    x.a = m.heads;
    x.headDim = x.h / x.a;
    x.kvDim = inference::kvHeads(m) * x.headDim;
    x.ffn = m.ffn;
    const std::int64_t multiple = std::int64_t { 128 } * pool.tp;
    x.vocab = static_cast<double>((m.vocab + multiple - 1) / multiple * multiple);
    x.t = pool.tp;
    x.c = 1;
    x.tokens = tokens;
    x.spTokens = tokens; // serving all-reduces; no sequence parallelism
    x.e = precisionBytes(precision);
    x.gated = m.gatedMlp;
    x.gptStyle = !m.gatedMlp;
    x.experts = m.experts;
    x.topK = m.topK;
    x.ep = pool.ep;
    return x;
}

namespace {

bool isMoeLayer(const ModelSpec &m, int layer)
{
    return m.experts > 0 && layer % m.moeLayerFreq == 0;
}

} // namespace

/**
 * Compute time of one prompt (prefill) on one replica: every layer's forward at T = prompt
 * tokens on the calibrated roofline of planWorkload() (GEMMs compute-bound, FlashAttention
 * causal core), plus the logits of the last token only (the first output token [Patel24]).
 */
double prefillCompute(
    const Roofline &r, const ModelSpec &m, const PoolSpec &pool, Precision precision, double prompt)
{
    const Shape x = shapeOf(m, pool, precision, prompt);
    const LayerCompute dense = layerCompute(r, x, false, true);
    const LayerCompute moe = m.experts > 0 ? layerCompute(r, x, true, true) : dense;
    double t = 0.0;
    for (int layer = 0; layer < m.layers; ++layer)
        t += (isMoeLayer(m, layer) ? moe : dense).forward.time;
    return t + gemm(r, 1.0, x.vocab / x.t, x.h).time;
}

/**
 * Compute time of one decode step of `batch` sequences at context `ctx` on one replica: the
 * layer's GEMMs at T = batch rows, whose weight reads make them HBM-bound at small batches (the
 * roofline of gemm() [Williams09]); the attention core replaced by decode attention, one query
 * per sequence against ctx keys: 4 b ctx h / t FLOPs against reading the K and V cache,
 * 2 b ctx kvDim e_kv / t bytes per layer [Kwon23]; then the logits of every sequence.
 */
double decodeCompute(const Roofline &r, const ModelSpec &m, const PoolSpec &pool,
    Precision precision, Precision kvPrecision, double batch, double ctx)
{
    const Shape x = shapeOf(m, pool, precision, batch);
    const LayerCompute dense = layerCompute(r, x, false, true);
    const LayerCompute moe = m.experts > 0 ? layerCompute(r, x, true, true) : dense;
    const double flops = 4.0 * batch * ctx * x.h / x.t;
    const double bytes = 2.0 * batch * ctx * x.kvDim * precisionBytes(kvPrecision) / x.t;
    const double attention = std::max(flops / r.attentionPeak, bytes / r.hbm) + r.overhead;
    double t = 0.0;
    for (int layer = 0; layer < m.layers; ++layer) {
        const LayerCompute &lc = isMoeLayer(m, layer) ? moe : dense;
        t += lc.forward.time - lc.attentionForward.time + attention;
    }
    return t + gemm(r, batch, x.vocab / x.t, x.h).time;
}

} // namespace railyard::inference
