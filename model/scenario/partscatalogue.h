#pragma once

#include "fabric/bomrules.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/// What a catalogue part is; each kind is matched to bill-of-materials lines its own way.
enum class PartKind : std::uint8_t { Gpu, Server, Nic, Switch, Cable, Transceiver, Rack };
std::string_view partKindName(PartKind k); ///< "gpu", "server", "nic", ...

/**
 * One part of the catalogue: its price and power and where those figures come from. Matching:
 * a gpu by `device` (the scenario's device name), a server by `gpus` per server (0 = any), a
 * NIC and a transceiver by port speed, a switch by radix and port speed, a cable by class and
 * speed; a rack always. For a GPU `maxW` is its TDP and `typicalW` its draw while resident but
 * not computing (the utilisation model interpolates between them, studies/bomcost.h); for
 * everything else `typicalW` is the draw in service and `maxW` the rated maximum.
 */
struct CataloguePart
{
    std::string id;
    PartKind kind = PartKind::Rack;
    std::string device; ///< gpu: the DeviceSpec name it prices ("h100-sxm")
    int gpus = 0; ///< server: GPUs per server it prices; 0 = any
    int radix = 0; ///< switch
    double gbps = 0.0; ///< nic, switch, cable, transceiver: port speed
    CableClass cableClass = CableClass::Optics; ///< cable
    double priceUsd = 0.0;
    double typicalW = 0.0;
    double maxW = 0.0;
    std::string source; ///< where the figures come from; "" only when illustrative
    bool illustrative = false;
    bool operator==(const CataloguePart &) const = default;
};

/** What turns capital and energy into dollars per iteration. */
struct CatalogueEconomics
{
    double electricityUsdPerKwh = 0.08;
    double pue = 1.58; ///< facility energy / IT energy
    double amortisationYears = 4.0; ///< capital spread evenly over this many years of service
    bool operator==(const CatalogueEconomics &) const = default;
};

/**
 * The scenario's "catalogue" section, or a catalogue file (`bom --catalogue FILE`): parts with
 * price and power, the reach and rack rules, the economics, and the source of every default
 * (scenario/cataloguesection.h has the format; defaultCatalogue() the embedded defaults).
 */
struct PartsCatalogue
{
    int version = 1; ///< of this section's layout
    std::string name;
    std::vector<CataloguePart> parts;
    BomRules rules;
    CatalogueEconomics economics;
    /// Source per rule / economics key ("copper_max_m"); a key without one is illustrative.
    std::map<std::string, std::string> ruleSources;
    std::map<std::string, std::string> economicsSources;
    bool operator==(const PartsCatalogue &) const = default;
};

} // namespace railyard
