#include "cost/scenariocheck.h"

#include "cost/evaluationinputs.h"
#include "cost/pipelineschedule.h"
#include "scenario/inferencecheck.h"

namespace railyard {

bool sameEvaluationInputs(const Scenario &a, const Scenario &b)
{
    // The failures count: the engine checks every mapping against them.
    return a.fabric == b.fabric && a.degrees == b.degrees && a.order == b.order
        && a.model == b.model && a.training == b.training && a.device == b.device
        && a.failures == b.failures;
}

std::shared_ptr<const Fabric> checkScenario(
    Scenario &scenario, std::shared_ptr<const Fabric> fabric, FabricParts parts)
{
    EvaluationInputs inputs
        = prepareEvaluation(scenario, std::move(fabric), PrepareThreads::Auto, parts);
    if (scenario.inference)
        validateInference(scenario); // an edit (a bigger model, less HBM) may break the pools
    scenario.slots = inputs.mapping.slots();

    // The scheduler's own checks (interleaving needs micro-batches in groups of pp, size
    // limits) depend only on the shape, so unit stage times stand in for the real ones.
    PipelineInput shape;
    shape.kind = scenario.training.schedule;
    shape.stages = scenario.degrees.pp;
    shape.microbatches = inputs.plan.microbatches;
    shape.chunks = chunksPerRank(scenario.training);
    shape.forward.assign(static_cast<std::size_t>(std::max(0, shape.stages)), 1.0);
    shape.backward = shape.forward;
    schedulePipeline(shape);
    return std::move(inputs.fabric);
}

} // namespace railyard
