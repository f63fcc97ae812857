#pragma once

#include "io/traininglog.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace railyard {
class CostEngine;
}

namespace railyard::cli {

/// The format of the file at `path`, told from its first MiB (io/traininglog.h); throws
/// ScenarioError(path, ...) when it cannot be read.
MeasurementFormat measuredFileFormat(const std::string &path);

/** What `calibrate` says about training logs and traces: measured beside predicted. */
struct TrainingComparison
{
    nlohmann::json json = nlohmann::json::array(); ///< calibrate --json's "training" array
    std::string text;
};

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

} // namespace railyard::cli
