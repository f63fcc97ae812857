#pragma once

#include "cost/iterationtiming.h"
#include "cost/overlapchannels.h"
#include "cost/pipelineschedule.h"
#include "scenario/scenario.h"
#include "workload/workloadplan.h"

#include <optional>
#include <vector>

namespace railyard {

/** The time of one run of every op and send for one mapping (from the traffic model's phases). */
struct PhaseTimes
{
    std::vector<double> op;           ///< per WorkloadPlan::ops entry (TP, EP, CP; else 0)
    std::vector<double> sendForward;  ///< per boundary s -> s+1
    std::vector<double> sendBackward; ///< per boundary s+1 -> s
    double wrapForward = 0.0;         ///< interleaved wrap-around, last stage -> stage 0
    double wrapBackward = 0.0;
    /// The tied word embedding's gradient all-reduce between the first and the last stage
    /// (WorkloadPlan::tiedEmbeddingBytes), all pairs at once; 0 without one.
    double tiedEmbedding = 0.0;
    /// The DP sync (all groups at once): latency and bandwidth parts of the gradient reduction
    /// and of the parameter all-gather, uncontended.
    double reduceAlpha = 0.0, reduceBeta = 0.0, gatherAlpha = 0.0, gatherBeta = 0.0;
    bool dpPresent = false;
    /// TrainingSpec::fsdpPrefetch: set, the parameter all-gather is ZeRO-3's per-layer gathers,
    /// charged layer by layer in the passes (stagePasses()) instead of in the DP sync.
    std::optional<double> gatherPrefetch;
};

/** One stage's pass over one micro-batch: its compute and the communication it exposes. */
struct StagePass
{
    double compute = 0.0;
    double comm = 0.0;
    double total() const { return compute + comm; }
};

/** A timeline and the iteration derived from it, for one exposure variant. */
struct Timing
{
    std::vector<StagePass> forward, backward;
    SyncPlan sync;
    PipelineInput input;
    PipelineTimeline timeline;
    IterationTiming iteration;
};

/// Per stage, one micro-batch's `pass`: compute plus the TP and EP collectives on the critical
/// path (a TP op only beyond the GEMM it overlaps, CommOp::overlapTime), the CP exchange
/// beyond the attention core (PyTorch's ring, CommOp::stepwise: each exchange beyond its own
/// SDPA step) and, with PhaseTimes::gatherPrefetch, ZeRO-3's per-layer parameter
/// all-gathers beyond what prefetching hides (fsdpGatherExposed()); dimension `off` is free (the
/// exposure ablation).
std::vector<StagePass> stagePasses(const WorkloadPlan &plan, const PhaseTimes &times, OpPass pass,
                                   std::optional<Dim> off);

/**
 * One micro-batch pass's exposed FSDP parameter all-gathers on a stage of `layers` layers: each
 * layer gathers its parameters (`gather` seconds, one run) before it computes (`compute` for the
 * whole pass). With prefetch share f (PyTorch FSDP forward_prefetch / backward_prefetch, FSDP2's
 * implicit prefetch: layer i+1's all-gather is issued before layer i's compute, so the two run
 * together), the first layer's gather has nothing to hide behind, and each later one exposes
 * (1 - f) g + f max(0, g - c), c = compute / layers:
 *     exposed = g + (layers - 1) ((1 - f) g + f max(0, g - c)).
 * f = 0 (prefetch off) exposes every gather: layers x g.
 */
double fsdpGatherExposed(int layers, double gather, double compute, double prefetch);

/// How the DP sync runs for variant `off` (cost/iterationtiming.h): overlapped per the
/// scenario's Megatron-LM switches, its bandwidth part at least the contention `channels` find.
SyncPlan syncPlanFor(const Scenario &scenario, const WorkloadPlan &plan, const PhaseTimes &times,
                     const OverlapChannels &channels, std::optional<Dim> off);

/// The scheduler input for variant `off` (dimension `off` free), its timeline and iteration;
/// `order`: whether the timeline's events are sorted (schedulePipeline()).
Timing timeVariant(const Scenario &scenario, const WorkloadPlan &plan, const PhaseTimes &times,
                   const OverlapChannels &channels, std::optional<Dim> off,
                   EventOrder order = EventOrder::Sorted);
/// The same into `t` (every field set anew), reusing its vectors' capacity: the engine times
/// each move into the buffers of an earlier one.
void timeVariant(const Scenario &scenario, const WorkloadPlan &plan, const PhaseTimes &times,
    const OverlapChannels &channels, std::optional<Dim> off, EventOrder order, Timing &t);

} // namespace railyard
