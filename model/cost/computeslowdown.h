#pragma once

#include "layout/mapping.h"
#include "layout/parallellayout.h"
#include "workload/workloadplan.h"

#include <vector>

namespace railyard {

/**
 * Slow GPUs and hosts (fabric/degradation.h) in the pipeline the engine times. The engine times
 * one pipeline replica, every rank of a stage computing alike; a slow GPU holds one rank of one
 * stage. Every rank of a stage waits for the slowest one: its TP, CP and EP collectives cannot
 * finish before their slowest member reaches them, and the stage's gradient sync (DP) waits for
 * its slowest replica. So a stage computes at the speed of its slowest rank over every replica.
 * This is exact when the slow parts sit in one pipeline replica (that replica's pipeline sets the
 * iteration; the others wait at the DP sync) and an upper bound when two replicas each have a
 * slow stage of their own (docs/stragglers.md).
 */
class ComputeSlowdown
{
public:
    ComputeSlowdown() = default;
    /// `slotSpeed`: per GPU slot, 0 < f <= 1 (slotComputeSpeeds()); empty = none is slow.
    explicit ComputeSlowdown(std::vector<double> slotSpeed);

    bool active() const { return !m_slotSpeed.empty(); }
    /// Per stage: the slowest speed of the slots its ranks sit on.
    std::vector<double> stageSpeeds(const Mapping &mapping, const ParallelLayout &layout) const;
    /// `base` with each stage's compute (forward, backward, weight gradient, attention core,
    /// optimizer, per chunk, and the GEMM time each op overlaps) divided by its stage speed.
    static WorkloadPlan stretched(const WorkloadPlan &base, const std::vector<double> &stageSpeed);

private:
    std::vector<double> m_slotSpeed;
};

} // namespace railyard
