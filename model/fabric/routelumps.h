#pragma once

#include "fabric/router.h"

#include <vector>

namespace railyard {

/**
 * The lumps of a router's segments: sets of switch-to-switch links of one tier that every route
 * segment using any of them uses all of, each with one share. In a folded Clos these are a
 * leaf's uplinks to the spines of its pod (every segment leaving the leaf spreads over all of
 * them evenly), the downlinks into a leaf, and each pod's spine -> super-spine and super-spine
 * -> spine parts. Every link of a lump carries the same load per traffic pattern, the sum of
 * the segments' demand x share, so the traffic model (cost/trafficmodel.h) keeps one number
 * per lump instead of one per link; its largest ratio is at its lowest-bandwidth link
 * (topLink).
 *
 * The lumps depend on the router's segments alone, which a folded Clos's router builds up
 * front, so each router finds them once (Router::lumps()) and every evaluation on it shares
 * them: finding them again was a twentieth of a warm evaluation at 131,072 GPUs.
 */
struct RouteLumps
{
    struct Lump
    {
        int first = 0; ///< its links: links[first, first + count), ascending ids
        int count = 0;
        int topLink = -1; ///< the link of lowest bandwidth (lowest id of equals)
    };
    /// One lump a segment's hops cover, and the share of the segment's demand each link takes.
    struct LumpShare
    {
        int lump = -1;
        double share = 0.0;
    };

    std::vector<Lump> lumps;
    std::vector<int> links; ///< the lumps' links (Lump::first, Lump::count)
    std::vector<int> lumpOfLink; ///< link id -> its lump, or -1; empty without lumps
    /// Per segment id (and one past the last): where its lumps start in segmentLumps and its
    /// other hops in segmentLoose. A segment with no lump reads its hops from the router.
    std::vector<int> segmentLumpStart, segmentLooseStart;
    std::vector<LumpShare> segmentLumps;
    std::vector<RouteHop> segmentLoose;

    /// The lumps of `router`'s segments; none unless every segment exists from the start (a
    /// folded Clos with one plane or merged planes, Router::foldedClos()).
    static RouteLumps find(const Router &router);
};

} // namespace railyard
