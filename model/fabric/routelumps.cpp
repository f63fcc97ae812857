// The lumps of a router's segments (RouteLumps): sets of switch-to-switch links that route
// segments load together, found once per router.
#include "fabric/routelumps.h"

#include "base/keyruns.h"
#include "base/units.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <utility>

namespace railyard {

namespace {

/// SplitMix64's finaliser (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a bijective 64-bit mix, so distinct inputs rarely share a sum.
std::uint64_t mixBits(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace

RouteLumps RouteLumps::find(const Router &router)
{
    RouteLumps out;
    const Fabric &fabric = router.fabric();
    // Only where every segment exists from the start (a folded Clos with one plane, or planes
    // merged (routerplanes.cpp), whose segments routerclos.cpp builds up front): then no segment
    // made later can use a lump's link without using all of it.
    if (!router.foldedClos() || (!router.planesMerged() && fabric.planeCount() != 1)
        || (fabric.planeCount() == 1 && !fabric.regularClos()))
        return out;
    const int limit = router.segmentIdLimit();
    const int links = fabric.linkCount();
    // Candidates: links whose users are the same segments with the same share each. A link's
    // signature is the sum of a hash of (segment, share) over its users; links with equal
    // signatures (and tier) are grouped, and the grouping is then checked segment by segment,
    // so a hash collision costs a lump, never a wrong load.
    std::vector<std::uint64_t> signature(sz(links), 0);
    for (int s = 0; s < limit; ++s)
        for (const RouteHop &hop : router.segmentHops(s))
            signature[sz(hop.link)] += mixBits(
                mixBits(static_cast<std::uint64_t>(s)) ^ std::bit_cast<std::uint64_t>(hop.share));
    // Tentative lumps: links of equal key (signature mixed with the tier), in ascending key
    // order, each with its links ascending: what sorting the (key, link) pairs gives (KeyRuns).
    std::vector<int> lumpOfLink(sz(links), -1);
    KeyRuns groups;
    for (int l = 0; l < links; ++l) {
        // Route ends are GPU, PCIe, PXN and NIC-to-leaf links; lumps hold switch-to-switch
        // links only, whose loads come from segments alone.
        const Tier tier = fabric.linkTier(l);
        if (signature[sz(l)] != 0 && (tier == Tier::Spine || tier == Tier::SuperSpine))
            lumpOfLink[sz(l)] = groups.add(
                signature[sz(l)] + mixBits(static_cast<std::uint64_t>(index(tier)) + 0x1000));
    }
    // runStart: per tentative lump (in ascending key order), its first entry in `candidates`,
    // the links in that order.
    std::vector<int> runStart, candidates;
    const std::vector<int> rank = groups.ranks(runStart);
    candidates.resize(sz(runStart.back()));
    std::vector<int> next(runStart.begin(), runStart.end() - 1);
    for (int l = 0; l < links; ++l) {
        int &t = lumpOfLink[sz(l)];
        if (t < 0)
            continue;
        t = rank[sz(t)];
        candidates[sz(next[sz(t)]++)] = l;
    }
    signature = {}; // not read again: what is allocated next reuses its pages
    const std::size_t tentative = runStart.size() - 1;
    // The check: every segment that uses a link of a lump uses all of its links, each with
    // one share.
    std::vector<int> seenBy(tentative, -1), hops(tentative, 0);
    std::vector<double> share(tentative, 0.0);
    std::vector<unsigned char> broken(tentative, 0);
    std::vector<int> touched;
    for (int s = 0; s < limit; ++s) {
        touched.clear();
        for (const RouteHop &hop : router.segmentHops(s)) {
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
    out.links.reserve(candidates.size()); // at most every candidate: allocated once
    for (std::size_t t = 0; t < tentative; ++t) {
        const int begin = runStart[t], end = runStart[t + 1];
        const Tier tier = fabric.linkTier(candidates[sz(begin)]);
        for (int i = begin; i < end && !broken[t]; ++i)
            broken[t] = fabric.linkTier(candidates[sz(i)]) != tier;
        Lump lump { static_cast<int>(out.links.size()), end - begin, -1 };
        for (int i = begin; i < end; ++i) {
            const int l = candidates[sz(i)];
            lumpOfLink[sz(l)] = broken[t] ? -1 : static_cast<int>(out.lumps.size());
            if (broken[t])
                continue;
            out.links.push_back(l);
            if (lump.topLink < 0 || fabric.linkBandwidth(l) < fabric.linkBandwidth(lump.topLink))
                lump.topLink = l; // ascending ids: the first of equal bandwidths stays
        }
        if (!broken[t])
            out.lumps.push_back(lump);
    }
    if (out.lumps.empty())
        return out;
    // Each segment as lumps with a share and the hops outside any lump.
    out.segmentLumpStart.assign(sz(limit) + 1, 0);
    out.segmentLooseStart.assign(sz(limit) + 1, 0);
    std::fill(seenBy.begin(), seenBy.end(), -1);
    for (int s = 0; s < limit; ++s) {
        const std::size_t lumpsBefore = out.segmentLumps.size();
        const std::size_t looseBefore = out.segmentLoose.size();
        for (const RouteHop &hop : router.segmentHops(s)) {
            const int lump = lumpOfLink[sz(hop.link)];
            if (lump < 0) {
                out.segmentLoose.push_back(hop);
            } else if (seenBy[sz(lump)] != s) {
                seenBy[sz(lump)] = s;
                out.segmentLumps.push_back({ lump, hop.share });
            }
        }
        if (out.segmentLumps.size() == lumpsBefore)
            out.segmentLoose.resize(looseBefore); // no lump: flushSegments() reads the router
        out.segmentLumpStart[sz(s) + 1] = static_cast<int>(out.segmentLumps.size());
        out.segmentLooseStart[sz(s) + 1] = static_cast<int>(out.segmentLoose.size());
    }
    out.lumpOfLink = std::move(lumpOfLink);
    return out;
}

} // namespace railyard
