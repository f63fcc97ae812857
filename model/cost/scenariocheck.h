#pragma once

#include "cost/evaluationinputs.h"
#include "fabric/fabric.h"
#include "scenario/scenario.h"

#include <memory>

namespace railyard {

/// Equal fabric specs build identical fabrics, so an engine for the second may share the
/// first's Fabric and Router. The same as `a == b`, kept for the callers that name it.
inline bool sameFabricSpec(const FabricSpec &a, const FabricSpec &b)
{
    return a == b;
}

/// Whole-scenario equality, the same as `a == b`, kept for the callers that name it.
inline bool sameScenario(const Scenario &a, const Scenario &b)
{
    return a == b;
}

/// True when the two scenarios differ only in what the mapping holds (placement, slots,
/// mapping version), in their names and in their inference part: an engine for one evaluates
/// the other after setMapping().
bool sameEvaluationInputs(const Scenario &a, const Scenario &b);

/**
 * Everything the CostEngine constructor checks except routing and the traffic model (the same
 * code: prepareEvaluation(), cost/evaluationinputs.h), plus the inference part and the
 * pipeline's shape. It lets a large scenario be validated on the UI thread in a fraction of a
 * full evaluation, which then runs off the UI thread. Fills `scenario.slots` from its placement
 * when empty. Returns the fabric it checked against (`fabric` when it has the scenario's spec,
 * otherwise a new one the caller may hand to the engine). Throws ScenarioError with the
 * engine's message. `parts`: what fabric to build when `fabric` is null (FabricParts::Shape:
 * the vertices and NIC attachments the checks read, not one an engine can route on).
 */
std::shared_ptr<const Fabric> checkScenario(Scenario &scenario,
    std::shared_ptr<const Fabric> fabric, FabricParts parts = FabricParts::Whole);

} // namespace railyard
