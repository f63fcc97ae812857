#pragma once

#include "workload/workloadplan.h"

#include <vector>

namespace railyard {

class Fabric;
class Mapping;
class Router;

/** The prediction for one isolated collective (nccl-tests definitions of algbw and busbw). */
struct CollectiveResult
{
    double time = 0.0; ///< seconds
    double alphaTime = 0.0; ///< latency part
    double algBandwidth = 0.0; ///< S / time, bytes/s
    double busBandwidth = 0.0; ///< algbw * bus factor
    double busFactor = 0.0; ///< 2(n-1)/n all-reduce, (n-1)/n AG/RS/A2A, 1 send-recv
    double bytesSentPerRank = 0.0; ///< the largest over ranks
    int bottleneckLink = -1;
};

/**
 * One collective of `bytes` (nccl-tests' S) on `ranks`, alone on the fabric: a ring for
 * all-reduce, all-gather and reduce-scatter (Patarasuk & Yuan 2009: 2(n-1) steps of S/n for the
 * all-reduce, n-1 for the others), every pair for all-to-all, one flow for send-recv. Time =
 * steps x the slowest route's latency + the most loaded link's bytes over its bandwidth.
 * Ranks are global ranks of `mapping` (`worldSize` of them); throws ScenarioError("ranks" or
 * "bytes", ...) for an empty or repeated rank list, a rank outside the world, send-recv on
 * other than two ranks, or a size that is not a positive number.
 */
CollectiveResult estimateCollective(const Fabric &fabric, Router &router, const Mapping &mapping,
    int worldSize, Collective op, const std::vector<int> &ranks, double bytes);

} // namespace railyard
