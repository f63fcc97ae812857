#pragma once

#include "cost/nccltuning.h"
#include "workload/workloadplan.h"

#include <span>
#include <string>
#include <vector>

namespace railyard {

class Fabric;
class Router;

/** One member-to-member send of a step: `bytes` in that step, chunk `chunk` of the buffer. */
struct StepSend
{
    int from = -1; ///< member index in the group
    int to = -1;
    int fromSlot = -1;
    int toSlot = -1;
    double bytes = 0.0;
    int chunk = -1; ///< in the phase's first step (see StepPhase::chunkShift); -1: the whole share
};

/** Bytes one step puts on one directed link. */
struct StepLink
{
    int link = -1;
    double bytes = 0.0;
    bool operator==(const StepLink &) const = default;
};

/**
 * A run of `count` consecutive steps that move the same bytes over the same links (a ring's
 * n-1 reduce-scatter steps), or one step (a tree level). `links` are the sends routed by the
 * Router (ECMP shares included) plus `direct`, loads no send describes (NVLS: the NVSwitch
 * reduces and multicasts, so a GPU's up and down links differ).
 */
struct StepPhase
{
    std::string name; ///< "reduce-scatter", "up: chain inside servers", ...
    int count = 1;
    /// A send's chunk index moves by this much from one step of the phase to the next (a ring:
    /// -1, each rank forwards the chunk it received last); the indexes wrap at chunks.
    int chunkShift = 0;
    std::vector<StepSend> sends;
    std::vector<StepLink> direct;
    std::vector<StepLink> links; ///< per step, sorted by link, sends routed plus direct
};

/**
 * A collective decomposed into the ordered steps it runs, each with the bytes it puts on every
 * link: ring steps, tree levels, NVLS reduce and multicast, hierarchical phases, PAT steps,
 * pairwise all-to-all steps, pipeline sends. The steps follow the collective planner's flows
 * (cost/collectiveplanner.h) exactly: summed over the steps, every link carries what the
 * engine's plan puts on it for one op of `bytes` (per pass times the op's passes), so what a
 * viewer plays adds up to the engine's link loads.
 */
struct CollectiveSteps
{
    Collective op = Collective::AllReduce;
    PlanAlgorithm algorithm = PlanAlgorithm::Ring; ///< as planned (after fallbacks)
    double bytes = 0.0; ///< S, nccl-tests convention
    int members = 0; ///< of the largest group it plays
    int channels = 1;
    int chunks = 1; ///< what a chunk index counts up to (ring: n)
    std::string algorithmText; ///< "ring", "tree", ... how the labels name the algorithm
    std::vector<StepPhase> phases;

    int stepCount() const;
    /// The phase of step `step` (0-based) and the step's index inside it.
    int phaseOf(int step, int *inPhase = nullptr) const;
    /// "ring step 3/14: reduce-scatter", "tree step 2/6: up, across servers".
    std::string label(int step) const;
    /// The bytes step `step` puts on each link (sorted by link).
    const std::vector<StepLink> &stepLinks(int step) const;
    /// The chunk send `send` of step `step` carries (-1: its whole share).
    int chunkOf(int step, int send) const;
    /// Per link, the sum over every step (sorted by link).
    std::vector<StepLink> totals() const;
};

/// The steps of `op` of `bytes` over the group at `slots` (member order) with the algorithm the
/// planner builds when asked for `wanted` (its fallbacks included). `shares` (all-to-all only,
/// sum 1, one per member): the skewed MoE dispatch and combine of TrafficModel (i -> j carries
/// S H_j / 2 out and the same back); empty = the uniform pairwise all-to-all.
CollectiveSteps collectiveSteps(PlanAlgorithm wanted, Collective op, const std::vector<int> &slots,
    double bytes, const Fabric &fabric, Router &router, double nvlsEfficiency,
    const std::vector<double> &shares = {});

/// A pipeline group's point-to-point sends of `bytes` each, one step per boundary: forward
/// (member s -> s+1) then backward (s+1 -> s), and with `wrap` the interleaved schedule's
/// last -> first and back (TrafficModel's boundary and wrap patterns).
CollectiveSteps pipelineSteps(
    const std::vector<int> &slots, double bytes, bool wrap, Router &router);

/// Several groups' steps played at once (every group of a dimension): phases merged by index
/// where the groups' phase shapes agree; a group whose shape differs plays after them.
CollectiveSteps concurrentSteps(std::vector<CollectiveSteps> groups);

/// One path a chunk of a send can take through its route: the links from the source GPU to the
/// destination GPU, at each ECMP split the `pick`-th branch (mod the branches), so the sends of
/// a step fan out over the equal-cost links as the router's shares do.
std::vector<int> sendPath(const Fabric &fabric, Router &router, int srcSlot, int dstSlot, int pick);

} // namespace railyard
