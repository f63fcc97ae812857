#include "io/nccllogsubsys.h"

#include "base/scenarioerror.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace railyard {

namespace {

// NCCL's names for its algorithm and protocol numbers (init.cc ncclAlgoStr / ncclProtoStr,
// nccl_common.h NCCL_ALGO_* / NCCL_PROTO_*; PAT is 6 from 2.23).
constexpr std::array<const char *, 7> kNcclAlgoNames
    = { "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT" };
constexpr std::array<const char *, 3> kNcclProtoNames = { "LL", "LL128", "Simple" };
constexpr int kMaxGraphPattern = 16; // graph.h defines 1..6; room for new ones
constexpr int kMaxGraphChannels = 255; // as the reader's channel bound (MAXCHANNELS is 64)
constexpr long long kMaxCallBytes = 1ll << 50; // 1 PiB: beyond any one call's buffer

bool subsysInteger(std::string_view s, long long &v)
{
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

std::string_view trimComma(std::string_view s)
{
    if (!s.empty() && s.back() == ',')
        s.remove_suffix(1);
    return s;
}

long long subsysNumber(
    std::string_view s, long long low, long long high, const char *what, const std::string &where)
{
    long long v = 0;
    if (!subsysInteger(s, v))
        throw ScenarioError(where,
            std::string(what) + ": expected an integer, got '" + std::string(s.substr(0, 40))
                + "'");
    if (v < low || v > high)
        throw ScenarioError(where,
            std::string(what) + " " + std::to_string(v) + " is outside " + std::to_string(low)
                + ".." + std::to_string(high));
    return v;
}

double subsysReal(std::string_view s, const char *what, const std::string &where)
{
    const std::string text(s.substr(0, 64));
    char *end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v) || v < 0.0)
        throw ScenarioError(
            where, std::string(what) + ": expected a non-negative number, got '" + text + "'");
    return v;
}

bool sameGraph(const NcclLogGraph &a, const NcclLogGraph &b)
{
    return a.host == b.host && a.pattern == b.pattern && a.crossNic == b.crossNic
        && a.nChannels == b.nChannels && a.bwIntra == b.bwIntra && a.bwInter == b.bwInter
        && a.typeIntra == b.typeIntra && a.typeInter == b.typeInter
        && a.sameChannels == b.sameChannels && a.channels == b.channels;
}

} // namespace

NcclSubsysReader::NcclSubsysReader(CommOf commOf)
    : m_commOf(std::move(commOf))
{
}

void NcclSubsysReader::keep(NcclLogComm &c, const NcclLogGraph &g)
{
    // Every local rank searches the same graphs and prints them: keep one copy per host.
    if (std::none_of(c.graphs.begin(), c.graphs.end(),
            [&](const NcclLogGraph &k) { return sameGraph(k, g); }))
        c.graphs.push_back(g);
}

void NcclSubsysReader::close(const std::string &thread)
{
    const auto it = m_pending.find(thread);
    if (it == m_pending.end() || !it->second.open)
        return;
    it->second.open = false;
    NcclLogComm *c = m_initialising[thread] ? m_commOf(thread) : nullptr;
    if (c == nullptr)
        m_parked[thread].push_back(std::move(it->second.graph));
    else
        keep(*c, it->second.graph);
}

void NcclSubsysReader::commLine(const std::string &thread, bool complete)
{
    close(thread);
    m_initialising[thread] = !complete;
    if (complete)
        return;
    const auto parked = m_parked.find(thread);
    if (parked == m_parked.end())
        return;
    if (NcclLogComm *c = m_commOf(thread))
        for (const NcclLogGraph &g : parked->second)
            keep(*c, g);
    m_parked.erase(parked);
}

void NcclSubsysReader::finish()
{
    for (auto &[thread, pending] : m_pending)
        close(thread);
    m_pending.clear();
}

bool NcclSubsysReader::graphLine(const std::vector<std::string_view> &w, const std::string &host,
    const std::string &thread, const std::string &where)
{
    if (w[0] == "Pattern") {
        // "Pattern %d, crossNic %d, nChannels %d, bw %f/%f, type %s/%s, sameChannels %d"
        if (w.size() < 12 || w[2] != "crossNic" || w[4] != "nChannels" || w[6] != "bw"
            || w[8] != "type" || w[10] != "sameChannels")
            throw ScenarioError(where,
                "expected 'Pattern P, crossNic X, nChannels N, bw I/E, type TI/TE, "
                "sameChannels S'");
        close(thread);
        NcclLogGraph g;
        g.host = host;
        g.place = where;
        g.pattern = static_cast<int>(
            subsysNumber(trimComma(w[1]), 1, kMaxGraphPattern, "graph pattern", where));
        g.crossNic = static_cast<int>(subsysNumber(trimComma(w[3]), 0, 2, "crossNic", where));
        g.nChannels = static_cast<int>(
            subsysNumber(trimComma(w[5]), 0, kMaxGraphChannels, "graph nChannels", where));
        const std::string_view bw = trimComma(w[7]);
        const std::size_t slash = bw.find('/');
        if (slash == std::string_view::npos)
            throw ScenarioError(where, "expected 'bw INTRA/INTER'");
        g.bwIntra = subsysReal(bw.substr(0, slash), "graph bw", where);
        g.bwInter = subsysReal(bw.substr(slash + 1), "graph bw", where);
        const std::string_view type = trimComma(w[9]);
        const std::size_t ts = type.find('/');
        if (ts == std::string_view::npos)
            throw ScenarioError(where, "expected 'type INTRA/INTER'");
        g.typeIntra = std::string(type.substr(0, ts));
        g.typeInter = std::string(type.substr(ts + 1));
        g.sameChannels = static_cast<int>(subsysNumber(w[11], 0, 1, "sameChannels", where));
        Pending &p = m_pending[thread];
        p.graph = std::move(g);
        p.open = true;
        if (p.graph.nChannels == 0)
            close(thread);
        return true;
    }
    // " C : NET/.. GPU/.. ... NET/.." right after its Pattern line
    if (w.size() < 3 || w[1] != ":" || (w[2].substr(0, 4) != "NET/" && w[2].substr(0, 4) != "GPU/"))
        return false;
    long long channel = 0;
    if (!subsysInteger(w[0], channel))
        return false;
    const auto it = m_pending.find(thread);
    if (it == m_pending.end() || !it->second.open)
        throw ScenarioError(where, "a graph channel line without its 'Pattern ...' line before it");
    NcclLogGraph &g = it->second.graph;
    if (channel != static_cast<long long>(g.channels.size()) || channel >= g.nChannels)
        throw ScenarioError(where,
            "graph channel " + std::to_string(channel) + " where channel "
                + std::to_string(g.channels.size()) + " of " + std::to_string(g.nChannels)
                + " was due");
    std::string path;
    for (std::size_t i = 2; i < w.size(); ++i) {
        if (w[i].substr(0, 4) != "NET/" && w[i].substr(0, 4) != "GPU/")
            throw ScenarioError(where,
                "a graph channel lists NET/.. and GPU/.., not '" + std::string(w[i].substr(0, 40))
                    + "'");
        path += (path.empty() ? "" : " ") + std::string(w[i]);
    }
    g.channels.push_back(std::move(path));
    if (static_cast<int>(g.channels.size()) == g.nChannels)
        close(thread);
    return true;
}

bool NcclSubsysReader::pickLine(
    const std::vector<std::string_view> &w, const std::string &thread, const std::string &where)
{
    // "[FUNC: ]BYTES Bytes -> Algo A proto P (time T | channel{Lo..Hi}={L..H})"
    std::size_t b = 0;
    if (w.size() > 1 && w[1] == "Bytes")
        b = 1;
    else if (w.size() > 2 && w[2] == "Bytes" && w[0].size() > 1 && w[0].back() == ':')
        b = 2;
    else
        return false;
    if (w.size() < b + 6 || w[b + 1] != "->" || w[b + 2] != "Algo" || w[b + 4] != "proto")
        return false;
    NcclLogPick pick;
    if (b == 2)
        pick.function = std::string(w[0].substr(0, w[0].size() - 1));
    pick.bytes = subsysNumber(w[b - 1], 0, kMaxCallBytes, "call bytes", where);
    long long numbered = 0;
    if (subsysInteger(w[b + 3], numbered)) { // 2.20 to 2.23: the numbers
        pick.algorithm = kNcclAlgoNames.at(static_cast<std::size_t>(subsysNumber(
            w[b + 3], 0, static_cast<long long>(kNcclAlgoNames.size()) - 1, "algorithm", where)));
        pick.protocol = kNcclProtoNames.at(static_cast<std::size_t>(subsysNumber(
            w[b + 5], 0, static_cast<long long>(kNcclProtoNames.size()) - 1, "protocol", where)));
    } else {
        pick.algorithm = std::string(w[b + 3]);
        pick.protocol = std::string(w[b + 5]);
        if (std::find(kNcclAlgoNames.begin(), kNcclAlgoNames.end(), pick.algorithm)
            == kNcclAlgoNames.end())
            throw ScenarioError(
                where, "unknown NCCL algorithm '" + pick.algorithm.substr(0, 40) + "'");
        if (std::find(kNcclProtoNames.begin(), kNcclProtoNames.end(), pick.protocol)
            == kNcclProtoNames.end())
            throw ScenarioError(
                where, "unknown NCCL protocol '" + pick.protocol.substr(0, 40) + "'");
        constexpr std::string_view kRange = "channel{Lo..Hi}={";
        if (w.size() > b + 6 && w[b + 6].substr(0, kRange.size()) == kRange) {
            std::string_view r = w[b + 6].substr(kRange.size());
            const std::size_t dots = r.find("..");
            if (dots == std::string_view::npos || r.empty() || r.back() != '}')
                throw ScenarioError(where, "expected 'channel{Lo..Hi}={L..H}'");
            r.remove_suffix(1);
            pick.channelLo = static_cast<int>(
                subsysNumber(r.substr(0, dots), 0, kMaxGraphChannels, "channel", where));
            pick.channelHi = static_cast<int>(subsysNumber(
                r.substr(dots + 2), pick.channelLo, kMaxGraphChannels, "channel", where));
        }
    }
    NcclLogComm *c = m_commOf(thread);
    if (c == nullptr)
        return true; // a call before any communicator of its process: nothing to tie it to
    pick.place = where;
    auto &index = m_pickIndex[c->id];
    if (index.size() != c->picks.size()) { // picks merged in from a provisional communicator
        index.clear();
        for (std::size_t i = 0; i < c->picks.size(); ++i)
            index.emplace(c->picks[i], i);
    }
    const auto [it, fresh] = index.emplace(pick, c->picks.size());
    if (fresh)
        c->picks.push_back(pick);
    ++c->picks[it->second].calls;
    return true;
}

bool NcclSubsysReader::read(const std::vector<std::string_view> &w, const std::string &host,
    const std::string &thread, const std::string &where)
{
    if (w.empty())
        return false;
    if (graphLine(w, host, thread, where) || pickLine(w, thread, where))
        return true;
    NcclLogComm *c = m_commOf(thread);
    // "NVLS multicast support is [not ]available on dev D[ (NVLS_NCHANNELS N)]"
    if (w.size() > 4 && w[0] == "NVLS" && w[1] == "multicast" && w[2] == "support") {
        if (c != nullptr) {
            if (w[4] == "not")
                c->nvlsSupport = std::max(c->nvlsSupport, 0);
            else
                c->nvlsSupport = std::max(c->nvlsSupport, 0) + 1;
        }
        return true;
    }
    // "NVLS Trees : ..." (GRAPH) and "Connected NVLS tree" (INIT): NVLS used across nodes
    if ((w.size() > 2 && w[0] == "NVLS" && w[1] == "Trees")
        || (w.size() == 3 && w[0] == "Connected" && w[1] == "NVLS" && w[2] == "tree")) {
        if (c != nullptr)
            c->nvlsTree = true;
        return true;
    }
    // "Collnet Chains ..." and "Connected collnet + chain" (2.18 to 2.21), "Connected Collnet
    // Chains ..." and "rank R Connected CollNet" (2.22 on)
    if ((w.size() > 1 && w[0] == "Collnet" && w[1] == "Chains")
        || (w.size() > 2 && w[0] == "Connected" && (w[1] == "Collnet" || w[1] == "collnet"))
        || (w.size() == 4 && w[0] == "rank" && w[2] == "Connected" && w[3] == "CollNet")) {
        if (c != nullptr)
            c->collNet = true;
        return true;
    }
    return false;
}

} // namespace railyard
