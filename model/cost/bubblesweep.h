#pragma once

#include "cost/costengine.h"
#include "cost/pipelineschedule.h"

#include <string>
#include <vector>

namespace railyard {

/** One point of a bubble sweep: the pipeline as it would run with `microbatches` per replica. */
struct BubbleSweepPoint
{
    int microbatches = 0;
    bool valid = false; ///< false when the scheduler refuses this count (see `error`)
    double bubbleFraction = 0.0;
    double makespan = 0.0; ///< seconds, fill + steady state + drain
    double iterationTime = 0.0; ///< makespan plus exposed DP sync and the optimizer step
    std::string error; ///< the scheduler's message when !valid
};

/// The scheduler input the engine uses for its own timeline, with the micro-batch count
/// replaced: per-stage compute and per-boundary send times come from the engine's report.
PipelineInput bubbleSweepInput(const CostEngine &engine, int microbatches);

/**
 * Bubble fraction and iteration time versus the micro-batch count m, for the engine's scenario
 * and current mapping. Only m changes (global batch = m * micro_batch * dp): per-micro-batch
 * stage and boundary times, the DP gradient sync and the optimizer step do not depend on m, so
 * each point re-runs schedulePipeline() with the report's times. Counts the scheduler refuses
 * (interleaved with m % pp != 0, m < 1) come back with valid = false and its message.
 * At the engine's own m the point equals the report (bubbleFraction, pipelineMakespan,
 * iterationTime).
 */
std::vector<BubbleSweepPoint> bubbleSweep(const CostEngine &engine, const std::vector<int> &counts);

/// The pipeline alone: `base` with each count in turn; iterationTime = makespan (no DP sync
/// or optimizer step is known here). Invalid counts as above.
std::vector<BubbleSweepPoint> bubbleSweep(
    const PipelineInput &base, const std::vector<int> &counts);

/// One point (see bubbleSweep()).
BubbleSweepPoint bubbleSweepPoint(const CostEngine &engine, int microbatches);

/**
 * The counts a bubble-versus-m chart should show: multiples of the step the schedule allows
 * (pp for interleaved, 2 for DualPipe, 1 otherwise) from the smallest up to max(2m, 4pp), thinned
 * to at most `maxPoints` roughly geometric steps, always including the current m. Sorted, unique.
 */
std::vector<int> bubbleSweepCounts(const CostEngine &engine, int maxPoints = 48);

} // namespace railyard
