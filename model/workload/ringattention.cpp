#include "workload/ringattention.h"

namespace railyard::compute {

namespace {

/// Bytes per element of the tensors the ring keeps in fp32 (_ContextParallelOptions
/// convert_to_f32 = True: the merged output and the dQ/dK/dV accumulators) and in bf16 (the
/// SDPA inputs and outputs of a bf16 or fp8 run: torchao's float8 converts nn.Linear only).
constexpr double kRingFp32 = 4.0;
constexpr double kRingBf16 = 2.0;

} // namespace

TorchRingAttention torchRingAttention(const Roofline &r, const Shape &x)
{
    TorchRingAttention t;
    const double c = x.c;
    const double steps = c - 1.0; // ring steps after the local one
    const double u = x.b * (x.s / c) * attentionWidth(x) / x.t;
    t.elements = u;
    t.kvBytes = 2.0 * u * kRingBf16;
    t.dkvBytes = 2.0 * u * kRingFp32;
    // Byte counts per kernel are derived in ringattention.h, term by term.
    t.mergeForwardBytes = 20.0 * u + 46.0 * u * steps;
    t.mergeBackwardBytes = 84.0 * u + 60.0 * u * steps;
    // Kernels: forward 2 copies, c - 1 concatenations, c casts, 8 per merge (out - out_b, the
    // product and the subtraction on the output; lse_b - lse, sigmoid, lse - lse_b, logsigmoid
    // and the subtraction on the log-sum-exp), 1 cast back; backward 3 fills, 2 copies, c - 1 K/V
    // concatenations, 2 additions, 4 per later step (in-place add, concatenation, for dK and dV), 2
    // per step (dK/dV concatenation, dQ addition), 2 casts back.
    const double forwardKernels = 3.0 + c + 9.0 * steps;
    const double backwardKernels = 9.0 + 2.0 * c + 5.0 * steps;
    t.mergeForward = streaming(r, t.mergeForwardBytes, forwardKernels);
    t.mergeBackward = streaming(r, t.mergeBackwardBytes, backwardKernels);
    return t;
}

void addTorchRingMerges(const Roofline &r, const Shape &x, LayerCompute &layer)
{
    const TorchRingAttention t = torchRingAttention(r, x);
    // The merges run on the compute stream between the SDPA calls: part of the attention core
    // (so a recompute re-runs them) and of the layer.
    layer.attentionForward += t.mergeForward;
    layer.attentionBackward += t.mergeBackward;
    layer.forward += t.mergeForward;
    layer.backward += t.mergeBackward;
}

} // namespace railyard::compute
