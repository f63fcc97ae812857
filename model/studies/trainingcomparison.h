#pragma once

#include "io/traininglog.h"
#include "scenario/scenario.h"

#include <nlohmann/json.hpp>

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

/** What `calibrate` says about training logs and traces: measured beside predicted. */
struct TrainingComparison
{
    nlohmann::json json = nlohmann::json::array(); ///< calibrate --json's "training" array
    std::string text;
    std::vector<MeasuredStepSource> sources; ///< in the order of "training"
};

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
