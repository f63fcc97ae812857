#pragma once

#include "workload/deviceefficiency.h"
#include "workload/workload.h"

#include <cstddef>

/**
 * The compute-time model behind planWorkload(): each GEMM on a roofline (FLOPs over the
 * calibrated GEMM throughput, with tile and wave quantization, against bytes over HBM), the
 * attention core (FlashAttention-2 or Megatron's 2021 kernels), element-wise kernels as HBM
 * traffic, and a fixed overhead per kernel. Sources are cited in workloadplan.cpp's header
 * ([Williams09], [NvGemm], [Dao23], [Narayanan21]). Internal to the engine.
 */
namespace railyard::compute {

/// Achievable share of the HBM datasheet bandwidth for streaming kernels (STREAM-like copies
/// reach 85-90 % on A100/H100); the memory roof of the roofline [Williams09].
constexpr double kHbmEfficiency = 0.85;

/// Element-wise kernels read and write bf16 even in an fp8 recipe (TE fuses the casts).
constexpr double kElementwiseBytes = 2.0;

/// Adam's step per parameter: read+write fp32 master, m and v (24 B), read the fp32 gradient
/// (4 B), write the bf16 weight (2 B).
constexpr double kAdamBytesPerParameter = 30.0;

/** What the time model needs of the device, resolved once. */
struct Roofline
{
    double gemmPeak = 0.0;      ///< FLOP/s at the GEMM precision, times its calibrated maximum
    double attentionPeak = 0.0; ///< FLOP/s at bf16/fp16 (attention core, LM head, router)
    double flashForward = 0.0;  ///< FLOP/s of the fused causal attention forward (counted causally)
    double flashBackward = 0.0; ///< and of its backward
    double hbm = 0.0;           ///< achievable bytes/s
    double sms = 132.0;
    double overhead = 0.0;      ///< seconds per kernel
    double gemmBytes = 2.0;     ///< bytes per GEMM input element
    double tileK0 = 48.0;       ///< a GEMM tile's fixed work in units of K, at the GEMM precision
    double highTileK0 = 48.0;   ///< the same at bf16/fp16
    bool fp8 = false;           ///< Transformer Engine fp8 GEMMs: cast/transpose kernels around them

    /// The same device at bf16/fp16 (the GEMMs Transformer Engine leaves out of fp8).
    Roofline highPrecision() const
    {
        Roofline r = *this;
        r.gemmPeak = attentionPeak;
        r.gemmBytes = 2.0;
        r.tileK0 = highTileK0;
        r.fp8 = false;
        return r;
    }
};

/// The device's roofline at a precision: the dense peak times the calibrated GEMM efficiency of
/// that device and precision (gemmEfficiency(), deviceefficiency.h; the device's max_efficiency
/// when set), the bf16/fp16 peak times its own efficiency for what Transformer Engine keeps out
/// of fp8, kHbmEfficiency of the HBM bandwidth, and the kernel overhead of the table (or the
/// device's kernel_overhead_us).
Roofline deviceRoofline(const DeviceSpec &device, Precision precision);

/// The roofline's fused attention rates for a stack's attention kernel (attentionKernelOf(),
/// deviceefficiency.h): FlashAttention-2's measured rates at `seq` (the query and key length of
/// one kernel call) where they are published for the device, else the table's as they are.
void useAttentionKernel(
    Roofline &r, const DeviceSpec &device, Precision precision, AttentionKernel kernel, double seq);

/** Seconds and FLOPs of a piece of work. */
struct Cost
{
    double time = 0.0;
    double flops = 0.0;
    Cost &operator+=(const Cost &o)
    {
        time += o.time;
        flops += o.flops;
        return *this;
    }
};

/// Forward GEMM plus its backward: dgrad [M,K] = dC [M,N] B^T and wgrad [K,N] = A^T dC.
struct GemmPair
{
    Cost forward;
    Cost backward;
    Cost dgrad; ///< the backward's input-gradient GEMM alone (included in backward)
    Cost wgrad; ///< the backward's weight-gradient GEMM alone (included in backward)
};

/** One layer's compute on one rank for one micro-batch. */
struct LayerCompute
{
    Cost forward;          ///< everything in the forward pass
    Cost backward;         ///< backward without recompute
    Cost attentionForward; ///< the attention core alone (QK^T, softmax, AV)
    Cost attentionBackward;
    /// The tensor-parallel linears alone (included above), the GEMMs TP communication can run
    /// beside: column-parallel QKV and fc1, row-parallel projection and fc2 (for an MoE layer
    /// fc1/fc2 are the local experts' GEMMs).
    GemmPair qkv, proj, fc1, fc2;
    /// The backward's weight-gradient GEMMs alone (included in backward): the W pass that
    /// ZB-H1 and DualPipe defer (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §2:
    /// each linear's backward is an input-gradient GEMM B and a weight-gradient GEMM W of one
    /// forward GEMM's FLOPs each). The attention core, the element-wise kernels and recompute
    /// have no weights and stay in B.
    Cost weightGrad;
    /// The element-wise kernels' forward alone (included in forward): what torchtitan's
    /// op-level selective checkpointing recomputes besides every second matmul
    /// (workloadplan.cpp).
    Cost elementwiseForward;
};

/// How a layer's element-wise operations reach the GPU.
enum class Fusion {
    /// Transformer Engine / Megatron's fused kernels: norm (+ cast) one kernel, SwiGLU or
    /// bias+GeLU one kernel, bias-dropout-add one kernel, rotary one kernel per tensor.
    TransformerEngine,
    /// Eager PyTorch: every operator of a composite module (RMSNorm, complex-number rotary,
    /// silu * up, the K/V head repeat) is its own kernel reading and writing the activation.
    Eager,
    /// torch.compile (TorchInductor): each chain of pointwise operators, and a reduction with
    /// the pointwise operators around it, becomes one generated kernel.
    Inductor,
};

/** Sizes shared by the per-layer formulas. */
struct Shape
{
    double b = 1, s = 1, h = 1, a = 1, kvDim = 1, headDim = 1, ffn = 1, vocab = 1;
    double qDim = 0;      ///< a x headDim, the attention width; 0 = h (headDim = h / a)
    double t = 1, c = 1;
    double tokens = 1;    ///< T = b s / c, rows of every GEMM (SP all-gathers before them)
    double spTokens = 1;  ///< tokens in sequence-sharded regions: T/t with SP, else T
    double e = 2;         ///< activation / message bytes per element
    bool gated = true;    ///< SwiGLU MLP, Llama-style block (RMSNorm, no bias, no dropout)
    bool gptStyle = false; ///< GeLU MLP, GPT-style block (LayerNorm, biases, dropout)
    int experts = 0;
    int topK = 0;
    int ep = 1;
    /// Routed tokens of the busiest EP member over the average, ep max_j H_j (eprouting.h);
    /// 1 = balanced routing. Scales the expert GEMMs and the routed-token traffic.
    double expertLoad = 1.0;
    /// What the stack fuses of the element-wise kernels (elementwise.cpp).
    Fusion fusion = Fusion::TransformerEngine;
    /// K and V copied to the query heads before the attention kernel (torchtitan's repeat_kv
    /// ahead of PyTorch SDPA); Transformer Engine and FlashAttention-2 read grouped K/V as is.
    bool repeatKv = false;
};

/// The attention width a x headDim (x.qDim, or h when it is 0).
inline double attentionWidth(const Shape &x)
{
    return x.qDim > 0 ? x.qDim : x.h;
}

/// One GEMM [m x k] x [k x n], `batch` independent problems.
Cost gemm(const Roofline &r, double m, double n, double k, double batch = 1.0);
/// Forward GEMM plus its backward (dgrad and wgrad); at fp8 with Transformer Engine's casts.
GemmPair linear(const Roofline &r, double m, double n, double k, double batch = 1.0);
/// A memory-bound (element-wise) kernel sequence.
Cost streaming(const Roofline &r, double bytes, double kernels);
/// The attention core of one layer (scores and context), forward and backward.
void attentionCore(const Roofline &r, const Shape &x, bool flash, LayerCompute &out);
/// One transformer layer on one rank for one micro-batch.
LayerCompute layerCompute(const Roofline &r, const Shape &x, bool moe, bool flash);
/// The output layer (logits and cross entropy) on the last stage.
GemmPair outputLayer(const Roofline &r, const Shape &x);

} // namespace railyard::compute
