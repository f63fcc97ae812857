// The traffic model's lumps of links (TrafficModel::Lump). In a folded Clos, per-hop ECMP
// (fabric/router.h) spreads whatever leaves a leaf evenly over its uplinks, whatever enters a
// leaf evenly over its downlinks, and a pod's cross-pod traffic evenly over its spine ->
// super-spine part (4,096 links at 131,072 GPUs). Loads are linear in the demand entering a
// segment, so the links of such a set carry one load per pattern: the model keeps that number
// per lump, a segment's demand reaches a few lumps instead of each of its links, and the bytes
// per iteration reach the links once per refresh for every pattern together.
#include "cost/trafficmodel.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <span>
#include <utility>

namespace railyard {

namespace {

/// SplitMix64's finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a bijective 64-bit mix, so distinct inputs rarely share a sum.
std::uint64_t mix(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace

void TrafficModel::findLumps()
{
    // Only where every segment exists from the start (a folded Clos with one plane, whose
    // segments routerclos.cpp builds up front): then no segment made later can use a lump's
    // link without using all of it.
    if (!m_router.foldedClos() || !m_fabric.regularClos() || m_fabric.planeCount() != 1)
        return;
    const int limit = m_router.segmentIdLimit();
    const int links = m_fabric.linkCount();
    // Candidates: links whose users are the same segments with the same share each. A link's
    // signature is the sum of a hash of (segment, share) over its users; links with equal
    // signatures (and tier) are grouped, and the grouping is then checked segment by segment,
    // so a hash collision costs a lump, never a wrong load.
    std::vector<std::uint64_t> signature(sz(links), 0);
    for (int s = 0; s < limit; ++s)
        for (const RouteHop &hop : m_router.segmentHops(s))
            signature[sz(hop.link)] += mix(
                mix(static_cast<std::uint64_t>(s)) ^ std::bit_cast<std::uint64_t>(hop.share));
    // (signature mixed with the tier, link), sorted: equal keys are one tentative lump, with
    // its links in ascending order.
    std::vector<std::pair<std::uint64_t, int>> candidates;
    for (int l = 0; l < links; ++l) {
        // Route ends are GPU, PCIe, PXN and NIC-to-leaf links; lumps hold switch-to-switch
        // links only, whose loads come from segments alone.
        const Tier tier = m_fabric.linkTier(l);
        if (signature[sz(l)] != 0 && (tier == Tier::Spine || tier == Tier::SuperSpine))
            candidates.emplace_back(
                signature[sz(l)] + mix(static_cast<std::uint64_t>(index(tier)) + 0x1000), l);
    }
    std::sort(candidates.begin(), candidates.end());
    std::vector<int> runStart; // per tentative lump: its first entry in `candidates`
    std::vector<int> lumpOfLink(sz(links), -1);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (i == 0 || candidates[i - 1].first != candidates[i].first)
            runStart.push_back(static_cast<int>(i));
        lumpOfLink[sz(candidates[i].second)] = static_cast<int>(runStart.size()) - 1;
    }
    const std::size_t tentative = runStart.size();
    runStart.push_back(static_cast<int>(candidates.size()));
    // The check: every segment that uses a link of a lump uses all of its links, each with
    // one share.
    std::vector<int> seenBy(tentative, -1), hops(tentative, 0);
    std::vector<double> share(tentative, 0.0);
    std::vector<unsigned char> broken(tentative, 0);
    std::vector<int> touched;
    for (int s = 0; s < limit; ++s) {
        touched.clear();
        for (const RouteHop &hop : m_router.segmentHops(s)) {
            const int t = lumpOfLink[sz(hop.link)];
            if (t < 0)
                continue;
            if (seenBy[sz(t)] != s) {
                seenBy[sz(t)] = s;
                hops[sz(t)] = 0;
                share[sz(t)] = hop.share;
                touched.push_back(t);
            } else if (hop.share != share[sz(t)]) {
                broken[sz(t)] = 1;
            }
            ++hops[sz(t)];
        }
        for (const int t : touched)
            if (hops[sz(t)] != runStart[sz(t) + 1] - runStart[sz(t)])
                broken[sz(t)] = 1;
    }
    // The lumps that hold, with their links in ascending order (as sorted) and of one tier
    // (one link efficiency per pattern: a hash collision across tiers breaks the lump).
    for (std::size_t t = 0; t < tentative; ++t) {
        const int begin = runStart[t], end = runStart[t + 1];
        const Tier tier = m_fabric.linkTier(candidates[sz(begin)].second);
        for (int i = begin; i < end && !broken[t]; ++i)
            broken[t] = m_fabric.linkTier(candidates[sz(i)].second) != tier;
        Lump lump { static_cast<int>(m_lumpLinks.size()), end - begin, -1 };
        for (int i = begin; i < end; ++i) {
            const int l = candidates[sz(i)].second;
            lumpOfLink[sz(l)] = broken[t] ? -1 : static_cast<int>(m_lumps.size());
            if (broken[t])
                continue;
            m_lumpLinks.push_back(l);
            if (lump.topLink < 0
                || m_fabric.linkBandwidth(l) < m_fabric.linkBandwidth(lump.topLink))
                lump.topLink = l; // ascending ids: the first of equal bandwidths stays
        }
        if (!broken[t])
            m_lumps.push_back(lump);
    }
    if (m_lumps.empty())
        return;
    // Each segment as lumps with a share and the hops outside any lump.
    m_segmentLumpStart.assign(sz(limit) + 1, 0);
    m_segmentLooseStart.assign(sz(limit) + 1, 0);
    std::fill(seenBy.begin(), seenBy.end(), -1);
    for (int s = 0; s < limit; ++s) {
        const std::size_t lumpsBefore = m_segmentLumps.size();
        const std::size_t looseBefore = m_segmentLoose.size();
        for (const RouteHop &hop : m_router.segmentHops(s)) {
            const int lump = lumpOfLink[sz(hop.link)];
            if (lump < 0) {
                m_segmentLoose.push_back(hop);
            } else if (seenBy[sz(lump)] != s) {
                seenBy[sz(lump)] = s;
                m_segmentLumps.push_back({ lump, hop.share });
            }
        }
        if (m_segmentLumps.size() == lumpsBefore)
            m_segmentLoose.resize(looseBefore); // no lump: flushSegments() reads the router
        m_segmentLumpStart[sz(s) + 1] = static_cast<int>(m_segmentLumps.size());
        m_segmentLooseStart[sz(s) + 1] = static_cast<int>(m_segmentLoose.size());
    }
    m_lumpOfLink = std::move(lumpOfLink);
    m_lumpBytes.assign(m_lumps.size(), DimArray {});
    m_lumpTouched.assign(m_lumps.size());
}

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
        const Lump &k = m_lumps[sz(lump)];
        for (int i = k.first; i < k.first + k.count; ++i)
            for (int d = 0; d < kDimCount; ++d)
                applyLinkBytes(m_lumpLinks[sz(i)], static_cast<Dim>(d), bytes[sz(d)]);
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
