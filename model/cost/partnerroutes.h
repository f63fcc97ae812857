#pragma once

#include "cost/collectiveplanner.h"
#include "cost/costreport.h"
#include "fabric/router.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"

#include <set>
#include <utility>
#include <vector>

namespace railyard {

class Fabric;

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

/** What partnerRoutes() needs of the evaluation beside the layout and the mapping. */
struct PartnerRouteContext
{
    const Fabric *fabric = nullptr;
    /// The report whose phases name the algorithm each TP and DP collective ran ("ring",
    /// "tree", ...). Without it (or without a named algorithm) TP and DP draw the ring.
    const CostReport *report = nullptr;
    double nvlsEfficiency = 0.0; ///< the device's NVLink SHARP efficiency (nccltuning)
    /// Hybrid sharding's shard group size R (TrainingSpec::fsdpShard): the gradient sync runs on
    /// the rank's shard group and its replica group (hybridSubgroups), not the whole dp-cp group.
    int dpShard = 0;
};

/// The algorithms the report's phases of `dim` ran (at pipeline stage `stage`, or in phases
/// spanning every stage); the ring when the report names none (or without a report).
std::set<PlanAlgorithm> reportedAlgorithms(const CostReport *report, Dim dim, int stage);

/// The partners of `rank` in every dimension of degree > 1 and the links of the routes the
/// engine's traffic model really uses for it: TP and DP (on its dp-cp gradient-sync group - under
/// hybrid sharding its shard and replica sub-groups - and the expert-dp group of a MoE) are planned
/// by the collective planner with the algorithms the report says ran (a ring sends to its ring
/// neighbours, not to every member; a hierarchical ring keeps cross-server hops on one rail), CP is
/// the member-order ring, a pipeline sends to the adjacent stages, EP is all-to-all. Every group
/// member is listed as a partner slot. Routes are the Router's: with ECMP every link a share of the
/// flow crosses. Empty for a rank outside the mapping.
PartnerRoutes partnerRoutes(const ParallelLayout &layout, const Mapping &mapping, Router &router,
    int rank, const PartnerRouteContext &context);

} // namespace railyard
