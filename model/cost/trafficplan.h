#pragma once

#include "cost/trafficmodel.h"
#include "scenario/scenario.h"
#include "workload/workloadplan.h"

#include <string>
#include <vector>

namespace railyard {

/** A DP sync op expressed against the DP pattern: S of stage s = ratio * stageDpBytes[s]. */
struct DpOp
{
    Collective collective = Collective::AllReduce;
    double ratio = 1.0;
    std::string what;
    bool replica = false; ///< hybrid sharding: runs over the replica groups (CommOp::replicaGroup)
};

/**
 * What a workload plan asks of the traffic model before anything is routed: the gradient
 * sync's message size per stage (dense and expert), the EP members' shares under skewed
 * routing, and the DP ops as ratios of the first one (the all-gather after a reduce-scatter).
 */
struct TrafficPlan
{
    TrafficModel::Setup setup;
    std::vector<DpOp> dpOps;
};
TrafficPlan planTraffic(const Scenario &scenario, const WorkloadPlan &plan);

/// Per pattern of `traffic`: the bytes per iteration one unit of its load stands for (what
/// TrafficModel::setWeight() takes), from the plan's ops, their counts per micro-batch or per
/// iteration and their ring passes; a boundary carries every micro-batch once per model chunk.
/// The TP and DP families' patterns get 0: the model weighs them by their ops' choices.
std::vector<double> patternWeights(const TrafficModel &traffic, const WorkloadPlan &plan,
    int chunks);

} // namespace railyard
