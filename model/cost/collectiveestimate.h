#pragma once

#include "cost/nccltuning.h"
#include "fabric/ecmprouting.h"
#include "scenario/collectivespec.h"
#include "workload/workloadplan.h"

#include <vector>

namespace railyard {

/// nccl-tests' bus-bandwidth factor busbw / algbw (doc/PERFORMANCE.md): all-reduce 2(n-1)/n,
/// all-gather / reduce-scatter / all-to-all (n-1)/n, send-recv 1; 0 for a collective of one rank.
double busBandwidthFactor(Collective c, int n);

class Fabric;
class Mapping;
class Router;

/** One algorithm the estimate considered, with the time of its best protocol. */
struct AlgorithmTime
{
    PlanAlgorithm algorithm = PlanAlgorithm::Ring;
    Protocol protocol = Protocol::Simple; ///< the fastest protocol for this algorithm
    double time = 0.0;                    ///< seconds, with that protocol
    double alphaTime = 0.0;
    int channels = 1;
    std::array<double, kProtocolCount> protocolTimes {}; ///< seconds; 0 = the protocol does not apply
};

/** The prediction for one isolated collective (nccl-tests definitions of algbw and busbw). */
struct CollectiveResult
{
    double time = 0.0; ///< seconds (hashed ECMP: the mean over the seeds)
    /// The 99th percentile over hashed ECMP's seeds (nearest rank); `time` otherwise.
    double timeP99 = 0.0;
    double alphaTime = 0.0; ///< latency part
    double algBandwidth = 0.0; ///< S / time, bytes/s
    double busBandwidth = 0.0; ///< algbw * bus factor
    double busFactor = 0.0; ///< 2(n-1)/n all-reduce, (n-1)/n AG/RS/A2A, 1 send-recv
    double bytesSentPerRank = 0.0; ///< the largest over ranks
    int bottleneckLink = -1;
    PlanAlgorithm algorithm = PlanAlgorithm::Ring; ///< the one that ran (the fastest under auto)
    Protocol protocol = Protocol::Simple;
    int channels = 1;
    std::vector<AlgorithmTime> considered; ///< every algorithm tried, the chosen one included
    CollectiveChain chain; ///< the latency structure of the chosen algorithm's plan
};

/// The algorithms `auto` weighs for an op (before fallbacks), NCCL's own: all-reduce ring,
/// tree and NVLS (NVLS-tree across servers); all-gather / reduce-scatter ring, PAT and NVLS;
/// all-to-all pairwise; send-recv point to point. The hierarchical ring is not NCCL's (it
/// builds flat rings only) and runs when asked for.
std::vector<PlanAlgorithm> autoCandidates(Collective op);

/// What a scenario's option asks for one op: the algorithm itself, or every auto candidate;
/// `hierarchicalAllReduce` (training.hierarchical_allreduce) makes an all-reduce under auto
/// hierarchical.
std::vector<PlanAlgorithm> requestedAlgorithms(CollectiveAlgorithm option, Collective op,
                                               bool hierarchicalAllReduce);

/**
 * One collective of `bytes` (nccl-tests' S) on `ranks`, alone on the fabric, with the
 * algorithms `option` asks for (cost/collectiveplanner.h builds each one's flows); the fastest
 * algorithm and protocol under NCCL's cost model (cost/nccltuning.h) is the result. Time =
 * the chain's latency + the most loaded link's bytes over its achievable bandwidth.
 * Ranks are global ranks of `mapping` (`worldSize` of them), in member order; throws
 * ScenarioError("ranks" or "bytes", ...) for an empty or repeated rank list, a rank
 * outside the world, send-recv on other than two ranks, or a size that is not a positive
 * number. One rank moves nothing and takes no time.
 * `routing` hashed: per seed every plan flow (one channel's connection) sends its
 * qpsPerConnection queue pairs down one equal-cost path each (cost/ecmphashing.h), each
 * algorithm is timed on those loads and the fastest counts; `time` is the mean over the seeds
 * and `timeP99` their 99th percentile (the considered algorithms' times are means too).
 * Adaptive: the ECMP links achieve adaptiveEfficiency of their bandwidth.
 */
CollectiveResult estimateCollective(const Fabric &fabric, Router &router, const Mapping &mapping,
    int worldSize, Collective op, const std::vector<int> &ranks, double bytes,
    CollectiveAlgorithm option = CollectiveAlgorithm::Auto,
    const nccltuning::DeviceTuning &device = {}, bool hierarchicalAllReduce = false,
    const EcmpRouting &routing = {});

} // namespace railyard
