#include "cost/ecmphashing.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace railyard {

std::uint64_t ecmpMix(std::uint64_t a, std::uint64_t b)
{
    // SplitMix64 (Steele, Lea, Flood, OOPSLA 2014): golden-ratio increment, then its finaliser.
    std::uint64_t z = a + 0x9e3779b97f4a7c15ull * (b + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

std::uint64_t ecmpFlowKey(std::uint64_t seed, int pattern, int src, int dst, int connection, int qp)
{
    std::uint64_t k = ecmpMix(seed, static_cast<std::uint32_t>(pattern));
    k = ecmpMix(k,
        (std::uint64_t { static_cast<std::uint32_t>(src) } << 32)
            | static_cast<std::uint32_t>(dst));
    return ecmpMix(k,
        (std::uint64_t { static_cast<std::uint32_t>(connection) } << 32)
            | static_cast<std::uint32_t>(qp));
}

EcmpRouteBook::EcmpRouteBook(const Fabric &fabric, Router &router)
    : m_fabric(fabric)
    , m_router(router)
    , m_choiceLink(sz(fabric.linkCount()), 0)
{
}

int EcmpRouteBook::route(int src, int dst, RouteNics nics)
{
    if (src == dst)
        return -1;
    const std::uint64_t key = (std::uint64_t { static_cast<std::uint32_t>(src) } << 32)
        | static_cast<std::uint32_t>(dst);
    const std::tuple<int, int, int, int, bool> nicKey { src, dst, nics.src, nics.dst, nics.pxn };
    if (!nics.any()) {
        if (const auto it = m_index.find(key); it != m_index.end())
            return it->second;
    } else if (const auto it = m_nicIndex.find(nicKey); it != m_nicIndex.end()) {
        return it->second;
    }
    const std::span<const RouteHop> hops = m_router.route(src, dst, nics);
    m_scratch.assign(hops.begin(), hops.end());
    // Group the hops by the node they leave (stable: the router's order within a node),
    // remembering each one's place in the route.
    m_order.resize(m_scratch.size());
    for (std::size_t i = 0; i < m_order.size(); ++i)
        m_order[i] = static_cast<int>(i);
    std::stable_sort(m_order.begin(), m_order.end(), [&](int a, int b) {
        return m_fabric.link(hops[sz(a)].link).src < m_fabric.link(hops[sz(b)].link).src;
    });
    for (std::size_t i = 0; i < m_order.size(); ++i)
        m_scratch[i] = hops[sz(m_order[i])];
    Route r;
    r.firstHop = static_cast<int>(m_links.size());
    r.hopCount = static_cast<int>(m_scratch.size());
    const int groupBase = static_cast<int>(m_groups.size());
    for (std::size_t i = 0; i < m_scratch.size(); ++i) {
        const int node = m_fabric.link(m_scratch[i].link).src;
        const int hop = static_cast<int>(m_links.size());
        if (m_groups.size() == sz(groupBase) || m_groups.back().node != node)
            m_groups.push_back({ node, hop, 0 });
        Group &g = m_groups.back();
        const double before = g.count > 0 ? m_cumulative.back() : 0.0;
        ++g.count;
        m_links.push_back(m_scratch[i].link);
        m_shares.push_back(m_scratch[i].share);
        m_cumulative.push_back(before + m_scratch[i].share);
    }
    r.groupCount = static_cast<int>(m_groups.size()) - groupBase;
    const int srcNode = hops.empty() ? -1 : m_fabric.gpuVertex(src);
    for (int g = groupBase; g < groupBase + r.groupCount; ++g) {
        if (m_groups[sz(g)].node == srcNode)
            r.firstGroup = g;
        if (m_groups[sz(g)].count > 1) {
            r.choice = true;
            for (int h = m_groups[sz(g)].first; h < m_groups[sz(g)].first + m_groups[sz(g)].count;
                 ++h)
                m_choiceLink[sz(m_links[sz(h)])] = 1;
        }
    }
    if (r.firstGroup < 0) // no hop leaves the GPU itself: start where no hop arrives
        for (int g = groupBase; g < groupBase + r.groupCount && r.firstGroup < 0; ++g)
            if (std::none_of(m_scratch.begin(), m_scratch.end(), [&](const RouteHop &h) {
                    return m_fabric.link(h.link).dst == m_groups[sz(g)].node;
                }))
                r.firstGroup = g;
    const auto groupOf = [&](int node) {
        for (int g = groupBase; g < groupBase + r.groupCount; ++g)
            if (m_groups[sz(g)].node == node)
                return g;
        return -1;
    };
    const int dstNode = hops.empty() ? -1 : m_fabric.gpuVertex(dst);
    for (int h = r.firstHop; h < r.firstHop + r.hopCount; ++h) {
        const int far = m_fabric.link(m_links[sz(h)]).dst;
        int next = groupOf(far);
        // A hop whose far end no hop leaves, short of the destination, ends the PCIe link of a
        // host path to another GPU's NIC (Router::route() with RouteNics): the walk goes on
        // where the route does, at the node its next hop leaves.
        const int place = m_order[sz(h - r.firstHop)];
        if (next < 0 && far != dstNode && sz(place + 1) < hops.size())
            next = groupOf(m_fabric.link(hops[sz(place + 1)].link).src);
        m_next.push_back(next);
    }
    const int id = static_cast<int>(m_routes.size());
    m_routes.push_back(r);
    if (nics.any())
        m_nicIndex.emplace(nicKey, id);
    else
        m_index.emplace(key, id);
    return id;
}

std::vector<double> maxMinFairRates(const std::vector<std::vector<int>> &paths,
    const std::vector<double> &weights, const std::vector<double> &capacity)
{
    const std::size_t flows = paths.size();
    std::vector<double> rate(flows, 0.0);
    std::vector<char> frozen(flows, 0);
    // Per link: the capacity left and the weight of its unfrozen flows; the flows crossing it.
    std::vector<double> left(capacity);
    std::vector<double> active(capacity.size(), 0.0);
    std::vector<std::vector<int>> crossing(capacity.size());
    std::size_t open = 0;
    for (std::size_t f = 0; f < flows; ++f) {
        if (paths[f].empty() || !(weights[f] > 0.0)) {
            frozen[f] = 1; // touches no link or asks for nothing: rate 0
            continue;
        }
        ++open;
        for (const int l : paths[f]) {
            active[sz(l)] += weights[f];
            crossing[sz(l)].push_back(static_cast<int>(f));
        }
    }
    double level = 0.0; // t: every unfrozen flow runs at weight x t
    while (open > 0) {
        double step = std::numeric_limits<double>::infinity();
        for (std::size_t l = 0; l < capacity.size(); ++l)
            if (active[l] > 0.0)
                step = std::min(step, std::max(0.0, left[l]) / active[l]);
        if (!std::isfinite(step))
            break;
        level += step;
        for (std::size_t l = 0; l < capacity.size(); ++l)
            if (active[l] > 0.0)
                left[l] -= step * active[l];
        // Freeze the flows of every link now full (within rounding of its capacity).
        for (std::size_t l = 0; l < capacity.size(); ++l) {
            if (!(active[l] > 0.0) || left[l] > 1e-12 * capacity[l])
                continue;
            for (const int f : crossing[l]) {
                if (frozen[sz(f)])
                    continue;
                frozen[sz(f)] = 1;
                --open;
                rate[sz(f)] = weights[sz(f)] * level;
                for (const int k : paths[sz(f)])
                    active[sz(k)] -= weights[sz(f)];
            }
            active[l] = 0.0;
        }
    }
    return rate;
}

double percentile99(std::vector<double> values)
{
    if (values.empty())
        return 0.0;
    std::sort(values.begin(), values.end());
    const auto rank
        = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

double ecmpMean(const std::vector<double> &values)
{
    if (values.empty())
        return 0.0;
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    double sum = 0.0;
    for (const double v : values)
        sum += v;
    return std::clamp(sum / static_cast<double>(values.size()), *lo, *hi);
}

} // namespace railyard
