#pragma once

#include "scenario/scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

/**
 * The "jobs" section of a scenario file (docs/shared-fabric.md): several training jobs on one
 * fabric, each with "name", "colour", "parallel", "model", "training", an optional "device"
 * and a "mapping" whose "slots" place every rank. Errors name the field path
 * ("jobs[1].parallel.tp"); two jobs on one slot are refused naming both jobs and the slot.
 */
namespace railyard::jobssection {

/// Reads the jobs; `shared` holds the fabric and the top-level device already read (a job
/// without "device" takes it). `slotCount` is the fabric's GPU slots.
std::vector<JobSpec> readJobs(const nlohmann::json &value, std::int64_t slotCount,
    const Scenario &shared, const std::string &baseDir);

} // namespace railyard::jobssection

namespace railyard {

/// Job `index` of a scenario with jobs as a single-job scenario: the shared fabric, failures,
/// collectives and calibration with the job's layout, model, training, device and slots (no
/// jobs, no inference pools, no whiteboard marks). What the engine evaluates for the job.
Scenario jobScenario(const Scenario &scenario, std::size_t index);
/// Job `index` as jobScenario() whose other jobs' GPUs count as failed (gpu:N): a search or a
/// remap then moves its ranks onto its own and the free slots only, and the others stay where
/// they are (`optimise --job`, `remap` of a scenario with jobs, "place a new job").
Scenario jobWithOthersFixed(const Scenario &shared, std::size_t index);
/// Sets `job`'s layout (degrees, order), model, training and mapping (slots, version) from a
/// single-job scenario's top-level fields; name, colour and device stay the job's.
void takeJobFields(JobSpec &job, const Scenario &single);
/// Puts the first job's layout, model, training and mapping in the top-level fields (what a
/// command handling one job reads; the device stays the scenario's default); no-op without jobs.
/// Saving writes the first job from those fields, so an edit made through them is kept: call
/// this after changing `jobs[0]` directly.
void adoptFirstJob(Scenario &scenario);
/// The hue a job gets when its file names none: the Okabe-Ito colour-blind-safe palette
/// (Okabe & Ito, "Color Universal Design", 2008), black left out, cycled.
std::string defaultJobColour(std::size_t index);

} // namespace railyard
