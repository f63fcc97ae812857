#pragma once

#include "io/kinetotrace.h"
#include "io/traininglog.h"
#include "scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace railyard {
class CostEngine;
}

namespace railyard {

/// The format of the file at `path`, told from its first MiB (io/traininglog.h); throws
/// ScenarioError(path, ...) when it cannot be read.
MeasurementFormat measuredFileFormat(const std::string &path);

/** One measured steady step time and where it came from. */
struct MeasuredStepSource
{
    std::string file; ///< "" for --step-time
    MeasurementFormat format = MeasurementFormat::Megatron;
    bool stepTimeOption = false; ///< given with --step-time
    double stepTime = 0.0; ///< seconds, steady
};

/** One row of the measured-beside-predicted table: a part of the step, seconds per step. */
struct ComparisonRow
{
    std::string what; ///< "step", "compute", "tp exposed communication", ...
    double measured = 0.0;
    double predicted = 0.0;
    bool measuredKnown = true; ///< false: the file does not measure it (a dimension not traced)
    /// (predicted - measured) / measured, the sign of the engine's error; 0 when not measured.
    double error() const
    {
        return measuredKnown && measured > 0.0 ? (predicted - measured) / measured : 0.0;
    }
};

/** A stretch of the measured step as the file gives it, seconds from the step's start. */
struct MeasuredPhase
{
    enum class Kind {
        Step, ///< the whole step (a log gives nothing finer)
        Compute, ///< compute kernels running
        Communication ///< NCCL kernels of one dimension's groups running
    };
    Kind kind = Kind::Step;
    std::optional<Dim> dim; ///< communication: its dimension; unset = a group of no dimension
    double start = 0.0;
    double end = 0.0;
};

/**
 * What one training log or trace measured, beside the engine's figures for the same step: the
 * rows of the table, the "why" line and the measured lane of the timeline (one typical step).
 */
struct MeasuredRunView
{
    std::string file;
    MeasurementFormat format = MeasurementFormat::Megatron;
    int rank = -1; ///< the trace's rank (distributedInfo.rank); -1 for a log or when absent
    int stage = -1; ///< that rank's pipeline stage in the scenario; -1 when not known
    long long laneStep = -1; ///< the step the lane draws (a trace's ProfilerStep#N), -1 for a log
    double stepTime = 0.0; ///< steady median, seconds
    double predictedStepTime = 0.0;
    std::vector<ComparisonRow> rows; ///< "step" first, then compute and the dimensions (traces)
    std::string why; ///< explainStepDifference() for a trace; for a log, what it can tell
    std::vector<MeasuredPhase> phases; ///< the lane: one Step phase for a log
};

/** What `calibrate` says about training logs and traces: measured beside predicted. */
struct TrainingComparison
{
    nlohmann::json json = nlohmann::json::array(); ///< calibrate --json's "training" array
    std::string text;
    std::vector<MeasuredStepSource> sources; ///< in the order of "training"
    std::vector<MeasuredRunView> runs; ///< per file (not --step-time), in the order given
};

/** A training log or trace read once, to be compared again whenever the scenario changes. */
struct MeasuredFile
{
    std::string path;
    MeasurementFormat format = MeasurementFormat::Megatron;
    std::shared_ptr<const TrainingLog> log; ///< set for a log
    std::shared_ptr<const KinetoTrace> trace; ///< set for a trace
};

/// Reads `path` as the training log or trace its content shows; throws ScenarioError naming the
/// file (and the line, for a malformed one), also for nccl-tests output or anything else.
MeasuredFile readMeasuredFile(const std::string &path);

/// compareTraining() on files already read.
TrainingComparison compareMeasured(
    const CostEngine &engine, const std::vector<MeasuredFile> &files, double stepTime);

/**
 * `calibrate --compute-out`: fits the device's GEMM efficiency to the one measured step time
 * of `comparison` with the whole engine (cost/computefit.h) and returns the versioned
 * "calibration.compute" section with its provenance (each file's SHA-256, the stack its format
 * implies, the device and precision, the date `measuredAt`). Throws ScenarioError("--compute-out",
 * ...) when there is not exactly one step time or it cannot be fitted.
 */
nlohmann::json computeCalibrationSection(
    const Scenario &scenario, const TrainingComparison &comparison, const std::string &measuredAt);

/**
 * Reads each training log and trace (`paths`, their formats in `formats`) and compares its
 * steady step time (io/traininglog.h steadyStepTime) with the engine's iteration time, and for
 * a trace each dimension's exposed communication with the engine's; `stepTime` > 0 is one
 * more measured step time (--step-time). torchtitan's tokens per second per GPU becomes a step
 * time through the scenario's tokens per step (global batch x sequence) and GPU count. Throws
 * ScenarioError for any file that is not read whole.
 */
TrainingComparison compareTraining(const CostEngine &engine, const std::vector<std::string> &paths,
    const std::vector<MeasurementFormat> &formats, double stepTime);

/** One part of a measured step beside the engine's figure for it (seconds per step). */
struct StepPart
{
    std::string what; ///< "compute", "dp exposed communication", ...
    double measured = 0.0;
    double predicted = 0.0;
};

/**
 * "Why is this step slower (or faster) than predicted", composed from the figures: the step
 * time measured and predicted with the relative difference, then the part whose measured time
 * differs most from the engine's (compute, or one dimension's exposed communication), with
 * both figures, the difference and, when it points the same way as the step's, its share of
 * the step's difference (at most 100 %).
 */
std::string explainStepDifference(
    double measuredStep, double predictedStep, const std::vector<StepPart> &parts);

} // namespace railyard
