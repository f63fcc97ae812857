#pragma once

#include "studies/fabricsearch.h"

#include <nlohmann/json.hpp>

#include <string>

namespace railyard {

/// `railyard-cli fabric-search --json`: format_version 1, the job, the baseline, the space and
/// constraints, every design (its parameters, iteration time, slowdown, switches, capital cost,
/// network power, $ and kWh per iteration, whether it meets the constraints and is on the
/// front), the Pareto front (time against capital cost) and the cheapest design meeting the
/// constraints (null when none does). Nothing depends on sharding: a serial search, merged
/// shards and an MPI run print the same bytes.
nlohmann::ordered_json fabricSearchJson(const FabricSearchResult &result);
/// One row per design (RFC 4180), the header first; `pareto` and `meets` columns.
std::string fabricSearchCsv(const FabricSearchResult &result);
/// The terminal table, the front and the cheapest design meeting the constraints.
std::string fabricSearchText(const FabricSearchResult &result);

/// One shard's result as `fabric-search --shard I/N` writes it for `merge` (the options, the
/// shard, every row with its doubles exactly).
nlohmann::json fabricSearchPartJson(const FabricSearchResult &result);
/// Whether a parsed part is a fabric-search part (`merge` takes both kinds).
bool isFabricSearchPart(const nlohmann::json &json);
/// Reads a part back; throws ScenarioError naming `what` (the file, or "rank N") and the field.
FabricSearchResult fabricSearchFromPartJson(const nlohmann::json &json, const std::string &what);

/// The designs' table for the comparison (GUI and docs): same columns as fabric-search.
std::string fabricComparisonText(const FabricComparison &comparison);

} // namespace railyard
