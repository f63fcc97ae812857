#include "studies/railaudit.h"

#include "cost/collectiveplanner.h"
#include "cost/costengine.h"
#include "cost/nccltuning.h"
#include "cost/partnerroutes.h"
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "studies/inference.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace railyard {

namespace {

constexpr std::size_t kLeavingKept = 8; // hops named per group: enough to see the pattern
constexpr int kGroupsListed = 4; // groups named per dimension in the text

std::string kindLabel(GroupKind kind)
{
    return std::string(groupKindName(kind));
}

std::string count(int n, const char *one, const char *many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// The slot-to-slot flows one group's traffic takes, as the engine plans it (see railaudit.h),
/// each marked true when it is a hop of an NCCL ring (where NCCL_CROSS_NIC decides the NICs).
using GroupFlows = std::map<std::pair<int, int>, bool>;

GroupFlows groupFlows(const CostEngine &engine, Router &router, GroupKind kind,
    const std::vector<int> &ranks, double nvlsEfficiency)
{
    const Mapping &mapping = engine.mapping();
    std::vector<int> slots;
    for (const int r : ranks)
        slots.push_back(mapping.slotOf(r));
    GroupFlows flows;
    const auto n = slots.size();
    switch (kind) {
    case GroupKind::Tp:
    case GroupKind::DpCp:
    case GroupKind::ExpertDp: {
        const Dim dim = kind == GroupKind::Tp ? Dim::Tp : Dim::Dp;
        const int stage = engine.layout().coord(ranks.front()).p;
        for (const PlanAlgorithm a : reportedAlgorithms(&engine.report(), dim, stage)) {
            // As the traffic model plans its patterns: PAT for all-gather, else all-reduce.
            const Collective op
                = a == PlanAlgorithm::Pat ? Collective::AllGather : Collective::AllReduce;
            const CollectivePlan plan
                = planCollective(a, op, slots, engine.fabric(), router, nvlsEfficiency);
            for (const PlannedFlow &f : plan.flows)
                if (f.src != f.dst)
                    flows[{ f.src, f.dst }] |= a == PlanAlgorithm::Ring;
        }
        break;
    }
    case GroupKind::Cp: // ring attention: the member-order ring
        for (std::size_t i = 0; i < n; ++i)
            flows.emplace(std::pair { slots[i], slots[(i + 1) % n] }, false);
        break;
    case GroupKind::Pp: // activations forward, gradients back, between adjacent stages
        for (std::size_t i = 0; i + 1 < n; ++i) {
            flows.emplace(std::pair { slots[i], slots[i + 1] }, false);
            flows.emplace(std::pair { slots[i + 1], slots[i] }, false);
        }
        break;
    default: // EP: all-to-all
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j)
                if (i != j)
                    flows.emplace(std::pair { slots[i], slots[j] }, false);
        break;
    }
    return flows;
}

bool reachesSpine(const Fabric &fabric, Router &router, int src, int dst)
{
    for (const RouteHop &h : router.route(src, dst)) {
        const Tier t = fabric.linkTier(h.link);
        if (t == Tier::Spine || t == Tier::SuperSpine)
            return true;
    }
    return false;
}

/// `src` -> `dst` classed by where it goes; `ranks`: name the ends by the job's ranks (false
/// for the KV hand-off, whose ends are named by their slots).
RailHop classify(
    const CostEngine &engine, Router &router, bool rails, int src, int dst, bool ranks = true)
{
    const Fabric &fabric = engine.fabric();
    RailHop hop;
    hop.srcSlot = src;
    hop.dstSlot = dst;
    hop.srcRank = ranks ? engine.mapping().rankAt(src) : -1;
    hop.dstRank = ranks ? engine.mapping().rankAt(dst) : -1;
    hop.srcServer = fabric.serverOfSlot(src);
    hop.dstServer = fabric.serverOfSlot(dst);
    hop.srcRail = fabric.railOfSlot(src);
    hop.dstRail = fabric.railOfSlot(dst);
    if (fabric.sameScaleUpDomain(src, dst)) {
        hop.path = RailPath::ScaleUp;
        return hop;
    }
    hop.reachesSpine = reachesSpine(fabric, router, src, dst);
    const bool sameRail = !rails || hop.srcRail == hop.dstRail;
    if (sameRail)
        hop.path = hop.reachesSpine ? RailPath::Spine : RailPath::Leaf;
    else if (fabric.spec().pxn || fabric.railOnly())
        hop.path = RailPath::Pxn; // over NVLink to the destination's rail first
    else
        hop.path = RailPath::CrossRail;
    return hop;
}

/**
 * A ring hop between servers as NCCL places its NICs under NCCL_CROSS_NIC (railaudit.h):
 * `sameRails`, both servers hold the group's members on the same rails (so both pick the same
 * NIC for a channel); `multiNic`, the group uses more than one NIC on a server.
 */
void applyCrossNic(
    const Fabric &fabric, Router &router, int crossNic, bool sameRails, bool multiNic, RailHop &hop)
{
    if (hop.path == RailPath::ScaleUp || hop.srcServer == hop.dstServer || fabric.railOnly())
        return;
    if (crossNic == 0 && sameRails && hop.srcRail != hop.dstRail) {
        // The channel leaves through the source server's NIC on the rail it entered on (the
        // destination's): reached inside the server, then one rail's network.
        const int first = hop.srcServer * fabric.gpusPerServer();
        for (int slot = first; slot < first + fabric.gpusPerServer(); ++slot) {
            if (fabric.railOfSlot(slot) != hop.dstRail)
                continue;
            hop.reachesSpine = reachesSpine(fabric, router, slot, hop.dstSlot);
            hop.path = hop.reachesSpine ? RailPath::Spine : RailPath::Pxn;
            return;
        }
    } else if (crossNic == 1 && multiNic && hop.path != RailPath::CrossRail) {
        // NCCL does not try to keep the rail: the hop may leave it, through a spine.
        hop.path = RailPath::CrossRail;
        hop.reachesSpine = true;
    }
}

std::string endText(int rank, int slot, int server, int rail)
{
    return (rank >= 0 ? "rank " + std::to_string(rank) : "GPU " + std::to_string(slot))
        + " (server " + std::to_string(server) + ", rail " + std::to_string(rail) + ")";
}

std::string hopText(const RailHop &h)
{
    return endText(h.srcRank, h.srcSlot, h.srcServer, h.srcRail) + " -> "
        + endText(h.dstRank, h.dstSlot, h.dstServer, h.dstRail);
}

std::string dimVerdict(const RailAuditDim &d, bool pxn, bool rails)
{
    const int network = d.flows[index(RailPath::Leaf)] + d.flows[index(RailPath::Pxn)]
        + d.flows[index(RailPath::Spine)] + d.flows[index(RailPath::CrossRail)];
    const std::string who = d.name + ": ";
    const std::string groups = count(d.groups, "group", "groups");
    if (network == 0)
        return who + "all " + groups + " stay inside one NVLink domain; no network traffic.";
    if (d.groupsViaSpine == 0) {
        std::string v = who + "every network hop stays on its rail's leaf ("
            + count(d.flows[index(RailPath::Leaf)], "hop", "hops");
        if (d.flows[index(RailPath::Pxn)] > 0)
            v += ", and "
                + count(d.flows[index(RailPath::Pxn)], "cross-rail hop", "cross-rail hops")
                + " moved onto the destination's rail over NVLink"
                + (pxn ? " by PXN" : " (rail-only fabric)");
        return v + " over " + groups + "): the spine is not needed.";
    }
    std::string v = who + std::to_string(d.groupsViaSpine) + " of " + groups + " reach a spine:";
    if (d.flows[index(RailPath::CrossRail)] > 0)
        v += " "
            + count(d.flows[index(RailPath::CrossRail)], "hop leaves its rail",
                "hops leave their rails");
    if (d.flows[index(RailPath::Spine)] > 0)
        v += std::string(d.flows[index(RailPath::CrossRail)] > 0 ? ";" : "") + " "
            + (rails ? count(d.flows[index(RailPath::Spine)], "same-rail hop", "same-rail hops")
                        + " join servers under different leaves (another scalable unit or pod)"
                     : count(d.flows[index(RailPath::Spine)], "hop joins", "hops join")
                        + " servers under different top-of-rack leaves");
    return v + ".";
}

} // namespace

std::string_view railPathName(RailPath path)
{
    switch (path) {
    case RailPath::ScaleUp:
        return "scale_up";
    case RailPath::Leaf:
        return "leaf";
    case RailPath::Pxn:
        return "pxn";
    case RailPath::Spine:
        return "spine";
    default:
        return "cross_rail";
    }
}

namespace {

/// Classes one group's flows into `group` (its ranks or slots set by the caller).
void auditFlows(const CostEngine &engine, Router &router, const RailAudit &audit,
    const GroupFlows &flows, bool ranks, RailAuditGroup &group)
{
    const Fabric &fabric = engine.fabric();
    std::map<int, std::set<int>> railsByServer;
    std::map<int, int> perServer;
    std::set<int> rails;
    const auto member = [&](int slot) {
        railsByServer[fabric.serverOfSlot(slot)].insert(fabric.railOfSlot(slot));
        rails.insert(fabric.railOfSlot(slot));
    };
    if (ranks) {
        for (const int r : group.ranks) {
            const int slot = engine.mapping().slotOf(r);
            ++perServer[fabric.serverOfSlot(slot)];
            member(slot);
        }
    } else {
        std::set<int> slots;
        for (const auto &[flow, ring] : flows)
            slots.insert({ flow.first, flow.second });
        for (const int slot : slots) {
            ++perServer[fabric.serverOfSlot(slot)];
            member(slot);
        }
    }
    group.rails.assign(rails.begin(), rails.end());
    group.servers = static_cast<int>(perServer.size());
    for (const auto &[server, n] : perServer)
        group.unevenServers = group.unevenServers || n != perServer.begin()->second;
    for (const auto &[flow, ring] : flows) {
        RailHop hop = classify(engine, router, audit.railOptimised, flow.first, flow.second, ranks);
        if (ring && audit.railOptimised && hop.srcServer != hop.dstServer) {
            const std::set<int> &a = railsByServer[hop.srcServer];
            const std::set<int> &b = railsByServer[hop.dstServer];
            applyCrossNic(
                fabric, router, audit.crossNic, a == b, a.size() > 1 || b.size() > 1, hop);
        }
        ++group.flows[index(hop.path)];
        group.reachesSpine = group.reachesSpine || hop.reachesSpine;
        if (hop.path == RailPath::CrossRail || hop.path == RailPath::Pxn)
            group.railAligned = false;
        if (hop.path == RailPath::CrossRail || hop.path == RailPath::Spine) {
            ++group.leavingCount;
            if (group.leaving.size() < kLeavingKept)
                group.leaving.push_back(hop);
        }
    }
}

/// Adds `group` to `dim`'s figures and `audit.groups`; counts single-rail groups.
void addGroup(RailAudit &audit, RailAuditDim &dim, RailAuditGroup &&group,
    std::set<int> &singleRails, int &singleRailGroups)
{
    ++dim.groups;
    for (int p = 0; p < kRailPathCount; ++p)
        dim.flows[p] += group.flows[p];
    const bool network = group.servers > 1;
    if (group.reachesSpine)
        ++dim.groupsViaSpine;
    else if (network)
        ++dim.groupsOnRail;
    if (network && group.rails.size() == 1 && !group.reachesSpine) {
        ++singleRailGroups;
        singleRails.insert(group.rails.front());
    }
    audit.groups.push_back(std::move(group));
}

/// The dimension's verdict, its corner-case notes and its reason for the spine, all from the
/// figures of its groups.
void finishDim(
    RailAudit &audit, RailAuditDim &&dim, const std::set<int> &singleRails, int singleRailGroups)
{
    dim.verdict = dimVerdict(dim, audit.pxn, audit.railOptimised);
    if (audit.railOptimised && singleRails.size() > 1)
        audit.notes.push_back(dim.name + ": " + std::to_string(singleRailGroups)
            + " groups each keep to one rail, on " + std::to_string(singleRails.size())
            + " different rails: communicators on disjoint rails never meet, so none of "
              "them needs the spine.");
    for (const RailAuditGroup &g : audit.groups) {
        if (g.name != dim.name || g.flows[index(RailPath::CrossRail)] == 0)
            continue;
        std::string why = dim.name + " group " + std::to_string(g.index);
        if (audit.crossNic == 1 && g.rails.size() > 1) {
            why += " uses " + std::to_string(g.rails.size())
                + " NICs per server and NCCL_CROSS_NIC=1 lets NCCL pair different NICs between "
                  "servers, so its ring hops may leave their rails (NCCL_CROSS_NIC=0 or 2 keeps "
                  "them on one)";
        } else {
            why += " is not rail-aligned (its members' NICs are on rails";
            for (const int r : g.rails)
                why += " " + std::to_string(r);
            why += ")";
            if (g.unevenServers)
                why += " and its servers hold unequal member counts, so no ring order keeps "
                       "every inter-server hop on one rail";
            else if (audit.crossNic == 2 && g.servers % 2 == 1 && g.rails.size() > 1)
                why += ", or its ring closes over an odd number of servers ("
                    + std::to_string(g.servers)
                    + "): NCCL's alternating rings (NCCL_CROSS_NIC=2) then leave the rail once "
                      "per ring, which NCCL_CROSS_NIC=0 avoids";
        }
        audit.notes.push_back(why + ": e.g. " + hopText(g.leaving.front()) + ".");
        break; // one example per dimension
    }
    if (dim.groupsViaSpine > 0) {
        std::string reason = dim.name + " (";
        const int cross = dim.flows[index(RailPath::CrossRail)];
        const int spine = dim.flows[index(RailPath::Spine)];
        if (cross > 0)
            reason += count(cross, "hop between rails", "hops between rails")
                + (audit.pxn ? "" : ", without PXN");
        if (spine > 0)
            reason += std::string(cross > 0 ? "; " : "")
                + (audit.railOptimised
                        ? count(spine, "same-rail hop", "same-rail hops")
                            + " between scalable units"
                        : count(spine, "hop", "hops") + " between top-of-rack leaves");
        audit.spineNeededFor.push_back(reason + ")");
    }
    audit.dims.push_back(std::move(dim));
}

} // namespace

RailAudit railAudit(const CostEngine &engine, const RailAuditOptions &options)
{
    RailAudit audit;
    const Fabric &fabric = engine.fabric();
    const ParallelLayout &layout = engine.layout();
    const ParallelDegrees &deg = layout.degrees();
    const Scenario &s = engine.scenario();
    audit.crossNic = options.crossNic;
    audit.pxn = fabric.spec().pxn;
    audit.railOptimised = fabric.spec().kind != FabricKind::Tor;
    const double nvls
        = nccltuning::deviceTuning(s.device, s.collectives, s.calibration).nvlsEfficiency;
    Router &router = *engine.sharedRouter();

    std::vector<GroupKind> kinds;
    if (deg.tp > 1)
        kinds.push_back(GroupKind::Tp);
    if (deg.dp > 1 || deg.cp > 1)
        kinds.push_back(GroupKind::DpCp); // the gradient sync (TrafficModel's dp-cp group)
    if (deg.cp > 1)
        kinds.push_back(GroupKind::Cp);
    if (deg.pp > 1)
        kinds.push_back(GroupKind::Pp);
    if (deg.ep > 1) {
        kinds.push_back(GroupKind::Ep);
        kinds.push_back(GroupKind::ExpertDp);
    }

    for (const GroupKind kind : kinds) {
        RailAuditDim dim;
        dim.kind = kind;
        dim.name = kindLabel(kind);
        const auto &all = layout.groups(kind);
        std::set<int> singleRails;
        int singleRailGroups = 0;
        for (std::size_t g = 0; g < all.size(); ++g) {
            if (all[g].size() < 2)
                continue;
            RailAuditGroup group;
            group.name = dim.name;
            group.kind = kind;
            group.index = static_cast<int>(g);
            group.ranks = toVector(all[g]);
            auditFlows(engine, router, audit, groupFlows(engine, router, kind, group.ranks, nvls),
                true, group);
            addGroup(audit, dim, std::move(group), singleRails, singleRailGroups);
        }
        if (dim.groups > 0)
            finishDim(audit, std::move(dim), singleRails, singleRailGroups);
    }

    // The KV hand-off of a disaggregated inference scenario: one group per replica pair.
    if (s.inference) {
        RailAuditDim dim;
        dim.name = "kv";
        std::set<int> singleRails;
        int singleRailGroups = 0;
        for (const KvPair &pair : kvTransferPairs(s, fabric)) {
            RailAuditGroup group;
            group.name = dim.name;
            group.index = dim.groups;
            GroupFlows flows;
            for (const auto &f : pair.slots)
                if (f.first != f.second)
                    flows.emplace(f, false); // point-to-point sends, not NCCL rings
            auditFlows(engine, router, audit, flows, false, group);
            addGroup(audit, dim, std::move(group), singleRails, singleRailGroups);
        }
        if (dim.groups > 0)
            finishDim(audit, std::move(dim), singleRails, singleRailGroups);
    }

    if (audit.spineNeededFor.empty()) {
        audit.verdict = "No traffic needs the spine: every communicator stays on its rail's leaf "
                        "or inside its NVLink domain.";
    } else {
        audit.verdict = "The spine is needed for ";
        for (std::size_t i = 0; i < audit.spineNeededFor.size(); ++i)
            audit.verdict += (i == 0                                        ? ""
                                     : i + 1 == audit.spineNeededFor.size() ? " and "
                                                                            : ", ")
                + audit.spineNeededFor[i];
        audit.verdict += ".";
    }
    return audit;
}

nlohmann::json railAuditJson(const RailAudit &audit)
{
    using nlohmann::json;
    const auto hops = [](const int(&flows)[kRailPathCount]) {
        json j = json::object();
        for (int p = 0; p < kRailPathCount; ++p)
            j[std::string(railPathName(static_cast<RailPath>(p)))] = flows[p];
        return j;
    };
    const auto hopJson = [](const RailHop &h) {
        return json { { "src_rank", h.srcRank }, { "dst_rank", h.dstRank },
            { "src_gpu", h.srcSlot }, { "dst_gpu", h.dstSlot }, { "src_server", h.srcServer },
            { "dst_server", h.dstServer }, { "src_rail", h.srcRail }, { "dst_rail", h.dstRail },
            { "path", std::string(railPathName(h.path)) } };
    };
    json dims = json::array();
    for (const RailAuditDim &d : audit.dims)
        dims.push_back({ { "kind", d.name }, { "groups", d.groups },
            { "groups_on_rail", d.groupsOnRail }, { "groups_via_spine", d.groupsViaSpine },
            { "hops", hops(d.flows) }, { "verdict", d.verdict } });
    json groups = json::array();
    for (const RailAuditGroup &g : audit.groups) {
        if (g.leavingCount == 0)
            continue;
        json leaving = json::array();
        for (const RailHop &h : g.leaving)
            leaving.push_back(hopJson(h));
        groups.push_back({ { "kind", g.name }, { "index", g.index }, { "ranks", g.ranks },
            { "rails", g.rails }, { "servers", g.servers }, { "rail_aligned", g.railAligned },
            { "uneven_servers", g.unevenServers }, { "hops", hops(g.flows) },
            { "hops_off_rail", g.leavingCount }, { "examples", leaving } });
    }
    return { { "verdict", audit.verdict }, { "cross_nic", audit.crossNic }, { "pxn", audit.pxn },
        { "rails", audit.railOptimised }, { "spine_needed_for", audit.spineNeededFor },
        { "notes", audit.notes }, { "dims", dims }, { "groups_off_rail", groups } };
}

std::string railAuditText(const RailAudit &audit)
{
    std::string out = audit.verdict + "\n";
    out += std::string("NCCL_CROSS_NIC=") + std::to_string(audit.crossNic) + ", PXN "
        + (audit.pxn ? "on" : "off")
        + (audit.railOptimised ? "" : "; the fabric has no rails (top-of-rack leaves)") + "\n";
    for (const RailAuditDim &d : audit.dims) {
        out += "\n" + d.verdict + "\n";
        out += "  hops:";
        for (int p = 0; p < kRailPathCount; ++p)
            out += " " + std::string(railPathName(static_cast<RailPath>(p))) + " "
                + std::to_string(d.flows[p]);
        out += "\n";
        int listed = 0, more = 0;
        for (const RailAuditGroup &g : audit.groups) {
            if (g.name != d.name || g.leavingCount == 0)
                continue;
            if (listed == kGroupsListed) {
                ++more;
                continue;
            }
            ++listed;
            out += "  group " + std::to_string(g.index) + " ("
                + count(g.servers, "server", "servers")
                + "): " + count(g.leavingCount, "hop leaves", "hops leave")
                + " its rail's leaf, e.g. " + hopText(g.leaving.front()) + "\n";
        }
        if (more > 0)
            out += "  and " + count(more, "more group", "more groups") + " (--json lists them)\n";
    }
    if (!audit.notes.empty()) {
        out += "\n";
        for (const std::string &n : audit.notes)
            out += "note: " + n + "\n";
    }
    return out;
}

} // namespace railyard
