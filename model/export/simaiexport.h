#pragma once

#include "export/exportoptions.h"

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

namespace exportdetail {

/// SimAI's topology file (its ns-3 network's -n input) for the mapping. Throws ScenarioError
/// when the mapping is not node-major with every used server full: SimAI ties GPU i to
/// NVSwitch i / gpus_per_server, so rank blocks must fill whole servers.
std::string exportSimAiTopology(const CostEngine &engine, const ExportOptions &options);

/// Approximations the file makes, one line each (NICs shared by several GPUs).
std::vector<std::string> simAiWarnings(const CostEngine &engine);

} // namespace exportdetail

} // namespace railyard
