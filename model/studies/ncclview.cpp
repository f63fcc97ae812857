#include "studies/ncclview.h"

#include "cost/costengine.h"
#include "fabric/fabric.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <set>

namespace railyard {

namespace {

constexpr std::size_t kFindingsInText = 12; // the text names this many; --json lists all
constexpr std::size_t kPicksInText = 8; // sizes named per communicator; --json lists all

const char *ncclPatternName(int pattern)
{
    // graph.h NCCL_TOPO_PATTERN_*
    switch (pattern) {
    case 1:
        return "balanced tree";
    case 2:
        return "split tree";
    case 3:
        return "tree";
    case 4:
        return "ring";
    case 5:
        return "NVLS";
    case 6:
        return "CollNet direct";
    default:
        return "pattern";
    }
}

std::string ncclSizeText(long long bytes)
{
    constexpr const char *kUnits[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    std::size_t u = 0;
    long long v = bytes;
    while (u + 1 < std::size(kUnits) && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        ++u;
    }
    return std::to_string(v) + " " + kUnits[u];
}

/// GRAPH, TUNING, NVLS and CollNet lines of one communicator, as text.
std::string ncclSubsysText(const NcclLogComm &c)
{
    std::string out;
    if (c.graphs.empty() && c.picks.empty() && c.nvlsSupport < 0 && !c.nvlsTree && !c.collNet)
        return out;
    out += "comm " + c.id + " as NCCL searched and tuned it:\n";
    for (const NcclLogGraph &g : c.graphs) {
        char bw[64];
        std::snprintf(bw, sizeof bw, "%.1f/%.1f", g.bwIntra, g.bwInter);
        out += "  " + g.host + ": " + ncclPatternName(g.pattern) + " graph (pattern "
            + std::to_string(g.pattern) + "), " + std::to_string(g.nChannels)
            + " channels, crossNic " + std::to_string(g.crossNic) + ", bw " + bw
            + " GB/s intra/inter, paths " + g.typeIntra + "/" + g.typeInter + "\n";
        for (std::size_t ch = 0; ch < g.channels.size(); ++ch)
            out += "    " + std::to_string(ch) + ": " + g.channels[ch] + "\n";
    }
    if (c.nvlsSupport >= 0 || c.nvlsTree || c.collNet)
        out += "  NVLS multicast on " + std::to_string(std::max(c.nvlsSupport, 0)) + " ranks"
            + (c.nvlsTree ? ", NVLS tree across nodes" : "")
            + (c.collNet ? ", CollNet connected" : ", no CollNet") + "\n";
    for (std::size_t i = 0; i < c.picks.size() && i < kPicksInText; ++i) {
        const NcclLogPick &p = c.picks[i];
        out += "  " + (p.function.empty() ? std::string("call") : p.function) + " of "
            + ncclSizeText(p.bytes) + ": " + p.algorithm + "/" + p.protocol
            + (p.channelLo >= 0 ? ", channels " + std::to_string(p.channelLo) + ".."
                        + std::to_string(p.channelHi)
                                : std::string())
            + " (" + std::to_string(p.calls) + (p.calls == 1 ? " call)" : " calls)") + "\n";
    }
    if (c.picks.size() > kPicksInText)
        out += "  ... and " + std::to_string(c.picks.size() - kPicksInText)
            + " more sizes (--json lists them)\n";
    return out;
}

nlohmann::json ncclGraphsJson(const NcclLogComm &c)
{
    nlohmann::json out = nlohmann::json::array();
    for (const NcclLogGraph &g : c.graphs)
        out.push_back({ { "host", g.host }, { "pattern", g.pattern },
            { "pattern_name", ncclPatternName(g.pattern) }, { "cross_nic", g.crossNic },
            { "n_channels", g.nChannels }, { "bw_intra", g.bwIntra }, { "bw_inter", g.bwInter },
            { "type_intra", g.typeIntra }, { "type_inter", g.typeInter },
            { "same_channels", g.sameChannels }, { "channels", g.channels },
            { "place", g.place } });
    return out;
}

nlohmann::json ncclPicksJson(const NcclLogComm &c)
{
    nlohmann::json out = nlohmann::json::array();
    for (const NcclLogPick &p : c.picks)
        out.push_back({ { "function", p.function }, { "bytes", p.bytes },
            { "algorithm", p.algorithm }, { "protocol", p.protocol }, { "channel_lo", p.channelLo },
            { "channel_hi", p.channelHi }, { "calls", p.calls }, { "place", p.place } });
    return out;
}

} // namespace

NcclView compareNcclLog(const NcclLog &log, const CostEngine &engine)
{
    NcclView view;
    const Fabric &fabric = engine.fabric();
    const NcclHostPlacement place = placeNcclHosts(log, fabric);
    view.notes = place.notes;
    const int gpus = fabric.spec().gpusPerServer;
    for (const NcclLogComm &c : log.comms) {
        NcclViewComm vc;
        vc.id = c.id;
        vc.nranks = c.nranks;
        vc.channels = static_cast<int>(std::count_if(
            c.rings.begin(), c.rings.end(), [](const auto &r) { return !r.empty(); }));
        // rank -> (host, gpu) where the log tells both.
        std::map<int, std::pair<std::string, int>> at;
        for (const auto &[rank, r] : c.ranks)
            if (place.serverOfHost.count(r.host) && r.cudaDev >= 0 && r.cudaDev < gpus) {
                at[rank] = { r.host, r.cudaDev };
                ++vc.ranksPlaced;
            }
        // Receive side NIC per (channel, src, dst).
        std::map<std::tuple<int, int, int>, int> recvNic;
        for (const NcclLogConnection &k : c.connections)
            if (k.transport == "NET" && !k.send)
                recvNic[{ k.channel, k.src, k.dst }] = k.nic;
        for (const NcclLogConnection &k : c.connections) {
            if (k.transport != "NET") {
                ++vc.p2p;
                continue;
            }
            if (!k.send)
                continue;
            ++vc.netSends;
            if (k.proxyRank >= 0)
                ++vc.pxnSends;
            const int owner = k.proxyRank >= 0 ? k.proxyRank : k.src;
            const auto self = at.find(owner);
            if (self == at.end())
                continue;
            const auto &[host, gpu] = self->second;
            const int nic = ncclFabricNic(log, fabric, host, k.nic);
            const int expected = fabric.nicOfGpu(gpu);
            const std::string who = "rank " + std::to_string(k.src) + " -> " + std::to_string(k.dst)
                + ", channel " + std::to_string(k.channel);
            if (nic != expected) {
                ++vc.misBound;
                view.findings.push_back({ "mis-bound-nic", c.id, k.channel, k.src, k.dst, k.file,
                    k.line,
                    who + ": " + host + " GPU " + std::to_string(gpu) + " sends over "
                        + ncclNicName(log, host, k.nic) + " (NIC " + std::to_string(nic)
                        + "); the scenario binds that GPU to NIC " + std::to_string(expected) });
            }
            const auto peer = at.find(k.dst);
            const auto recv = recvNic.find({ k.channel, k.src, k.dst });
            if (peer != at.end() && recv != recvNic.end()) {
                const int peerNic = ncclFabricNic(log, fabric, peer->second.first, recv->second);
                if (peerNic != nic) {
                    ++vc.leavingRail;
                    view.findings.push_back(
                        { "leaves-rail", c.id, k.channel, k.src, k.dst, k.file, k.line,
                            who + ": sent from " + host + " on rail " + std::to_string(nic)
                                + ", received on " + peer->second.first + " on rail "
                                + std::to_string(peerNic)
                                + (fabric.spec().kind == FabricKind::RailOptimised
                                        ? ": the hop crosses a spine"
                                        : "") });
                }
            }
        }
        view.comms.push_back(vc);
    }
    view.rings = diffNcclRings(log, engine, place);
    return view;
}

std::string ncclViewText(const NcclLog &log, const NcclView &view)
{
    std::string out;
    const auto plural = [](std::size_t n, const char *one, const char *many) {
        return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    out += plural(log.comms.size(), "communicator", "communicators") + " from "
        + plural(log.files.size(), "file", "files") + " (" + std::to_string(log.ncclLines)
        + " NCCL INFO lines)\n";
    for (const NcclViewComm &c : view.comms)
        out += "  comm " + c.id + ": " + std::to_string(c.nranks) + " ranks ("
            + std::to_string(c.ranksPlaced) + " placed), " + std::to_string(c.channels) + " rings, "
            + std::to_string(c.netSends) + " network sends (" + std::to_string(c.pxnSends)
            + " via PXN), " + std::to_string(c.p2p) + " NVLink/SHM connections; "
            + std::to_string(c.misBound) + " on an unexpected NIC, " + std::to_string(c.leavingRail)
            + " leaving their rail\n";
    if (view.findings.empty())
        out += "Every network send uses the NIC the scenario binds its GPU to, and stays on its "
               "rail.\n";
    for (std::size_t i = 0; i < view.findings.size() && i < kFindingsInText; ++i) {
        const NcclViewFinding &f = view.findings[i];
        out += f.file + ":" + std::to_string(f.line) + ": " + f.kind + ": " + f.text + "\n";
    }
    if (view.findings.size() > kFindingsInText)
        out += "... and " + std::to_string(view.findings.size() - kFindingsInText)
            + " more (--json lists them)\n";
    out += ncclRingDiffText(log, view.rings, kFindingsInText);
    for (const NcclLogComm &c : log.comms)
        out += ncclSubsysText(c);
    for (const std::string &n : view.notes)
        out += "note: " + n + "\n";
    return out;
}

nlohmann::json ncclViewJson(const NcclLog &log, const NcclView &view)
{
    using nlohmann::json;
    json comms = json::array();
    for (std::size_t i = 0; i < view.comms.size() && i < log.comms.size(); ++i) {
        const NcclViewComm &c = view.comms[i];
        const NcclLogComm &lc = log.comms[i];
        json ranks = json::array();
        for (const auto &[rank, r] : lc.ranks)
            ranks.push_back({ { "rank", rank }, { "host", r.host }, { "cuda_dev", r.cudaDev },
                { "bus_id", r.busId } });
        comms.push_back({ { "id", c.id }, { "nranks", c.nranks }, { "ranks_placed", c.ranksPlaced },
            { "rings", lc.rings }, { "net_sends", c.netSends }, { "pxn_sends", c.pxnSends },
            { "p2p_connections", c.p2p }, { "mis_bound_nic", c.misBound },
            { "leaving_rail", c.leavingRail }, { "ranks", ranks }, { "graphs", ncclGraphsJson(lc) },
            { "picks", ncclPicksJson(lc) }, { "nvls_ranks", lc.nvlsSupport },
            { "nvls_tree", lc.nvlsTree }, { "collnet", lc.collNet } });
    }
    json findings = json::array();
    for (const NcclViewFinding &f : view.findings)
        findings.push_back(
            { { "kind", f.kind }, { "comm", f.comm }, { "channel", f.channel }, { "src", f.src },
                { "dst", f.dst }, { "file", f.file }, { "line", f.line }, { "text", f.text } });
    return { { "files", log.files }, { "nccl_lines", log.ncclLines }, { "nics", log.nics },
        { "comms", comms }, { "findings", findings }, { "rings", ncclRingDiffJson(view.rings) },
        { "notes", view.notes } };
}

} // namespace railyard
