#pragma once

#include "optimise/layoutsearch.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace railyard {

/// The result as `railyard-cli search --json` prints it: the search, the counts, the top rows
/// and the Pareto front. Holds nothing that depends on sharding or timing, so a serial search,
/// merged shards and an MPI run print the same bytes.
nlohmann::json layoutSearchJson(const LayoutSearchResult &result);
/// The same as CSV: one row per top row (rank 1..K), then the front's rows outside the top
/// (rank empty); the `pareto` column marks the front.
std::string layoutSearchCsv(const LayoutSearchResult &result);
/// A readable table of the top rows and the front, with the counts.
std::string layoutSearchText(const LayoutSearchResult &result);

/// One shard's result as `search --shard I/N` writes it, for `merge`: the search, the shard,
/// the counts, the shard's top rows and front. Doubles round-trip exactly through the text.
nlohmann::json layoutSearchPartJson(const LayoutSearchResult &result);
/// Reads a part back; throws ScenarioError naming `what` (e.g. the file) and the field at fault.
LayoutSearchResult layoutSearchFromPartJson(const nlohmann::json &json, const std::string &what);

} // namespace railyard
