#pragma once

// The port counter readers' parts (portcounters.h is the interface): one parser per format
// over lines already stripped of launcher labels and host prefixes.

#include "io/portcounters.h"

#include <string>
#include <string_view>
#include <vector>

namespace railyard::portcounters {

/** One line of a counter file: its text without labels, its host prefix, its 1-based number. */
struct Line
{
    std::string_view text;
    std::string host; ///< "node001" of pdsh's "node001: ..." prefix, else empty
    int number = 0;
};

/// Takes a pdsh/clush host prefix ("node001: ") off a line (after launcher labels), trimmed.
Line splitHostPrefix(std::string_view raw, int number);

/// "# Port extended counters: Lid 12 port 1 ..." or "# Port counters: ...".
bool isPerfqueryHeader(std::string_view text);
/// "PortXmitData:........1234" (a field name starting "Port", a colon, then dots or the value).
bool isPerfqueryField(std::string_view text);

std::vector<PortSample> parsePerfquery(const std::vector<Line> &lines, const std::string &file);
std::vector<PortSample> parsePrometheus(const std::vector<Line> &lines, const std::string &file);
/// In portmap.cpp beside the mapping file's reader, which shares its CSV records.
std::vector<PortSample> parseCounterCsv(const std::vector<Line> &lines, const std::string &file);

/// One CSV record (RFC 4180 quoting inside the line; a record never spans lines here).
std::vector<std::string> csvRecord(std::string_view line, const std::string &where);

/// A decimal number (from_chars: "12", "1.5e9"); false when the text is anything else.
bool parseNumber(std::string_view text, double &value);

} // namespace railyard::portcounters
