// The traffic model's lumps of links (TrafficModel::Lump). In a folded Clos, per-hop ECMP
// (fabric/router.h) spreads whatever leaves a leaf evenly over its uplinks, whatever enters a
// leaf evenly over its downlinks, and a pod's cross-pod traffic evenly over its spine ->
// super-spine part (4,096 links at 131,072 GPUs). Loads are linear in the demand entering a
// segment, so the links of such a set carry one load per pattern: the model keeps that number
// per lump, a segment's demand reaches a few lumps instead of each of its links, and the bytes
// per iteration reach the links once per refresh for every pattern together.
#include "cost/trafficmodel.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>

namespace railyard {

bool TrafficModel::addSegmentToLumps(TrafficPattern &p, int segment, double demand)
{
    if (m_segmentLumpStart.empty())
        return false;
    const int begin = m_segmentLumpStart[sz(segment)], end = m_segmentLumpStart[sz(segment) + 1];
    if (begin == end)
        return false;
    for (int i = begin; i < end; ++i) {
        const LumpShare &part = m_segmentLumps[sz(i)];
        addLumpLoad(p, part.lump, demand * part.share);
    }
    for (int i = m_segmentLooseStart[sz(segment)]; i < m_segmentLooseStart[sz(segment) + 1]; ++i) {
        const RouteHop &hop = m_segmentLoose[sz(i)];
        addLoad(p, hop.link, demand * hop.share);
    }
    return true;
}

void TrafficModel::addLumpLoad(TrafficPattern &p, int lump, double delta)
{
    if (p.lumped.empty())
        p.lumped.assign(m_lumps.size(), 0.0);
    double &load = p.lumped[sz(lump)];
    load += delta;
    // The same rounding rule as a link's load (LinkLoads::add): what cancelled out is zero.
    if (std::abs(load) <= 1e-9 * std::abs(delta))
        load = 0.0;
    addLumpBytes(lump, p.dim, delta * p.weight);
    // The largest ratio follows a lump that grows; one that shrinks from the top is found
    // again by a scan (refreshLumpMax()).
    const int top = m_lumps[sz(lump)].topLink;
    const double r = load > 0.0 ? ratio(p, top, load) : 0.0;
    if (r > p.lumpMax || (r > 0.0 && r == p.lumpMax && top < p.lumpArgmax)) {
        p.lumpMax = r;
        p.lumpArgmax = top;
    } else if (top == p.lumpArgmax && r < p.lumpMax) {
        p.lumpChanged = true;
    }
}

void TrafficModel::addLumpBytes(int lump, Dim dim, double bytes)
{
    if (bytes == 0.0)
        return;
    m_lumpTouched.add(lump);
    m_lumpBytes[sz(lump)][sz(index(dim))] += bytes;
}

void TrafficModel::spreadLumpBytes()
{
    for (const int lump : m_lumpTouched.list()) {
        const DimArray bytes = std::exchange(m_lumpBytes[sz(lump)], DimArray {});
        // applyLinkBytes()'s sums for each link, for the dimensions with bytes only (the others
        // add nothing): the same terms in the same order (addLinkDimBytes).
        std::array<int, kDimCount> dims {};
        int n = 0;
        for (int d = 0; d < kDimCount; ++d)
            if (bytes[sz(d)] != 0.0)
                dims[sz(n++)] = d;
        if (n == 0)
            continue;
        const Lump &k = m_lumps[sz(lump)];
        for (int i = k.first; i < k.first + k.count; ++i) {
            const int link = m_lumpLinks[sz(i)];
            const std::uint8_t role = m_linkRole[sz(link)];
            double *row = linkDimRow(link);
            for (int j = 0; j < n; ++j) {
                const std::size_t d = sz(dims[sz(j)]);
                addLinkDimBytes(row, role, d, bytes[d]);
            }
            if (!m_building)
                m_changedLinks.add(link);
        }
    }
    m_lumpTouched.clear();
}

void TrafficModel::refreshLumpMax(TrafficPattern &p) const
{
    if (!p.lumpChanged)
        return;
    p.lumpChanged = false;
    p.lumpMax = 0.0;
    p.lumpArgmax = -1;
    for (std::size_t i = 0; i < p.lumped.size(); ++i) {
        if (p.lumped[i] <= 0.0)
            continue;
        // The lump's largest ratio, computed as for any link (ratio()).
        const int top = m_lumps[i].topLink;
        const double r = ratio(p, top, p.lumped[i]);
        if (r > p.lumpMax || (r == p.lumpMax && top < p.lumpArgmax)) {
            p.lumpMax = r;
            p.lumpArgmax = top;
        }
    }
}

double TrafficModel::patternLoad(int pattern, int link) const
{
    const TrafficPattern &p = m_patterns[sz(pattern)];
    if (!m_lumpOfLink.empty() && m_lumpOfLink[sz(link)] >= 0)
        return p.lumped.empty() ? 0.0 : p.lumped[sz(m_lumpOfLink[sz(link)])];
    if (const double *load = p.load.find(link))
        return *load;
    return 0.0;
}

} // namespace railyard
