#pragma once

#include "workload/computemodel.h"

/**
 * PyTorch's context-parallel attention (CpAttention::TorchAllGather) beyond the SDPA kernels
 * the attention core counts: the K/V and dK/dV it exchanges, and the element-wise kernels it
 * runs between the SDPA calls. Read from torch.distributed.tensor.experimental._attention in its
 * December 2024 form (after pytorch#142093 added set_rotate_method, which torchtitan 9dec370
 * calls; torchtitan's benchmarks ran torch 1963fc8 of 2024-12-23): `context_parallel` with its
 * default rotate method "allgather", load balancing on, `convert_to_f32` on; on torchtitan's
 * Llama (torchtitan 9dec370 models/llama/model.py: repeat_kv expands K and V to every query head
 * before F.scaled_dot_product_attention, so the ring carries a x headDim, not kvDim).
 *
 * Per layer, on the CP rank that works longest (the last: with the round-robin split every one
 * of its steps after the first takes the whole local query against half a K/V shard, the
 * branch that merges the whole output), with U = b (s/c) (a headDim / t) elements, the size of
 * the local query and of the attention output:
 *
 * - forward (_templated_ring_attention): key.contiguous() and value.contiguous() copy K and V
 *   (8U bytes: torchtitan's K and V are transposed views); each step but the last concatenates
 *   K and V for the rotater (8U); _SDPAMerger.step casts each step's bf16 output to fp32 (6U);
 *   each step after the first merges it, out - sigmoid(lse_b - lse) * (out - out_b): three
 *   passes over fp32 tensors of U elements (12U + 8U + 12U = 32U); results() casts back (6U):
 *   20U + 46U (c - 1) bytes.
 * - backward (_templated_ring_attention_backward): fp32 zeros for dQ, dK, dV (12U); K and V
 *   made contiguous again (8U); the K/V concatenation on each step but the last (8U); the first
 *   step adds the full dK and dV into fp32 (2 x 10U); each later step adds the half-shard dK and
 *   dV into their first halves and concatenates the halves back (_partial_update: 2 x 13U);
 *   every step concatenates dK and dV for the dK/dV rotater (16U) and adds dQ into fp32 (10U);
 *   the end casts dQ, dK and dV back to bf16 (6U + 12U): 84U + 60U (c - 1) bytes.
 *
 * The exchanges: one all-gather of K and V (bf16) per forward, issued before the first SDPA
 * and waited before the second, so only the first (local, causal) step hides it, 1/c of the
 * balanced attention; another in the backward; and c point-to-point passes of the fp32 dK and
 * dV accumulators (the ALL_TO_ALL rotater, permute_tensor), each beside the next step's
 * backward, the last one waited at once.
 */
namespace railyard::compute {

struct TorchRingAttention
{
    double elements = 0.0; ///< U: the local query's (and output's) elements on one rank
    double kvBytes = 0.0; ///< one rank's K and V as SDPA receives them, bf16: 4U
    double dkvBytes = 0.0; ///< one rank's dK and dV accumulators, fp32: 8U
    double mergeForwardBytes = 0.0;
    double mergeBackwardBytes = 0.0;
    Cost mergeForward; ///< the forward's element-wise kernels (bytes over HBM, kernel overheads)
    Cost mergeBackward; ///< the backward's
};

/// The ring's exchanges and element-wise work for one layer of shape `x` (x.c > 1).
TorchRingAttention torchRingAttention(const Roofline &r, const Shape &x);

/// Adds the ring's element-wise kernels to the attention core and to the layer (x.c > 1).
void addTorchRingMerges(const Roofline &r, const Shape &x, LayerCompute &layer);

} // namespace railyard::compute
