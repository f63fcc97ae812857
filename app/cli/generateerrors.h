#pragma once

#include "base/scenarioerror.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace railyard::cli {

/** One `generate` flag, the scenario field it sets and whether the user gave it. */
struct FlagField
{
    std::string flag; ///< without the dashes: "global-batch"
    std::string field; ///< the JSON path it sets: "training.global_batch"
    bool given = false;
};

/**
 * The loader's and the engine's errors name JSON fields ("training.global_batch: ..."); a
 * `generate` user only knows flags. Returns the error re-addressed to the flag that sets the
 * field (given or not: a value from a preset or a default is named with where it came from),
 * with field paths in the reason replaced by their flags and, for the common layout and batch
 * mistakes, the flag to pass. `values` is the scenario as JSON (scenarioToJson of what was
 * loaded, or the flags' own document when loading failed) for the values the message quotes.
 */
ScenarioError errorNamingFlags(
    const ScenarioError &error, const std::vector<FlagField> &flags, const nlohmann::json &values);

} // namespace railyard::cli
