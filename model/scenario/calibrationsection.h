#pragma once

#include "scenario/calibrationspec.h"

#include <nlohmann/json_fwd.hpp>

/**
 * The scenario file's optional "calibration" section (scenario/calibrationspec.h), written by
 * `railyard-cli calibrate` and the GUI's Calibration dock:
 *
 *     "calibration": {
 *       "version": 1,                        this section's layout; newer versions are refused
 *       "measured_at": "2026-12-01T21:40:00Z",
 *       "fabric_hash": "...", "mapping_version": 1,    the run record the runs were matched on
 *       "nccl_version": "2.26.2",
 *       "tiers": [{"tier": "scale_up" | "pcie" | "leaf" | "spine" | "superspine",
 *                  "algorithm": "any" | "ring" | "tree" | "nvls" | ...,
 *                  "step_latency_us": 0.46,  optional: the fitted per-step alpha
 *                  "bandwidth_scale": 1.02,  optional: factor on the default achievable bandwidth
 *                  "bandwidth_gbps": 3060, "default_step_latency_us": 1.2,
 *                  "default_bandwidth_gbps": 2960, "runs": 1, "points": 64,
 *                  "rms_residual": 0.05, "max_residual": 0.3, "r_squared": 0.99}],
 *       "runs": [{"id": "tp-all-reduce-25165824", "file": "tp.log", "collective": "all-reduce",
 *                 "ranks": [0, 1, ...], "tier": "scale_up", "bottleneck_tier": "scale_up",
 *                 "algorithm": "", "fitted": true, "note": "",
 *                 "points": [[bytes, measured_us, default_us, calibrated_us, weight], ...]}]
 *     }
 */
namespace railyard::calibrationsection {

inline constexpr int kCalibrationVersion = 1;

/// Throws ScenarioError naming the field path ("calibration.tiers[0].tier") at the first problem.
CalibrationSpec readCalibration(const nlohmann::json &value);

/// The section's JSON (json or ordered_json).
template<typename Json>
Json calibrationToJson(const CalibrationSpec &spec);

} // namespace railyard::calibrationsection
