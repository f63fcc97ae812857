#include "studies/ncclringdiff.h"

#include "cost/costengine.h"
#include "cost/ringorder.h"
#include "fabric/fabric.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <tuple>

namespace railyard {

namespace {

std::string ncclHostShortName(const std::string &host)
{
    return host.substr(0, host.find('.'));
}

/// Every job group by its sorted slots ("tp 0", "dp-cp 3", ...), and "world" for all ranks;
/// built once for all communicators of a log.
std::map<std::vector<int>, std::string> ncclJobGroups(const CostEngine &engine)
{
    std::map<std::vector<int>, std::string> out;
    const Mapping &mapping = engine.mapping();
    std::vector<int> all = mapping.slots();
    std::sort(all.begin(), all.end());
    out.emplace(std::move(all), "world");
    // The kinds a communicator of the job is created for (Megatron's groups); a group two kinds
    // share (tp and tp-pp when pp is 1) keeps the first name.
    for (const GroupKind kind : { GroupKind::Tp, GroupKind::Cp, GroupKind::Ep, GroupKind::Dp,
             GroupKind::DpCp, GroupKind::ExpertDp, GroupKind::Pp, GroupKind::TpPp }) {
        const GroupList &groups = engine.layout().groups(kind);
        for (std::size_t g = 0; g < groups.size(); ++g) {
            std::vector<int> s;
            s.reserve(groups[g].size());
            for (const int r : groups[g])
                s.push_back(mapping.slotOf(r));
            std::sort(s.begin(), s.end());
            out.emplace(std::move(s), std::string(groupKindName(kind)) + " " + std::to_string(g));
        }
    }
    return out;
}

/// successor[rank] along a ring of member indexes.
std::vector<int> ncclRingSuccessors(const std::vector<int> &ring, std::size_t n)
{
    std::vector<int> next(n, -1);
    for (std::size_t i = 0; i < ring.size(); ++i)
        next[static_cast<std::size_t>(ring[i])] = ring[(i + 1) % ring.size()];
    return next;
}

struct NcclHopPlace
{
    const Fabric &fabric;
    const std::vector<RingMember> &members;

    /// A hop with the members' own NICs (the engine's view) or the given ones.
    NcclRingHop hop(int src, int dst, int srcNic = -1, int dstNic = -1) const
    {
        NcclRingHop h;
        h.src = src;
        h.dst = dst;
        const RingMember &a = members[static_cast<std::size_t>(src)];
        const RingMember &b = members[static_cast<std::size_t>(dst)];
        h.network = a.domain != b.domain;
        if (!h.network)
            return h;
        h.srcNic = srcNic >= 0 ? srcNic : a.nic;
        h.dstNic = dstNic >= 0 ? dstNic : b.nic;
        const int nics = fabric.nicsPerServer();
        if (h.srcNic < nics && h.dstNic < nics) {
            const int leafA = fabric.leafOfNic(a.server, h.srcNic);
            const int leafB = fabric.leafOfNic(b.server, h.dstNic);
            h.reachesSpine = leafA != leafB && !fabric.railOnly();
            h.crossesRail = fabric.railCount() > 0 && h.srcNic != h.dstNic;
        }
        return h;
    }
};

/// The NICs NCCL logged per (channel, src, dst) connection of a communicator: the sender's
/// ([send], through the proxy's NIC with PXN) and the receiver's ([receive]), as fabric NICs.
struct NcclLoggedNics
{
    using Key = std::tuple<int, int, int>;
    std::map<Key, int> send, receive;
    std::set<Key> pxn; ///< sends through another rank's NIC
};

NcclLoggedNics ncclLoggedNics(const NcclLog &log, const Fabric &fabric, const NcclLogComm &c)
{
    NcclLoggedNics out;
    for (const NcclLogConnection &k : c.connections) {
        if (k.transport != "NET")
            continue;
        const int owner = k.send ? (k.proxyRank >= 0 ? k.proxyRank : k.src) : k.dst;
        const auto at = c.ranks.find(owner);
        if (at == c.ranks.end())
            continue;
        const int nic = ncclFabricNic(log, fabric, at->second.host, k.nic);
        (k.send ? out.send : out.receive)[{ k.channel, k.src, k.dst }] = nic;
        if (k.send && k.proxyRank >= 0 && k.proxyRank != k.src)
            out.pxn.insert({ k.channel, k.src, k.dst });
    }
    return out;
}

} // namespace

NcclHostPlacement placeNcclHosts(const NcclLog &log, const Fabric &fabric)
{
    NcclHostPlacement p;
    std::set<std::string> hosts;
    for (const NcclLogComm &c : log.comms)
        for (const auto &[rank, r] : c.ranks)
            if (!r.host.empty())
                hosts.insert(r.host);
    std::map<std::string, int> byName;
    for (int s = 0; s < fabric.spec().servers; ++s) {
        byName.emplace(fabric.serverName(s), s);
        byName.emplace(ncclHostShortName(fabric.serverName(s)), s);
    }
    std::vector<std::string> unnamed;
    std::set<int> used;
    for (const std::string &h : hosts) {
        auto it = byName.find(h);
        if (it == byName.end())
            it = byName.find(ncclHostShortName(h));
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

int ncclFabricNic(const NcclLog &log, const Fabric &fabric, const std::string &host, int dev)
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

std::string ncclNicName(const NcclLog &log, const std::string &host, int dev)
{
    const auto list = log.nics.find(host);
    if (list != log.nics.end() && dev >= 0 && dev < static_cast<int>(list->second.size()))
        return list->second[static_cast<std::size_t>(dev)];
    return "net " + std::to_string(dev);
}

std::vector<int> ncclRankSlots(
    const NcclLogComm &c, const NcclHostPlacement &place, const Fabric &fabric)
{
    std::vector<int> slots(static_cast<std::size_t>(std::max(c.nranks, 0)), -1);
    const int gpus = fabric.gpusPerServer();
    for (const auto &[rank, r] : c.ranks) {
        const auto server = place.serverOfHost.find(r.host);
        if (rank < 0 || rank >= c.nranks || server == place.serverOfHost.end() || r.cudaDev < 0
            || r.cudaDev >= gpus)
            continue;
        slots[static_cast<std::size_t>(rank)] = server->second * gpus + r.cudaDev;
    }
    return slots;
}

std::vector<NcclCommDiff> diffNcclRings(
    const NcclLog &log, const CostEngine &engine, const NcclHostPlacement &place)
{
    const Fabric &fabric = engine.fabric();
    std::vector<NcclCommDiff> out;
    const std::map<std::vector<int>, std::string> groups = ncclJobGroups(engine);
    for (const NcclLogComm &c : log.comms) {
        NcclCommDiff d;
        d.comm = c.id;
        d.nranks = c.nranks;
        d.observedChannels = static_cast<int>(std::count_if(
            c.rings.begin(), c.rings.end(), [](const auto &r) { return !r.empty(); }));
        const std::vector<int> slots = ncclRankSlots(c, place, fabric);
        const int placed = static_cast<int>(
            std::count_if(slots.begin(), slots.end(), [](int s) { return s >= 0; }));
        std::set<int> distinct(slots.begin(), slots.end());
        if (d.observedChannels == 0) {
            d.skipped = "no ring logged (NCCL_DEBUG_SUBSYS=INIT prints them)";
        } else if (c.nranks < 2 || placed < c.nranks) {
            d.skipped = std::to_string(c.nranks - placed) + " of " + std::to_string(c.nranks)
                + " ranks not placed on a slot (host or CUDA device unknown)";
        } else if (static_cast<int>(distinct.size()) < c.nranks) {
            d.skipped = "two ranks on one GPU slot";
        }
        if (!d.skipped.empty()) {
            out.push_back(std::move(d));
            continue;
        }
        std::vector<int> sortedSlots = slots;
        std::sort(sortedSlots.begin(), sortedSlots.end());
        if (const auto g = groups.find(sortedSlots); g != groups.end())
            d.group = g->second;
        // The engine's rings over the ranks in communicator order: NCCL numbers its nodes in
        // rank order, as buildRings() expects its members.
        const std::vector<RingMember> members = ringMembers(fabric, slots);
        const std::vector<std::vector<int>> predicted = buildRings(members);
        d.predictedChannels = static_cast<int>(predicted.size());
        const auto n = static_cast<std::size_t>(c.nranks);
        std::vector<std::vector<int>> predictedNext;
        for (const std::vector<int> &ring : predicted)
            predictedNext.push_back(ncclRingSuccessors(ring, n));
        const NcclHopPlace hops { fabric, members };
        const NcclLoggedNics logged = ncclLoggedNics(log, fabric, c);
        const std::map<std::tuple<int, int, int>, int> &sendNic = logged.send;
        const std::map<std::tuple<int, int, int>, int> &recvNic = logged.receive;
        for (std::size_t ch = 0; ch < c.rings.size(); ++ch) {
            const std::vector<int> &ring = c.rings[ch];
            if (ring.empty())
                continue;
            NcclChannelDiff cd;
            cd.channel = static_cast<int>(ch);
            cd.place = ch < c.ringPlaces.size() ? c.ringPlaces[ch] : std::string();
            // The predicted channel sharing most hops; ties go to channel ch mod P.
            int best = -1, bestScore = -1;
            for (std::size_t p = 0; p < predicted.size(); ++p) {
                int score = 0;
                for (std::size_t i = 0; i < ring.size(); ++i)
                    score += predictedNext[p][static_cast<std::size_t>(ring[i])]
                        == ring[(i + 1) % ring.size()];
                const bool preferred = p == ch % predicted.size();
                if (score > bestScore || (score == bestScore && preferred)) {
                    best = static_cast<int>(p);
                    bestScore = score;
                }
            }
            cd.predicted = best;
            const std::vector<int> &next = predictedNext[static_cast<std::size_t>(best)];
            cd.reversed = ring.size() > 2;
            for (std::size_t i = 0; i < ring.size(); ++i) {
                const int a = ring[i], b = ring[(i + 1) % ring.size()];
                if (next[static_cast<std::size_t>(b)] != a)
                    cd.reversed = false;
                // Each end's NIC as logged, else the GPU's own (the scenario's affinity).
                const auto s = sendNic.find({ cd.channel, a, b });
                const auto r = recvNic.find({ cd.channel, a, b });
                NcclRingHop seen = hops.hop(
                    a, b, s == sendNic.end() ? -1 : s->second, r == recvNic.end() ? -1 : r->second);
                seen.nicLogged = seen.network && s != sendNic.end() && r != recvNic.end();
                if (seen.network) {
                    ++cd.networkHops;
                    cd.crossRailHops += seen.crossesRail;
                    cd.spineHops += seen.reachesSpine;
                }
                const NcclRingHop want = hops.hop(a, next[static_cast<std::size_t>(a)]);
                const bool differs
                    = want.dst != b || want.srcNic != seen.srcNic || want.dstNic != seen.dstNic;
                if (differs) {
                    cd.ranks.push_back(a);
                    cd.observed.push_back(seen);
                    cd.expected.push_back(want);
                }
            }
            for (std::size_t i = 0; i < predicted[static_cast<std::size_t>(best)].size(); ++i) {
                const std::vector<int> &pr = predicted[static_cast<std::size_t>(best)];
                cd.predictedSpineHops += hops.hop(pr[i], pr[(i + 1) % pr.size()]).reachesSpine;
            }
            cd.same = cd.ranks.empty();
            cd.sameNetwork = std::none_of(cd.observed.begin(), cd.observed.end(),
                                 [](const NcclRingHop &h) { return h.network; })
                && std::none_of(cd.expected.begin(), cd.expected.end(),
                    [](const NcclRingHop &h) { return h.network; });
            if (cd.same)
                cd.reversed = false;
            d.sameChannels += cd.same;
            d.channels.push_back(std::move(cd));
        }
        out.push_back(std::move(d));
    }
    return out;
}

NcclObservedSpec ncclObservedSpec(const NcclLog &log, const std::vector<NcclCommDiff> &diffs,
    const NcclHostPlacement &place, const Fabric &fabric, const std::string &readAt)
{
    NcclObservedSpec spec;
    spec.readAt = readAt;
    spec.files = log.files;
    for (const NcclCommDiff &d : diffs) {
        if (!d.skipped.empty())
            continue;
        const auto lc = std::find_if(log.comms.begin(), log.comms.end(),
            [&](const NcclLogComm &k) { return k.id == d.comm; });
        if (lc == log.comms.end())
            continue;
        NcclObservedComm c;
        c.id = d.comm;
        c.group = d.group;
        c.slots = ncclRankSlots(*lc, place, fabric);
        // Each network hop's NICs as NCCL logged them, so that the engine routes it from and to
        // those (a mis-bound GPU's traffic over the NIC it really used). A NIC the fabric does
        // not have (a net device past its NICs) is left out: that end keeps the GPU's own.
        const NcclLoggedNics logged = ncclLoggedNics(log, fabric, *lc);
        const auto fabricNic
            = [&](const std::map<NcclLoggedNics::Key, int> &m, const NcclLoggedNics::Key &k) {
                  const auto it = m.find(k);
                  return it != m.end() && it->second >= 0 && it->second < fabric.nicsPerServer()
                      ? it->second
                      : -1;
              };
        for (std::size_t ch = 0; ch < lc->rings.size(); ++ch) {
            const std::vector<int> &ring = lc->rings[ch];
            if (ring.empty())
                continue;
            const int channel = static_cast<int>(c.rings.size());
            for (std::size_t i = 0; i < ring.size(); ++i) {
                const NcclLoggedNics::Key k { static_cast<int>(ch), ring[i],
                    ring[(i + 1) % ring.size()] };
                NcclObservedNics h;
                h.channel = channel;
                h.rank = ring[i];
                h.send = fabricNic(logged.send, k);
                h.receive = fabricNic(logged.receive, k);
                h.pxn = h.send >= 0 && logged.pxn.count(k) > 0;
                if (h.send >= 0 || h.receive >= 0)
                    c.nics.push_back(h);
            }
            c.rings.push_back(ring);
        }
        spec.comms.push_back(std::move(c));
    }
    return spec;
}

namespace {

constexpr std::size_t kInsideRanksInText = 24; // a line's worth; --json lists every one

std::string ncclRankPlace(const NcclLogComm &c, int rank)
{
    const auto r = c.ranks.find(rank);
    if (r == c.ranks.end())
        return "rank " + std::to_string(rank);
    return "rank " + std::to_string(rank) + " (" + r->second.host + " GPU "
        + std::to_string(r->second.cudaDev) + ")";
}

std::string ncclHopText(const NcclLogComm &c, const NcclRingHop &h)
{
    std::string s = ncclRankPlace(c, h.src) + " -> " + ncclRankPlace(c, h.dst);
    if (!h.network)
        return s + " over NVLink";
    s += " over NIC " + std::to_string(h.srcNic) + " -> NIC " + std::to_string(h.dstNic);
    if (h.crossesRail)
        s += ", leaves its rail";
    if (h.reachesSpine)
        s += ", reaches a spine";
    return s;
}

nlohmann::json ncclHopJson(const NcclRingHop &h)
{
    return { { "src", h.src }, { "dst", h.dst }, { "network", h.network }, { "src_nic", h.srcNic },
        { "dst_nic", h.dstNic }, { "nic_logged", h.nicLogged }, { "crosses_rail", h.crossesRail },
        { "reaches_spine", h.reachesSpine } };
}

} // namespace

std::string ncclRingDiffText(
    const NcclLog &log, const std::vector<NcclCommDiff> &diffs, std::size_t hopsInText)
{
    std::string out;
    std::size_t named = 0, unnamed = 0;
    for (const NcclCommDiff &d : diffs) {
        const auto lc = std::find_if(log.comms.begin(), log.comms.end(),
            [&](const NcclLogComm &k) { return k.id == d.comm; });
        if (lc == log.comms.end())
            continue;
        const std::string who = "comm " + d.comm + (d.group.empty() ? "" : " (" + d.group + ")");
        if (!d.skipped.empty()) {
            out += who + ": rings not compared: " + d.skipped + "\n";
            continue;
        }
        out += who + ": " + std::to_string(d.sameChannels) + " of "
            + std::to_string(d.observedChannels) + " rings as the engine predicts ("
            + std::to_string(d.predictedChannels) + " predicted channels)\n";
        for (const NcclChannelDiff &cd : d.channels) {
            if (cd.same)
                continue;
            out += "  " + (cd.place.empty() ? std::string() : cd.place + ": ") + "channel "
                + std::to_string(cd.channel) + " differs from predicted channel "
                + std::to_string(cd.predicted) + " at " + std::to_string(cd.ranks.size())
                + (cd.ranks.size() == 1 ? " rank" : " ranks")
                + (cd.sameNetwork ? ", every network hop as predicted" : "")
                + (cd.reversed ? " (the same ring run the other way)" : "") + "; "
                + std::to_string(cd.spineHops) + " of its " + std::to_string(cd.networkHops)
                + " network hops reach a spine (predicted " + std::to_string(cd.predictedSpineHops)
                + ")\n";
            // Differences inside servers only reorder NVLink hops: named in one line.
            std::string inside;
            std::size_t insideCount = 0;
            for (std::size_t i = 0; i < cd.observed.size(); ++i)
                if (!cd.observed[i].network && !cd.expected[i].network
                    && ++insideCount <= kInsideRanksInText)
                    inside += (inside.empty() ? "" : ", ") + std::to_string(cd.ranks[i]);
            if (insideCount > kInsideRanksInText)
                inside += " and " + std::to_string(insideCount - kInsideRanksInText) + " more";
            if (!inside.empty())
                out += "    inside servers (no NIC involved), the next rank differs at ranks "
                    + inside + "\n";
            for (std::size_t i = 0; i < cd.observed.size(); ++i) {
                if (!cd.observed[i].network && !cd.expected[i].network)
                    continue;
                if (named >= hopsInText) {
                    ++unnamed;
                    continue;
                }
                ++named;
                out += "    NCCL " + ncclHopText(*lc, cd.observed[i]) + "; predicted "
                    + ncclHopText(*lc, cd.expected[i]) + "\n";
            }
        }
    }
    if (unnamed > 0)
        out += "  ... and " + std::to_string(unnamed)
            + " more differing network hops (--json lists them)\n";
    return out;
}

nlohmann::json ncclRingDiffJson(const std::vector<NcclCommDiff> &diffs)
{
    using nlohmann::json;
    json out = json::array();
    for (const NcclCommDiff &d : diffs) {
        json channels = json::array();
        for (const NcclChannelDiff &cd : d.channels) {
            json differing = json::array();
            for (std::size_t i = 0; i < cd.observed.size(); ++i)
                differing.push_back(
                    { { "rank", cd.ranks[i] }, { "observed", ncclHopJson(cd.observed[i]) },
                        { "predicted", ncclHopJson(cd.expected[i]) } });
            channels.push_back({ { "channel", cd.channel }, { "predicted_channel", cd.predicted },
                { "same", cd.same }, { "same_network", cd.sameNetwork },
                { "reversed", cd.reversed }, { "place", cd.place },
                { "network_hops", cd.networkHops }, { "cross_rail_hops", cd.crossRailHops },
                { "spine_hops", cd.spineHops }, { "predicted_spine_hops", cd.predictedSpineHops },
                { "differing_hops", differing } });
        }
        out.push_back({ { "comm", d.comm }, { "group", d.group }, { "nranks", d.nranks },
            { "observed_channels", d.observedChannels },
            { "predicted_channels", d.predictedChannels }, { "same_channels", d.sameChannels },
            { "skipped", d.skipped }, { "channels", channels } });
    }
    return out;
}

} // namespace railyard
