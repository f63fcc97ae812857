#include "cost/evaluationinputs.h"

#include "base/scenarioerror.h"
#include "fabric/degradation.h"
#include "fabric/fabricwithoutlinks.h"

#include <cstdint>
#include <exception>
#include <optional>
#include <system_error>
#include <thread>

namespace railyard {

namespace {

std::shared_ptr<const Fabric> fabricFor(
    const Scenario &scenario, std::shared_ptr<const Fabric> fabric, FabricParts build)
{
    // A fabric is reused for the same spec and the same degraded links (fabric/degradation.h):
    // "" on both sides for a healthy scenario, which stays on exactly the code it ran before.
    const std::vector<Degradation> &parts = scenario.degradations.parts;
    const std::string key = linkDegradationKey(parts);
    if (fabric && fabric->spec() == scenario.fabric && fabric->degradationKey() == key)
        return fabric;
    if (key.empty() && build == FabricParts::Shape && !fabric)
        return std::make_shared<const Fabric>(fabricWithoutLinks(scenario.fabric));
    if (key.empty())
        return std::make_shared<const Fabric>(Fabric::build(scenario.fabric));
    if (fabric && fabric->spec() == scenario.fabric && fabric->degradationKey().empty())
        return std::make_shared<const Fabric>(degradedFabric(*fabric, parts));
    return std::make_shared<const Fabric>(degradedFabric(Fabric::build(scenario.fabric), parts));
}

Mapping mappingFor(const Scenario &scenario, const ParallelLayout &layout, const Fabric &fabric)
{
    if (scenario.slots.empty())
        return Mapping::place(scenario.placement, layout, fabric);
    return Mapping(scenario.slots, fabric.slotCount());
}

/// Megatron-LM's rules for its overlap switches (megatron/training/arguments.py asserts them,
/// read at commit d98e8a6, August 2026, where all three switches default to off):
/// --overlap-param-gather needs the distributed optimizer and --overlap-grad-reduce, and
/// --tp-comm-overlap needs sequence parallelism. With tp 1 there is no TP traffic to overlap,
/// so tp_comm_overlap is accepted and does nothing.
void checkOverlap(const TrainingSpec &t, const ParallelDegrees &d)
{
    if (t.overlapParamGather && !t.distributedOptimizer)
        throw ScenarioError("training.overlap_param_gather",
            "needs the distributed optimizer, whose parameter all-gather it "
            "overlaps");
    if (t.overlapParamGather && !t.dpOverlap)
        throw ScenarioError("training.overlap_param_gather",
            "needs overlap_grad_reduce as well (Megatron-LM asserts it)");
    if (t.tpCommOverlap && d.tp > 1 && !t.sequenceParallel)
        throw ScenarioError("training.tp_comm_overlap",
            "needs sequence parallelism: Transformer Engine overlaps the "
            "all-gathers and reduce-scatters it brings");
}

} // namespace

void checkMapping(const Mapping &mapping, const ParallelLayout &layout, const Fabric &fabric,
    const std::vector<FailedComponent> &failures)
{
    for (const MappingIssue &issue : mapping.validate(layout, fabric))
        if (issue.severity == MappingIssue::Error)
            throw ScenarioError("mapping", issue.message);
    // A degraded scenario is evaluated like any other, so it must be consistent: no rank on a
    // slot a failed server, GPU, NIC or leaf made unusable (fabric/failedcomponent.h).
    checkRanksOnUsableSlots(mapping, layout, fabric, failures);
}

bool evaluationInputsInParallel(const Scenario &scenario, PrepareThreads threads)
{
    if (threads != PrepareThreads::Auto)
        return threads == PrepareThreads::Parallel;
    // From 16,384 GPUs (the scaling section's 131k run has 131,072): there the layout and the
    // plan take tens of milliseconds beside the fabric's hundreds, where a thread's start costs
    // tens of microseconds; below, a search or the GUI, which build many engines, stay on one
    // thread (docs/performance.md, "A million GPUs").
    constexpr std::int64_t kParallelFromGpus = 16384;
    return static_cast<std::int64_t>(scenario.fabric.servers) * scenario.fabric.gpusPerServer
        >= kParallelFromGpus;
}

EvaluationInputs prepareEvaluation(const Scenario &scenario, std::shared_ptr<const Fabric> fabric,
    PrepareThreads threads, FabricParts parts)
{
    // The layout and the plan read the scenario alone, the fabric its spec alone: a second
    // thread builds the first two while this one builds the fabric. Nothing either writes is
    // shared, so the inputs are the same as one after the other; a refusal is the one the
    // serial order meets first (the fabric's, then the layout's, the overlap check's, the
    // plan's), since the other thread's is rethrown only after the fabric is built.
    std::optional<ParallelLayout> layout;
    std::optional<WorkloadPlan> plan;
    std::exception_ptr planError;
    const auto layOut = [&scenario, &layout, &plan, &planError] {
        try {
            layout.emplace(scenario.degrees, scenario.order);
            checkOverlap(scenario.training, scenario.degrees);
            plan.emplace(
                planWorkload(scenario.model, scenario.training, scenario.device, scenario.degrees));
        } catch (...) {
            planError = std::current_exception();
        }
    };
    std::optional<std::thread> planner;
    if (evaluationInputsInParallel(scenario, threads)) {
        try {
            planner.emplace(layOut);
        } catch (const std::system_error &) {
            // No thread to be had (std::thread's constructor, [thread.thread.constr]): the
            // layout and plan after the fabric, as on one thread.
        }
    }
    std::shared_ptr<const Fabric> built;
    try {
        built = fabricFor(scenario, std::move(fabric), parts);
    } catch (...) {
        if (planner)
            planner->join();
        throw;
    }
    if (planner)
        planner->join();
    else
        layOut();
    if (planError)
        std::rethrow_exception(planError);
    Mapping mapping = mappingFor(scenario, *layout, *built);
    checkMapping(mapping, *layout, *built, scenario.failures);
    return EvaluationInputs { std::move(built), std::move(*layout), std::move(*plan),
        std::move(mapping) };
}

} // namespace railyard
