#pragma once

#include "fabric/degradation.h"

#include <nlohmann/json_fwd.hpp>

/**
 * The scenario file's optional "degradations" section (fabric/degradation.h, docs/stragglers.md):
 * slow GPUs and hosts, NICs and cables below their speed. Absent when empty, so a file without it
 * is written (and evaluated) exactly as before.
 *
 *     "degradations": {
 *       "version": 1,                        this section's layout; newer versions are refused
 *       "parts": [
 *         {"id": "gpu:17", "compute_speed": 0.8},       0 < f <= 1 of the nominal rate
 *         {"id": "server:3", "compute_speed": 0.9},     a slow host: all its GPUs
 *         {"id": "nic:5", "bandwidth_gbps": 200,        the NIC's total speed, Gbit/s,
 *          "added_latency_us": 2},                      or "bandwidth_factor": 0 < f <= 1;
 *         {"id": "link:240", "bandwidth_factor": 0.5}]  a cable, both directions
 *     }
 *
 * A gpu or server part takes compute_speed only; a nic or link part takes bandwidth_gbps or
 * bandwidth_factor (not both) and/or added_latency_us, at least one of them. Each id once.
 */
namespace railyard::degradationsection {

inline constexpr int kDegradationsVersion = 1;

/// Throws ScenarioError naming the field path ("degradations.parts[2].compute_speed") at the
/// first problem: an unknown kind, an index outside `fabric`, a factor out of range, a field
/// the kind does not take, a part listed twice.
DegradationSpec readDegradations(const nlohmann::json &value, const FabricSpec &fabric);

/// The section's JSON (json or ordered_json).
template<typename Json> Json degradationsToJson(const DegradationSpec &spec);

} // namespace railyard::degradationsection
