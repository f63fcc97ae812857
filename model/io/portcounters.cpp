#include "io/portcounters.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"
#include "io/launcherlabels.h"
#include "io/portcountersdetail.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <tuple>

namespace railyard {

namespace {

using portcounters::Line;

/// The format by content: perfquery's block headers or dotted Port fields, else Prometheus's
/// HELP/TYPE lines or a labelled sample, else a comma-separated first record.
std::string detectFormat(const std::vector<Line> &lines)
{
    bool firstRecordHasComma = false, sawRecord = false, sampleLike = false;
    for (const Line &l : lines) {
        const std::string_view t = l.text;
        if (t.empty())
            continue;
        if (portcounters::isPerfqueryHeader(t) || portcounters::isPerfqueryField(t))
            return "perfquery";
        if (t.rfind("# HELP ", 0) == 0 || t.rfind("# TYPE ", 0) == 0)
            sampleLike = true;
        if (t[0] == '#')
            continue;
        if (!sawRecord) {
            sawRecord = true;
            firstRecordHasComma
                = t.find(',') != std::string_view::npos && t.find('{') == std::string_view::npos;
        }
        if (t.find('{') != std::string_view::npos)
            sampleLike = true;
        // "metric value": a sample without labels.
        const std::size_t space = t.find(' ');
        double value = 0.0;
        if (space != std::string_view::npos && t.find(',') == std::string_view::npos
            && portcounters::parseNumber(
                t.substr(space + 1, t.find(' ', space + 1) - space - 1), value))
            sampleLike = true;
    }
    if (firstRecordHasComma)
        return "csv";
    return sampleLike ? "prometheus" : "";
}

} // namespace

std::string portText(const std::string &host, const std::string &device, const std::string &port)
{
    std::string s = host;
    if (!device.empty())
        s += (s.empty() ? "" : "/") + device;
    if (!port.empty())
        s += ":" + port;
    return s.empty() ? "(unnamed port)" : s;
}

PortCounterFile parsePortCounters(const std::string &text, const std::string &file)
{
    requirePrintableUtf8(file, text, true);
    std::vector<Line> lines;
    const std::vector<std::string_view> raw = unlabelledLines(text);
    lines.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i)
        lines.push_back(portcounters::splitHostPrefix(raw[i], static_cast<int>(i) + 1));

    PortCounterFile out;
    out.file = file;
    out.format = detectFormat(lines);
    if (out.format == "perfquery")
        out.samples = portcounters::parsePerfquery(lines, file);
    else if (out.format == "prometheus")
        out.samples = portcounters::parsePrometheus(lines, file);
    else if (out.format == "csv")
        out.samples = portcounters::parseCounterCsv(lines, file);
    if (out.samples.empty())
        throw ScenarioError(file,
            "no port counters: expected perfquery -x output (PortXmitData/PortRcvData), "
            "Prometheus text (node_infiniband_port_data_transmitted_bytes_total, "
            "node_network_transmit_bytes_total, ...) or a CSV (device,port,tx_bytes,rx_bytes,"
            "seconds)");
    return out;
}

PortCounterFile loadPortCounters(const std::string &path)
{
    return parsePortCounters(
        readFileLimited(path, kMaxPortCounterBytes, "a port counter file"), path);
}

std::vector<PortRate> portRates(const std::vector<PortCounterFile> &files, double windowSeconds)
{
    using Key = std::tuple<std::string, std::string, std::string>;
    std::map<Key, std::size_t> index;
    std::vector<std::vector<const PortSample *>> byPort;
    for (const PortCounterFile &f : files) {
        for (const PortSample &s : f.samples) {
            const auto [it, fresh]
                = index.try_emplace(Key { s.host, s.device, s.port }, byPort.size());
            if (fresh)
                byPort.emplace_back();
            byPort[it->second].push_back(&s);
        }
    }
    const auto where = [](const PortSample &s) { return s.file + ":" + std::to_string(s.line); };
    std::vector<PortRate> rates;
    rates.reserve(byPort.size());
    for (const std::vector<const PortSample *> &readings : byPort) {
        const PortSample &first = *readings.front();
        const PortSample &last = *readings.back();
        const std::string name = portText(first.host, first.device, first.port);
        PortRate r { first.host, first.device, first.port, 0.0, 0.0, 0.0, where(last) };
        const bool windowed = first.window > 0.0;
        for (const PortSample *s : readings) {
            if ((s->window > 0.0) != windowed)
                throw ScenarioError(where(*s),
                    "port " + name
                        + " has both cumulative counters and bytes over a window; "
                          "give one kind per port");
        }
        if (windowed) {
            double tx = 0.0, rx = 0.0;
            for (const PortSample *s : readings) {
                tx += s->tx;
                rx += s->rx;
                r.window += s->window;
            }
            r.txRate = tx / r.window;
            r.rxRate = rx / r.window;
        } else {
            if (readings.size() < 2)
                throw ScenarioError(where(first),
                    "port " + name
                        + " is read only once: cumulative counters need a second "
                          "snapshot (another file, or the same capture repeated after the window)");
            if (last.tx < first.tx || last.rx < first.rx)
                throw ScenarioError(where(last),
                    "port " + name + "'s counter went backwards since " + where(first)
                        + " (reset or wrapped; perfquery -r resets counters): the window "
                          "cannot be measured");
            if (windowSeconds > 0.0) {
                r.window = windowSeconds;
            } else if (std::isfinite(first.time) && std::isfinite(last.time)
                && last.time > first.time) {
                r.window = last.time - first.time;
            } else {
                throw ScenarioError(where(last),
                    "no time between the two readings of port " + name
                        + " (the snapshots carry no timestamps, or the same one): pass "
                          "--window SECONDS");
            }
            r.txRate = (last.tx - first.tx) / r.window;
            r.rxRate = (last.rx - first.rx) / r.window;
        }
        // Counters are at most kMaxCounterBytes; a window of a few picoseconds (a --window
        // typo, timestamps a rounding apart) would still make rates no link can carry.
        if (!std::isfinite(r.txRate) || !std::isfinite(r.rxRate) || r.txRate > kMaxPortRate
            || r.rxRate > kMaxPortRate)
            throw ScenarioError(where(last),
                "port " + name + " moves more than 10^15 bytes per second over a window of "
                    + std::to_string(r.window) + " s: the window is wrong");
        rates.push_back(std::move(r));
    }
    return rates;
}

} // namespace railyard
