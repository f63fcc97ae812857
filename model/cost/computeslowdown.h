#pragma once

#include "layout/mapping.h"
#include "layout/parallellayout.h"
#include "workload/workloadplan.h"

#include <vector>

namespace railyard {

/** What sets one pipeline stage's compute: the device of its slowest rank and that rank's speed. */
struct StagePace
{
    int device = 0; ///< index into the device plans (0 = the scenario's device)
    double speed = 1.0; ///< the slow-GPU factor of that rank (1 = healthy)
    bool operator==(const StagePace &) const = default;
};

/**
 * Per-GPU compute in the pipeline the engine times: slow GPUs and hosts (fabric/degradation.h)
 * and, on a fabric of mixed devices (docs/mixed-devices.md), the device each slot holds. The
 * engine times one pipeline replica, every rank of a stage computing alike; a slow or older GPU
 * holds one rank of one stage. Every rank of a stage waits for the slowest one: its TP, CP and
 * EP collectives cannot finish before their slowest member reaches them, and the stage's
 * gradient sync (DP) waits for its slowest replica. So a stage computes at the pace of its
 * slowest rank over every replica: the device whose plan gives the stage the longest forward
 * and backward, divided by the rank's speed. This is exact when the slow parts sit in one
 * pipeline replica (that replica's pipeline sets the iteration; the others wait at the DP sync)
 * and an upper bound when two replicas each have a slow stage of their own (docs/stragglers.md).
 */
class ComputeSlowdown
{
public:
    ComputeSlowdown() = default;
    /// `slotSpeed`: per GPU slot, 0 < f <= 1 (slotComputeSpeeds()); empty = none is slow.
    explicit ComputeSlowdown(std::vector<double> slotSpeed);
    /// Mixed devices: per GPU slot the index of its device in `devicePlans`, the workload
    /// planned on each device ([0] = the scenario's device, the engine's base plan).
    void setDevices(std::vector<int> slotDevice, std::vector<WorkloadPlan> devicePlans);

    bool active() const { return !m_slotSpeed.empty() || !m_slotDevice.empty(); }
    bool mixed() const { return !m_slotDevice.empty(); }
    /// The device index of a slot (0 without mixed devices).
    int deviceOfSlot(int slot) const;
    const std::vector<WorkloadPlan> &devicePlans() const { return m_devicePlans; }

    /// Per stage: the device and speed of its slowest rank.
    std::vector<StagePace> stagePaces(const Mapping &mapping, const ParallelLayout &layout) const;
    /// `base` with each stage's compute taken from its pace's device plan and stretched by its
    /// speed (stretched()).
    WorkloadPlan paced(const WorkloadPlan &base, const std::vector<StagePace> &pace) const;
    /// `base` with each stage's compute (forward, backward, weight gradient, attention core,
    /// optimizer, per chunk, and the GEMM time each op overlaps) divided by its stage speed.
    static WorkloadPlan stretched(const WorkloadPlan &base, const std::vector<double> &stageSpeed);

private:
    std::vector<double> m_slotSpeed;
    std::vector<int> m_slotDevice;
    std::vector<WorkloadPlan> m_devicePlans;
};

} // namespace railyard
