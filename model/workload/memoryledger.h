#pragma once

#include "layout/parallellayout.h"
#include "workload/computemodel.h"
#include "workload/workload.h"

#include <string>
#include <vector>

namespace railyard {

/**
 * Bytes held per rank of one stage (Megatron-LM / ZeRO accounting), plus the allowance for what
 * the ledger does not see: the CUDA context, NCCL's buffers and the caching allocator's
 * fragmentation (a share of the ledger). workloadplan.cpp states the defaults and their sources.
 */
struct MemoryLedger
{
    double parameters = 0.0;
    double gradients = 0.0;
    double optimizer = 0.0;
    double activationsPerMicrobatch = 0.0; ///< stored for one in-flight micro-batch
    double activations = 0.0;              ///< * peak in-flight micro-batches (set by the engine)
    /// Held once at the peak, not per in-flight micro-batch: with full recompute, the layer being
    /// recomputed holds its whole activations during its own backward (memoryledger.cpp).
    double recomputeWorkspace = 0.0;
    /// Bytes that live only during the optimizer step, after the backward has freed the
    /// activations: the fp32 copy of the gradient shard Megatron-Core's distributed optimizer
    /// makes when gradients are kept in 16 bits (memoryledger.cpp). The peak holds the larger of
    /// this and the activations, not both.
    double optimizerStep = 0.0;
    double cudaContext = 0.0;              ///< CUDA context, kernels, library workspaces
    double nccl = 0.0;                     ///< NCCL buffers of every communicator of the rank
    double fragmentationShare = 0.0;       ///< allocator overhead as a share of the ledger

    /// What the tensors themselves need: parameters, gradients, optimizer state, activations.
    double ledger() const
    {
        return parameters + gradients + optimizer
               + (activations + recomputeWorkspace > optimizerStep
                      ? activations + recomputeWorkspace
                      : optimizerStep);
    }
    double fragmentation() const { return fragmentationShare * ledger(); }
    double allowance() const { return cudaContext + nccl + fragmentation(); }
    double total() const { return ledger() + allowance(); }
};

/** One item of a rank's memory: its name in reports and JSON, and its bytes. */
struct MemoryItem
{
    const char *name = "";
    double bytes = 0.0;
};

/// The ledger's items (parameters, gradients, optimizer, activations and recompute_workspace or
/// optimizer_step, whichever the peak holds, cuda_context, nccl, fragmentation) largest first.
std::vector<MemoryItem> memoryItems(const MemoryLedger &m);

/// The items that decide whether the rank fits `deviceBytes`: when it does not, the fewest
/// largest items whose bytes cover the excess (without them it would fit); when it does, the
/// largest item (what bounds the headroom). Names only, largest first.
std::vector<std::string> decidingMemoryItems(const MemoryLedger &m, double deviceBytes);

/** The allowance's parts for one rank, resolved from the scenario's overrides and defaults. */
struct Allowance
{
    double cudaContext = 0.0;
    double nccl = 0.0;
    double fragmentationShare = 0.0;
};

/// The allowance of a rank: each part as the scenario sets it, else the default that
/// memoryledger.cpp states with its source (CUDA context, NCCL buffers of the communicators the
/// degrees create, 5 % fragmentation).
Allowance memoryAllowance(const MemoryAllowanceSpec &spec, const ParallelDegrees &degrees,
                          const ModelSpec &model);

/// Activation bytes one layer stores for one micro-batch on one rank ([Korthikanti22] §4,
/// generalised to GQA, head_dim, gated MLPs and MoE; memoryledger.cpp gives the terms).
double layerActivationBytes(const ModelSpec &model, const TrainingSpec &training,
                            const compute::Shape &x, bool moe);

} // namespace railyard
