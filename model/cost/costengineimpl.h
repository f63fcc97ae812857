#pragma once

// Internal to the cost engine (costengine.cpp, costenginemoves.cpp): its state between moves.

#include "cost/computeslowdown.h"
#include "cost/costengine.h"
#include "cost/evaluationinputs.h"
#include "cost/linkranking.h"
#include "cost/mixeddevices.h"
#include "cost/overlapchannels.h"
#include "cost/stagetiming.h"
#include "cost/trafficmodel.h"
#include "cost/trafficplan.h"
#include "fabric/failedcomponent.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace railyard {

struct CostEngine::Impl
{
    Scenario scenario;
    std::shared_ptr<const Fabric> fabricPtr;
    const Fabric &fabric;
    ParallelLayout layout;
    WorkloadPlan plan;
    Mapping mapping;
    std::shared_ptr<Router> router;
    std::optional<TrafficModel> traffic;
    std::vector<DpOp> dpOps;
    std::vector<double> stageDpBytes;
    DimArray bytesSent {}; ///< depends on the plan alone
    std::array<bool, kDimCount> present {};
    PhaseTimes times; ///< of the current mapping
    CostReport report;
    LinkRanking ranking; ///< busy time per link, for the bottleneck and the percentiles
    /// Sum over links of the squared busy-time keys (picoseconds squared), exact: kept up to
    /// date link by link with the ranking (CostEngine::linkBusySquares()).
    __extension__ using Squares = unsigned __int128;
    Squares busySquares = 0;
    OverlapChannels channels; ///< link bounds and the overlapped DP sync's contention
    Timing main;
    std::optional<std::vector<std::string>> mappingWarnings; ///< computed on demand
    std::vector<char> usable; ///< per slot, for moveRanks(); filled on first use with failures
    bool stale = false; ///< moveRanks(..., false) left the report behind the mapping
    std::vector<std::pair<int, int>> lastUndo; ///< rank -> slot before the last moveRanks()
    bool partial = false; ///< refreshFigures(): exposed times, stages and warnings are behind
    /// revertMove(..., false) left the traffic model's maxima and choices to settle with the
    /// next move's, or before the next read (recompute()).
    bool trafficBehind = false;
    /// Slow GPUs and hosts (fabric/degradation.h): inactive for a healthy scenario. The plan is
    /// then `basePlan` with each stage stretched to its slowest rank, re-derived when a move
    /// changes which stage a slow slot holds (applySlowdown()).
    ComputeSlowdown slowdown;
    WorkloadPlan basePlan;
    std::vector<StagePace> stagePace;
    void applySlowdown();
    /// Mixed devices (fabric.device_pools): null on a fabric of one device kind. The slowdown
    /// then also takes each stage's compute from the device of its slowest rank.
    std::unique_ptr<MixedDevices> devices;

    Impl(const Scenario &s, EvaluationInputs in, std::shared_ptr<Router> r)
        : scenario(s)
        , fabricPtr(std::move(in.fabric))
        , fabric(*fabricPtr)
        , layout(std::move(in.layout))
        , plan(std::move(in.plan))
        , mapping(std::move(in.mapping))
        , router(routerFor(fabric, s, std::move(r)))
    {
    }

    /// The given router when it routes around the same failed leaves, else a new one (a router
    /// of a multi-plane fabric avoids failed leaves' ports, Router).
    static std::shared_ptr<Router> routerFor(
        const Fabric &fabric, const Scenario &s, std::shared_ptr<Router> r)
    {
        std::vector<char> failed = routedFailures(fabric, s.failures);
        if (r && r->failedLeaves() == failed)
            return r;
        return std::make_shared<Router>(fabric, std::move(failed));
    }

    int chunks() const { return chunksPerRank(scenario.training); }

    void setUpTraffic();
    /// `full` false: the figures a search reads only (CostEngine::refreshFigures()).
    void recompute(bool allLinks, bool full = true);
    void fillExposed();

    double opTime(int pattern, Collective c, double bytes) const;
    /// The time of TP op `i` of the plan (tpChoice()), kept per op with the traffic model's
    /// tpVersion() it was found at: most moves change a stage or two's TP groups, and every op
    /// of the others chooses as before (the choice was most of phaseTimes()).
    double tpOpTime(std::size_t i) const;
    mutable std::vector<double> tpRun;
    mutable std::vector<std::uint64_t> tpRunVersion; ///< 0: not found yet
    double epOpTime(int stage, Collective c, double bytes) const; ///< dispatch/combine mean
    PhaseTimes phaseTimes() const;
    std::vector<double> boundaryTimes(bool forward) const;
    double wrapTime(bool forward) const;
    int tiedEmbeddingPattern() const; ///< the slower direction of the tied embedding's pair
    double tiedEmbeddingTime() const; ///< PhaseTimes::tiedEmbedding
    double linkBoundAt(int microbatches) const;
    void fillPhases();
    /// Link `link`'s figures into `load` and the overlap channels; returns its ranking key.
    /// `full` false: a search's refreshFigures(), which reads no exposure variant.
    long long updateLink(int link, LinkLoad &load, bool full = true);
    void refreshLinks(bool all, bool full = true);
    static Squares square(long long key);
    void fillLinkStats();
    void fillStages();
};

} // namespace railyard
