#pragma once

#include "fabric/router.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"

#include <utility>
#include <vector>

namespace railyard {

/**
 * Whom one rank talks to and over which links, as data for a view to draw: its partners'
 * slots and the directed links of its routes to them, each with the parallel dimensions that
 * put it there (bit index(Dim), e.g. 1u << index(Dim::Tp)).
 */
struct PartnerRoutes
{
    std::vector<std::pair<int, unsigned>> slots; ///< partner slot -> dimensions, by slot
    std::vector<std::pair<int, unsigned>> links; ///< directed link id -> dimensions, by link
};

/// The partners of `rank` in every dimension of degree > 1 (TP, PP, DP, EP, CP groups as the
/// layout defines them) and the links of its routes to them. Collectives reach every member of
/// a group; a pipeline sends only to the adjacent stages (its boundary activations and
/// gradients), so only those PP routes are listed. Routes are the Router's: with ECMP every
/// link a share of the flow crosses. Empty for a rank outside the mapping.
PartnerRoutes partnerRoutes(
    const ParallelLayout &layout, const Mapping &mapping, Router &router, int rank);

} // namespace railyard
