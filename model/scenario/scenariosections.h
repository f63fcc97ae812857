#pragma once

#include "scenario/scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

/**
 * Readers of the sections of a scenario file (scenariofile.cpp assembles them and documents the
 * schema). Each throws ScenarioError naming the field path at the first problem.
 */
namespace railyard::scenariosections {

/// The fabric kind's spelling in files: "rail-optimised" or "tor".
std::string_view fabricKindText(FabricKind kind);

FabricSpec readFabric(const nlohmann::json &value);
/// Reads "parallel" into `s.degrees` and `s.order`; `slotCount` is the fabric's GPU slots.
void readParallel(const nlohmann::json &value, std::int64_t slotCount, Scenario &s);
/// "model": an object or a preset name. `baseDir` resolves a relative routing hotness_file.
ModelSpec readModel(const nlohmann::json &value, const std::string &baseDir);
TrainingSpec readTraining(const nlohmann::json &value);
/// "device": an object or a preset name.
DeviceSpec readDevice(const nlohmann::json &value);
/// Reads "mapping" into `s.placement`, `s.slots` and `s.mappingVersion` (after the degrees).
void readMapping(const nlohmann::json &value, std::int64_t slotCount, Scenario &s);
/// "collectives": {"algorithm": "auto" | "ring" | ..., "nvls": true | false} (collectivespec.h).
CollectiveSpec readCollectives(const nlohmann::json &value);
/// "failures": KIND:INDEX strings, each once, inside the fabric.
std::vector<FailedComponent> readFailures(const nlohmann::json &value, const FabricSpec &fabric);

} // namespace railyard::scenariosections
