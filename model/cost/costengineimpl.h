#pragma once

// Private to the cost engine: the state behind CostEngine, shared by its implementation files
// (costengine.cpp: evaluation and timing; collectiveestimate.cpp: isolated collectives).

#include "cost/costengine.h"
#include "cost/trafficmodel.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace railyard {

/// Passes over the ring per collective: all-reduce = reduce-scatter + all-gather (2 passes of
/// n-1 steps each, Patarasuk & Yuan 2009); the others one pass.
inline int passesOf(Collective c)
{
    return c == Collective::AllReduce ? 2 : 1;
}

/** Which communication the stage-time model includes; the exposure ablation drops one dim. */
struct DimMask
{
    std::array<bool, kDimCount> on{true, true, true, true, true};
    static DimMask without(Dim d)
    {
        DimMask m;
        m.on[index(d)] = false;
        return m;
    }
};

/** A DP sync op expressed against the DP pattern: S of stage s = ratio * stageDpBytes[s]. */
struct DpOp
{
    Collective collective = Collective::AllReduce;
    double ratio = 1.0;
    std::string what;
};

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
    CostReport report;
    std::vector<long long> busyKey;          ///< per link: busy time in picoseconds
    std::map<long long, int> busyHistogram;  ///< busy key -> number of links
    std::optional<std::vector<std::string>> mappingWarnings; ///< computed on demand

    Impl(const Scenario &s, std::shared_ptr<const Fabric> prebuilt, std::shared_ptr<Router> r)
        : scenario(s)
        , fabricPtr(prebuilt ? std::move(prebuilt) : std::make_shared<const Fabric>(Fabric::build(s.fabric)))
        , fabric(*fabricPtr)
        , layout(s.degrees, s.order)
        , plan(planWorkload(s.model, s.training, s.device, s.degrees))
        , router(r ? std::move(r) : std::make_shared<Router>(fabric))
    {}

    int chunks() const
    {
        return scenario.training.schedule == ScheduleKind::Interleaved
                   ? std::max(1, scenario.training.interleave)
                   : 1;
    }

    void setUpTraffic();
    void checkMapping(const Mapping &m) const;
    void recompute(bool allLinks);

    double opTime(int pattern, Collective c, double bytes) const;
    double epOpTime(int stage, Collective c, double bytes) const; ///< dispatch/combine mean
    double dpSyncTime() const;
    std::vector<double> stageTimes(OpPass pass, const DimMask &mask) const;
    std::vector<double> boundaryTimes(bool forward) const;
    PipelineTimeline schedule(const DimMask &mask) const;
    double iterationTime(const PipelineTimeline &t, bool withDp) const;
    double optimizerTime() const;
    void fillPhases();
    void updateLink(int link);
    void fillLinks(bool all);
};

} // namespace railyard
