#include "cost/evaluationinputs.h"

#include "base/scenarioerror.h"

namespace railyard {

namespace {

std::shared_ptr<const Fabric> fabricFor(
    const FabricSpec &spec, std::shared_ptr<const Fabric> fabric)
{
    if (fabric && fabric->spec() == spec)
        return fabric;
    return std::make_shared<const Fabric>(Fabric::build(spec));
}

Mapping mappingFor(const Scenario &scenario, const ParallelLayout &layout, const Fabric &fabric)
{
    if (scenario.slots.empty())
        return Mapping::place(scenario.placement, layout, fabric);
    return Mapping(scenario.slots, fabric.slotCount());
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
    std::shared_ptr<const Fabric> built = fabricFor(scenario.fabric, std::move(fabric));
    ParallelLayout layout(scenario.degrees, scenario.order);
    WorkloadPlan plan
        = planWorkload(scenario.model, scenario.training, scenario.device, scenario.degrees);
    Mapping mapping = mappingFor(scenario, layout, *built);
    checkMapping(mapping, layout, *built, scenario.failures);
    return EvaluationInputs { std::move(built), std::move(layout), std::move(plan),
        std::move(mapping) };
}

} // namespace railyard
