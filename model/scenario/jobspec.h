#pragma once

// Plain values only, like scenario.h (which includes this header).
#include "layout/parallellayout.h"
#include "workload/workload.h"

#include <optional>
#include <string>
#include <vector>

namespace railyard {

/**
 * One training job of a shared fabric (the scenario's "jobs" list, docs/shared-fabric.md): its
 * own layout, model, training settings and device, placed on the fabric's GPU slots by an
 * explicit slot per rank. The fabric, failures, collectives and calibration stay the
 * scenario's. A scenario without jobs is one job held in its top-level fields.
 */
struct JobSpec
{
    std::string name; ///< unique in the scenario
    std::string colour; ///< "#rrggbb", the hue the GUI draws the job's ranks in
    ParallelDegrees degrees;
    std::string order = "tp-cp-ep-dp-pp";
    ModelSpec model;
    TrainingSpec training;
    std::optional<DeviceSpec> device; ///< absent = the scenario's device
    std::vector<int> slots; ///< rank -> GPU slot, one per rank (required)
    int mappingVersion = 1;

    bool operator==(const JobSpec &) const = default;
};

} // namespace railyard
