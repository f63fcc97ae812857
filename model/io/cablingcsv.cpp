#include "io/cablingcsv.h"

#include "base/csvrecord.h"
#include "base/fileio.h"
#include "base/physicalranges.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"
#include "fabric/cablingbuilder.h"
#include "fabric/fabric.h"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string_view>

namespace railyard {

namespace {

/// A pattern naming servers is a few dozen bytes; 1 KiB leaves ample room and keeps RE2's
/// compiled program (linear in the pattern's length) and its compile time small.
constexpr std::size_t kMaxServerPatternBytes = 1024;

constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

constexpr std::array<std::string_view, 6> kColumns { "a_device", "a_port", "b_device", "b_port",
    "gbps", "latency_us" };

std::string lineRef(const std::string &file, int line)
{
    return file + ":" + std::to_string(line);
}

/// "400", "400G", "400Gbps", "400 Gb/s" -> 400; NaN when it is none of these.
double parseGbps(const std::string &text)
{
    double value = 0.0;
    const char *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (ec != std::errc() || ptr == text.data())
        return NAN;
    std::string unit = trimmed(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
    std::transform(unit.begin(), unit.end(), unit.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (unit.empty() || unit == "g" || unit == "gbps" || unit == "gb/s" || unit == "gbit/s")
        return value;
    return NAN;
}

bool looksLikeNicPort(const FabricSpec &spec, const std::string &port)
{
    if (std::find(spec.nicDevices.begin(), spec.nicDevices.end(), port) != spec.nicDevices.end())
        return true;
    // A NIC port by its name: mlx5_, nic, hca, ib or rdma (any case), then 1 to 6 digits.
    std::string lower = port;
    std::transform(lower.begin(), lower.end(), lower.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const std::string_view prefix : { "mlx5_", "nic", "hca", "ib", "rdma" }) {
        if (lower.rfind(prefix, 0) != 0)
            continue;
        const std::string_view digits = std::string_view(lower).substr(prefix.size());
        if (!digits.empty() && digits.size() <= 6
            && std::all_of(
                digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
            return true;
    }
    return false;
}

/**
 * --server-pattern compiled with RE2, whose automata match in time linear in the name (no
 * backtracking: `(a|aa)*c` and `(a*)*b` cost what `a*c` does) and whose parser keeps no deep
 * recursion on the C++ stack. Throws ScenarioError("--server-pattern") when it is too long or
 * not an RE2 expression.
 */
std::unique_ptr<RE2> compileServerPattern(const std::string &pattern)
{
    if (pattern.size() > kMaxServerPatternBytes)
        throw ScenarioError("--server-pattern",
            "the pattern is " + std::to_string(pattern.size()) + " bytes; at most "
                + std::to_string(kMaxServerPatternBytes)
                + " are accepted (a pattern picking servers out of device names is a few dozen)");
    RE2::Options options;
    options.set_log_errors(false); // the message below says it, not RE2's log on stderr
    auto re = std::make_unique<RE2>(pattern, options);
    if (!re->ok())
        throw ScenarioError("--server-pattern",
            "\"" + pattern + "\" is not an RE2 regular expression: " + re->error());
    return re;
}

/// "node2" before "node10": digit runs compare by value.
bool naturalLess(const std::string &a, const std::string &b)
{
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i]))
            && std::isdigit(static_cast<unsigned char>(b[j]))) {
            std::size_t ie = i, je = j;
            while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie])))
                ++ie;
            while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je])))
                ++je;
            const std::string_view da = std::string_view(a).substr(i, ie - i);
            const std::string_view db = std::string_view(b).substr(j, je - j);
            const auto strip = [](std::string_view d) {
                while (d.size() > 1 && d.front() == '0')
                    d.remove_prefix(1);
                return d;
            };
            const std::string_view sa = strip(da), sb = strip(db);
            if (sa.size() != sb.size())
                return sa.size() < sb.size();
            if (sa != sb)
                return sa < sb;
            i = ie;
            j = je;
        } else {
            if (a[i] != b[j])
                return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

/// Fabric::build(), with a cable's error pointed at its file and line.
Fabric buildNamingLines(const FabricSpec &spec, const CablingCsv &csv)
{
    try {
        return Fabric::build(spec);
    } catch (const ScenarioError &e) {
        const std::string prefix = "fabric.cabling[";
        if (e.field().rfind(prefix, 0) == 0) {
            const std::size_t row = std::stoul(e.field().substr(prefix.size()));
            if (row < csv.lines.size())
                throw ScenarioError(lineRef(csv.file, csv.lines[row]), e.reason());
        }
        if (e.field() == "fabric.cabling")
            throw ScenarioError(csv.file, e.reason());
        throw;
    }
}

} // namespace

CablingCsv parseCablingCsv(const std::string &text, const std::string &file)
{
    CablingCsv out;
    out.file = file;
    // Column positions: a header line may reorder them and add others.
    std::array<int, kColumns.size()> at { 0, 1, 2, 3, 4, 5 };
    std::size_t columns = 0; // 0: no header seen yet, positional
    bool first = true;
    // A UTF-8 byte order mark, as spreadsheet programs write before the first line, is no
    // part of the first column's name.
    std::size_t pos = text.rfind(kUtf8Bom, 0) == 0 ? kUtf8Bom.size() : 0;
    int lineNo = 0;
    while (pos <= text.size()) {
        const std::size_t nl = text.find('\n', pos);
        std::string_view line = std::string_view(text).substr(
            pos, nl == std::string::npos ? std::string::npos : nl - pos);
        pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        const std::string t = trimmed(line);
        if (t.empty() || t.front() == '#')
            continue;
        const std::string where = lineRef(file, lineNo);
        std::vector<std::string> f = splitCsvRecord(line, where);
        if (first) {
            first = false;
            std::string lower = t;
            std::transform(lower.begin(), lower.end(), lower.begin(),
                [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
            if (lower.rfind("a_device", 0) == 0 || lower.find(",a_device") != std::string::npos) {
                at.fill(-1);
                for (std::size_t k = 0; k < f.size(); ++k) {
                    std::string name = f[k];
                    std::transform(name.begin(), name.end(), name.begin(),
                        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
                    for (std::size_t c = 0; c < kColumns.size(); ++c)
                        if (name == kColumns[c]) {
                            if (at[c] >= 0)
                                throw ScenarioError(where, "column " + name + " appears twice");
                            at[c] = static_cast<int>(k);
                        }
                }
                for (std::size_t c = 0; c < 5; ++c)
                    if (at[c] < 0)
                        throw ScenarioError(where,
                            "the header has no " + std::string(kColumns[c])
                                + " column (a cabling CSV has a_device,a_port,b_device,b_port,gbps"
                                  "[,latency_us])");
                columns = f.size();
                continue;
            }
        }
        if (columns == 0 ? (f.size() < 5 || f.size() > 6) : f.size() != columns)
            throw ScenarioError(where,
                "expected "
                    + (columns ? std::to_string(columns) + " columns as the header has"
                               : std::string("5 or 6 columns "
                                             "(a_device,a_port,b_device,b_port,gbps[,latency_us])"))
                    + ", got " + std::to_string(f.size()));
        if (static_cast<std::int64_t>(out.cables.size()) >= limits::kMaxLinks / 2)
            throw ScenarioError(
                where, "more than " + std::to_string(limits::kMaxLinks / 2) + " cables");
        const auto field = [&](std::size_t c) -> const std::string & {
            static const std::string kEmpty;
            return at[c] >= 0 && static_cast<std::size_t>(at[c]) < f.size()
                ? f[static_cast<std::size_t>(at[c])]
                : kEmpty;
        };
        Cable c;
        c.aDevice = field(0);
        c.aPort = field(1);
        c.bDevice = field(2);
        c.bPort = field(3);
        for (std::size_t k = 0; k < 4; ++k) {
            if (!isPrintableUtf8(field(k)))
                throw ScenarioError(where,
                    std::string(kColumns[k])
                        + " is not printable UTF-8 text (control characters or invalid bytes)");
            if (field(k).empty() || field(k).size() > limits::kMaxNameBytes)
                throw ScenarioError(where,
                    std::string(kColumns[k]) + " must be 1 to "
                        + std::to_string(limits::kMaxNameBytes) + " characters");
        }
        c.gbps = parseGbps(field(4));
        if (!std::isfinite(c.gbps))
            throw ScenarioError(where,
                "gbps \"" + field(4)
                    + "\" is not a link speed in Gbit/s "
                      "(a number, optionally with G, Gbps or Gb/s)");
        static_assert(ranges::kMinLinkGbps == 0.001 && ranges::kMaxLinkGbps == 1e6
                && ranges::kMaxLatencyUs == 1e6,
            "the messages below spell the ranges");
        if (c.gbps < ranges::kMinLinkGbps || c.gbps > ranges::kMaxLinkGbps)
            throw ScenarioError(where,
                "gbps \"" + field(4)
                    + "\" is outside 0.001 to 1000000 Gbit/s (1 Mbit/s to 1 Pbit/s, "
                      "base/physicalranges.h)");
        if (!field(5).empty()) {
            const std::string &lat = field(5);
            double v = NAN;
            const auto [ptr, ec] = std::from_chars(lat.data(), lat.data() + lat.size(), v);
            if (ec != std::errc() || ptr != lat.data() + lat.size() || !std::isfinite(v))
                throw ScenarioError(
                    where, "latency_us \"" + lat + "\" is not a latency in microseconds");
            if (v < 0.0 || v > ranges::kMaxLatencyUs)
                throw ScenarioError(where,
                    "latency_us \"" + lat + "\" is outside 0 to 1000000 microseconds (one second)");
            c.latencyUs = v;
        }
        out.cables.push_back(std::move(c));
        out.lines.push_back(lineNo);
    }
    if (out.cables.empty())
        throw ScenarioError(file,
            "no cables (a cabling CSV has one line per cable: "
            "a_device,a_port,b_device,b_port,gbps[,latency_us])");
    return out;
}

CablingCsv loadCablingCsv(const std::string &path)
{
    return parseCablingCsv(readFileLimited(path, limits::kMaxFileBytes, "a cabling CSV"), path);
}

CablingImport importCabling(
    FabricSpec &spec, const CablingCsv &csv, const std::string &serverPattern)
{
    // Devices and their ports.
    std::map<std::string, std::vector<std::string>> ports;
    for (const Cable &c : csv.cables) {
        ports[c.aDevice].push_back(c.aPort);
        ports[c.bDevice].push_back(c.bPort);
    }
    std::vector<std::string> servers;
    const std::unique_ptr<RE2> pattern
        = serverPattern.empty() ? nullptr : compileServerPattern(serverPattern);
    for (const auto &[device, list] : ports) {
        const bool server = serverPattern.empty() ? std::all_of(list.begin(), list.end(),
                                [&spec](const std::string &p) { return looksLikeNicPort(spec, p); })
                                                  : RE2::FullMatch(device, *pattern);
        if (server)
            servers.push_back(device);
    }
    if (servers.empty())
        throw ScenarioError(csv.file,
            serverPattern.empty()
                ? "no device looks like a server (a server's ports name its NICs: mlx5_0, nic0, "
                  "or the fabric's nic_devices); name them with --server-pattern"
                : "no device matches --server-pattern \"" + serverPattern + "\"");
    if (static_cast<std::int64_t>(servers.size()) > limits::kMaxServers)
        throw ScenarioError(csv.file,
            std::to_string(servers.size()) + " servers exceed the limit of "
                + std::to_string(limits::kMaxServers));
    std::sort(servers.begin(), servers.end(), naturalLess);

    // Rail-optimised when every leaf's NICs share one index (a few miswired ones aside).
    CablingImport result;
    const std::set<std::string> serverSet(servers.begin(), servers.end());
    std::map<std::string, std::map<int, int>> leafIndexes;
    for (const Cable &c : csv.cables) {
        const bool a = serverSet.count(c.aDevice) > 0, b = serverSet.count(c.bDevice) > 0;
        if (a == b)
            continue;
        const int nic = cablingNicIndex(spec, a ? c.aPort : c.bPort);
        ++leafIndexes[a ? c.bDevice : c.aDevice][nic];
    }
    const int nics = spec.nicsPerServer > 0 ? spec.nicsPerServer : spec.gpusPerServer;
    bool rail = true;
    for (const auto &[leaf, counts] : leafIndexes) {
        int total = 0, most = 0;
        for (const auto &[nic, n] : counts) {
            total += n;
            most = std::max(most, n);
        }
        rail = rail && 2 * most > total;
    }
    result.kind = nics == 1 ? spec.kind : (rail ? FabricKind::RailOptimised : FabricKind::Tor);
    result.notes.push_back(std::string("kind: ")
        + (result.kind == FabricKind::Tor ? "top-of-rack (leaves hold several NIC indexes)"
                                          : "rail-optimised (each leaf's NICs share one index)"));

    FabricSpec next = spec;
    next.kind = result.kind;
    next.servers = static_cast<int>(servers.size());
    next.serverNames = servers;
    next.cabling = csv.cables;
    Fabric fabric = buildNamingLines(next, csv);

    // Servers of one scalable unit (or ToR leaf) together: the fabric view draws groups as racks.
    std::vector<std::pair<int, int>> groupOf; // (group, natural-order index)
    for (int s = 0; s < fabric.servers(); ++s) {
        int leaf = -1;
        for (int n = 0; leaf < 0 && n < fabric.nicsPerServer(); ++n)
            leaf = fabric.leafOfNic(s, n);
        const FabricNode &node = fabric.node(fabric.leafVertex(leaf));
        groupOf.emplace_back(result.kind == FabricKind::RailOptimised ? node.su : leaf, s);
    }
    std::stable_sort(groupOf.begin(), groupOf.end());
    std::vector<std::string> ordered;
    for (const auto &[group, s] : groupOf)
        ordered.push_back(servers[static_cast<std::size_t>(s)]);
    if (ordered != servers) {
        next.serverNames = ordered;
        fabric = buildNamingLines(next, csv);
        result.notes.push_back("servers ordered by their scalable unit or leaf, then by name");
    }
    spec = next;
    result.servers = fabric.servers();
    result.switches = fabric.leafCount() + fabric.spineCount() + fabric.superSpineCount();
    return result;
}

} // namespace railyard
