#include "cost/evaluationinputs.h"

#include "base/scenarioerror.h"
#include "fabric/degradation.h"

namespace railyard {

namespace {

std::shared_ptr<const Fabric> fabricFor(
    const Scenario &scenario, std::shared_ptr<const Fabric> fabric)
{
    // A fabric is reused for the same spec and the same degraded links (fabric/degradation.h):
    // "" on both sides for a healthy scenario, which stays on exactly the code it ran before.
    const std::vector<Degradation> &parts = scenario.degradations.parts;
    const std::string key = linkDegradationKey(parts);
    if (fabric && fabric->spec() == scenario.fabric && fabric->degradationKey() == key)
        return fabric;
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

EvaluationInputs prepareEvaluation(const Scenario &scenario, std::shared_ptr<const Fabric> fabric)
{
    std::shared_ptr<const Fabric> built = fabricFor(scenario, std::move(fabric));
    ParallelLayout layout(scenario.degrees, scenario.order);
    checkOverlap(scenario.training, scenario.degrees);
    WorkloadPlan plan
        = planWorkload(scenario.model, scenario.training, scenario.device, scenario.degrees);
    Mapping mapping = mappingFor(scenario, layout, *built);
    checkMapping(mapping, layout, *built, scenario.failures);
    return EvaluationInputs { std::move(built), std::move(layout), std::move(plan),
        std::move(mapping) };
}

} // namespace railyard
