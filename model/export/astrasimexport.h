#pragma once

#include "export/exportdirectory.h"
#include "export/exportoptions.h"

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

namespace exportdetail {

/// The ASTRA-sim inputs that replay the mapping with the ns-3 or the analytical network
/// backend (topology.txt, ns3-config.txt, ns3-trace.txt, logical-topology.json, network.yml,
/// system.json, remote-memory.json, comm-groups.json, replay.txt). Throws ScenarioError for a
/// world of one rank (neither backend simulates a network of one NPU).
std::vector<ExportFile> exportAstraSim(const CostEngine &engine, const ExportOptions &options);

/// What the files cannot say, one line each (an analytical network that cannot place this
/// mapping's ranks); the same lines are in replay.txt.
std::vector<std::string> astraSimWarnings(const CostEngine &engine);

} // namespace exportdetail

} // namespace railyard
