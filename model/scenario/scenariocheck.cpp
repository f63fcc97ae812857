#include "scenario/scenariocheck.h"

#include "fabric/failedcomponent.h"
#include "studies/inference.h"
#include "cost/pipelineschedule.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "workload/workloadplan.h"

#include <nlohmann/json.hpp>

namespace railyard {

namespace {

bool sameLink(const LinkSpec &a, const LinkSpec &b)
{
    return a.gbps == b.gbps && a.latencyUs == b.latencyUs;
}

/// The scenario without what only names or places it, as JSON (model, training and device
/// have many fields; the file format already lists every one of them).
nlohmann::json evaluationJson(const Scenario &s)
{
    Scenario copy;
    copy.degrees = s.degrees;
    copy.order = s.order;
    copy.model = s.model;
    copy.training = s.training;
    copy.device = s.device;
    copy.fabric = s.fabric;
    return scenarioToJson(copy);
}

} // namespace

bool sameFabricSpec(const FabricSpec &a, const FabricSpec &b)
{
    return a.kind == b.kind && a.name == b.name && a.servers == b.servers
           && a.gpusPerServer == b.gpusPerServer && a.nicsPerServer == b.nicsPerServer
           && a.gpuToNic == b.gpuToNic && a.serverNames == b.serverNames
           && a.serversPerSu == b.serversPerSu && a.serversPerLeaf == b.serversPerLeaf
           && a.switchRadix == b.switchRadix && a.spines == b.spines
           && a.superSpines == b.superSpines && a.leafOversubscription == b.leafOversubscription
           && a.spineOversubscription == b.spineOversubscription && sameLink(a.scaleUp, b.scaleUp)
           && sameLink(a.pcie, b.pcie) && sameLink(a.nic, b.nic)
           && sameLink(a.fabricPort, b.fabricPort) && a.pxn == b.pxn;
}

bool sameEvaluationInputs(const Scenario &a, const Scenario &b)
{
    return sameFabricSpec(a.fabric, b.fabric) && evaluationJson(a) == evaluationJson(b);
}

bool sameScenario(const Scenario &a, const Scenario &b)
{
    return sameFabricSpec(a.fabric, b.fabric) && a.slots == b.slots && scenarioToJson(a) == scenarioToJson(b);
}

std::shared_ptr<const Fabric> checkScenario(Scenario &scenario, std::shared_ptr<const Fabric> fabric)
{
    if (!fabric || !sameFabricSpec(fabric->spec(), scenario.fabric))
        fabric = std::make_shared<const Fabric>(Fabric::build(scenario.fabric));
    const ParallelLayout layout(scenario.degrees, scenario.order);
    const WorkloadPlan plan = planWorkload(scenario.model, scenario.training, scenario.device,
                                           scenario.degrees);

    const Mapping mapping = scenario.slots.empty()
                                ? Mapping::place(scenario.placement, layout, *fabric)
                                : Mapping(scenario.slots, fabric->slotCount());
    for (const MappingIssue &issue : mapping.validate(layout, *fabric))
        if (issue.severity == MappingIssue::Error)
            throw ScenarioError("mapping", issue.message); // as CostEngine::Impl::checkMapping
    checkRanksOnUsableSlots(mapping, layout, *fabric, scenario.failures);
    if (scenario.inference)
        validateInference(scenario); // an edit (a bigger model, less HBM) may break the pools
    scenario.slots = mapping.slots();

    // The scheduler's own checks (interleaving needs micro-batches in groups of pp, size
    // limits) depend only on the shape, so unit stage times stand in for the real ones.
    PipelineInput shape;
    shape.kind = scenario.training.schedule;
    shape.stages = scenario.degrees.pp;
    shape.microbatches = plan.microbatches;
    shape.chunks = scenario.training.schedule == ScheduleKind::Interleaved
                       ? std::max(1, scenario.training.interleave)
                       : 1;
    shape.forward.assign(static_cast<std::size_t>(std::max(0, shape.stages)), 1.0);
    shape.backward = shape.forward;
    schedulePipeline(shape);
    return fabric;
}

} // namespace railyard
