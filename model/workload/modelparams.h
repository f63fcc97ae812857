#pragma once

#include "workload/workload.h"

namespace railyard {

/**
 * What a model's shape gives before any parallelism: parameters per layer, the per-head width,
 * the padded vocabulary and which layers are MoE. Training (planWorkload) and serving
 * (inferencecompute.cpp) count from the same functions.
 */

/// One layer's parameters, [Narayanan21] Eq. 2 generalised: 12 h^2 + 13 h for the GPT block,
/// GQA, SwiGLU, head_dim and experts as the model sets them.
struct LayerParams
{
    double dense = 0.0; ///< attention, norms, router, dense MLP (replicated over DP)
    double expert = 0.0; ///< all experts of the layer (sharded over EP)
};

/// Per-head width: head_dim when the model sets it, else hidden / heads.
double headDimOf(const ModelSpec &m);

/// The parameters of one layer, MoE (`moe`) or dense.
LayerParams layerParams(const ModelSpec &m, bool moe);

/// Megatron-LM pads the vocabulary to a multiple of 128 * tp (make_vocab_size_divisible_by).
double paddedVocab(const ModelSpec &m, int tp);

/// Megatron-LM's moe_layer_freq: layer i (0-based) is MoE when i % freq == 0.
bool isMoeLayer(const ModelSpec &m, int layer);

} // namespace railyard
