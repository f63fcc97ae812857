// The two CSV readers of the counters input: the port mapping file (portmap.h) and the counter
// CSV (portcounters.h), which share the record splitter.

#include "io/portmap.h"

#include "base/csvrecord.h"
#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"
#include "io/portcountersdetail.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <map>

namespace railyard {

namespace portcounters {

std::vector<std::string> csvRecord(std::string_view line, const std::string &where)
{
    std::vector<std::string> fields = splitCsvRecord(line, where);
    for (const std::string &f : fields) {
        if (f.size() > limits::kMaxNameBytes)
            throw ScenarioError(where,
                "a field is longer than " + std::to_string(limits::kMaxNameBytes) + " bytes");
    }
    return fields;
}

namespace {

std::string pmLower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// Column positions from a header record naming `names`; empty when the record is no header
/// (it names none of them).
std::map<std::string, std::size_t> pmHeader(
    const std::vector<std::string> &record, const std::vector<std::string_view> &names)
{
    std::map<std::string, std::size_t> at;
    for (std::size_t i = 0; i < record.size(); ++i) {
        const std::string f = pmLower(record[i]);
        if (std::find(names.begin(), names.end(), f) != names.end())
            at.try_emplace(f, i);
    }
    return at;
}

} // namespace

std::vector<PortSample> parseCounterCsv(const std::vector<Line> &lines, const std::string &file)
{
    static const std::vector<std::string_view> kNames { "host", "device", "port", "tx_bytes",
        "rx_bytes", "seconds", "timestamp" };
    std::vector<PortSample> out;
    std::map<std::string, std::size_t> at;
    bool first = true;
    for (const Line &l : lines) {
        if (l.text.empty() || l.text.front() == '#')
            continue;
        const std::string where = file + ":" + std::to_string(l.number);
        const std::vector<std::string> r = csvRecord(l.text, where);
        if (first) {
            first = false;
            at = pmHeader(r, kNames);
            if (!at.empty()) {
                for (const char *need : { "device", "tx_bytes", "rx_bytes" }) {
                    if (!at.count(need))
                        throw ScenarioError(
                            where, std::string("the header has no ") + need + " column");
                }
                if (at.count("seconds") == at.count("timestamp"))
                    throw ScenarioError(where,
                        "the header needs one of seconds (bytes over a window) or timestamp "
                        "(cumulative counters read at that epoch second)");
                continue;
            }
            if (r.size() != 5 && r.size() != 6)
                throw ScenarioError(where,
                    "expected device,port,tx_bytes,rx_bytes,seconds (or host first), got "
                        + std::to_string(r.size()) + " fields");
            const std::size_t o = r.size() - 5;
            if (o == 1)
                at["host"] = 0;
            at["device"] = o;
            at["port"] = o + 1;
            at["tx_bytes"] = o + 2;
            at["rx_bytes"] = o + 3;
            at["seconds"] = o + 4;
        }
        std::size_t width = 0;
        for (const auto &[name, column] : at)
            width = std::max(width, column + 1);
        if (r.size() < width)
            throw ScenarioError(where,
                "expected at least " + std::to_string(width) + " fields, got "
                    + std::to_string(r.size()));
        const auto field = [&](const char *name) {
            const auto it = at.find(name);
            return it == at.end() ? std::string() : r[it->second];
        };
        const auto number = [&](const char *name) {
            double v = 0.0;
            if (!portcounters::parseNumber(field(name), v) || !std::isfinite(v) || v < 0.0
                || v > kMaxCounterBytes)
                throw ScenarioError(where,
                    std::string(name) + " \"" + escapeControls(field(name))
                        + "\" is not a number from 0 to 2^66");
            return v;
        };
        PortSample s;
        s.host = at.count("host") ? field("host") : l.host;
        s.device = field("device");
        s.port = field("port");
        if (s.device.empty() && s.host.empty())
            throw ScenarioError(where, "the line names no device (nor a host: a switch port)");
        s.tx = number("tx_bytes");
        s.rx = number("rx_bytes");
        if (at.count("seconds")) {
            s.window = number("seconds");
            s.time = NAN;
            if (s.window <= 0.0)
                throw ScenarioError(
                    where, "seconds must be > 0 (the window the bytes were counted over)");
        } else {
            s.time = number("timestamp");
        }
        s.file = file;
        s.line = l.number;
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace portcounters

const PortMapEntry *PortMap::find(
    const std::string &host, const std::string &device, const std::string &port) const
{
    const auto match = [](const std::string &pattern, const std::string &name) {
        return pattern == "*" || pattern == name;
    };
    for (const PortMapEntry &e : entries) {
        if (match(e.host, host) && match(e.device, device) && match(e.port, port))
            return &e;
    }
    return nullptr;
}

PortMap parsePortMap(const std::string &text, const std::string &file)
{
    static const std::vector<std::string_view> kNames { "host", "device", "port", "from", "to" };
    requirePrintableUtf8(file, text, true);
    PortMap map;
    map.file = file;
    std::map<std::string, std::size_t> at;
    bool first = true;
    std::size_t start = 0;
    for (int number = 1; start <= text.size(); ++number) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string line = trimmed(std::string_view(text).substr(start, end - start));
        start = end + 1;
        if (line.empty() || line.front() == '#')
            continue;
        const std::string where = file + ":" + std::to_string(number);
        const std::vector<std::string> r = portcounters::csvRecord(line, where);
        if (first) {
            first = false;
            at = portcounters::pmHeader(r, kNames);
            if (!at.empty()) {
                if (at.size() != kNames.size())
                    throw ScenarioError(where, "the header must name host,device,port,from,to");
                continue;
            }
            for (std::size_t i = 0; i < kNames.size(); ++i)
                at[std::string(kNames[i])] = i;
        }
        std::size_t width = 0;
        for (const auto &[name, column] : at)
            width = std::max(width, column + 1);
        if (r.size() < width)
            throw ScenarioError(where,
                "expected host,device,port,from,to, got " + std::to_string(r.size()) + " fields");
        PortMapEntry e;
        e.host = r[at["host"]];
        e.device = r[at["device"]];
        e.port = r[at["port"]];
        e.from = r[at["from"]];
        e.to = r[at["to"]];
        e.line = number;
        if (e.from.empty() || e.to.empty())
            throw ScenarioError(where,
                "from and to must name two fabric nodes (\"node003/nic3\", "
                "\"leaf-su0-rail3\")");
        map.entries.push_back(std::move(e));
    }
    return map;
}

PortMap loadPortMap(const std::string &path)
{
    return parsePortMap(readFileLimited(path, limits::kMaxFileBytes, "a port mapping file"), path);
}

} // namespace railyard
