#pragma once

#include "scenario/scenario.h"

#include <optional>
#include <string>
#include <vector>

/**
 * The published training runs of tests/data/published/training_runs.json (SOURCES.md beside it
 * gives provenance, caveats and the calibration/validation split), each turned into a Scenario
 * the full engine evaluates. What a run's source does not state is filled in by the rules
 * documented in publishedruns.cpp, and every rule that fires on a run is listed in
 * `assumptions`, so a table can say under which assumptions a run was compared.
 */
namespace railyard::published {

struct PublishedRun
{
    std::string id;
    std::string set;          ///< "calibration" or "validation"
    bool complete = false;    ///< the source gives every field the model needs
    std::string device;       ///< device preset name (system.gpu)
    std::string precision;    ///< "bf16", "fp16" or "fp8" as modelled
    int gpus = 0;
    double stepSeconds = 0.0; ///< published (or derived from published numbers) step time
    std::string stepFrom;     ///< "reported", "derived", "measured_from_log", "TFLOP/s only", ...
    double tflopsPerGpu = 0.0; ///< set when only a throughput is published (stepSeconds 0)
    Scenario scenario;
    std::vector<std::string> assumptions; ///< the defaults this run needed, in words
    std::string unsupported;  ///< non-empty: the engine cannot express this run (why)
    /// The training software (a training.stack name), from the run's "stack" or the rules in
    /// publishedruns.cpp; empty when none of the stacks is the run's (Meta's Llama 3 runs).
    std::string stack;
    /// The framework's printed peak memory of the fullest GPU (torch max reserved), bytes; 0 =
    /// not published.
    double peakMemoryBytes = 0.0;
    /// The run as its memory holds it, when the time model substitutes another setting for the
    /// run's own (Megatron-FSDP's sharding, publishedruns.cpp); unset = `scenario`.
    std::optional<Scenario> memoryScenario;
};

/// The absolute path of tests/data/published/training_runs.json in the source tree.
std::string trainingRunsPath();

/// Every run of the file, in file order. Throws std::runtime_error naming the run and the
/// field when the file does not have the documented shape.
std::vector<PublishedRun> loadPublishedRuns(const std::string &path = trainingRunsPath());

/// "dense" or "moe", and a short label such as "h100-sxm fp8".
std::string runGroup(const PublishedRun &run);

} // namespace railyard::published
