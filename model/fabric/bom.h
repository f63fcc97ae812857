#pragma once

#include "fabric/bomrules.h"
#include "fabric/fabric.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/** Switches of one tier and model class. */
struct BomSwitchLine
{
    std::string tier; ///< "leaf" (rail switch when rail-only), "spine", "super-spine", "core"
    int radix = 0; ///< ports per switch
    double gbps = 0.0; ///< its fastest port's speed
    int count = 0;
    std::int64_t portsUsed = 0; ///< cabled ports over all `count` switches
    std::int64_t portsFree = 0; ///< radix x count - used
};

/** Cables of one link class: which tiers they join, how they are built, their speed. */
struct BomCableLine
{
    std::string link; ///< "nic-leaf", "leaf-spine", "spine-super-spine", "super-spine-core"
    CableClass cableClass = CableClass::Optics;
    double gbps = 0.0;
    std::int64_t cables = 0;
    std::int64_t transceivers = 0; ///< optics: two a cable (one each end); others none
};

/** One rack position of the hall. */
struct BomRack
{
    int row = 0;
    int position = 0; ///< along its row, 0-based
    bool network = false; ///< a network rack (switches only) rather than a compute rack
    int servers = 0;
    int switches = 0;
};

/**
 * What a fabric takes to build: switches per tier and model class with their used and free
 * ports, cables and transceivers per link class, NICs, racks and where everything sits. Counted
 * from the built Fabric (generated, cabled, multi-plane, NVL72 alike) - no Qt, no prices
 * (studies/bomcost.h prices it).
 */
struct BillOfMaterials
{
    int servers = 0;
    int gpus = 0;
    int nics = 0; ///< physical NICs (cabled or not)
    int nicPorts = 0; ///< NIC ports cabled to a leaf (planes x cabled NICs)
    double nicGbps = 0.0; ///< one NIC port's speed
    int planes = 1;
    int scaleUpDomains = 0; ///< NVLink domains (one per server for HGX, one per rack for NVL72)
    int serversPerRack = 0; ///< as placed (the rules' value or the derived one)
    int racksPerRow = 0;
    std::vector<BomSwitchLine> switches;
    std::vector<BomCableLine> cables;
    std::vector<BomRack> racks;
    BomRules rules;

    int switchCount() const;
    std::int64_t cableCount() const;
    std::int64_t transceiverCount() const;
    /// Cables whose link kind is `link` ("nic-leaf", ...), all classes and speeds.
    std::int64_t cablesOf(std::string_view link) const;
    /// Switches of `tier` ("leaf", "spine", "super-spine", "core"), all classes.
    int switchesOf(std::string_view tier) const;
    int computeRacks() const;
    int networkRacks() const;
};

/// Counts what `fabric` is built from under `rules` (linear in its links).
BillOfMaterials billOfMaterials(const Fabric &fabric, const BomRules &rules = {});

} // namespace railyard
