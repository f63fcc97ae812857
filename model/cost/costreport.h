#pragma once

#include "cost/pipelineschedule.h"
#include "base/units.h"
#include "workload/workloadplan.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace railyard {

/** Load on one directed link over one iteration. */
struct LinkLoad
{
    double bytes = 0.0;       ///< per iteration
    DimArray dimBytes{};      ///< per parallel dimension
    double busyTime = 0.0;    ///< bytes / bandwidth, seconds per iteration

    /// The dimension that contributes most (the first of equals).
    Dim topDim() const
    {
        return static_cast<Dim>(std::max_element(dimBytes.begin(), dimBytes.end()) - dimBytes.begin());
    }
};

/**
 * One phase: a set of collectives that run at the same time (e.g. every TP group of stage 2
 * doing one attention all-reduce). Its time is its alpha terms plus its most loaded link's
 * bytes over that link's (achievable) bandwidth; TP and DP collectives say which algorithm
 * and protocol ran.
 */
struct PhaseResult
{
    std::string name;          ///< "tp fwd stage 0: attention all-reduce"
    Dim dim = Dim::Tp;
    Collective collective = Collective::AllReduce;
    OpPass pass = OpPass::Forward;
    int stage = -1;            ///< -1 when the phase spans all stages (DP sync)
    double bytes = 0.0;        ///< message size S of one op
    double count = 0.0;        ///< runs per micro-batch (fwd/bwd) or per iteration
    double alphaTime = 0.0;    ///< latency part of one run
    double time = 0.0;         ///< one run, seconds
    int bottleneckLink = -1;
    std::string algorithm;     ///< TP and DP collectives: what runs ("ring", "nvls", ...); else ""
    std::string protocol;      ///< its NCCL protocol ("LL", "LL128", "Simple"); else ""
};

struct LinkStats
{
    int count = 0;  ///< directed links in the fabric (all of them enter the distribution)
    double p50 = 0.0, p95 = 0.0, p99 = 0.0, max = 0.0;
};

/** Everything one evaluation predicts for one scenario and mapping. */
struct CostReport
{
    int ranks = 0;
    double iterationTime = 0.0;
    double bubbleFraction = 0.0;
    double pipelineMakespan = 0.0;
    double mfu = 0.0;                      ///< model FLOPs utilisation of the whole job
    DimArray dimBytes{};                   ///< bytes moved over links per iteration, per dim
    DimArray dimExposed{};                 ///< exposed (critical-path) seconds per iteration
    std::array<DimArray, kTierCount> tierBytes{}; ///< [tier][dim]
    double spineBytesShare = 0.0;          ///< leaf->spine bytes / NIC->leaf bytes
    LinkStats linkStats;
    int bottleneckLink = -1;               ///< the link with the highest utilisation
    Dim bottleneckDim = Dim::Tp;
    std::vector<LinkLoad> links;           ///< indexed by FabricLink::id
    std::vector<PhaseResult> phases;
    PipelineTimeline timeline;
    std::vector<double> stageForward;      ///< per stage per micro-batch, incl. exposed TP/EP/CP
    std::vector<double> stageBackward;
    std::vector<double> boundaryForward;   ///< per boundary s -> s+1
    std::vector<double> boundaryBackward;
    std::vector<MemoryLedger> memory;      ///< per stage (every rank of a stage holds the same)
    double maxMemoryPerRank = 0.0;
    bool memoryFits = true;
    double dpSyncTime = 0.0;               ///< the full gradient sync, before overlap
    double dpOverlapWindow = 0.0;
    std::vector<std::string> warnings;     ///< model caveats (memory); see CostEngine::mappingWarnings()

    /// Busy time / iteration time of one directed link.
    double utilisation(int link) const
    {
        return iterationTime > 0.0 ? links[link].busyTime / iterationTime : 0.0;
    }
};

} // namespace railyard
