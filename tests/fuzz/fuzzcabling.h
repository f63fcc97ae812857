#pragma once

/**
 * What fuzz_cabling does with one input, shared with tst_fuzzregressions: the cabling
 * inventory CSV reader, the import (server and kind detection, Fabric::build from the cables)
 * and, for an inventory it accepts, the engine on a small job over the usable slots
 * (evaluateScenario's invariants: no utilisation above 1, no negative time, swap and back).
 * A ScenarioError is a refusal; anything else escaping, or a broken invariant, is a bug.
 */

#include "fabric/failedcomponent.h"
#include "fuzzharness.h"
#include "io/cablingcsv.h"

#include <set>
#include <string>
#include <string_view>

namespace railyard::fuzz {

/// Inventories with more cables are imported but not evaluated (a fuzz input stays fast).
inline constexpr std::size_t kMaxEvaluatedCables = 512;

/// A parsed inventory through importCabling() with `serverPattern` ("" = detect the servers by
/// their NIC ports), Fabric::build and, when small, the engine (fuzz_cabling, fuzz_serverpattern).
inline Outcome fuzzImportedCabling(const CablingCsv &csv, const std::string &serverPattern)
{
    require(!csv.cables.empty() && csv.cables.size() == csv.lines.size(),
        "cables and their line numbers differ");
    Scenario s;
    s.fabric.gpusPerServer = 2;
    s.fabric.servers = 1;
    try {
        (void)importCabling(s.fabric, csv, serverPattern);
    } catch (const ScenarioError &) {
        return Outcome::Loaded;
    }
    {
        std::set<std::string> devices;
        for (const Cable &c : csv.cables) {
            devices.insert(c.aDevice);
            devices.insert(c.bDevice);
        }
        std::set<std::string> seen;
        for (const std::string &name : s.fabric.serverNames) {
            require(
                devices.count(name) == 1, "a server that is no device of the inventory: " + name);
            require(seen.insert(name).second, "a server imported twice: " + name);
        }
    }
    const Fabric fabric = Fabric::build(s.fabric); // importCabling built it once: must not throw
    require(fabric.servers() == static_cast<int>(s.fabric.serverNames.size()),
        "the imported server list and the fabric differ");
    for (const FabricLink &l : fabric.links())
        require(l.bandwidth > 0.0 && l.latency >= 0.0,
            "a link without bandwidth or with negative latency");
    if (csv.cables.size() > kMaxEvaluatedCables)
        return Outcome::Loaded;
    // A data-parallel job on every usable slot (at most 16 ranks), placed explicitly.
    const std::vector<char> usable = usableSlots(fabric, {});
    for (int slot = 0; slot < fabric.slotCount() && s.slots.size() < 16; ++slot)
        if (usable[static_cast<std::size_t>(slot)])
            s.slots.push_back(slot);
    if (s.slots.empty())
        return Outcome::Loaded;
    s.degrees = ParallelDegrees {};
    s.degrees.tp = 1;
    s.degrees.pp = 1;
    s.degrees.dp = static_cast<int>(s.slots.size());
    return evaluateScenario(s);
}

inline Outcome fuzzCabling(std::string_view input)
{
    CablingCsv csv;
    try {
        csv = parseCablingCsv(std::string(input), "fuzz.csv");
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    return fuzzImportedCabling(csv, {});
}

} // namespace railyard::fuzz
