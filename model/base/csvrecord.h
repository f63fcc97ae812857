#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/**
 * One CSV record's fields (RFC 4180 quoting inside the line: "a ""b""" is a "b"; a record
 * never spans lines here), unquoted fields trimmed of surrounding blanks. Throws
 * ScenarioError(where, ...) for a quoted field left open. The cabling inventory and the
 * port-counter readers share it.
 */
std::vector<std::string> splitCsvRecord(std::string_view line, const std::string &where);

} // namespace railyard
