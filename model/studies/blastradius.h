#pragma once

#include "cost/costengine.h"
#include "fabric/degradation.h"
#include "layout/parallellayout.h"

#include <string>
#include <vector>

namespace railyard {

/** One communication group that waits on a degraded part. */
struct WaitingGroup
{
    GroupKind kind = GroupKind::Tp;
    int index = 0; ///< into ParallelLayout::groups(kind)
    std::vector<int> ranks; ///< its members, in member order
};

/** A pipeline stage that ends its iteration later because of a degraded part. */
struct WaitingStage
{
    int stage = 0;
    double delay = 0.0; ///< seconds per iteration its work (compute and gradient sync) ends later
};

/** What one degraded part costs, evaluated alone on the otherwise healthy scenario. */
struct PartImpact
{
    Degradation part;
    std::string name; ///< "gpu:17 (node002/gpu1)"
    /// The groups whose collectives wait on it: for a slow GPU or host every group of the ranks
    /// on it; for a NIC or cable every group whose traffic routes through it (a ring's
    /// neighbours, a pipeline's adjacent stages, every pair of an EP group).
    std::vector<WaitingGroup> groups;
    std::vector<WaitingStage> stages; ///< the stages that end later, with how much
    double delay = 0.0; ///< seconds per iteration: this part alone minus healthy
};

/** The blast radius of a scenario's degradations (docs/stragglers.md). */
struct BlastRadius
{
    double healthyIterationTime = 0.0; ///< the same mapping with every part healthy
    double degradedIterationTime = 0.0; ///< every part degraded at once (the engine's report)
    std::vector<PartImpact> parts; ///< in the scenario's order
};

/// The blast radius of `engine`'s scenario.degradations on its current mapping: one evaluation
/// with every part healthy and one per part alone (so at most kMaxBlastRadiusParts parts are
/// broken down; the rest are listed with their groups only and a delay of 0). Empty parts for a
/// healthy scenario.
BlastRadius blastRadius(const CostEngine &engine);

/// Each part is one more evaluation of the scenario: beyond 64 (a whole server's GPUs and NICs
/// over four servers) the report would take minutes on a large fabric.
inline constexpr std::size_t kMaxBlastRadiusParts = 64;

/// "dp 3" style name of a waiting group.
std::string waitingGroupName(const WaitingGroup &group);

/** What one degraded part costs one job of a shared fabric (docs/shared-fabric.md). */
struct JobWait
{
    std::string job; ///< the job's name
    double delay = 0.0; ///< seconds per iteration, the job alone on the fabric with this part
    std::size_t groups = 0; ///< its communication groups that wait on the part
};

/// The jobs of `shared` (a scenario with jobs) that degradation `index` reaches - a rank on a
/// slow GPU or host, traffic through a slow NIC or cable - each with the part's blast radius
/// for that job alone on the fabric (as `evaluate` reports it job by job). Jobs it does not
/// reach are left out.
std::vector<JobWait> jobsWaitingOn(const Scenario &shared, std::size_t index);

} // namespace railyard
