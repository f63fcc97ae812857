#pragma once

#include "studies/bomcost.h"

#include <nlohmann/json.hpp>

#include <string>

namespace railyard {

/// `railyard-cli bom --json`: format_version 1, the counts (switches with ports, cables and
/// transceivers per link class, NICs, racks with their positions), the priced lines with each
/// part's source or illustrative marker, the power and the per-iteration figures per job and
/// per fabric, the rules and economics with their sources.
nlohmann::ordered_json bomJson(const BillOfMaterials &bom, const BomCost &cost);

/// `bom --csv`: one row per priced line (RFC 4180), the header first.
std::string bomCsv(const BomCost &cost);

/// The terminal table: lines, totals, figures, what is illustrative.
std::string bomText(const BillOfMaterials &bom, const BomCost &cost);

/// "$1.23M", "$456k", "$78" for tables.
std::string formatUsd(double usd);
/// "12.3 kW", "1.05 MW", "850 W".
std::string formatWatts(double watts);

} // namespace railyard
