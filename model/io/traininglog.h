#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/** What a measured file is, told from its content (detectMeasurementFormat()). */
enum class MeasurementFormat {
    NcclTests, ///< nccl-tests output, text or -J JSON (io/nccltestslog.h)
    Megatron, ///< Megatron-LM training_log lines (and forks printing the same line)
    NeMo, ///< NeMo (PyTorch Lightning) lines carrying `train_step_timing in s`
    Torchtitan, ///< torchtitan metric lines (`step: N  loss: ...  tps: ...`)
    Composer, ///< Composer / llm-foundry console blocks (`[batch=N/M]:`, `Train KEY: VALUE`)
    KinetoTrace ///< a PyTorch profiler (Kineto) Chrome trace, JSON (io/kinetotrace.h)
};
/// "nccl-tests", "megatron", "nemo", "torchtitan", "composer", "kineto-trace".
std::string_view measurementFormatName(MeasurementFormat format);

/// The format of a file whose first bytes are `head` (the first MiB is enough): a JSON object
/// with "traceEvents", or an array of events with "ph" and "ts" (torch 1.13's export without
/// Kineto), is a trace; text with Megatron's `elapsed time per iteration (ms):`,
/// NeMo's `train_step_timing in s`, torchtitan's `step: N ... tps:` or Composer's `[batch=N/M]`
/// headers with `Train ...:` metric lines is that log; anything else is taken for nccl-tests
/// output (its reader then says what is wrong with it).
MeasurementFormat detectMeasurementFormat(std::string_view head);

/** One logged training step (or one logging interval, whose figures are its average). */
struct TrainingStep
{
    long long step = 0; ///< the step (iteration) index the line names
    double stepTime = -1.0; ///< seconds; < 0 when the line has none (torchtitan)
    double tflopsPerGpu = -1.0; ///< achieved TFLOP/s per GPU as the framework counts; < 0 absent
    double tokensPerSecond = -1.0; ///< per GPU (torchtitan's tps); < 0 absent
    double mfuPercent = -1.0; ///< as the framework prints it; < 0 absent
    double memoryPeakGiB = -1.0; ///< the line's peak device memory, GiB; < 0 absent
    int line = 0; ///< 1-based line in the file
};

/** The steps one training log reports. */
struct TrainingLog
{
    std::string file;
    MeasurementFormat format = MeasurementFormat::Megatron;
    std::vector<TrainingStep> steps; ///< by step index, each index once
    int repeatedLines = 0; ///< lines of a step already read (other ranks, progress-bar refreshes)
    /// Megatron's memory report (`[Rank R] (after N iterations) memory (MB) | ...`): the largest
    /// `max allocated` and `max reserved` it printed, MiB; < 0 when the log has no report.
    double maxAllocatedMiB = -1.0;
    double maxReservedMiB = -1.0;
    int memoryLine = 0;
};

/**
 * Parses a training log of `format` (Megatron, NeMo, Torchtitan or Composer). Lines are read as
 * consoles keep them: split at '\n' and at '\r' (tqdm progress bars redraw with '\r'; line
 * numbers count '\n' only), ANSI colour codes taken out, and the figures found wherever they
 * stand in the line, so launcher labels (`[rank0]:`, `0: `, `[1,0]<stdout>:`), timestamps,
 * logger prefixes and text around the lines are no obstacle. A step index seen again (another
 * rank's line, a progress-bar refresh) keeps its first line. Throws ScenarioError whose field
 * is "FILE:LINE" for a line that names a figure but has no readable number after it (`elapsed
 * time per iteration (ms): nan`), a negative, zero or non-finite step time or throughput, and a
 * log with no step line at all. A Composer log's step is its `[batch=N/M]` block, its step time
 * the inverse of the block's `Train throughput/batches_per_sec` (blocks before Composer's
 * SpeedMonitor fills its window have none and are not steps). Nothing is returned partly read.
 */
TrainingLog parseTrainingLog(
    std::string_view text, const std::string &file, MeasurementFormat format);

/// Reads `path` (at most 256 MiB) and parses it as the format its content shows; throws
/// ScenarioError(path, ...) when the content is no training log.
TrainingLog readTrainingLog(const std::string &path);

/** The steady step time of a series: its warm-up left out, the median of the rest. */
struct SteadyStepTime
{
    double median = 0.0; ///< seconds
    int skipped = 0; ///< leading entries left out as warm-up
    int used = 0; ///< entries the median is taken over
    std::string rule; ///< why those were skipped, one sentence
};

/**
 * The warm-up rule: the first entry always goes (Megatron logs iteration 1 alone "to document
 * initialization overhead", training.py; torchtitan's first line and the profiler's first step
 * carry compilation and allocator warm-up), then every further leading entry more than 10 %
 * above the median of the series' second half (times have not settled yet), at most half the
 * series. A single entry is used as it is (nothing can be skipped; the rule says so).
 * `times` must be non-empty, each > 0.
 */
SteadyStepTime steadyStepTime(const std::vector<double> &times);

} // namespace railyard
