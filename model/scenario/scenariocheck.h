#pragma once

#include "fabric/fabric.h"
#include "scenario/scenario.h"

#include <memory>

namespace railyard {

/// Field-by-field equality of two fabric specs: equal specs build identical fabrics, so an
/// engine for the second may share the first's Fabric and Router.
bool sameFabricSpec(const FabricSpec &a, const FabricSpec &b);

/// True when the two scenarios differ only in what the mapping holds (placement, slots,
/// mapping version) and names: an engine for one evaluates the other after setMapping().
bool sameEvaluationInputs(const Scenario &a, const Scenario &b);

/// Whole-scenario equality (every field the scenario file stores).
bool sameScenario(const Scenario &a, const Scenario &b);

/**
 * Everything the CostEngine constructor checks except routing and the traffic model: the
 * fabric, the parallel layout, the workload plan, the mapping and the pipeline's shape. It
 * lets a large scenario be validated on the UI thread in a fraction of a full evaluation,
 * which then runs off the UI thread. Fills `scenario.slots` from its placement when empty.
 * Returns the fabric it checked against (`fabric` when it has the scenario's spec, otherwise a
 * new one the caller may hand to the engine). Throws ScenarioError with the engine's message.
 */
std::shared_ptr<const Fabric> checkScenario(Scenario &scenario, std::shared_ptr<const Fabric> fabric);

} // namespace railyard
