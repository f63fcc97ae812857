#pragma once

#include "workload/computemodel.h"

/**
 * The element-wise (memory-bound) kernels of one transformer layer and what each software
 * stack fuses of them. elementwise.cpp counts the kernels and the bytes each reads and writes
 * from the model code of each stack and cites it. Internal to the engine.
 */
namespace railyard::compute {

/// The fusion a stack runs: the PyTorch-native stacks (fsdp2, composer) run eager PyTorch, or
/// Inductor with `compile`; every Megatron-based stack runs its fused kernels.
Fusion fusionOf(const std::optional<SoftwareStack> &stack, bool compile);

/// Forward element-wise traffic of one layer on one rank for one micro-batch.
struct ElementwiseTraffic
{
    double bytes = 0.0; ///< HBM bytes read and written
    double kernels = 0.0; ///< kernel launches (each pays the per-kernel overhead)
};

/// The layer's forward element-wise traffic under `fusion`: the two norms, the rotary embedding
/// (Llama block), the K/V head repeat (grouped-query attention outside Transformer Engine), the
/// MLP activation (dense layers) and the two residual adds (with the dropout mask in the GPT
/// block). The MoE token permutation is not included (computemodel.cpp adds it).
ElementwiseTraffic layerElementwise(const Shape &x, bool moe, Fusion fusion);

} // namespace railyard::compute
