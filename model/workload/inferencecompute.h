#pragma once

#include "workload/computemodel.h"
#include "workload/inferencespec.h"

#include <vector>

/**
 * What one serving pool holds and computes, from the model, the device and the pool's degrees
 * alone (no fabric): its GPU slots, weight and KV-cache bytes per GPU, and the compute time of
 * a prefill and of a decode step on the training roofline. The checks (inferencecheck.cpp) and
 * the evaluation (inference.cpp) share them.
 */
namespace railyard::inference {

/// The pool's GPU slots in rank order: its explicit slots, or every GPU of its servers in order.
std::vector<int> poolSlots(const PoolSpec &pool, int gpusPerServer);

/// Key/value heads of the model (0 in the file means multi-head attention: kv = heads).
int kvHeads(const ModelSpec &model);

/// KV-cache bytes per token of one sequence, all layers: 2 (K and V) L kv_heads head_dim e.
double kvBytesPerToken(const ModelSpec &model, Precision kvPrecision);

/// Weight bytes held by one GPU of the pool, the largest over its pipeline stages.
double weightBytesPerGpu(const ModelSpec &model, const PoolSpec &pool, Precision precision);

/// Sequences whose KV cache one GPU of the pool holds at once, times their tokens:
/// decode/colocated batch x (prompt + output), prefill one prompt.
double kvTokensHeld(const InferenceSpec &spec, const PoolSpec &pool);

/// One layer shape for `tokens` rows on a replica of `pool` (no sequence parallelism).
compute::Shape shapeOf(
    const ModelSpec &m, const PoolSpec &pool, Precision precision, double tokens);
/// Compute seconds of one prompt on one replica (no communication).
double prefillCompute(const compute::Roofline &r, const ModelSpec &m, const PoolSpec &pool,
    Precision precision, double prompt);
/// Compute seconds of one decode step of `batch` sequences at context `ctx` on one replica.
double decodeCompute(const compute::Roofline &r, const ModelSpec &m, const PoolSpec &pool,
    Precision precision, Precision kvPrecision, double batch, double ctx);

} // namespace railyard::inference
