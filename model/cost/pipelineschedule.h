#pragma once

#include "workload/workload.h"
#include "workload/workloadnames.h" // scheduleName(), kScheduleKinds

#include <array>
#include <optional>
#include <string_view>
#include <vector>

namespace railyard {

/// Whether the schedule splits the backward into B (input gradient) and a deferred W (weight
/// gradient): ZB-H1 and DualPipe.
inline bool splitsWeightGrad(ScheduleKind k)
{
    return k == ScheduleKind::ZbH1 || k == ScheduleKind::DualPipe;
}

/** Inputs of the pipeline scheduler: per-stage compute and per-boundary transfer times. */
struct PipelineInput
{
    ScheduleKind kind = ScheduleKind::OneFOneB;
    int stages = 1;
    int microbatches = 1;
    int chunks = 1; ///< interleaved: model chunks (virtual stages) per rank
    std::vector<double> forward; ///< per stage, whole stage (all its chunks) per micro-batch
    std::vector<double> backward; ///< per stage; all zero = forward only
    std::vector<double> sendForward; ///< per boundary s -> s+1 (size stages-1; empty = 0)
    std::vector<double> sendBackward; ///< per boundary s+1 -> s
    /// Optional, per virtual stage (index chunk * stages + stage): one micro-batch's compute in
    /// that chunk, for chunks of unequal size; empty = forward[s] / chunks (backward alike).
    std::vector<double> chunkForward;
    std::vector<double> chunkBackward;
    /// Interleaved: the wrap-around sends between the last stage's chunk c and stage 0's chunk
    /// c+1, forward and backward; unset = the mean boundary send time of that direction.
    std::optional<double> wrapForward;
    std::optional<double> wrapBackward;
    /// Optional, per virtual stage (chunk * stages + stage): the earliest time that chunk's
    /// forwards may start on its stage (a parameter all-gather it waits for); empty = 0.
    /// DualPipe: per stage, for both directions.
    std::vector<double> forwardReady;
    /// ZB-H1 and DualPipe, per stage: the weight-gradient part (W) of `backward`, which these
    /// schedules may run later than the input gradient (B = backward - W); empty = none.
    std::vector<double> weightGrad;
    /// DualPipe, per stage: the exposed communication (TP, EP, CP) included in `forward` and
    /// `backward`. An overlapped forward-and-backward pair hides each chunk's communication
    /// behind the other chunk's compute (DeepSeek-V3 §3.2.1); empty = none.
    std::vector<double> forwardComm;
    std::vector<double> backwardComm;
};

/// Backward is the whole backward, or its input-gradient part B when the schedule defers the
/// weight gradient W to an event of its own (ZB-H1, DualPipe).
enum class PipelineEventKind { Forward, Backward, SendForward, SendBackward, WeightGrad };
std::string_view eventKindName(PipelineEventKind k); ///< "F", "B", "send-F", "send-B", "W"

struct PipelineEvent
{
    int stage = 0; ///< the stage that computes (for sends: the sender)
    int microbatch = 0; ///< DualPipe: direction 1 counts on from m/2
    int chunk = 0; ///< model chunk (interleaved) or direction (DualPipe: 1 = reverse)
    PipelineEventKind kind = PipelineEventKind::Forward;
    double start = 0.0;
    double end = 0.0;
    bool overlapped = false; ///< DualPipe: one half of an overlapped forward-and-backward pair
    int peer = -1; ///< sends: the receiving stage; -1 for compute
};

/// A forward, backward or weight-gradient block (not a send).
inline bool isCompute(const PipelineEvent &e)
{
    return e.kind == PipelineEventKind::Forward || e.kind == PipelineEventKind::Backward
        || e.kind == PipelineEventKind::WeightGrad;
}

/**
 * An event timeline per stage. Bubble fraction = idle compute time / (stages * makespan),
 * i.e. 1 - utilisation ((p-1)/(m+p-1) for p equal stages and m micro-batches, Huang et al.,
 * GPipe 2019); sends occupy links, not the stage's compute.
 */
struct PipelineTimeline
{
    double makespan = 0.0;
    double bubbleFraction = 0.0;
    std::vector<double> busy; ///< per stage compute seconds
    std::vector<double> peakInflight; ///< per stage, micro-batches (chunks count 1/v each)
    std::vector<PipelineEvent> events; ///< sorted by start time (eventBefore())
};

/// The events' order in a timeline: by start, then stage, compute before sends, kind,
/// micro-batch and chunk. No two events of one timeline are equal under it (a stage runs each
/// (kind, micro-batch, chunk) once and sends each output once).
bool eventBefore(const PipelineEvent &a, const PipelineEvent &b);

/// Whether schedulePipeline() sorts its events (eventBefore()) or leaves them in the order the
/// simulation ran them: a placement search reads only the figures (timeIteration() does not
/// depend on the order), and sorting was a tenth of its step.
enum class EventOrder { Sorted, AsRun };

/**
 * Throws ScenarioError for impossible inputs (interleaved with m % stages != 0; DualPipe with
 * an odd number of stages, an odd m or m < 2 stages, ...).
 */
PipelineTimeline schedulePipeline(
    const PipelineInput &input, EventOrder order = EventOrder::Sorted);
/// The same into `out` (every field set anew), whose vectors keep their capacity: a search
/// schedules into the timeline of its previous step, whose events are warm in the cache.
void schedulePipeline(const PipelineInput &input, EventOrder order, PipelineTimeline &out);

} // namespace railyard
