#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace railyard::cli {

/// `railyard-cli merge` of fabric-search parts (cmd_fabricsearch.cpp): `parts` parsed, `paths`
/// their files (for the messages); prints the merged result as fabric-search would.
int mergeFabricSearchParts(const std::vector<nlohmann::json> &parts,
    const std::vector<std::string> &paths, bool json, bool csv, const std::string &output);

} // namespace railyard::cli
