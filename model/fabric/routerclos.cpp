// The router's folded-Clos fast path: every route segment of a generated (or regularly cabled)
// rail-optimised or ToR fabric built in one pass over the switch links.
//
// router.cpp explains the route parts (leaf -> spines, spines -> super-spines, and with four
// tiers super-spines -> cores -> super-spines, super-spines -> spines, spines -> leaf) and why
// per-hop ECMP factorises over them in a folded Clos (Al-Fares et al., "A Scalable, Commodity Data
// Center Network Architecture", SIGCOMM 2008, section 3.3). Filling those parts by an ECMP sweep
// per leaf pair costs a sweep over a pod's spine-to-super-spine links for each of the ~4 x leaves
// parts, which made routing quadratic in the fabric (14 s of a 131,072-GPU evaluation). Here each
// part is computed from the switch links directly, with the shares the sweep gives: a switch splits
// the flow it holds evenly over its equal-cost next hops.
#include "fabric/router.h"

#include <algorithm>

namespace railyard {

bool Router::isFoldedClos() const
{
    // The factorised parts equal the sweep when every leaf is cabled to every spine of its pod
    // and to nothing else, spines reach no spine and only their own pod's leaves, every pod
    // has spines, and - with several pods - every spine has a super-spine and every
    // super-spine reaches every pod of its zone's spines only (and, with four tiers, cores);
    // every core reaches super-spines of every zone only. Anything else takes the sweep per
    // leaf pair.
    const int switches = static_cast<int>(m_switchKind.size());
    const int pods = std::max(1, m_fabric.podCount());
    const int zones = std::max(1, m_fabric.zoneCount());
    std::vector<int> spinesInPod(sz(pods), 0);
    std::vector<int> podZone(sz(pods), -1);
    std::vector<int> podsInZone(sz(zones), 0);
    for (int v = 0; v < switches; ++v) {
        if (!closSwitch(v))
            continue;
        const NodeKind kind = m_switchKind[sz(v)];
        const int pod = m_switchPod[sz(v)];
        const int zone = m_switchZone[sz(v)];
        if ((kind == NodeKind::Leaf || kind == NodeKind::Spine) && pod >= pods)
            return false;
        if (kind != NodeKind::Core && zone >= zones)
            return false;
        if (kind == NodeKind::Spine) {
            ++spinesInPod[sz(pod)];
            if (podZone[sz(pod)] < 0) {
                podZone[sz(pod)] = zone;
                ++podsInZone[sz(zone)];
            } else if (podZone[sz(pod)] != zone) {
                return false;
            }
        }
    }
    if (std::find(spinesInPod.begin(), spinesInPod.end(), 0) != spinesInPod.end())
        return false;
    std::vector<int> seen(sz(switches), -1); // the last switch whose links reached it
    std::vector<int> podSeen(sz(pods), -1);
    std::vector<int> zoneSeen(sz(zones), -1);
    for (int u = 0; u < switches; ++u) {
        if (!closSwitch(u))
            continue;
        const NodeKind kind = m_switchKind[sz(u)];
        const int pod = m_switchPod[sz(u)];
        const int zone = m_switchZone[sz(u)];
        int spines = 0, supers = 0, cores = 0, podsReached = 0, zonesReached = 0;
        for (int i = m_adjOffset[sz(u)]; i < m_adjOffset[sz(u) + 1]; ++i) {
            const int v = m_adj[sz(i)].first;
            const NodeKind to = m_switchKind[sz(v)];
            const int toPod = m_switchPod[sz(v)];
            const int toZone = m_switchZone[sz(v)];
            if ((kind == NodeKind::Leaf && (to != NodeKind::Spine || toPod != pod))
                || (kind == NodeKind::Spine && (to == NodeKind::Spine || to == NodeKind::Core))
                || (kind == NodeKind::Spine && to == NodeKind::Leaf && toPod != pod)
                || (kind == NodeKind::Spine && to == NodeKind::SuperSpine && toZone != zone)
                || (kind == NodeKind::SuperSpine
                    && (to == NodeKind::Leaf || to == NodeKind::SuperSpine
                        || (to == NodeKind::Spine && toZone != zone)))
                || (kind == NodeKind::Core && to != NodeKind::SuperSpine))
                return false;
            if (seen[sz(v)] == u)
                continue; // another cable of a bundle to the same switch
            seen[sz(v)] = u;
            spines += to == NodeKind::Spine;
            supers += to == NodeKind::SuperSpine;
            cores += to == NodeKind::Core;
            if (to == NodeKind::Spine && podSeen[sz(toPod)] != u) {
                podSeen[sz(toPod)] = u;
                ++podsReached;
            }
            if (to == NodeKind::SuperSpine && zoneSeen[sz(toZone)] != u) {
                zoneSeen[sz(toZone)] = u;
                ++zonesReached;
            }
        }
        if (kind == NodeKind::Leaf && spines != spinesInPod[sz(pod)])
            return false;
        if (kind == NodeKind::Spine && pods > 1 && supers == 0)
            return false;
        if (kind == NodeKind::SuperSpine
            && (podsReached != podsInZone[sz(zone)] || (zones > 1) != (cores > 0)))
            return false;
        if (kind == NodeKind::Core && zonesReached != zones)
            return false;
    }
    return true;
}

std::size_t Router::closArenaHops() const
{
    // One hop per push of buildClosSegments() below, by the kinds of the link's ends: a leaf's
    // uplinks once (its part up), a spine's links to super-spines once (per source pod) and to a
    // leaf once per reach, a super-spine's to cores once and to spines once per source (another
    // pod, another zone), a core's to super-spines once; `planes` hops a push with planes merged.
    const int pods = std::max(1, m_fabric.podCount());
    const std::size_t reaches = pods == 1 ? 1 : m_fourTier ? 3 : 2;
    const std::size_t sources = m_fourTier ? 2 : 1;
    const int switches = static_cast<int>(m_switchKind.size());
    std::size_t hops = 0;
    for (int u = 0; u < switches; ++u) {
        if (!closSwitch(u))
            continue;
        const NodeKind from = m_switchKind[sz(u)];
        for (int i = m_adjOffset[sz(u)]; i < m_adjOffset[sz(u) + 1]; ++i) {
            const NodeKind to = m_switchKind[sz(m_adj[sz(i)].first)];
            if (from == NodeKind::Leaf && to == NodeKind::Spine)
                hops += 1;
            else if (from == NodeKind::Spine && to == NodeKind::Leaf)
                hops += reaches;
            else if (from == NodeKind::Spine && to == NodeKind::SuperSpine && pods > 1)
                hops += 1;
            else if (from == NodeKind::SuperSpine && to == NodeKind::Spine && pods > 1)
                hops += sources;
            else if (m_fourTier
                && ((from == NodeKind::SuperSpine && to == NodeKind::Core)
                    || (from == NodeKind::Core && to == NodeKind::SuperSpine)))
                hops += 1;
        }
    }
    if (!m_planesMerged)
        return hops;
    const auto planes = static_cast<std::size_t>(m_fabric.planeCount());
    const auto nics = static_cast<std::size_t>(m_fabric.servers() * m_fabric.nicsPerServer());
    return hops * planes + 2 * nics * planes;
}

void Router::buildClosSegments()
{
    // With planes merged, plane 0's leaves (the first of the plane-major list) and switches.
    const int leaves = m_planesMerged ? m_fabric.leavesPerPlane() : m_fabric.leafCount();
    const int pods = std::max(1, m_fabric.podCount());
    const int zones = std::max(1, m_fabric.zoneCount());
    const int switches = static_cast<int>(m_switchKind.size());
    const auto entries = [this](int u) { return m_adjOffset[sz(u) + 1] - m_adjOffset[sz(u)]; };
    const auto begin
        = [this](Segment &seg) { seg.offset = static_cast<std::uint32_t>(m_arena.size()); };
    const auto push
        = [this](Segment &seg, int u, int i, double share) { pushHop(seg, u, i, share); };
    const auto end = [this](Segment &seg) { finishSegment(seg); };
    const auto kindOf = [this](int v) { return m_switchKind[sz(v)]; };

    // The switches by pod (spines) and zone (super-spines), in index order.
    std::vector<std::vector<int>> spinesOf(sz(pods)), supersOf(sz(zones));
    std::vector<int> cores;
    for (int v = 0; v < switches; ++v) {
        if (!closSwitch(v))
            continue;
        if (kindOf(v) == NodeKind::Spine)
            spinesOf[sz(m_switchPod[sz(v)])].push_back(v);
        else if (kindOf(v) == NodeKind::SuperSpine)
            supersOf[sz(m_switchZone[sz(v)])].push_back(v);
        else if (kindOf(v) == NodeKind::Core)
            cores.push_back(v);
    }
    // Per zone its first two pods: a pod's traffic from "another pod of the zone" is taken as the
    // first's (the second's for the first itself); every pod of a zone splits alike
    // (isFoldedClos()). Zones likewise for traffic from another zone.
    std::vector<int> podZone(sz(pods), 0);
    std::vector<std::array<int, 2>> zonePods(sz(zones), { -1, -1 });
    for (int pod = 0; pod < pods; ++pod) {
        if (spinesOf[sz(pod)].empty())
            continue;
        const int zone = m_switchZone[sz(spinesOf[sz(pod)].front())];
        podZone[sz(pod)] = zone;
        std::array<int, 2> &first = zonePods[sz(zone)];
        if (first[0] < 0)
            first[0] = pod;
        else if (first[1] < 0)
            first[1] = pod;
    }

    // Leaf -> spines: the leaf splits evenly over its uplinks, whether the destination is in
    // the pod (all its spines reach that leaf) or not (all of them reach the super-spines).
    for (int a = 0; a < leaves; ++a) {
        Segment &seg = m_spineUp[0][sz(a)];
        begin(seg);
        const double share = 1.0 / entries(a);
        for (int i = m_adjOffset[sz(a)]; i < m_adjOffset[sz(a) + 1]; ++i)
            push(seg, a, i, share);
        end(seg);
        m_spineUp[1][sz(a)] = seg; // the same hops (shared in the arena)
    }

    // The flow each spine holds when a leaf's traffic leaves it: per pod, from its first leaf
    // (every leaf of a pod splits alike, isFoldedClos()).
    std::vector<int> firstLeaf(sz(pods), -1);
    for (int a = leaves - 1; a >= 0; --a) // plane 0's leaves with planes merged
        firstLeaf[sz(m_leafPod[sz(a)])] = a;
    std::vector<double> spineFlow(sz(switches), 0.0);
    for (int pod = 0; pod < pods; ++pod) {
        const int a = firstLeaf[sz(pod)];
        if (a < 0)
            continue;
        const double share = 1.0 / entries(a);
        for (int i = m_adjOffset[sz(a)]; i < m_adjOffset[sz(a) + 1]; ++i)
            spineFlow[sz(m_adj[sz(i)].first)] += share;
    }

    // Spines -> super-spines per source pod: each spine splits its flow over its uplinks. The
    // super-spines' flow from their zone's first pod (from its second pod, for the first pod's
    // own downward part) feeds the way down and up to the cores.
    std::vector<double> superFlowFirst(sz(switches), 0.0), superFlowSecond(sz(switches), 0.0);
    if (pods > 1) {
        for (int pod = 0; pod < pods; ++pod) {
            const std::array<int, 2> &rep = zonePods[sz(podZone[sz(pod)])];
            Segment &seg = m_superUp[sz(pod)];
            begin(seg);
            for (const int j : spinesOf[sz(pod)]) {
                int up = 0;
                for (int i = m_adjOffset[sz(j)]; i < m_adjOffset[sz(j) + 1]; ++i)
                    up += kindOf(m_adj[sz(i)].first) == NodeKind::SuperSpine;
                const double share = spineFlow[sz(j)] / up;
                for (int i = m_adjOffset[sz(j)]; i < m_adjOffset[sz(j) + 1]; ++i) {
                    const int s = m_adj[sz(i)].first;
                    if (kindOf(s) != NodeKind::SuperSpine)
                        continue;
                    push(seg, j, i, share);
                    if (pod == rep[0])
                        superFlowFirst[sz(s)] += share;
                    else if (pod == rep[1])
                        superFlowSecond[sz(s)] += share;
                }
            }
            end(seg);
        }
    }

    // Four tiers: super-spines -> cores per source zone (from the zone's first pod), and
    // cores -> super-spines per destination zone (the cores' flow from zone 0, from zone 1 for
    // zone 0 itself); what a zone's super-spines receive goes on down to its pods.
    std::vector<double> superArriving(sz(switches), 0.0); // per super-spine, from other zones
    if (m_fourTier) {
        std::vector<double> coreFlowFrom0(sz(switches), 0.0), coreFlowFrom1(sz(switches), 0.0);
        for (int zone = 0; zone < zones; ++zone) {
            Segment &seg = m_coreUp[sz(zone)];
            begin(seg);
            for (const int s : supersOf[sz(zone)]) {
                int up = 0;
                for (int i = m_adjOffset[sz(s)]; i < m_adjOffset[sz(s) + 1]; ++i)
                    up += kindOf(m_adj[sz(i)].first) == NodeKind::Core;
                const double share = superFlowFirst[sz(s)] / up;
                for (int i = m_adjOffset[sz(s)]; i < m_adjOffset[sz(s) + 1]; ++i) {
                    const int c = m_adj[sz(i)].first;
                    if (kindOf(c) != NodeKind::Core)
                        continue;
                    push(seg, s, i, share);
                    if (zone == 0)
                        coreFlowFrom0[sz(c)] += share;
                    else if (zone == 1)
                        coreFlowFrom1[sz(c)] += share;
                }
            }
            end(seg);
        }
        for (int zone = 0; zone < zones; ++zone) {
            const std::vector<double> &flow = zone == 0 ? coreFlowFrom1 : coreFlowFrom0;
            Segment &seg = m_coreDown[sz(zone)];
            begin(seg);
            for (const int c : cores) {
                int down = 0;
                for (int i = m_adjOffset[sz(c)]; i < m_adjOffset[sz(c) + 1]; ++i)
                    down += m_switchZone[sz(m_adj[sz(i)].first)] == zone;
                for (int i = m_adjOffset[sz(c)]; i < m_adjOffset[sz(c) + 1]; ++i) {
                    const int s = m_adj[sz(i)].first;
                    if (m_switchZone[sz(s)] != zone)
                        continue;
                    push(seg, c, i, flow[sz(c)] / down);
                    superArriving[sz(s)] += flow[sz(c)] / down;
                }
            }
            end(seg);
        }
    }

    // Super-spines -> spines per destination pod: each super-spine of the pod's zone splits its
    // flow over its links into that pod; what the pod's spines receive goes on down to the leaf.
    // [0]: from another pod of the zone; [1]: from another zone (four tiers).
    std::array<std::vector<double>, 2> arriving; // per spine
    arriving[0].assign(sz(switches), 0.0);
    if (m_fourTier)
        arriving[1].assign(sz(switches), 0.0);
    // Each super-spine's links down, by destination pod, in the order of the super-spines and
    // their links (one pass over the links, not one per pod).
    std::vector<std::vector<std::pair<int, int>>> downOf(sz(pods)); // (super-spine, adjacency)
    for (int zone = 0; pods > 1 && zone < zones; ++zone)
        for (const int s : supersOf[sz(zone)])
            for (int i = m_adjOffset[sz(s)]; i < m_adjOffset[sz(s) + 1]; ++i)
                if (const int j = m_adj[sz(i)].first; kindOf(j) == NodeKind::Spine)
                    downOf[sz(m_switchPod[sz(j)])].emplace_back(s, i);
    for (int from = 0; from < (m_fourTier ? 2 : 1); ++from) {
        for (int pod = 0; pods > 1 && pod < pods; ++pod) {
            const std::array<int, 2> &rep = zonePods[sz(podZone[sz(pod)])];
            const std::vector<double> &flow = from == 1 ? superArriving
                : pod == rep[0]                         ? superFlowSecond
                                                        : superFlowFirst;
            Segment &seg = m_superDown[sz(from)][sz(pod)];
            begin(seg);
            const std::vector<std::pair<int, int>> &links = downOf[sz(pod)];
            for (std::size_t first = 0; first < links.size();) {
                // A super-spine's links into the pod are consecutive: its flow splits over them.
                const int s = links[first].first;
                std::size_t last = first;
                while (last < links.size() && links[last].first == s)
                    ++last;
                const double share = flow[sz(s)] / static_cast<double>(last - first);
                for (std::size_t k = first; k < last; ++k) {
                    push(seg, s, links[k].second, share);
                    arriving[sz(from)][sz(m_adj[sz(links[k].second)].first)] += share;
                }
                first = last;
            }
            end(seg);
        }
    }

    // Spines -> leaf: the spine's links to that leaf, per leaf (one pass over the spines'
    // links). Within the pod a spine holds what the source leaf gave it; from another pod or
    // zone, what the super-spines delivered.
    std::vector<std::vector<std::pair<int, int>>> downLinks(sz(leaves)); // (spine, adjacency)
    for (int j = 0; j < switches; ++j) {
        if (kindOf(j) != NodeKind::Spine || !closSwitch(j))
            continue;
        for (int i = m_adjOffset[sz(j)]; i < m_adjOffset[sz(j) + 1]; ++i)
            if (const int b = m_adj[sz(i)].first; kindOf(b) == NodeKind::Leaf)
                downLinks[sz(b)].emplace_back(j, i);
    }
    const int variants = pods == 1 ? 1 : m_fourTier ? 3 : 2;
    std::vector<int> cables; // per entry of a leaf's list: the cables of its spine to the leaf
    for (int b = 0; b < leaves; ++b) {
        const std::vector<std::pair<int, int>> &in = downLinks[sz(b)];
        // A spine's cables to the leaf are consecutive (one spine's links at a time, above).
        cables.assign(in.size(), 0);
        for (std::size_t first = 0; first < in.size();) {
            std::size_t last = first;
            while (last < in.size() && in[last].first == in[first].first)
                ++last;
            std::fill(cables.begin() + static_cast<std::ptrdiff_t>(first),
                cables.begin() + static_cast<std::ptrdiff_t>(last), static_cast<int>(last - first));
            first = last;
        }
        for (int k = 0; k < variants; ++k) {
            Segment &seg = m_spineDown[sz(k)][sz(b)];
            begin(seg);
            for (std::size_t e = 0; e < in.size(); ++e) {
                const auto [j, i] = in[e];
                // Within the pod: the source leaf's split (1 / its uplinks per cable to j).
                const double within = static_cast<double>(cables[e]) / entries(b);
                push(seg, j, i, (k == 0 ? within : arriving[sz(k - 1)][sz(j)]) / cables[e]);
            }
            end(seg);
        }
    }
}

} // namespace railyard
