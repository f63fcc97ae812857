#include "workload/modelparams.h"

#include <cstdint>

/**
 * [Narayanan21] Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
 * Using Megatron-LM", SC'21, Eq. 2 (parameters of the GPT block).
 * [MegatronArgs] Megatron-LM megatron/training/arguments.py: --make-vocab-size-divisible-by
 * (default 128, times tp) and --moe-layer-freq.
 */

namespace railyard {

double headDimOf(const ModelSpec &m)
{
    return m.headDim > 0 ? m.headDim : static_cast<double>(m.hidden) / m.heads;
}

LayerParams layerParams(const ModelSpec &m, bool moe)
{
    const double h = m.hidden;
    const double q = m.heads * headDimOf(m);
    const double kv = static_cast<double>(m.kvHeads == 0 ? m.heads : m.kvHeads) * headDimOf(m);
    const double ffn = m.ffn;
    const bool gpt = !m.gatedMlp;
    // Attention: W_qkv h x (q + 2 kvDim), W_o q x h with q = heads x head_dim (= h unless the
    // model sets head_dim); GPT adds biases (q + 2 kvDim) + h.
    double attention = h * (q + 2.0 * kv) + q * h;
    if (gpt)
        attention += (q + 2.0 * kv) + h;
    // Norms: two per layer, LayerNorm (weight + bias) in GPT, RMSNorm (weight) in Llama.
    const double norms = gpt ? 4.0 * h : 2.0 * h;
    // MLP: GeLU 2 h ffn (+ biases ffn + h), SwiGLU 3 h ffn.
    const double mlp = gpt ? 2.0 * h * ffn + ffn + h : 3.0 * h * ffn;
    LayerParams p;
    p.dense = attention + norms;
    if (moe) {
        p.dense += h * m.experts; // router
        p.expert = mlp * m.experts;
    } else {
        p.dense += mlp;
    }
    return p;
}

double paddedVocab(const ModelSpec &m, int tp)
{
    const std::int64_t multiple = std::int64_t { 128 } * tp;
    return static_cast<double>((m.vocab + multiple - 1) / multiple * multiple);
}

bool isMoeLayer(const ModelSpec &m, int layer)
{
    return m.experts > 0 && layer % m.moeLayerFreq == 0;
}

} // namespace railyard
