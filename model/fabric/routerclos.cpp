// The router's folded-Clos fast path: every route segment of a generated (or regularly cabled)
// rail-optimised or ToR fabric built in one pass over the switch links.
//
// router.cpp explains the four route parts (leaf -> spines, spines -> super-spines,
// super-spines -> spines, spines -> leaf) and why per-hop ECMP factorises over them in a
// folded Clos (Al-Fares et al., "A Scalable, Commodity Data Center Network Architecture",
// SIGCOMM 2008, section 3.3). Filling those parts by an ECMP sweep per leaf pair costs a sweep
// over a pod's spine-to-super-spine links for each of the ~4 x leaves parts, which made routing
// quadratic in the fabric (14 s of a 131,072-GPU evaluation). Here each part is computed from
// the switch links directly, with the shares the sweep gives: a switch splits the flow it
// holds evenly over its equal-cost next hops.
#include "fabric/router.h"

#include <algorithm>

namespace railyard {

bool Router::isFoldedClos() const
{
    // The factorised parts equal the sweep when every leaf is cabled to every spine of its pod
    // and to nothing else, spines reach no spine and only their own pod's leaves, every pod
    // has spines, and - with several pods - every spine has a super-spine and every
    // super-spine reaches every pod's spines only. Anything else takes the sweep per leaf pair.
    const int switches = static_cast<int>(m_switchKind.size());
    const int pods = std::max(1, m_fabric.podCount());
    std::vector<int> spinesInPod(sz(pods), 0);
    for (int v = 0; v < switches; ++v) {
        const int pod = m_switchPod[sz(v)];
        if (m_switchKind[sz(v)] != NodeKind::SuperSpine && pod >= pods)
            return false;
        if (m_switchKind[sz(v)] == NodeKind::Spine)
            ++spinesInPod[sz(pod)];
    }
    if (std::find(spinesInPod.begin(), spinesInPod.end(), 0) != spinesInPod.end())
        return false;
    std::vector<int> seen(sz(switches), -1); // the last switch whose links reached it
    std::vector<int> podSeen(sz(pods), -1);
    for (int u = 0; u < switches; ++u) {
        const NodeKind kind = m_switchKind[sz(u)];
        const int pod = m_switchPod[sz(u)];
        int spines = 0, supers = 0, podsReached = 0;
        for (int i = m_adjOffset[sz(u)]; i < m_adjOffset[sz(u) + 1]; ++i) {
            const int v = m_adj[sz(i)].first;
            const NodeKind to = m_switchKind[sz(v)];
            const int toPod = m_switchPod[sz(v)];
            if ((kind == NodeKind::Leaf && (to != NodeKind::Spine || toPod != pod))
                || (kind == NodeKind::Spine && to == NodeKind::Spine)
                || (kind == NodeKind::Spine && to == NodeKind::Leaf && toPod != pod)
                || (kind == NodeKind::SuperSpine && to != NodeKind::Spine))
                return false;
            if (seen[sz(v)] == u)
                continue; // another cable of a bundle to the same switch
            seen[sz(v)] = u;
            spines += to == NodeKind::Spine;
            supers += to == NodeKind::SuperSpine;
            if (to == NodeKind::Spine && podSeen[sz(toPod)] != u) {
                podSeen[sz(toPod)] = u;
                ++podsReached;
            }
        }
        if (kind == NodeKind::Leaf && spines != spinesInPod[sz(pod)])
            return false;
        if (kind == NodeKind::Spine && pods > 1 && supers == 0)
            return false;
        if (kind == NodeKind::SuperSpine && podsReached != pods)
            return false;
    }
    return true;
}

void Router::buildClosSegments()
{
    const int leaves = m_fabric.leafCount();
    const int pods = std::max(1, m_fabric.podCount());
    const int switches = static_cast<int>(m_switchKind.size());
    const auto entries = [this](int u) { return m_adjOffset[sz(u) + 1] - m_adjOffset[sz(u)]; };
    const auto begin
        = [this](Segment &seg) { seg.offset = static_cast<std::uint32_t>(m_arena.size()); };
    const auto push = [this](Segment &seg, int link, double share) {
        if (m_arena.size() == seg.offset)
            seg.latency = m_fabric.link(link).latency; // every hop of a part is one tier
        m_arena.push_back({ link, share });
    };
    const auto end = [this](Segment &seg) { finishSegment(seg); };

    // Leaf -> spines: the leaf splits evenly over its uplinks, whether the destination is in
    // the pod (all its spines reach that leaf) or not (all of them reach the super-spines).
    for (int a = 0; a < leaves; ++a) {
        Segment &seg = m_spineUp[0][sz(a)];
        begin(seg);
        const double share = 1.0 / entries(a);
        for (int i = m_adjOffset[sz(a)]; i < m_adjOffset[sz(a) + 1]; ++i)
            push(seg, m_adj[sz(i)].second, share);
        end(seg);
        m_spineUp[1][sz(a)] = seg; // the same hops (shared in the arena)
    }

    // The flow each spine holds when a leaf's traffic leaves it: per pod, from its first leaf
    // (every leaf of a pod splits alike, isFoldedClos()).
    std::vector<int> firstLeaf(sz(pods), -1);
    for (int a = leaves - 1; a >= 0; --a)
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
    // super-spines' flow from pod 0 (from pod 1 for pod 0's own downward part) feeds the way down.
    std::vector<double> superFlowFrom0(sz(switches), 0.0), superFlowFrom1(sz(switches), 0.0);
    if (pods > 1) {
        for (int pod = 0; pod < pods; ++pod) {
            Segment &seg = m_superUp[sz(pod)];
            begin(seg);
            for (int j = 0; j < switches; ++j) {
                if (m_switchKind[sz(j)] != NodeKind::Spine || m_switchPod[sz(j)] != pod)
                    continue;
                int up = 0;
                for (int i = m_adjOffset[sz(j)]; i < m_adjOffset[sz(j) + 1]; ++i)
                    up += m_switchKind[sz(m_adj[sz(i)].first)] == NodeKind::SuperSpine;
                const double share = spineFlow[sz(j)] / up;
                for (int i = m_adjOffset[sz(j)]; i < m_adjOffset[sz(j) + 1]; ++i) {
                    const auto [s, link] = m_adj[sz(i)];
                    if (m_switchKind[sz(s)] != NodeKind::SuperSpine)
                        continue;
                    push(seg, link, share);
                    if (pod == 0)
                        superFlowFrom0[sz(s)] += share;
                    else if (pod == 1)
                        superFlowFrom1[sz(s)] += share;
                }
            }
            end(seg);
        }
    }

    // Super-spines -> spines per destination pod: each super-spine splits its flow over its
    // links into that pod; what the pod's spines receive goes on down to the leaf.
    std::vector<double> arriving(sz(switches), 0.0); // per spine, traffic from other pods
    for (int pod = 0; pods > 1 && pod < pods; ++pod) {
        const std::vector<double> &flow = pod == 0 ? superFlowFrom1 : superFlowFrom0;
        Segment &seg = m_superDown[sz(pod)];
        begin(seg);
        for (int s = 0; s < switches; ++s) {
            if (m_switchKind[sz(s)] != NodeKind::SuperSpine)
                continue;
            int down = 0;
            for (int i = m_adjOffset[sz(s)]; i < m_adjOffset[sz(s) + 1]; ++i)
                down += m_switchPod[sz(m_adj[sz(i)].first)] == pod;
            const double share = flow[sz(s)] / down;
            for (int i = m_adjOffset[sz(s)]; i < m_adjOffset[sz(s) + 1]; ++i) {
                const auto [j, link] = m_adj[sz(i)];
                if (m_switchPod[sz(j)] != pod)
                    continue;
                push(seg, link, share);
                arriving[sz(j)] += share;
            }
        }
        end(seg);
    }

    // Spines -> leaf: the spine's links to that leaf, per leaf (one pass over the spines'
    // links). Within the pod a spine holds what the source leaf gave it; from another pod, what
    // the super-spines delivered.
    std::vector<std::vector<std::pair<int, int>>> downLinks(sz(leaves)); // (spine, link)
    for (int j = 0; j < switches; ++j) {
        if (m_switchKind[sz(j)] != NodeKind::Spine)
            continue;
        for (int i = m_adjOffset[sz(j)]; i < m_adjOffset[sz(j) + 1]; ++i)
            if (const auto [b, link] = m_adj[sz(i)]; m_switchKind[sz(b)] == NodeKind::Leaf)
                downLinks[sz(b)].emplace_back(j, link);
    }
    for (int b = 0; b < leaves; ++b) {
        const std::vector<std::pair<int, int>> &in = downLinks[sz(b)];
        const auto cables = [&in](int spine) {
            return static_cast<int>(std::count_if(in.begin(), in.end(),
                [spine](const std::pair<int, int> &e) { return e.first == spine; }));
        };
        for (int k = 0; k < (pods > 1 ? 2 : 1); ++k) {
            Segment &seg = m_spineDown[sz(k)][sz(b)];
            begin(seg);
            for (const auto &[j, link] : in) {
                // Within the pod: the source leaf's split (1 / its uplinks per cable to j).
                const double within = static_cast<double>(cables(j)) / entries(b);
                push(seg, link, (k == 0 ? within : arriving[sz(j)]) / cables(j));
            }
            end(seg);
        }
    }
}

} // namespace railyard
