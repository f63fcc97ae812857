#pragma once

#include "workload/eprouting.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace railyard {

enum class Precision { Bf16, Fp16, Fp8 };
enum class Recompute { None, Selective, Full };
/// Pipeline schedules (workload/workloadnames.h: scheduleName() is the one name table).
enum class ScheduleKind { GPipe, OneFOneB, Interleaved, ZbH1, DualPipe };

/** A GPT-style decoder-only transformer (dense, or MoE when experts > 0). */
struct ModelSpec
{
    std::string name; ///< preset name or free text
    int layers = 80;
    int hidden = 8192;
    int heads = 64;
    int kvHeads = 0; ///< 0 = heads (multi-head attention); fewer = GQA
    int headDim = 0; ///< 0 = hidden / heads; Qwen3 and GPT-OSS set heads x head_dim != hidden
    int ffn = 28672; ///< MLP intermediate size (per expert for MoE)
    bool gatedMlp = true; ///< SwiGLU-style (3 matrices) vs GeLU (2 matrices)
    int seq = 4096;
    int vocab = 32000;
    int experts = 0; ///< 0 = dense
    int topK = 0;
    int moeLayerFreq = 1; ///< every n-th layer is MoE (when experts > 0)
    ExpertRouting routing; ///< the router's destination distribution (MoE only; eprouting.h)
    bool operator==(const ModelSpec &) const = default;
};

/**
 * How data parallelism shards the training state, Megatron-FSDP's
 * --data-parallel-sharding-strategy (ZeRO stages, Rajbhandari et al. SC'20): the distributed
 * optimizer alone shards the optimizer state (ZeRO-1); OptimGrads also the gradients (ZeRO-2,
 * what Llama 3's FSDP did); OptimGradsParams also the parameters (ZeRO-3, DeepSpeed ZeRO-3,
 * Megatron-FSDP), gathered layer by layer for each micro-batch's forward and backward.
 */
enum class DpSharding { Optim, OptimGrads, OptimGradsParams };

/**
 * The training software a run uses (scenario key training.stack; docs/scenario-format.md lists
 * each stack's defaults). Unset, the engine behaves as it did before the key existed: the
 * device's calibrated constants, which come from Megatron-LM on A100 and Megatron-Core with
 * Transformer Engine on every later device (deviceefficiency.cpp). Set, `generate --stack` writes
 * the stack's defaults (what is sharded, what overlaps), and the stack's memory rules apply
 * (memoryledger.cpp).
 */
enum class SoftwareStack {
    MegatronCoreTe, ///< Megatron-Core with Transformer Engine: NeMo, Megatron-Bridge
    MegatronLm, ///< Megatron-LM without Transformer Engine
    Fsdp2, ///< PyTorch-native FSDP2 / DTensor, torch.compile (torchtitan)
    DeepSpeed, ///< DeepSpeed ZeRO 1/2/3 (Megatron-DeepSpeed)
    Composer, ///< MosaicML Composer FSDP (llm-foundry)
};

/**
 * How context-parallel attention exchanges K/V (scenario key training.cp_attention; unset =
 * the stack's default, cpAttentionOf()). Megatron-Core runs Transformer Engine's ring
 * (DotProductAttention cp_comm_type "p2p", its default: "Exchange KV chunks with P2P
 * communications in ring topology. P2P is async and can be overlapped with attention compute").
 * PyTorch's context_parallel (torch.distributed.tensor.experimental._attention, as torchtitan
 * runs it) all-gathers K/V beside the first sub-SDPA only (its default rotate method,
 * "allgather"), runs one SDPA per K/V shard and merges each into an fp32 output in eager
 * element-wise kernels; its backward all-gathers K/V again and passes dK/dV around the ring in
 * fp32 (model/workload/ringattention.h).
 */
enum class CpAttention {
    TeP2p, ///< "te-p2p": Transformer Engine's overlapped ring (Megatron-Core)
    TorchAllGather, ///< "torch-allgather": PyTorch context_parallel, allgather rotater (torchtitan)
};

/**
 * What a rank's HBM holds beyond the byte ledger (workloadplan.cpp states the defaults and their
 * sources). Unset fields take the default; a set field overrides it.
 */
struct MemoryAllowanceSpec
{
    std::optional<double> cudaContextBytes; ///< CUDA context, kernels and library workspaces
    std::optional<double> ncclBytes; ///< NCCL's buffers, all communicators of a rank
    std::optional<double> fragmentation; ///< caching-allocator overhead, share of the ledger
    bool operator==(const MemoryAllowanceSpec &) const = default;
};

/** How the model is trained: batch sizes, precision and Megatron-LM's main switches. */
struct TrainingSpec
{
    int microBatch = 1;
    int globalBatch = 512; ///< micro-batches per replica = global / (micro * dp)
    Precision precision = Precision::Bf16;
    bool sequenceParallel = true;
    Recompute recompute = Recompute::Selective;
    bool distributedOptimizer = true;
    ScheduleKind schedule = ScheduleKind::OneFOneB;
    int interleave = 1; ///< virtual stages (chunks) per rank, interleaved only
    /// Transformer layers per pipeline stage (pp entries), or per virtual stage in model order
    /// (pp x interleave entries, entry c*pp + s = chunk c of stage s) for the interleaved
    /// schedule; empty = the even split. Each entry >= 1, summing to model.layers.
    std::vector<int> layersPerStage;
    /// Megatron-LM --overlap-grad-reduce (scenario key training.overlap_grad_reduce): start
    /// each gradient bucket's reduction during the last micro-batch's backward. Off by default,
    /// as in Megatron-Core's DistributedDataParallelConfig.
    bool dpOverlap = false;
    /// Megatron-LM --overlap-param-gather: the distributed optimizer's parameter all-gather
    /// runs behind the next forward instead of after the optimizer step. Off by default.
    bool overlapParamGather = false;
    /// Megatron-LM --tp-comm-overlap: Transformer Engine overlaps the TP all-gathers and
    /// reduce-scatters with the GEMMs they feed (needs sequence parallelism). Off by default.
    bool tpCommOverlap = false;
    bool hierarchicalAllReduce = false; ///< DP all-reduce as intra-server RS, inter AR, intra AG
    bool flashAttention
        = true; ///< fused causal attention (FlashAttention); false = 2021 Megatron GEMMs + softmax
    bool pipelineScatterGather
        = true; ///< without SP, send 1/tp of the boundary tensor per rank (Narayanan 2021 §4.1)
    /// fp8 only: the distributed optimizer all-gathers the updated parameters in fp8
    /// (Megatron-LM --fp8-param-gather, Transformer Engine's fp8 primary weights); off, they
    /// travel in bf16 like every other exchange of an fp8 run.
    bool fp8ParamGather = false;
    /// bf16/fp8: keep and reduce the gradients in bf16 (Megatron-LM --grad-reduce-in-bf16,
    /// Megatron-Core grad_reduce_in_fp32 = False, NeMo's grad_sync_dtype=bf16); off, Megatron-LM
    /// accumulates and reduces them in fp32 (accumulate_allreduce_grads_in_fp32).
    bool gradReduceBf16 = false;
    DpSharding dpSharding = DpSharding::Optim; ///< beyond the optimizer: needs distributedOptimizer
    /// Hybrid sharding (scenario key training.fsdp "hybrid:R", PyTorch FSDP's HYBRID_SHARD and
    /// FSDP2's HSDP, fully_shard on a 2-D (replicate, shard) device mesh): the sharded state
    /// (dp_sharding) is split over groups of R consecutive members of each dp-cp group, and
    /// replicated across the dp x cp / R groups; the gradients' reduce-scatter and the parameter
    /// all-gathers run in the shard group, and each shard is all-reduced over its replica group.
    /// 0 = "full": one shard group, the whole dp-cp group.
    int fsdpShard = 0;
    /// FSDP's prefetch (scenario key training.fsdp_prefetch, PyTorch FSDP's forward_prefetch /
    /// backward_prefetch, FSDP2's implicit prefetch of the next layer's all-gather): the share of
    /// each layer's ZeRO-3 parameter all-gather that runs beside the previous layer's compute.
    /// Set, the per-micro-batch gathers are charged layer by layer in the forward and backward
    /// passes (workloadplan.cpp); unset, they stay in the data-parallel sync as before.
    std::optional<double> fsdpPrefetch;
    std::optional<SoftwareStack> stack; ///< unset = the device's calibrated stack (see the enum)
    /// torch.compile (scenario key training.compile): the PyTorch-native stacks (fsdp2,
    /// composer) run their element-wise operators as TorchInductor's fused kernels instead of
    /// eager PyTorch's one kernel per operator (model/workload/elementwise.cpp). Unset = the
    /// stack's default, off: torchtitan's job config (training.compile = false) and Composer's
    /// Trainer (compile_config None) compile nothing unless asked. Refused for the other stacks,
    /// which fuse their own kernels (workloadcheck.cpp).
    std::optional<bool> compile;
    /// Context-parallel attention (scenario key training.cp_attention); unset = the stack's.
    std::optional<CpAttention> cpAttention;
    MemoryAllowanceSpec memoryAllowance;
    bool operator==(const TrainingSpec &) const = default;
};

/// The context-parallel attention a run uses: training.cp_attention when set, else its stack's
/// (fsdp2: PyTorch's context_parallel, torchtitan's only CP; every other stack: TE's ring).
inline CpAttention cpAttentionOf(const TrainingSpec &training)
{
    if (training.cpAttention)
        return *training.cpAttention;
    return training.stack == SoftwareStack::Fsdp2 ? CpAttention::TorchAllGather
                                                  : CpAttention::TeP2p;
}

/// Model chunks (virtual pipeline stages) each rank holds: the interleave count for the
/// interleaved 1F1B schedule (Narayanan et al., SC'21 §2.2.2), 1 for GPipe and plain 1F1B.
inline int chunksPerRank(const TrainingSpec &training)
{
    return training.schedule == ScheduleKind::Interleaved ? std::max(1, training.interleave) : 1;
}

/**
 * An accelerator: dense peak throughput per precision, HBM, and the calibrated constants of
 * the compute-time model (workloadplan.cpp documents the model and cites the calibration).
 */
struct DeviceSpec
{
    std::string name = "h100-sxm";
    double peakTflopsBf16 = 989.0; ///< dense, no sparsity
    double peakTflopsFp16 = 989.0;
    double peakTflopsFp8 = 1979.0;
    double hbmBytes = 80e9;
    double hbmGBps = 3350.0; ///< HBM bandwidth, GB/s
    double maxEfficiency
        = 0.0; ///< 0 = the calibrated table (deviceefficiency.h); set: every precision
    double maxEfficiencyFp8 = 0.0; ///< fp8 GEMMs only; 0 = maxEfficiency when set, else the table
    double kernelOverheadUs = 0.0; ///< 0 = the calibrated table
    int streamingMultiprocessors = 132; ///< SM count, for the wave quantization of GEMM tiles
    bool operator==(const DeviceSpec &) const = default;
};

/// The device's dense peak at a precision, TFLOP/s (the `peak_tflops_*` of its spec).
inline double peakTflops(const DeviceSpec &device, Precision precision)
{
    switch (precision) {
    case Precision::Fp16:
        return device.peakTflopsFp16;
    case Precision::Fp8:
        return device.peakTflopsFp8;
    case Precision::Bf16:
        break;
    }
    return device.peakTflopsBf16;
}

} // namespace railyard
