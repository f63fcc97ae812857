#pragma once

#include "cost/costreport.h"

#include <nlohmann/json_fwd.hpp>

#include <ostream>

namespace railyard {

/// The report's mixed-device part (docs/mixed-devices.md) as evaluate --json writes it: a
/// "devices" object with each stage's pacing device and smallest HBM, and the suggested
/// layers_per_stage (null when none). Nothing is added on a fabric of one device kind.
void addDevicesJson(const CostReport &report, nlohmann::json &out);

/// The same as evaluate's text: a "Devices" block, nothing on a fabric of one device kind.
void writeDevicesText(const CostReport &report, std::ostream &out);

} // namespace railyard
