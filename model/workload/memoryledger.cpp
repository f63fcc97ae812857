#include "workload/memoryledger.h"

#include "workload/workloadnames.h"

#include <algorithm>
#include <cstdint>

/**
 * The per-rank byte ledger's formulas that do not depend on the stage split: activation bytes
 * per layer and the memory allowance. Papers: [Korthikanti22] Korthikanti et al., "Reducing
 * Activation Recomputation in Large Transformer Models", 2022 (activation memory, §4).
 */
namespace railyard {

using namespace compute;

namespace {

// ---------------------------------------------------------------------------------------------
// Memory allowance: what a rank's HBM holds besides the ledger's tensors.

/// CUDA context with the kernels and library workspaces a training process loads: about
/// 0.3 GB for PyTorch alone with CUDA's lazy module loading (since CUDA 11.7; over 1 GB before),
/// as the PyTorch maintainers measure it (pytorch/pytorch#107667), plus cuBLAS/cuDNN workspaces
/// and Transformer Engine's kernels; 0.5-1 GB on an H100 in practice. The middle is the default.
constexpr double kCudaContextBytes = 0.75e9;

/// NCCL's per-connection buffers: NCCL_BUFFSIZE (4 MiB, the Simple protocol) per channel, per
/// peer and per protocol (NCCL docs, "Environment Variables": NCCL_BUFFSIZE; NCCL's init.cc
/// sizes the LL and LL128 buffers next to it), with 16 channels. Collective (ring/tree)
/// communicators connect 2 peers with 3 protocols; point-to-point ones (pipeline sends,
/// all-to-all) use the Simple protocol with every peer they talk to. A 4-GPU A100 group measured
/// 0.54-0.69 GB (NVIDIA/nccl#964): the same order as this 0.4 GB per ring communicator.
constexpr double kNcclBufferBytes = 4.0 * 1024 * 1024;
constexpr double kNcclChannels = 16.0;

/// PyTorch's caching allocator reserves more than the tensors it hands out (blocks split and
/// rounded, memory_reserved() > memory_allocated(); PyTorch docs, "CUDA semantics: memory
/// management", which offer expandable_segments against it, as NeMo's launch scripts set).
/// Stated default: 5 % of the ledger.
constexpr double kFragmentationShare = 0.05;

/// NCCL buffers of the communicators a Megatron-LM rank uses in a step: tensor, context and
/// expert parallel, the pipeline's sends, and the data-parallel (with context) and
/// expert-data-parallel gradient groups. PyTorch creates a communicator on first use, so
/// groups of one rank cost nothing.
double ncclBytes(const ParallelDegrees &d, const ModelSpec &m)
{
    const double ring = kNcclBufferBytes * kNcclChannels * 2.0 * 3.0;
    const auto p2p = [](double peers) { return kNcclBufferBytes * kNcclChannels * peers; };
    double bytes = 0.0;
    if (d.tp > 1)
        bytes += ring;
    if (d.cp > 1)
        bytes += ring;
    if (std::int64_t{d.dp} * d.cp > 1)
        bytes += ring;
    if (d.pp > 1)
        bytes += p2p(d.pp > 2 ? 2.0 : 1.0);
    if (m.experts > 0 && d.ep > 1)
        bytes += p2p(d.ep - 1.0);
    if (m.experts > 0 && d.ep > 1 && std::int64_t{d.dp} * d.cp / d.ep > 1)
        bytes += ring;
    return bytes;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Activation memory [Korthikanti22] §4, generalised to GQA, gated MLPs and MoE.

/**
 * Bytes stored per layer per micro-batch (without recompute). Per token, bf16 activations with
 * 1-byte dropout masks, [Korthikanti22] §4.1 (their 34 s b h + 5 a s^2 b for the GPT block):
 * attention: QKV input 2h, Q and K 2(q + kvDim), V 2 kvDim, projection input 2q, dropout mask h
 * (11h for MHA, q = heads x head_dim = h); MLP: fc1 input 2h, activation input 2 ffn (4 ffn gated), fc2 input 2 ffn, dropout
 * mask h (19h for ffn = 4h); norms 4h; the GPT block's masks vanish in the Llama block. Without
 * SP the norms, the QKV and fc1 inputs and the masks (10 s b h) are replicated on every TP rank
 * and the rest is split (sbh(10 + 24/t)); with SP everything is split by t. The quadratic
 * 5 a s^2 b term (scores, softmax, dropout) is split by t and disappears with selective
 * recompute or FlashAttention (which keeps O(s) statistics). fp8 stores the four GEMM inputs in
 * one byte. Full recompute keeps only the layer input, 2 s b h (split by t with SP).
 */
double layerActivationBytes(const ModelSpec &m, const TrainingSpec &tr, const Shape &x, bool moe)
{
    const double tokens = x.tokens; // b s / c
    const double h = x.h;
    const double kv = x.kvDim;
    const double q = attentionWidth(x);
    const double t = x.t;
    const bool sp = tr.sequenceParallel && x.t > 1;
    if (tr.recompute == Recompute::Full)
        return 2.0 * tokens * h / (sp ? t : 1.0);

    if (tr.stack == SoftwareStack::Fsdp2 && tr.recompute == Recompute::Selective && !moe) {
        // torchtitan's selective AC ("op", torchtitan/parallelisms/parallelize_llama.py,
        // _apply_ac_to_transformer_block, the version of its Dec 2024 benchmarks): inside a
        // checkpointed block it saves the outputs of aten.mm except every second one and of the
        // SDPA kernel, and recomputes the rest. In the Llama block's mm order (wq, wk, wv, wo,
        // w1, w3, w2) that keeps wq (2q), wv (2 kvDim), w1 (2 ffn), w2 (2h) and the attention
        // output (2q), plus the block's input (2h) the checkpoint holds. The block input and
        // w2's output are sequence-sharded under SP (torchtitan's SequenceParallel norms), else
        // whole on every TP rank; the rest is split by t.
        const double sequence = 2.0 * h + 2.0 * h;
        const double columns = 2.0 * q + 2.0 * kv + 2.0 * x.ffn + 2.0 * q;
        return tokens * (sp ? (sequence + columns) / t : sequence + columns / t);
    }
    const double mask = x.gptStyle ? 1.0 : 0.0;
    const double g = precisionBytes(tr.precision) / 2.0; // fp8 GEMM inputs
    const double up = x.gated ? 2.0 : 1.0;
    // Per token, bytes.
    const double replicated = 4.0 * h + 2.0 * h * g + (moe ? 0.0 : 2.0 * h * g) + 2.0 * mask * h;
    double split = 2.0 * (q + kv) + 2.0 * kv + 2.0 * q * g;
    const double mlpSplit = 2.0 * up * x.ffn + 2.0 * x.ffn * g;
    if (moe) {
        // Routed tokens: topK copies of fc1 input, activation input and fc2 input, over ETP = t;
        // with skewed routing the busiest EP member holds expertLoad times as many.
        split += x.topK * x.expertLoad * (2.0 * h * g + mlpSplit);
    } else {
        split += mlpSplit;
    }
    double perLayer = tokens * (sp ? (replicated + split) / t : replicated + split / t);
    const bool keepScores = tr.recompute == Recompute::None && !tr.flashAttention;
    if (keepScores)
        perLayer += 5.0 * m.heads * x.b * (x.s / x.c) * x.s / t;
    return perLayer;
}

Allowance memoryAllowance(const MemoryAllowanceSpec &spec, const ParallelDegrees &d,
                          const ModelSpec &m)
{
    Allowance a;
    a.cudaContext = spec.cudaContextBytes.value_or(kCudaContextBytes);
    a.nccl = spec.ncclBytes.value_or(ncclBytes(d, m));
    a.fragmentationShare = spec.fragmentation.value_or(kFragmentationShare);
    return a;
}

std::vector<MemoryItem> memoryItems(const MemoryLedger &m)
{
    const bool step = m.optimizerStep > m.activations + m.recomputeWorkspace;
    std::vector<MemoryItem> items{{"parameters", m.parameters},
                                  {"gradients", m.gradients},
                                  {"optimizer", m.optimizer},
                                  {"cuda_context", m.cudaContext},
                                  {"nccl", m.nccl},
                                  {"fragmentation", m.fragmentation()}};
    if (step) {
        items.push_back({"optimizer_step", m.optimizerStep});
    } else {
        items.push_back({"activations", m.activations});
        if (m.recomputeWorkspace > 0.0)
            items.push_back({"recompute_workspace", m.recomputeWorkspace});
    }
    std::stable_sort(items.begin(), items.end(),
                     [](const MemoryItem &a, const MemoryItem &b) { return a.bytes > b.bytes; });
    return items;
}

std::vector<std::string> decidingMemoryItems(const MemoryLedger &m, double deviceBytes)
{
    const std::vector<MemoryItem> items = memoryItems(m);
    std::vector<std::string> out;
    const double excess = m.total() - deviceBytes;
    if (excess <= 0.0) {
        if (!items.empty() && items.front().bytes > 0.0)
            out.emplace_back(items.front().name);
        return out;
    }
    double covered = 0.0;
    for (const MemoryItem &item : items) {
        if (covered >= excess || item.bytes <= 0.0)
            break;
        out.emplace_back(item.name);
        covered += item.bytes;
    }
    return out;
}

} // namespace railyard
