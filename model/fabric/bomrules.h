#pragma once

// Plain values only (no graph library): the scenario's parts catalogue holds these.
#include <cstdint>
#include <string>
#include <string_view>

namespace railyard {

/// How a cable is built, chosen by its length (BomRules): passive copper (DAC) within a rack,
/// an active cable (AEC copper or AOC) along a row, a fibre with a transceiver at each end
/// across the hall.
enum class CableClass : std::uint8_t { Copper, Active, Optics };
std::string_view cableClassName(CableClass c); ///< "copper", "active", "optics"

/**
 * The reach and rack rules the bill of materials places and classes cables by. Every default
 * states its source or is illustrative (docs/bom-and-cost.md); a parts catalogue carries its
 * own copy (scenario/partscatalogue.h), so they are edited with the prices.
 */
struct BomRules
{
    /// Servers (compute trays) per compute rack; 0 = derived: one scale-up domain per rack when
    /// a domain spans servers (an NVL72 rack holds its 18 trays), else 4 - the DGX H100 SuperPOD
    /// RA's SU rack layout (four DGX H100 per compute rack).
    int serversPerRack = 0;
    /// Switches per network rack. 16 is illustrative (16 x ~1.7 kW keeps a rack under ~30 kW).
    int switchesPerRack = 16;
    /// Compute racks per row; 0 = derived: one scalable unit per row for a generated
    /// rail-optimised fabric (the SuperPOD's SU is a row), else 8 (illustrative).
    int racksPerRow = 0;
    /// Width of one rack position along a row, m: a 600 mm cabinet (the common data-centre
    /// rack width for 19-inch equipment, EIA-310 inside a 600 mm enclosure).
    double rackWidthM = 0.6;
    /// Length a cable spends inside its racks (down to the port, up to the tray, service loop),
    /// m. Illustrative.
    double slackM = 2.0;
    /// Longest passive copper (DAC) cable, m: IEEE 802.3ck-2022 specifies 100 Gb/s-per-lane
    /// twinax (200/400/800GBASE-CR2/4/8) up to 2 m.
    double copperMaxM = 2.0;
    /// Longest active copper/optical cable (AEC/AOC), m. Illustrative: AEC products are sold
    /// up to about 7 m.
    double activeMaxM = 7.0;
    bool operator==(const BomRules &) const = default;
};

/// Throws ScenarioError naming the rule ("<path>.copper_max_m") for a rule out of range.
void checkBomRules(const BomRules &rules, const std::string &path);

} // namespace railyard
