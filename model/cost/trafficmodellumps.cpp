// The traffic model's lumped route segments (TrafficModel::Lump): the parts of a folded Clos
// whose links only one segment uses. A cross-pod flow's bytes spread evenly over its pod's
// spine -> super-spine links and over the destination pod's super-spine -> spine links (per-hop
// ECMP hashing, fabric/router.h); at 131,072 GPUs each of those parts is 4,096 links. Loads are
// linear in the demand entering a segment, so a pattern keeps that demand per lump, and the
// bytes per iteration it stands for reach the links once per refresh for every pattern
// together: a swap that moves a pipeline send between pods changes a few numbers per pattern
// and spreads each touched lump once, instead of adding to thousands of links per pattern.
#include "cost/trafficmodel.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <utility>

namespace railyard {

void TrafficModel::findLumps()
{
    // Only where every segment exists from the start (a folded Clos with one plane, whose
    // segments routerclos.cpp builds up front): then no segment made later can share a link.
    if (!m_router.foldedClos() || !m_fabric.regularClos() || m_fabric.planeCount() != 1)
        return;
    const int limit = m_router.segmentIdLimit();
    std::vector<unsigned char> uses(sz(m_fabric.linkCount()), 0);
    for (int s = 0; s < limit; ++s)
        for (const RouteHop &hop : m_router.segmentHops(s))
            uses[sz(hop.link)] = static_cast<unsigned char>(std::min(2, uses[sz(hop.link)] + 1));
    m_lumpOfSegment.assign(sz(limit), -1);
    for (int s = 0; s < limit; ++s) {
        const std::span<const RouteHop> hops = m_router.segmentHops(s);
        if (hops.empty())
            continue;
        // Route ends are GPU, PCIe, PXN and NIC-to-leaf links; a lump holds switch-to-switch
        // links above the leaves only, all of one tier (one link efficiency per pattern).
        const Tier tier = m_fabric.link(hops.front().link).tier;
        bool alone = tier == Tier::Spine || tier == Tier::SuperSpine;
        Lump lump;
        lump.segment = s;
        double top = -1.0;
        for (const RouteHop &hop : hops) {
            const FabricLink &l = m_fabric.link(hop.link);
            alone = alone && uses[sz(hop.link)] == 1 && l.tier == tier;
            const double perBandwidth = hop.share / l.bandwidth;
            if (perBandwidth > top || (perBandwidth == top && hop.link < lump.topLink)) {
                top = perBandwidth;
                lump.topLink = hop.link;
                lump.topShare = hop.share;
            }
        }
        if (!alone)
            continue;
        m_lumpOfSegment[sz(s)] = static_cast<int>(m_lumps.size());
        m_lumps.push_back(lump);
    }
    if (m_lumps.empty())
        m_lumpOfSegment.clear();
    m_lumpBytes.assign(m_lumps.size(), DimArray {});
    m_lumpMark.assign(m_lumps.size(), 0);
}

void TrafficModel::addLumpLoad(TrafficPattern &p, int lump, double delta)
{
    if (p.lumped.empty())
        p.lumped.assign(m_lumps.size(), 0.0);
    double &demand = p.lumped[sz(lump)];
    demand += delta;
    // The same rounding rule as a link's load (LinkLoads::add): what cancelled out is zero.
    if (std::abs(demand) <= 1e-9 * std::abs(delta))
        demand = 0.0;
    p.lumpChanged = true;
    addLumpBytes(lump, p.dim, delta * p.weight);
}

void TrafficModel::addLumpBytes(int lump, Dim dim, double bytes)
{
    if (bytes == 0.0)
        return;
    if (!m_lumpMark[sz(lump)]) {
        m_lumpMark[sz(lump)] = 1;
        m_lumpTouched.push_back(lump);
    }
    m_lumpBytes[sz(lump)][sz(index(dim))] += bytes;
}

void TrafficModel::spreadLumpBytes()
{
    for (const int lump : m_lumpTouched) {
        m_lumpMark[sz(lump)] = 0;
        const DimArray bytes = std::exchange(m_lumpBytes[sz(lump)], DimArray {});
        for (const RouteHop &hop : m_router.segmentHops(m_lumps[sz(lump)].segment))
            for (int d = 0; d < kDimCount; ++d)
                applyLinkBytes(hop.link, static_cast<Dim>(d), bytes[sz(d)] * hop.share);
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
        if (p.lumped[i] == 0.0)
            continue;
        const Lump &lump = m_lumps[i];
        // The lump's largest ratio, computed as for any link (ratio()).
        const double r = ratio(p, lump.topLink, p.lumped[i] * lump.topShare);
        if (r > p.lumpMax || (r == p.lumpMax && lump.topLink < p.lumpArgmax)) {
            p.lumpMax = r;
            p.lumpArgmax = lump.topLink;
        }
    }
}

double TrafficModel::patternLoad(int pattern, int link) const
{
    const TrafficPattern &p = m_patterns[sz(pattern)];
    if (const double *load = p.load.find(link))
        return *load;
    for (std::size_t i = 0; i < p.lumped.size(); ++i)
        for (const RouteHop &hop : m_router.segmentHops(m_lumps[i].segment))
            if (hop.link == link)
                return p.lumped[i] * hop.share;
    return 0.0;
}

} // namespace railyard
