#pragma once

#include "workload/workload.h"

#include <optional>
#include <string_view>
#include <vector>

namespace railyard {

std::string_view scheduleName(ScheduleKind k); ///< "gpipe", "1f1b", "interleaved"
bool parseSchedule(std::string_view name, ScheduleKind &out);

/** Inputs of the pipeline scheduler: per-stage compute and per-boundary transfer times. */
struct PipelineInput
{
    ScheduleKind kind = ScheduleKind::OneFOneB;
    int stages = 1;
    int microbatches = 1;
    int chunks = 1;                  ///< interleaved: model chunks (virtual stages) per rank
    std::vector<double> forward;     ///< per stage, whole stage (all its chunks) per micro-batch
    std::vector<double> backward;    ///< per stage; all zero = forward only
    std::vector<double> sendForward; ///< per boundary s -> s+1 (size stages-1; empty = 0)
    std::vector<double> sendBackward;///< per boundary s+1 -> s
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
    std::vector<double> forwardReady;
};

enum class PipelineEventKind { Forward, Backward, SendForward, SendBackward };
std::string_view eventKindName(PipelineEventKind k); ///< "F", "B", "send-F", "send-B"

struct PipelineEvent
{
    int stage = 0;       ///< the stage that computes (for sends: the sender)
    int microbatch = 0;
    int chunk = 0;
    PipelineEventKind kind = PipelineEventKind::Forward;
    double start = 0.0;
    double end = 0.0;
};

/// A forward or backward block (not a send).
inline bool isCompute(const PipelineEvent &e)
{
    return e.kind == PipelineEventKind::Forward || e.kind == PipelineEventKind::Backward;
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
    std::vector<double> busy;          ///< per stage compute seconds
    std::vector<double> peakInflight;  ///< per stage, micro-batches (chunks count 1/v each)
    std::vector<PipelineEvent> events; ///< sorted by start time
};

/** Throws ScenarioError for impossible inputs (interleaved with m % stages != 0, ...). */
PipelineTimeline schedulePipeline(const PipelineInput &input);

} // namespace railyard
