#pragma once

#include "cost/nccltuning.h"
#include "cost/ringorder.h"
#include "fabric/router.h"
#include "scenario/collectivespec.h"
#include "workload/workloadplan.h"

#include <vector>

namespace railyard {

class Fabric;

/** Bytes from slot `src` to slot `dst`, per byte of the message size S and per pass. */
struct PlannedFlow
{
    int src = -1;
    int dst = -1;
    double unit = 0.0;
    int from = -1; ///< src's index in the planner group's members (PlannerGroup::members)
    int to = -1; ///< dst's
};

/** A PlannedFlow whose route leaves or enters by a NIC other than its GPUs' own: a ring hop as
 *  NCCL logged it (scenario nccl_observed, NcclObservedComm::nics). */
struct PlannedNicFlow
{
    PlannedFlow flow;
    RouteNics nics;
};

/** Bytes on one link, per byte of S and per pass, that no slot-to-slot route describes
 *  (NVLS: the NVSwitch reduces and multicasts, so a GPU's up and down links differ). */
struct PlannedLinkLoad
{
    int link = -1;
    double unit = 0.0;
    bool operator==(const PlannedLinkLoad &) const = default;
};

/**
 * What one collective on one group puts on the fabric: the flows of the algorithm (per byte of
 * S per pass; an all-reduce has two passes, the others one) and its latency structure. Link
 * loads are linear in S, so one plan serves every message size.
 */
struct CollectivePlan
{
    PlanAlgorithm algorithm = PlanAlgorithm::Ring; ///< what was built (after fallbacks)
    int channels = 1;
    std::vector<PlannedFlow> flows;
    /// Flows over NICs NCCL logged (PlannerGroup::ringNics); empty for every predicted plan.
    std::vector<PlannedNicFlow> nicFlows;
    std::vector<PlannedLinkLoad> links;
    CollectiveChain chain;
    /// planCollective()'s working buffer for a ring plan's rings (buildRings()), kept here so
    /// that planning into a reused plan reuses its vectors too; not part of the result.
    std::vector<std::vector<int>> ringScratch;
};

/// The plan algorithm a scenario option names (auto: the ring, the first candidate).
PlanAlgorithm planAlgorithmFor(CollectiveAlgorithm option);

/// Whether `a` can run `op` at all (before the group's geometry is looked at): trees, NVLS
/// trees and the hierarchical algorithm are all-reduces, PAT is all-gather / reduce-scatter,
/// all-to-all is pairwise and send-recv point to point.
bool algorithmRuns(PlanAlgorithm a, Collective op);

/**
 * Plans `op` with algorithm `wanted` over the members at `slots` (in member order, distinct).
 * Falls back where the group's geometry or the device does not allow `wanted`: NVLS needs
 * NVLink SHARP (`nvlsEfficiency` > 0) and becomes NVLS-tree across servers (all-reduce;
 * all-gather and reduce-scatter across servers need CollNet in NCCL, so they take the ring);
 * the NVLS tree and the hierarchical algorithm need the same number of members on every
 * server; PAT needs one member per server; anything an op cannot run becomes the ring. The
 * chain's hop latencies come from `router`.
 */
CollectivePlan planCollective(PlanAlgorithm wanted, Collective op, const std::vector<int> &slots,
    const Fabric &fabric, Router &router, double nvlsEfficiency);

/// A group as the planner sees it: its members (ringMembers()) and their scale-up domains
/// (membersByServer()), the same whichever algorithm plans it.
struct PlannerGroup
{
    std::vector<RingMember> members;
    std::vector<ServerMembers> servers;
    /// The rings NCCL logged for exactly this group (scenario nccl_observed; member indexes per
    /// channel), which a ring plan takes in place of buildRings(); null = the predicted rings.
    const std::vector<std::vector<int>> *rings = nullptr;
    /// With `rings`: per channel, per member index, the NICs of that member's hop to the next
    /// one in the channel's ring as NCCL logged them (RouteNics; nothing logged: {-1, -1});
    /// null = every hop over its GPUs' own NICs.
    const std::vector<std::vector<RouteNics>> *ringNics = nullptr;
};
PlannerGroup plannerGroup(const Fabric &fabric, const std::vector<int> &slots);
/// The same into `out`, whose vectors keep their capacity (a caller preparing group after group).
void plannerGroup(const Fabric &fabric, const std::vector<int> &slots, PlannerGroup &out);

/// The algorithm planCollective() builds when asked for `wanted` on this group: `wanted`, or
/// its fallback (see planCollective()).
PlanAlgorithm plannedAlgorithm(
    PlanAlgorithm wanted, Collective op, const PlannerGroup &group, double nvlsEfficiency);

/// planCollective() over a group prepared once (plannerGroup()), for a caller that plans the
/// same group with several algorithms (a collective family's patterns).
CollectivePlan planCollective(PlanAlgorithm wanted, Collective op, const PlannerGroup &group,
    const Fabric &fabric, Router &router, double nvlsEfficiency);
/// The same into `plan`, whose vectors keep their capacity: for a caller that plans group after
/// group (a placement search re-plans a few dozen per move).
void planCollective(PlanAlgorithm wanted, Collective op, const PlannerGroup &group,
    const Fabric &fabric, Router &router, double nvlsEfficiency, CollectivePlan &plan);

/// NCCL's double binary tree over n nodes (src/graph/trees.cc): the parent of node r in tree
/// 0 (a binary tree with leaves on odd ranks) or tree 1 (its mirror for even n, shifted by one
/// for odd n); -1 for the root.
int doubleBinaryTreeParent(int tree, int r, int n);

} // namespace railyard
