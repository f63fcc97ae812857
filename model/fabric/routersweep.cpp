// The router's general path: a leaf pair's route by breadth-first search and an ECMP sweep, for
// switch graphs that are not a folded Clos (routerclos.cpp builds those in one pass).
//
// router.cpp explains the model: shortest paths on the switch subgraph, found by a Boost.Graph
// breadth_first_search from the destination leaf; a switch at hop distance k splits the flow it
// holds evenly over its neighbours at distance k-1 (per-hop ECMP, RFC 2992), flows meeting at a
// switch merge, and the hops are stored by route part.
#include "fabric/router.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <boost/property_map/property_map.hpp>

#include <stdexcept>
#include <string>

namespace railyard {

namespace {

/// Cached BFS distances (4 bytes each) before the distance cache is dropped.
constexpr std::size_t kMaxCachedDistances = std::size_t { 1 } << 24;

} // namespace

const std::vector<int> &Router::distancesTo(int dstLeaf)
{
    std::vector<int> &dist = m_distance[static_cast<std::size_t>(dstLeaf)];
    if (!dist.empty())
        return dist;
    const std::size_t n = m_switchVertex.size();
    if (!m_switches || boost::num_vertices(*m_switches) != n) {
        // First sweep: the switch subgraph.
        SwitchGraph &g = m_switches.emplace(n);
        for (std::size_t u = 0; u < n; ++u)
            for (int i = m_adjOffset[u]; i < m_adjOffset[u + 1]; ++i)
                boost::add_edge(
                    u, static_cast<std::size_t>(m_adj[static_cast<std::size_t>(i)].first), g);
    }
    if (m_distanceEntries + n > kMaxCachedDistances) {
        for (std::vector<int> &d : m_distance)
            std::vector<int>().swap(d);
        m_distanceEntries = 0;
    }
    dist.assign(n, -1);
    dist[static_cast<std::size_t>(dstLeaf)] = 0;
    // Links are full duplex (every cable has both directions), so hop counts from the
    // destination equal hop counts to it.
    std::vector<boost::default_color_type> color(n);
    const auto vertexIndex = boost::get(boost::vertex_index, *m_switches);
    boost::breadth_first_search(*m_switches, static_cast<std::size_t>(dstLeaf),
        boost::visitor(boost::make_bfs_visitor(boost::record_distances(
                           boost::make_iterator_property_map(dist.begin(), vertexIndex),
                           boost::on_tree_edge())))
            .color_map(boost::make_iterator_property_map(color.begin(), vertexIndex)));
    m_distanceEntries += n;
    return dist;
}

void Router::sweep(int srcLeaf, int dstLeaf)
{
    const std::vector<int> &dist = distancesTo(dstLeaf);
    const int hops = dist[static_cast<std::size_t>(srcLeaf)];
    if (hops <= 0) // the generators build connected Clos fabrics; this is a bug, not bad input
        throw std::logic_error("router: leaf " + std::to_string(srcLeaf) + " cannot reach leaf "
            + std::to_string(dstLeaf));

    // Level-by-level ECMP sweep from the source leaf (distance `hops`) to the destination: a
    // switch splits the flow it holds evenly over its neighbours one hop closer; flows meeting
    // at a switch merge, so each link appears once.
    m_pairHops.clear();
    m_pairLevelStart.clear();
    m_frontier.clear();
    m_frontier.push_back(srcLeaf);
    m_flow[static_cast<std::size_t>(srcLeaf)] = 1.0;
    for (int level = hops; level > 0; --level) {
        m_next.clear();
        m_pairLevelStart.push_back(static_cast<int>(m_pairHops.size()));
        for (const int u : m_frontier) {
            const auto uv = static_cast<std::size_t>(u);
            const auto first = m_adj.begin() + m_adjOffset[uv];
            const auto last = m_adj.begin() + m_adjOffset[uv + 1];
            int closer = 0;
            for (auto it = first; it != last; ++it)
                closer += dist[static_cast<std::size_t>(it->first)] == level - 1;
            const double share = m_flow[uv] / closer;
            m_flow[uv] = 0.0;
            for (auto it = first; it != last; ++it) {
                const auto v = static_cast<std::size_t>(it->first);
                if (dist[v] != level - 1)
                    continue;
                m_pairHops.push_back({ it->second, share });
                if (m_flow[v] == 0.0)
                    m_next.push_back(it->first);
                m_flow[v] += share;
            }
        }
        m_frontier.swap(m_next);
    }
    m_flow[static_cast<std::size_t>(dstLeaf)] = 0.0;
}

void Router::computeLeafPair(int srcLeaf, int dstLeaf)
{
    sweep(srcLeaf, dstLeaf);
    // Sort the hops into the four parts (a stable partition keeps the sweep's order).
    const Fabric &f = m_fabric;
    const auto partOf = [&f](const RouteHop &h) {
        const FabricLink &l = f.link(h.link);
        const NodeKind from = f.node(l.src).kind;
        const NodeKind to = f.node(l.dst).kind;
        if (from == NodeKind::Leaf)
            return SpineUp;
        if (to == NodeKind::Leaf)
            return SpineDown;
        if (to == NodeKind::Core)
            return CoreUp;
        if (from == NodeKind::Core)
            return CoreDown;
        return to == NodeKind::SuperSpine ? SuperUp : SuperDown;
    };
    // No eviction: every segment is a set of one leaf's or one pod's uplinks or downlinks, so
    // the arena holds at most ~4x the fabric's switch links, and segment ids stay valid for
    // callers that aggregate demand per segment (TrafficModel).
    const std::array<Segment *, kPartCount> slot
        = slots(srcLeaf, dstLeaf, reachOf(srcLeaf, dstLeaf));
    for (int p = 0; p < kPartCount; ++p) {
        Segment *seg = slot[static_cast<std::size_t>(p)];
        if (!seg || seg->offset != kUnset)
            continue; // not part of this route, or cached already (identical by construction)
        seg->offset = static_cast<std::uint32_t>(m_arena.size());
        for (const RouteHop &h : m_pairHops) {
            if (partOf(h) == p) {
                if (m_arena.size() == seg->offset) // the sweep visits the first path first
                    seg->latency = f.link(h.link).latency;
                m_arena.push_back(h);
            }
        }
        finishSegment(*seg);
    }
}

} // namespace railyard
