#include "studies/ncclview.h"

#include "cost/costengine.h"
#include "fabric/fabric.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>

namespace railyard {

namespace {

constexpr std::size_t kFindingsInText = 12; // the text names this many; --json lists all

std::string shortName(const std::string &host)
{
    return host.substr(0, host.find('.'));
}

struct HostPlacement
{
    std::map<std::string, int> serverOfHost;
    std::vector<std::string> notes;
};

HostPlacement placeHosts(const NcclLog &log, const Fabric &fabric)
{
    HostPlacement p;
    std::set<std::string> hosts;
    for (const NcclLogComm &c : log.comms)
        for (const auto &[rank, r] : c.ranks)
            if (!r.host.empty())
                hosts.insert(r.host);
    std::map<std::string, int> byName;
    for (int s = 0; s < fabric.spec().servers; ++s) {
        byName.emplace(fabric.serverName(s), s);
        byName.emplace(shortName(fabric.serverName(s)), s);
    }
    std::vector<std::string> unnamed;
    std::set<int> used;
    for (const std::string &h : hosts) {
        auto it = byName.find(h);
        if (it == byName.end())
            it = byName.find(shortName(h));
        if (it != byName.end()) {
            p.serverOfHost[h] = it->second;
            used.insert(it->second);
        } else {
            unnamed.push_back(h);
        }
    }
    int next = 0;
    for (const std::string &h : unnamed) {
        while (used.count(next))
            ++next;
        if (next >= fabric.spec().servers)
            break;
        p.serverOfHost[h] = next;
        used.insert(next++);
    }
    if (!unnamed.empty())
        p.notes.push_back(std::to_string(unnamed.size())
            + " hosts are not the scenario's server names; they take its servers in name order ("
            + unnamed.front() + " -> "
            + fabric.serverName(
                p.serverOfHost.count(unnamed.front()) ? p.serverOfHost[unnamed.front()] : 0)
            + "): name them in fabric.server_names to tie them exactly");
    if (hosts.size() > static_cast<std::size_t>(fabric.spec().servers))
        p.notes.push_back("the log has " + std::to_string(hosts.size()) + " hosts, the scenario "
            + std::to_string(fabric.spec().servers) + " servers: the rest are not placed");
    return p;
}

/// The fabric's NIC index of NCCL net device `dev` on `host`: by RDMA name when the scenario
/// names its NICs (fabric.nic_devices, set by import-topology), else NCCL's device index, which
/// orders the devices as NCCL found them (PCI order on the servers we model: rail i = NIC i).
int fabricNic(const NcclLog &log, const Fabric &fabric, const std::string &host, int dev)
{
    const auto list = log.nics.find(host);
    if (list == log.nics.end() || dev < 0 || dev >= static_cast<int>(list->second.size()))
        return dev;
    const std::string &name = list->second[static_cast<std::size_t>(dev)];
    const std::vector<std::string> &names = fabric.spec().nicDevices;
    if (const auto it = std::find(names.begin(), names.end(), name); it != names.end())
        return static_cast<int>(it - names.begin());
    return dev;
}

std::string nicName(const NcclLog &log, const std::string &host, int dev)
{
    const auto list = log.nics.find(host);
    if (list != log.nics.end() && dev >= 0 && dev < static_cast<int>(list->second.size()))
        return list->second[static_cast<std::size_t>(dev)];
    return "net " + std::to_string(dev);
}

} // namespace

NcclView compareNcclLog(const NcclLog &log, const CostEngine &engine)
{
    NcclView view;
    const Fabric &fabric = engine.fabric();
    const HostPlacement place = placeHosts(log, fabric);
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
            const int nic = fabricNic(log, fabric, host, k.nic);
            const int expected = fabric.nicOfGpu(gpu);
            const std::string who = "rank " + std::to_string(k.src) + " -> " + std::to_string(k.dst)
                + ", channel " + std::to_string(k.channel);
            if (nic != expected) {
                ++vc.misBound;
                view.findings.push_back({ "mis-bound-nic", c.id, k.channel, k.src, k.dst, k.file,
                    k.line,
                    who + ": " + host + " GPU " + std::to_string(gpu) + " sends over "
                        + nicName(log, host, k.nic) + " (NIC " + std::to_string(nic)
                        + "); the scenario binds that GPU to NIC " + std::to_string(expected) });
            }
            const auto peer = at.find(k.dst);
            const auto recv = recvNic.find({ k.channel, k.src, k.dst });
            if (peer != at.end() && recv != recvNic.end()) {
                const int peerNic = fabricNic(log, fabric, peer->second.first, recv->second);
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
            { "leaving_rail", c.leavingRail }, { "ranks", ranks } });
    }
    json findings = json::array();
    for (const NcclViewFinding &f : view.findings)
        findings.push_back(
            { { "kind", f.kind }, { "comm", f.comm }, { "channel", f.channel }, { "src", f.src },
                { "dst", f.dst }, { "file", f.file }, { "line", f.line }, { "text", f.text } });
    return { { "files", log.files }, { "nccl_lines", log.ncclLines }, { "nics", log.nics },
        { "comms", comms }, { "findings", findings }, { "notes", view.notes } };
}

} // namespace railyard
