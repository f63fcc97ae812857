#pragma once

#include "fabric/fabricspec.h"

#include <nlohmann/json.hpp>

#include <vector>

namespace railyard {

/**
 * "fabric.cabling" in a scenario file: one array per cable,
 * ["a_device", "a_port", "b_device", "b_port", gbps] or with a sixth element, the latency in
 * microseconds - the columns of a cabling inventory CSV (io/cablingcsv.h), so a file stays one
 * short line per cable.
 */
nlohmann::json cablingToJson(const std::vector<Cable> &cabling);
/// Throws ScenarioError("fabric.cabling[i]...", reason) at the first malformed cable.
std::vector<Cable> readCabling(const nlohmann::json &value);

} // namespace railyard
