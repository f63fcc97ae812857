#pragma once

#include "cost/pipelineschedule.h"

#include <vector>

namespace railyard {

/**
 * How the data-parallel gradient sync and parameter all-gather run around one pipeline
 * timeline, as the cost engine derives it for one exposure variant: the sync's latency and
 * bandwidth parts, whether Megatron-LM overlaps them (--overlap-grad-reduce,
 * --overlap-param-gather), how each stage's sync is cut into model chunks and buckets, the
 * optimizer step, and the link bound (no iteration ends before its busiest link has carried
 * its bytes).
 */
struct SyncPlan
{
    bool present = false;       ///< a gradient sync runs (dp x cp > 1, or expert dp > 1)
    bool overlapReduce = false; ///< overlap_grad_reduce
    bool overlapGather = false; ///< overlap_param_gather (with the distributed optimizer)
    /// Gradient reduce-scatter (all-reduce without the distributed optimizer): the latency of
    /// one collective and the bandwidth part of a whole stage's gradients; with overlap the
    /// bandwidth part already includes the traffic it shares links with during backward.
    double reduceAlpha = 0.0;
    double reduceBeta = 0.0;
    /// The distributed optimizer's parameter all-gather (0 without it), alike; overlapped, the
    /// bandwidth part includes the forward traffic it shares links with.
    double gatherAlpha = 0.0;
    double gatherBeta = 0.0;
    std::vector<std::vector<double>> share; ///< [stage][chunk] share of the stage's sync bytes
    std::vector<std::vector<int>> buckets;  ///< [stage][chunk] buckets it is cut into (layers)
    double optimizer = 0.0;                 ///< the slowest stage's optimizer step
    /// The tied embedding's gradient all-reduce between the first and the last stage, after
    /// both have reduced their gradients (PhaseTimes::tiedEmbedding; 0 without one).
    double tiedEmbedding = 0.0;
    double linkBound = 0.0;                 ///< the busiest link's busy time per iteration
};

/** One stage's end of an iteration. */
struct StageSync
{
    double lastCompute = 0.0; ///< end of its last forward or backward
    double window = 0.0;      ///< from its first chunk's last backward to lastCompute (overlap)
    double reduceEnd = 0.0;   ///< when its gradient reduction ends (>= lastCompute)
    /// When its gradients are all reduced: reduceEnd, or on the first and the last stage the
    /// end of the tied embedding's all-reduce, which starts once both have reduced theirs.
    double syncEnd = 0.0;
};

struct IterationTiming
{
    double end = 0.0;           ///< the iteration time
    double beforeBound = 0.0;   ///< the same before the link bound was applied
    double gatherExposed = 0.0; ///< parameter all-gather after the optimizer step (not overlapped)
    std::vector<StageSync> stages;
};

/**
 * The iteration's end on `timeline` (stages x chunks model chunks): each stage's gradient
 * reduction (the first and the last stage's then the tied embedding's), then the optimizer step,
 * then the parameter all-gather unless it is overlapped, and at least the link bound.
 *
 * Overlapped (overlap_grad_reduce), a chunk's gradients become ready bucket by bucket during its
 * last backward: NeMo/Megatron-Core cut the sync per Transformer layer and expose about one
 * bucket ("Communication Overlap" guide of the NeMo framework; per virtual stage under
 * pipelining). So chunk c's reduction, of T = alpha + share x beta, starts when its last backward
 * starts (or when the previous chunk's reduction ends: one communicator runs them in turn) and
 * ends at max(start + T, end of that backward + T / buckets). Not overlapped, the stage's whole
 * reduction starts after its last backward.
 */
IterationTiming timeIteration(
    const PipelineTimeline &timeline, int stages, int chunks, const SyncPlan &sync);

/**
 * overlap_param_gather: the earliest start of each chunk's forwards (index chunk * stages +
 * stage) after the parameter all-gather, which every stage starts at the beginning of the
 * iteration (Megatron-LM aligns the stages' all-gathers by default, --no-align-param-gather
 * turns it off) chunk after chunk, bucket by bucket: a forward of F over L layers (`forward`,
 * same index) can start once the first bucket is there and must not overtake the last, so it
 * waits max(T / L, T - F (L - 1) / L) after its chunk's all-gather starts. Empty when nothing
 * is overlapped.
 */
std::vector<double> gatherReadyTimes(
    const SyncPlan &sync, int stages, int chunks, const std::vector<double> &forward);

} // namespace railyard
