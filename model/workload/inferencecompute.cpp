/**
 * Sizes and step times of one serving pool: KV bytes per token ([Kwon23] PagedAttention, GQA per
 * [Ainslie23]), weight bytes per GPU ([Narayanan21] Eq. 2), and prefill / decode compute on the
 * roofline of planWorkload() ([Williams09]). The sources are listed in full in inference.cpp.
 */
#include "workload/inferencecompute.h"
#include "workload/modelparams.h"

#include "workload/workloadnames.h"

#include <algorithm>
#include <cstdint>

namespace railyard::inference {

std::vector<int> poolSlots(const PoolSpec &pool, int gpusPerServer)
{
    if (!pool.slots.empty())
        return pool.slots;
    std::vector<int> out;
    out.reserve(pool.servers.size() * static_cast<std::size_t>(gpusPerServer));
    for (int server : pool.servers)
        for (int g = 0; g < gpusPerServer; ++g)
            out.push_back(server * gpusPerServer + g);
    return out;
}

int kvHeads(const ModelSpec &model)
{
    return model.kvHeads == 0 ? model.heads : model.kvHeads;
}

double kvBytesPerToken(const ModelSpec &model, Precision kvPrecision)
{
    // [Kwon23] §2-3, GQA per [Ainslie23]: K and V, every layer, kv_heads x head_dim each.
    return 2.0 * model.layers * kvHeads(model) * headDimOf(model) * precisionBytes(kvPrecision);
}

double weightBytesPerGpu(const ModelSpec &m, const PoolSpec &pool, Precision precision)
{
    // The parameter count of planWorkload() (modelparams.h), with Megatron-LM's vocabulary
    // padding to 128 tp.
    const double h = m.hidden;
    const bool gpt = !m.gatedMlp;
    const double vocab = paddedVocab(m, pool.tp);
    const LayerParams denseLayer = layerParams(m, false);
    const LayerParams moeLayer = layerParams(m, true);
    const int perStage = m.layers / pool.pp;
    double most = 0.0;
    for (int s = 0; s < pool.pp; ++s) {
        double dense = 0.0, expert = 0.0;
        for (int layer = s * perStage; layer < (s + 1) * perStage; ++layer) {
            const LayerParams &p = isMoeLayer(m, layer) ? moeLayer : denseLayer;
            dense += p.dense;
            expert += p.expert;
        }
        if (s == 0)
            dense += vocab * h + (gpt ? static_cast<double>(m.seq) * h : 0.0);
        if (s == pool.pp - 1)
            dense += ((pool.pp == 1 && gpt) ? 0.0 : vocab * h) + (gpt ? 2.0 : 1.0) * h;
        // Dense weights split over tp, experts over ep x tp (expert TP = tp, as in training).
        const double perGpu = dense / pool.tp + expert / (static_cast<double>(pool.ep) * pool.tp);
        most = std::max(most, perGpu * precisionBytes(precision));
    }
    return most;
}

double kvTokensHeld(const InferenceSpec &spec, const PoolSpec &pool)
{
    if (pool.role == PoolRole::Prefill)
        return spec.promptTokens;
    return static_cast<double>(spec.batch) * (double(spec.promptTokens) + spec.outputTokens);
}

using namespace compute;

Shape shapeOf(const ModelSpec &m, const PoolSpec &pool, Precision precision, double tokens)
{
    Shape x;
    x.b = 1;
    x.s = tokens;
    x.h = m.hidden;
    x.a = m.heads;
    x.headDim = headDimOf(m);
    x.qDim = m.headDim > 0 ? x.a * x.headDim : 0.0;
    x.kvDim = inference::kvHeads(m) * x.headDim;
    x.ffn = m.ffn;
    x.vocab = paddedVocab(m, pool.tp);
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
