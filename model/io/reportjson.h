#pragma once

#include "base/quantityformat.h" // formatBytes(), formatSeconds()

#include "cost/costengine.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace railyard {

/**
 * The machine-readable form of a CostReport: the stable JSON of `railyard-cli evaluate --json`
 * (README, "railyard-cli evaluate"). `withLinks` adds every directed link's load.
 */
nlohmann::json reportToJson(const CostEngine &engine, bool withLinks = false);

/// The human-readable report of `railyard-cli evaluate` (no --json).
std::string reportToText(const CostEngine &engine);

} // namespace railyard
