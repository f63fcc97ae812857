/**
 * Sizes and step times of one serving pool: KV bytes per token ([Kwon23] PagedAttention, GQA per
 * [Ainslie23]), weight bytes per GPU ([Narayanan21] Eq. 2), and prefill / decode compute on the
 * roofline of planWorkload() ([Williams09]). The sources are listed in full in inference.cpp.
 */
#include "workload/inferencecompute.h"

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
    const double headDim = static_cast<double>(model.hidden) / model.heads;
    return 2.0 * model.layers * kvHeads(model) * headDim * precisionBytes(kvPrecision);
}

double weightBytesPerGpu(const ModelSpec &m, const PoolSpec &pool, Precision precision)
{
    // The parameter count of planWorkload() (workloadplan.cpp layerParams, [Narayanan21] Eq. 2
    // generalised to GQA and SwiGLU), with Megatron-LM's vocabulary padding to 128 tp.
    const double h = m.hidden;
    const double kvDim = static_cast<double>(kvHeads(m)) * h / m.heads;
    const bool gpt = !m.gatedMlp;
    const double attention = h * (h + 2.0 * kvDim) + h * h + (gpt ? (h + 2.0 * kvDim) + h : 0.0);
    const double norms = gpt ? 4.0 * h : 2.0 * h;
    const double mlp = gpt ? 2.0 * m.ffn * h + m.ffn + h : 3.0 * h * m.ffn;
    const std::int64_t multiple = std::int64_t { 128 } * pool.tp;
    const double vocab = static_cast<double>((m.vocab + multiple - 1) / multiple * multiple);
    const int perStage = m.layers / pool.pp;
    double most = 0.0;
    for (int s = 0; s < pool.pp; ++s) {
        double dense = 0.0, expert = 0.0;
        for (int layer = s * perStage; layer < (s + 1) * perStage; ++layer) {
            const bool moe = m.experts > 0 && layer % m.moeLayerFreq == 0;
            dense += attention + norms + (moe ? h * m.experts : mlp);
            expert += moe ? mlp * m.experts : 0.0;
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
