#pragma once

#include "fabric/fabric.h"
#include "fabric/router.h"

#include <cstdint>
#include <map>
#include <span>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace railyard {

/// A 64-bit mix of two words (SplitMix64's finaliser: Steele, Lea and Flood, "Fast Splittable
/// Pseudorandom Number Generators", OOPSLA 2014): the hash a switch applies to a flow's header,
/// salted by the seed and the switch. Deterministic on every platform.
std::uint64_t ecmpMix(std::uint64_t a, std::uint64_t b);

/// The key of one queue pair of one connection of a flow: its pattern (communicator), source
/// and destination slots, connection (channel) and queue pair, mixed with the seed.
std::uint64_t ecmpFlowKey(
    std::uint64_t seed, int pattern, int src, int dst, int connection, int qp);

/**
 * Routes compiled for hashing: each (source, destination) slot pair's ideal route (Router::
 * route(), every equal-cost path with its share) kept as its hops grouped by the node they
 * leave. A walk starts at the source, and at every node with several equal-cost hops picks ONE
 * by the flow's key hashed with the node (per-hop ECMP as switches do it: each switch hashes
 * the header with its own salt), with probability proportional to the hop's share - so the
 * walks' mean over keys is the ideal split.
 */
class EcmpRouteBook
{
public:
    EcmpRouteBook(const Fabric &fabric, Router &router);

    /// The compiled route from slot `src` to slot `dst` (cached), -1 when src == dst; over the
    /// NICs `nics` when it names any (Router::route(), a hop NCCL's log gave).
    int route(int src, int dst, RouteNics nics = {});
    /// Whether some node of the route has more than one equal-cost hop.
    bool hasChoice(int route) const { return m_routes[sz(route)].choice; }
    /// Calls visit(link) for each hop of the path `key` takes.
    template<typename Visit> void walk(int route, std::uint64_t key, Visit &&visit) const
    {
        const Route &r = m_routes[sz(route)];
        int group = r.firstGroup;
        // A shortest-path route visits each group at most once; the bound only guards a
        // malformed route from looping.
        for (int guard = 0; group >= 0 && guard <= r.groupCount; ++guard) {
            const Group &g = m_groups[sz(group)];
            int pick = g.first;
            if (g.count > 1) {
                // Uniform in [0, 1) from the top 53 bits, scaled to the group's total share.
                const double u
                    = static_cast<double>(ecmpMix(key, static_cast<std::uint64_t>(g.node)) >> 11)
                    * 0x1.0p-53 * m_cumulative[sz(g.first + g.count - 1)];
                pick = g.first + g.count - 1;
                for (int h = g.first; h < g.first + g.count - 1; ++h)
                    if (u < m_cumulative[sz(h)]) {
                        pick = h;
                        break;
                    }
            }
            visit(m_links[sz(pick)]);
            group = m_next[sz(pick)];
        }
    }
    /// Calls visit(link, share) for each hop of the ideal route (the even split).
    template<typename Visit> void forEachHop(int route, Visit &&visit) const
    {
        const Route &r = m_routes[sz(route)];
        for (int h = r.firstHop; h < r.firstHop + r.hopCount; ++h)
            visit(m_links[sz(h)], m_shares[sz(h)]);
    }
    /// Whether `link` was one of several equal-cost hops out of a node on some compiled route.
    bool isChoiceLink(int link) const
    {
        return link >= 0 && sz(link) < m_choiceLink.size() && m_choiceLink[sz(link)] != 0;
    }

private:
    struct Group
    {
        int node = -1;
        int first = 0; ///< its hops: [first, first + count) of the hop arrays
        int count = 0;
    };
    struct Route
    {
        int firstGroup = -1;
        int groupCount = 0;
        int firstHop = 0;
        int hopCount = 0;
        bool choice = false;
    };
    const Fabric &m_fabric;
    Router &m_router;
    std::unordered_map<std::uint64_t, int> m_index; ///< (src << 32 | dst) -> route
    /// The same for routes over logged NICs: (src, dst, src NIC, dst NIC, PXN) -> route.
    std::map<std::tuple<int, int, int, int, bool>, int> m_nicIndex;
    std::vector<Route> m_routes;
    std::vector<Group> m_groups;
    std::vector<int> m_links; ///< per hop, grouped by route then node
    std::vector<double> m_shares;
    std::vector<double> m_cumulative; ///< within its group, the shares summed up to the hop
    std::vector<int> m_next; ///< per hop: the group its far end leaves from, -1 at the end
    std::vector<char> m_choiceLink; ///< per link
    std::vector<RouteHop> m_scratch;
    std::vector<int> m_order; ///< route() scratch: each scratch hop's place in the route
};

/**
 * Max-min fair rates by progressive filling (Bertsekas and Gallager, "Data Networks", 2nd ed.,
 * section 6.5.2), weighted: every unfrozen flow's rate grows as weight x t until a link on
 * its path is full, which freezes the flows crossing it. `paths[f]`: the links of flow f (a
 * link listed once); `capacity[link]` > 0 for every link a path names. Equal weights give plain
 * max-min fairness; no link ends above its capacity.
 */
std::vector<double> maxMinFairRates(const std::vector<std::vector<int>> &paths,
    const std::vector<double> &weights, const std::vector<double> &capacity);

/// The 99th percentile of `values` by nearest rank (the ceil(0.99 n)-th smallest); 0 if empty.
double percentile99(std::vector<double> values);
/// The mean of `values` (0 if empty), kept within their minimum and maximum: a floating-point
/// sum of equal seeds must not put the mean above their p99.
double ecmpMean(const std::vector<double> &values);

} // namespace railyard
