#pragma once

#include "fabric/fabric.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"
#include "scenario/scenario.h"
#include "workload/workloadplan.h"

#include <memory>

namespace railyard {

/**
 * What an evaluation of a scenario stands on, each part built and checked: the fabric graph,
 * the parallel layout, the workload plan and the rank mapping. The cost engine is built from
 * these, and checkScenario() (cost/scenariocheck.h) runs the same checks without routing,
 * so the two can never disagree about what is valid.
 */
struct EvaluationInputs
{
    std::shared_ptr<const Fabric> fabric;
    ParallelLayout layout;
    WorkloadPlan plan;
    Mapping mapping;
};

/// Whether prepareEvaluation() builds the layout and the plan on a second thread while it
/// builds the fabric: Auto does from 16,384 GPUs; Serial and Parallel force it (tests).
enum class PrepareThreads { Auto, Serial, Parallel };
/// The fabric prepareEvaluation() builds when it has none to reuse: the whole fabric, or, for
/// `generate`'s check of the file it writes, its vertices and NIC attachments alone
/// (fabricWithoutLinks(), fabric/fabricwithoutlinks.h; a scenario with link degradations is
/// still built whole, they need the links).
enum class FabricParts { Whole, Shape };
bool evaluationInputsInParallel(const Scenario &scenario, PrepareThreads threads);

/// Builds the fabric (or reuses `fabric` when it was built from an equal spec), the layout from
/// the degrees and the order, the workload plan and the mapping (the explicit slots, else the
/// named placement), then checks the mapping with checkMapping(). Throws ScenarioError naming
/// the field at fault, in that order. The fabric and the layout and plan may be built on two
/// threads at once (PrepareThreads): the inputs and the refusals are the same either way.
EvaluationInputs prepareEvaluation(const Scenario &scenario, std::shared_ptr<const Fabric> fabric,
    PrepareThreads threads = PrepareThreads::Auto, FabricParts parts = FabricParts::Whole);

/// The mapping checks every evaluation needs: no error of Mapping::validate() (wrong size, slot
/// out of range, a slot used twice) and no rank on a slot the scenario's failures made
/// unusable. Throws ScenarioError("mapping", ...). Warnings (split groups) are not errors.
void checkMapping(const Mapping &mapping, const ParallelLayout &layout, const Fabric &fabric,
    const std::vector<FailedComponent> &failures);

} // namespace railyard
