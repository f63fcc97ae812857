// The perfquery and Prometheus readers of port counters (portcounters.h says what they accept).

#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"
#include "io/portcountersdetail.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

namespace railyard::portcounters {

namespace {

std::string pcLineRef(const std::string &file, int line)
{
    return file + ":" + std::to_string(line);
}

bool hostChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_';
}

/// An IB data counter counts 4-byte words (IBA 1.3 vol. 1, PortCounters / PortCountersExtended:
/// PortXmitData and PortRcvData are "in units of 32 bits").
constexpr double kBytesPerIbWord = 4.0;

/// The 32-bit PortXmitData of plain "perfquery" (no -x) stops at 2^32 - 1 words (IBA 1.3 vol. 1,
/// PortCounters: the counters saturate, they do not wrap): 16 GiB, a few seconds at 400 Gbit/s.
constexpr unsigned long long kSaturated32 = 0xFFFFFFFFull;

/// A counter block being read: one `# Port ... counters:` header and its fields.
struct PerfqueryBlock
{
    std::string device, port;
    bool extended = false;
    std::optional<unsigned long long> xmit, rcv;
    double time = NAN;
    int line = 0;
};

/// The value after "Name:" and its dots.
std::string_view pcFieldValue(std::string_view text)
{
    std::size_t i = text.find(':') + 1;
    while (i < text.size() && (text[i] == '.' || text[i] == ' ' || text[i] == '\t'))
        ++i;
    return text.substr(i);
}

/// The word after `key` in a whitespace-separated line ("Lid 12 port 1": "Lid" -> "12").
std::string pcWordAfter(std::string_view text, std::string_view key)
{
    std::size_t i = 0;
    std::vector<std::string_view> words;
    while (i < text.size()) {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) != 0)
            ++i;
        const std::size_t b = i;
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])) == 0)
            ++i;
        if (i > b)
            words.push_back(text.substr(b, i - b));
    }
    for (std::size_t w = 0; w + 1 < words.size(); ++w) {
        if (words[w] == key)
            return std::string(words[w + 1]);
    }
    return {};
}

void pcCloseBlock(std::optional<PerfqueryBlock> &block, const std::string &host,
    const std::string &file, std::vector<PortSample> &out)
{
    if (!block)
        return;
    if (!block->xmit || !block->rcv)
        throw ScenarioError(pcLineRef(file, block->line),
            std::string("the counter block has no ")
                + (block->xmit ? "PortRcvData" : "PortXmitData")
                + " line (perfquery -x prints PortXmitData and PortRcvData in every block)");
    PortSample s;
    s.host = host;
    s.device = block->device;
    s.port = block->port;
    s.tx = static_cast<double>(*block->xmit) * kBytesPerIbWord;
    s.rx = static_cast<double>(*block->rcv) * kBytesPerIbWord;
    s.time = block->time;
    s.file = file;
    s.line = block->line;
    out.push_back(std::move(s));
    block.reset();
}

} // namespace

bool parseNumber(std::string_view text, double &value)
{
    if (text.empty())
        return false;
    const char *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    return ec == std::errc() && ptr == end;
}

Line splitHostPrefix(std::string_view raw, int number)
{
    Line l;
    l.number = number;
    const std::string t = trimmed(raw);
    const std::size_t colon = t.find(": ");
    // pdsh and clush put "host: " before every line; a prefix is one host name, nothing else
    // (a Prometheus sample, a perfquery header or a CSV record never starts that way).
    if (colon != std::string::npos && colon > 0 && colon <= limits::kMaxNameBytes
        && std::all_of(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(colon), hostChar)
        && t.compare(0, 4, "Port") != 0) {
        l.host = t.substr(0, colon);
        raw = raw.substr(raw.find(": ") + 2);
    }
    // The view points into the file's text, trimmed.
    while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.front())) != 0)
        raw.remove_prefix(1);
    while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back())) != 0)
        raw.remove_suffix(1);
    l.text = raw;
    return l;
}

bool isPerfqueryHeader(std::string_view text)
{
    return text.rfind("# Port counters:", 0) == 0
        || text.rfind("# Port extended counters:", 0) == 0;
}

bool isPerfqueryField(std::string_view text)
{
    if (text.rfind("Port", 0) != 0)
        return false;
    std::size_t i = 4;
    while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i])) != 0)
        ++i;
    return i < text.size() && text[i] == ':' && i + 1 < text.size() && text[i + 1] == '.';
}

std::vector<PortSample> parsePerfquery(const std::vector<Line> &lines, const std::string &file)
{
    std::vector<PortSample> out;
    // Per host (pdsh interleaves hosts' lines): the open block, the CA the last command line
    // named, the time the last timestamp line gave.
    std::map<std::string, std::optional<PerfqueryBlock>> open;
    std::map<std::string, std::string> device;
    std::map<std::string, double> time;
    for (const Line &l : lines) {
        const std::string_view t = l.text;
        const std::string where = pcLineRef(file, l.number);
        if (isPerfqueryHeader(t)) {
            pcCloseBlock(open[l.host], l.host, file, out);
            PerfqueryBlock b;
            b.extended = t.rfind("# Port extended", 0) == 0;
            const std::string lid = pcWordAfter(t, "Lid");
            b.port = pcWordAfter(t, "port");
            const auto d = device.find(l.host);
            b.device = d != device.end() && !d->second.empty() ? d->second : "lid " + lid;
            const auto tm = time.find(l.host);
            b.time = tm != time.end() ? tm->second : NAN;
            b.line = l.number;
            if (lid.empty() && (d == device.end() || d->second.empty()))
                throw ScenarioError(where,
                    "the counter header names no Lid and no perfquery "
                    "command line before it names the CA (-C DEVICE)");
            open[l.host] = std::move(b);
        } else if (isPerfqueryField(t)) {
            const std::string name(t.substr(0, t.find(':')));
            if (name != "PortXmitData" && name != "PortRcvData" && name != "PortSelect")
                continue;
            std::optional<PerfqueryBlock> &b = open[l.host];
            if (!b)
                throw ScenarioError(where,
                    name
                        + " outside a counter block (no '# Port extended counters:' line before "
                          "it)");
            const std::string_view value = pcFieldValue(t);
            if (name == "PortSelect") {
                if (b->port.empty())
                    b->port = std::string(value);
                continue;
            }
            unsigned long long words = 0;
            const auto [ptr, ec]
                = std::from_chars(value.data(), value.data() + value.size(), words);
            if (ec != std::errc() || ptr != value.data() + value.size())
                throw ScenarioError(where,
                    name + " value \"" + escapeControls(value) + "\" is not a count of words");
            if (!b->extended && words >= kSaturated32)
                throw ScenarioError(where,
                    name
                        + " is saturated at 2^32-1 words (32-bit counters stop there): read "
                          "the 64-bit extended counters with perfquery -x");
            (name == "PortXmitData" ? b->xmit : b->rcv) = words;
        } else if (t.find("perfquery") != std::string_view::npos) {
            // The command line echoed before its output: the CA it reads ("-C mlx5_0", "--Ca").
            std::string ca = pcWordAfter(t, "-C");
            if (ca.empty())
                ca = pcWordAfter(t, "--Ca");
            device[l.host] = ca;
        } else {
            double seconds = 0.0;
            if (parseNumber(t, seconds)) {
                if (!std::isfinite(seconds) || seconds < 0.0)
                    throw ScenarioError(where, "a timestamp line must hold epoch seconds >= 0");
                time[l.host] = seconds;
            }
            // Any other line is console text around the counters (pdsh's, the shell's).
        }
    }
    for (auto &[host, block] : open)
        pcCloseBlock(block, host, file, out);
    std::stable_sort(out.begin(), out.end(),
        [](const PortSample &a, const PortSample &b) { return a.line < b.line; });
    return out;
}

namespace {

/** A series the reader uses: which way it counts and which labels name the port. */
struct PromSeries
{
    std::string_view metric;
    bool transmit;
    std::string_view deviceLabel; ///< "" = no device
    std::string_view portLabel; ///< "" = no port
};

/// Metric names as the exporters print them: node exporter's infiniband collector (bytes, it
/// multiplies port_xmit_data by 4 itself) and netdev collector (/proc/net/dev bytes), the
/// InfiniBand fabric exporter (treydock/infiniband_exporter, switch ports, bytes) and SNMP
/// exporter's IF-MIB (RFC 2863 ifHCOutOctets/ifHCInOctets, octets).
constexpr std::array<PromSeries, 8> kPromSeries { {
    { "node_infiniband_port_data_transmitted_bytes_total", true, "device", "port" },
    { "node_infiniband_port_data_received_bytes_total", false, "device", "port" },
    { "node_network_transmit_bytes_total", true, "device", "" },
    { "node_network_receive_bytes_total", false, "device", "" },
    { "infiniband_switch_port_transmit_data_bytes_total", true, "", "port" },
    { "infiniband_switch_port_receive_data_bytes_total", false, "", "port" },
    { "ifHCOutOctets", true, "", "ifName" },
    { "ifHCInOctets", false, "", "ifName" },
} };

bool promNameChar(char c, bool first)
{
    return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':'
        || (!first && std::isdigit(static_cast<unsigned char>(c)) != 0);
}

/** One sample line: metric{labels} value [timestamp_ms]. */
struct PromSample
{
    std::string metric;
    std::map<std::string, std::string> labels;
    std::string value, timestamp;
};

/// Parses a sample line of the text exposition format (prometheus.io/docs/instrumenting/
/// exposition_formats: label values escape \\, \" and \n). Throws ScenarioError(where).
PromSample parsePromSample(std::string_view t, const std::string &where)
{
    PromSample s;
    std::size_t i = 0;
    while (i < t.size() && promNameChar(t[i], i == 0))
        ++i;
    if (i == 0)
        throw ScenarioError(where,
            "not a Prometheus sample line (expected metric{labels} value): \""
                + escapeControls(t.substr(0, 80)) + "\"");
    s.metric = std::string(t.substr(0, i));
    if (i < t.size() && t[i] == '{') {
        ++i;
        while (true) {
            while (i < t.size() && (t[i] == ' ' || t[i] == ','))
                ++i;
            if (i < t.size() && t[i] == '}') {
                ++i;
                break;
            }
            const std::size_t b = i;
            while (i < t.size() && promNameChar(t[i], i == b) && t[i] != ':')
                ++i;
            if (i == b || i + 1 >= t.size() || t[i] != '=' || t[i + 1] != '"')
                throw ScenarioError(
                    where, "malformed label in " + s.metric + " (expected name=\"value\")");
            const std::string name(t.substr(b, i - b));
            i += 2;
            std::string value;
            while (i < t.size() && t[i] != '"') {
                if (t[i] == '\\' && i + 1 < t.size()) {
                    ++i;
                    value += t[i] == 'n' ? '\n' : t[i];
                } else {
                    value += t[i];
                }
                ++i;
            }
            if (i >= t.size())
                throw ScenarioError(where, "label " + name + " of " + s.metric + " is not closed");
            ++i;
            if (value.size() > limits::kMaxNameBytes)
                throw ScenarioError(where,
                    "label " + name + " is longer than " + std::to_string(limits::kMaxNameBytes)
                        + " bytes");
            s.labels[name] = std::move(value);
        }
    }
    std::vector<std::string_view> words;
    while (i < t.size()) {
        while (i < t.size() && (t[i] == ' ' || t[i] == '\t'))
            ++i;
        const std::size_t b = i;
        while (i < t.size() && t[i] != ' ' && t[i] != '\t')
            ++i;
        if (i > b)
            words.push_back(t.substr(b, i - b));
    }
    if (words.empty() || words.size() > 2)
        throw ScenarioError(
            where, s.metric + ": expected a value and at most a timestamp after it");
    s.value = std::string(words[0]);
    if (words.size() == 2)
        s.timestamp = std::string(words[1]);
    return s;
}

/// The host a sample names: a host label, else the instance without its ":port", else the
/// switch label, else the line's prefix.
std::string promHost(const PromSample &s, const std::string &prefix)
{
    for (const char *key : { "host", "hostname", "nodename" }) {
        const auto it = s.labels.find(key);
        if (it != s.labels.end() && !it->second.empty())
            return it->second;
    }
    const auto sw = s.labels.find("switch");
    if (sw != s.labels.end() && !sw->second.empty())
        return sw->second;
    const auto in = s.labels.find("instance");
    if (in != s.labels.end() && !in->second.empty()) {
        std::string h = in->second;
        if (!h.empty() && h.front() == '[') // "[::1]:9100"
            return h.substr(
                1, h.find(']') == std::string::npos ? std::string::npos : h.find(']') - 1);
        const std::size_t colon = h.rfind(':');
        if (colon != std::string::npos && h.find(':') == colon)
            h.resize(colon);
        return h;
    }
    return prefix;
}

/** The tx and rx readings of one port as they pair up (the n-th tx series with the n-th rx). */
struct PromReading
{
    std::optional<double> tx, rx;
    double time = NAN;
    int line = 0;
};

} // namespace

std::vector<PortSample> parsePrometheus(const std::vector<Line> &lines, const std::string &file)
{
    using Key = std::tuple<std::string, std::string, std::string>;
    std::map<Key, std::vector<PromReading>> readings;
    std::vector<Key> order;
    for (const Line &l : lines) {
        if (l.text.empty() || l.text.front() == '#')
            continue;
        const std::string where = pcLineRef(file, l.number);
        const PromSample s = parsePromSample(l.text, where);
        const auto series = std::find_if(kPromSeries.begin(), kPromSeries.end(),
            [&](const PromSeries &k) { return k.metric == s.metric; });
        if (series == kPromSeries.end())
            continue;
        double value = 0.0;
        if (!parseNumber(s.value, value) || !std::isfinite(value) || value < 0.0
            || value > kMaxCounterBytes)
            throw ScenarioError(where,
                s.metric + " value \"" + escapeControls(s.value)
                    + "\" is not a byte count from 0 to 2^66");
        double time = NAN;
        if (!s.timestamp.empty()) {
            double ms = 0.0;
            if (!parseNumber(s.timestamp, ms) || !std::isfinite(ms) || ms < 0.0)
                throw ScenarioError(where,
                    "timestamp \"" + escapeControls(s.timestamp)
                        + "\" is not milliseconds since the epoch");
            time = ms / 1000.0;
        }
        const auto label = [&](std::string_view name) -> std::string {
            if (name.empty())
                return {};
            const auto it = s.labels.find(std::string(name));
            if (it != s.labels.end())
                return it->second;
            if (name == "ifName") { // IF-MIB without the ifName lookup: ifDescr, else ifIndex
                for (const char *alt : { "ifDescr", "ifIndex" }) {
                    const auto a = s.labels.find(alt);
                    if (a != s.labels.end())
                        return a->second;
                }
            }
            throw ScenarioError(where, s.metric + " has no " + std::string(name) + " label");
        };
        Key key { promHost(s, l.host), label(series->deviceLabel), label(series->portLabel) };
        auto &list = readings[key];
        if (list.empty())
            order.push_back(key);
        auto slot = std::find_if(list.begin(), list.end(), [&](const PromReading &r) {
            return series->transmit ? !r.tx.has_value() : !r.rx.has_value();
        });
        if (slot == list.end()) {
            list.emplace_back();
            slot = list.end() - 1;
            slot->line = l.number;
            slot->time = time;
        }
        (series->transmit ? slot->tx : slot->rx) = value;
        if (std::isnan(slot->time))
            slot->time = time;
    }
    std::vector<PortSample> out;
    for (const Key &key : order) {
        for (const PromReading &r : readings[key]) {
            if (!r.tx || !r.rx)
                throw ScenarioError(pcLineRef(file, r.line),
                    "port " + portText(std::get<0>(key), std::get<1>(key), std::get<2>(key))
                        + " has " + (r.tx ? "transmitted" : "received") + " bytes but no "
                        + (r.tx ? "received" : "transmitted") + " series beside them");
            PortSample p;
            std::tie(p.host, p.device, p.port) = key;
            p.tx = *r.tx;
            p.rx = *r.rx;
            p.time = r.time;
            p.file = file;
            p.line = r.line;
            out.push_back(std::move(p));
        }
    }
    std::stable_sort(out.begin(), out.end(),
        [](const PortSample &a, const PortSample &b) { return a.line < b.line; });
    return out;
}

} // namespace railyard::portcounters
