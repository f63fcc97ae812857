#pragma once

#include "cost/collectivesteps.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace railyard {
class Fabric;
}

namespace railyard::cli {

/// `collective --steps` as text: one row per run of identical steps (first-last, the label, how
/// many sends and links, the busiest link and its bytes a step), then the busiest links summed
/// over every step: the engine's per-link load of the op.
std::string collectiveStepsText(const CollectiveSteps &steps, const Fabric &fabric);

/// The same as JSON: "phases" (first step, count, name, sends, links with id, name and bytes a
/// step) and "link_totals" (every link's bytes over all steps).
nlohmann::json collectiveStepsJson(const CollectiveSteps &steps, const Fabric &fabric);

} // namespace railyard::cli
