#pragma once

#include "fabric/failedcomponent.h"
#include "scenario/scenario.h"

#include <cstddef>
#include <vector>

/**
 * The failure remap of a scenario with several jobs (docs/shared-fabric.md): the remap acts on
 * one job at a time, seen as a single-job scenario whose other jobs' GPUs count as failed (so
 * its spares are the free slots), and the remapped job goes back among the others.
 */
namespace railyard {

/// The jobs (indexes into shared.jobs, ascending) with a rank on a slot that `failures` make
/// unusable, beside the failures the scenario already lists.
std::vector<std::size_t> jobsHitBy(
    const Scenario &shared, const std::vector<FailedComponent> &failures);

/// `shared` with job `index` replaced by `remapped` (the single-job scenario a remap wrote: its
/// degrees, order, model, training, slots and mapping version) and `failures` added to the
/// scenario's own; the other jobs stay as they were (the failed GPUs of the job's single-job
/// view, the other jobs' slots, are not written back as failures).
Scenario withRemappedJob(const Scenario &shared, std::size_t index, const Scenario &remapped,
    const std::vector<FailedComponent> &failures);

} // namespace railyard
