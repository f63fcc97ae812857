#pragma once

#include "cost/costenginejobs.h"
#include "scenario/scenario.h"
#include "studies/fragmentation.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace railyard {

/// `scenario` as a scenario with jobs: itself when it holds jobs; a single-job scenario becomes
/// one job named after it ("job" when unnamed) on its slots, in the first default hue.
Scenario asJobsScenario(const Scenario &scenario);

/// The single-job scenario `single` as a job to add to `shared`: its layout, model, training and
/// device (kept only when it differs from the shared default), no slots yet, named after it
/// (made unique among `shared`'s jobs with "-2", "-3" ...) in the next default hue.
JobSpec newJobFrom(const Scenario &single, const Scenario &shared);

/// `shared` (asJobsScenario()) with `job` added on `slots`; the top-level fields hold the first
/// job (adoptFirstJob()).
Scenario withNewJob(const Scenario &shared, JobSpec job, const std::vector<int> &slots);

/** How "place a new job" searches (docs/shared-fabric.md). */
struct PlaceJobOptions
{
    /// Server windows evaluated with every job on the fabric (each costs one shared evaluation):
    /// enough for every leaf of a design-review fabric, few enough to answer in about a second.
    int maxWindows = 24;
    /// The optimiser's moves from the best window, the other jobs fixed (0 = no optimiser run):
    /// a deterministic budget (no clock), as `optimise --moves`.
    long long optimiserMoves = 1500;
    std::uint64_t seed = 1;
    PhaseOverlap overlap = PhaseOverlap::Worst;
};

/** One placement of the new job and what it costs the running jobs. */
struct PlacementCandidate
{
    std::string how; ///< "under tor-0", "servers in order", "optimiser"
    std::vector<int> servers; ///< the servers its ranks take, ascending
    std::vector<int> slots; ///< rank -> GPU slot
    /// Per running job (the order of the shared scenario's jobs): its shared iteration with the
    /// new job on the fabric over its shared iteration without it.
    std::vector<double> slowdown;
    double addedSeconds = 0.0; ///< the running jobs' iterations grow by this much in total
    double iterationTime = 0.0; ///< the new job's, shared
    double aloneIterationTime = 0.0; ///< the new job's, alone on the fabric
    Fragmentation fragmentation; ///< of the free servers left
};

/** The candidates for a new job, the least harmful first. */
struct NewJobPlacement
{
    JobSpec job; ///< without slots
    int ranks = 0;
    int serversNeeded = 0;
    std::vector<std::string> running; ///< the running jobs' names
    std::vector<double> runningIterationTime; ///< shared, before the new job
    Fragmentation before; ///< the free servers before the new job
    /// Best first: the smallest added seconds, then the new job's shortest shared iteration,
    /// then the most jobs of its size still fitting, then the longest free run, then the lowest
    /// servers.
    std::vector<PlacementCandidate> candidates;
    long long optimiserMoves = 0; ///< moves the optimiser evaluated
};

/// Searches the free servers of `shared` (freeServers()) for the placement of `job` that hurts
/// the running jobs least: windows of free servers under one leaf and in server order, each
/// evaluated with every job on the fabric (evaluateJobs()), then the optimiser from the best of
/// them with the other jobs fixed (jobWithOthersFixed(), the path of `optimise --job`).
/// Throws ScenarioError when the free servers cannot hold the job or the engine refuses it.
NewJobPlacement placeNewJob(
    const Scenario &shared, const JobSpec &job, const PlaceJobOptions &options = {});

/// The report `railyard-cli place-job` prints.
std::string newJobPlacementText(const NewJobPlacement &placement);

} // namespace railyard
