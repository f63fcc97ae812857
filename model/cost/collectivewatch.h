#pragma once

#include "base/units.h"
#include "cost/collectivesteps.h"

#include <string>
#include <vector>

namespace railyard {

class CostEngine;
class Router;

/** What to watch: one op of dimension `dim` on `rank`'s group, or on every group of it. */
struct WatchTarget
{
    Dim dim = Dim::Dp;
    int rank = 0;
    bool wholeDimension = false; ///< every group of the dimension at once
    int op = 0; ///< index into watchableOps()
};

/** One op a dimension runs, as the engine's report has it. */
struct WatchableOp
{
    std::string name; ///< the report's phase name ("dp sync: gradient all-reduce")
    Collective collective = Collective::AllReduce;
    PlanAlgorithm algorithm = PlanAlgorithm::Ring; ///< what the engine chose for it
    double bytes = 0.0; ///< S of one op on the watched rank's stage
    /// Hybrid sharding: a DP op of the replica groups (else of the shard groups); see
    /// hybridSubgroups(). False without hybrid sharding.
    bool replica = false;
};

/** A collective as the engine runs it on the current mapping, step by step. */
struct WatchedCollective
{
    std::string title; ///< "DP all-reduce of rank 5's group (4 ranks): 1.31 GB, ring"
    WatchTarget target;
    WatchableOp op;
    std::vector<std::vector<int>> groups; ///< the groups played (global ranks, member order)
    CollectiveSteps steps;
};

/// The ops `dim` runs on `rank`'s stage, in the report's order: TP, EP and CP the report's
/// phases of that stage; DP the gradient sync's ops (S of the rank's stage); PP one micro-batch
/// crossing every boundary (activations forward, gradients back). Empty when the dimension has
/// degree 1 (PP: when there is one stage) or the rank is outside the layout.
std::vector<WatchableOp> watchableOps(const CostEngine &engine, Dim dim, int rank);

/// The steps of `target` on the engine's current mapping, with the algorithm the engine chose:
/// the TP and DP families' choice, the member-order ring for CP, the pairwise all-to-all for EP
/// (skewed shares as the traffic model weighs them), the boundary sends for PP. DP plays the
/// dp-cp group the gradient sync runs on (under hybrid sharding the op's shard or replica
/// sub-group of it). `router` must route over the engine's fabric. Throws
/// ScenarioError("watch", ...) naming the problem: a rank outside the layout, a dimension of
/// degree 1, an op index out of range.
WatchedCollective watchCollective(
    const CostEngine &engine, Router &router, const WatchTarget &target);

} // namespace railyard
