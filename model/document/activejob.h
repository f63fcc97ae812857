#pragma once

#include "scenario/scenario.h"

#include <string>
#include <vector>

/**
 * The document's form of a scenario with jobs (docs/shared-fabric.md, "In the explorer"): the
 * top-level layout, model, training, device and mapping hold the *active* job, the one the
 * rank palette, the inspector, the timeline and a drag work on; `jobs[active]` may lag behind
 * them until it is synced, every other entry of `jobs` is current. A file keeps the first job
 * in the top-level fields and the scenario's default device: fileForm() converts.
 */
namespace railyard::activejob {

/// Writes the top-level fields back into `jobs[active]` (its device too when it has its own or
/// the top-level device differs from `sharedDevice`). No-op without jobs.
void sync(Scenario &scenario, int active, const DeviceSpec &sharedDevice);
/// Puts `jobs[index]` into the top-level fields (its device, or `sharedDevice`).
void activate(Scenario &scenario, int index, const DeviceSpec &sharedDevice);
/// What a file stores: every job current, the first in the top-level fields, the default device.
Scenario fileForm(Scenario scenario, int active, const DeviceSpec &sharedDevice);

/// Per GPU slot, the job other than `active` holding it (-1: free, or the active job's), and
/// that job's rank on it.
void otherJobSlots(
    const Scenario &scenario, int active, std::vector<int> &job, std::vector<int> &rank);

/// Job `index`'s ranks moved as a whole onto `servers` (its k-th server, in ascending order,
/// onto servers[k]; each rank keeps its GPU index). `slots` are its slots now. Returns the new
/// slots, or an empty list with `error` set: a count that differs from the job's servers, a
/// server out of range or listed twice, or a slot another job holds (named).
std::vector<int> movedJobSlots(const Scenario &scenario, int index, const std::vector<int> &slots,
    const std::vector<int> &servers, int active, std::string &error);

} // namespace railyard::activejob
