#pragma once

#include "scenario/scenario.h"

#include <string>
#include <vector>

namespace railyard::cli {

class Command;

/**
 * --slow-gpu, --slow-host, --slow-nic and --slow-link on evaluate: a degraded part added to the
 * scenario's "degradations" section without editing the file (docs/stragglers.md).
 */
struct DegradationFlags
{
    std::vector<std::string> gpus, hosts, nics, links;
    bool any() const { return !gpus.empty() || !hosts.empty() || !nics.empty() || !links.empty(); }
};

void addDegradationFlags(Command &c, DegradationFlags &flags);
/// Each flag's part replaces the file's part of the same id, or is appended; ScenarioError
/// naming the flag for a malformed value, an index outside the fabric or a factor out of range.
void applyDegradationFlags(const DegradationFlags &flags, Scenario &scenario);

} // namespace railyard::cli
