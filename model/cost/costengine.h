#pragma once

#include "cost/collectiveestimate.h"
#include "cost/costreport.h"
#include "cost/ecmpreport.h"
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"
#include "scenario/scenario.h"
#include "workload/workloadplan.h"

#include <memory>
#include <utility>
#include <vector>

namespace railyard {

/**
 * The shared analytical cost engine. Built once per scenario (fabric, layout, workload plan);
 * it keeps per-pattern link loads so that swapping two ranks re-routes only the flows of the
 * groups those ranks belong to, and re-derives phase times and the pipeline timeline from them.
 * The GUI and the CLI both use this class; identical inputs give identical numbers.
 */
class CostEngine
{
public:
    /// Throws ScenarioError for anything inconsistent (fabric, degrees, workload, mapping): the
    /// checks of prepareEvaluation() (cost/evaluationinputs.h), which checkScenario() shares.
    /// `fabric`, when given, must have been built from scenario.fabric; it is shared, so a
    /// re-evaluation after a workload edit does not rebuild a large graph.
    /// `router`, when given, must route over that fabric; its route cache is then reused. A
    /// Router is not thread-safe: engines that share one must not evaluate concurrently.
    explicit CostEngine(const Scenario &scenario, std::shared_ptr<const Fabric> fabric = nullptr,
                        std::shared_ptr<Router> router = nullptr);
    ~CostEngine();
    CostEngine(const CostEngine &) = delete;
    CostEngine &operator=(const CostEngine &) = delete;

    const Scenario &scenario() const;
    const Fabric &fabric() const;
    const ParallelLayout &layout() const;
    const WorkloadPlan &plan() const;
    const Mapping &mapping() const;

    /// The report for the current mapping (always up to date).
    const CostReport &report() const;
    /// The sum over every directed link of its busy time per iteration squared (seconds
    /// squared), from the busy times rounded to picoseconds that rank the links; kept exactly,
    /// link by link, so a search reads it without a pass over every link. Current after
    /// refreshFigures() or refresh().
    double linkBusySquares() const;
    /// Mapping warnings (TP group split across servers, DP group across rails), one line each;
    /// validated on demand, not on every swap.
    const std::vector<std::string> &mappingWarnings() const;
    std::shared_ptr<const Fabric> sharedFabric() const;
    std::shared_ptr<Router> sharedRouter() const;

    /// Exchange two ranks' slots and update the report incrementally (a moveRanks() of the two,
    /// so revertMove() puts them back).
    void swapRanks(int a, int b);
    /// Move a rank to a slot (an occupied slot's rank swaps with it), incrementally; a slot on
    /// failed hardware is refused with the failure named. A moveRanks() too.
    void moveRank(int rank, int slot);
    /// Places each listed rank on its slot in one step (the listed ranks trade slots among
    /// themselves or take free ones), re-routing every group they belong to once. With
    /// `refresh` false the report stays as it was until refresh(), so a search that undoes a
    /// rejected move pays for no report it never reads. Throws ScenarioError (nothing changed)
    /// for a rank or slot out of range, a rank or slot listed twice, a slot held by a rank not
    /// listed, or a slot on failed hardware.
    void moveRanks(const std::vector<std::pair<int, int>> &rankToSlot, bool refresh = true);
    /// Puts back the ranks the last moveRanks() moved, on the slots they had (no-op when the
    /// engine changed otherwise since, or already reverted); the groups' earlier plans are
    /// reused, not planned again. `refresh` as for moveRanks(); false also leaves the busiest
    /// links of the patterns it touched to be found with the next move's (or the next refresh).
    void revertMove(bool refresh = true);
    /// Brings report() up to date after moveRanks(..., false) or refreshFigures(); cheap when
    /// it already is.
    void refresh();
    /// Brings up to date only what a placement search reads after each move: the iteration
    /// time, the timeline, every link's load and busy time, the bottleneck, the percentiles, the
    /// tier and dimension bytes and the memory. The exposed time per dimension, the phase and
    /// per-stage tables and the warnings stay behind until refresh() (they cost one more
    /// timeline per dimension and passes of string building), and the timeline's events are
    /// in the order the scheduler ran them, not sorted (EventOrder::AsRun).
    void refreshFigures();
    /// Replace the whole mapping (validated; throws ScenarioError with the validator's message).
    void setMapping(const Mapping &mapping);

    /// The scheduler input behind the report's timeline (per-stage compute and per-boundary
    /// send times for the current mapping).
    PipelineInput pipelineInput() const;
    /// The iteration time the engine derives from a timeline: the exposed DP sync after each
    /// stage's last backward (minus its overlap window) and the optimizer step.
    double iterationTime(const PipelineTimeline &timeline) const;

    /// One collective on the given ranks (in member order), alone on the fabric, with the
    /// current mapping and the scenario's collective algorithm (estimateCollective(),
    /// cost/collectiveestimate.h), or the given one.
    CollectiveResult collective(Collective op, const std::vector<int> &ranks, double bytes);
    CollectiveResult collective(Collective op, const std::vector<int> &ranks, double bytes,
                                CollectiveAlgorithm algorithm);

    /// Hashed or adaptive ECMP on the current mapping (docs/ecmp.md): per seed, each flow's
    /// connections x queue pairs take one equal-cost path each (cost/ecmphashing.h); every
    /// pattern's bandwidth term grows by its busiest link's hashed over its ideal load (the
    /// slowest flow's time under max-min fair sharing weighted by bytes) and the iteration is
    /// timed again. Ideal: the report's own figures, nothing spread. Const as a query: the
    /// engine re-times each seed and then puts its report back exactly as it was (so it
    /// must not run while another thread reads the engine).
    EcmpReport ecmp(const EcmpRouting &routing) const;
    EcmpReport ecmp() const { return ecmp(scenario().fabric.routing); }

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

/// Convenience: build an engine and return its report.
CostReport evaluate(const Scenario &scenario);

} // namespace railyard
