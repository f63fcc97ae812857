#include "cost/computeslowdown.h"

#include <algorithm>
#include <utility>

namespace railyard {

ComputeSlowdown::ComputeSlowdown(std::vector<double> slotSpeed)
    : m_slotSpeed(std::move(slotSpeed))
{
}

void ComputeSlowdown::setDevices(std::vector<int> slotDevice, std::vector<WorkloadPlan> devicePlans)
{
    m_slotDevice = std::move(slotDevice);
    m_devicePlans = std::move(devicePlans);
}

int ComputeSlowdown::deviceOfSlot(int slot) const
{
    return slot >= 0 && slot < static_cast<int>(m_slotDevice.size())
        ? m_slotDevice[static_cast<std::size_t>(slot)]
        : 0;
}

std::vector<StagePace> ComputeSlowdown::stagePaces(
    const Mapping &mapping, const ParallelLayout &layout) const
{
    const auto stages = static_cast<std::size_t>(layout.degrees().pp);
    std::vector<StagePace> pace(stages);
    // The time a rank takes, relative: its device's forward + backward of the stage (what paces
    // the pipeline per micro-batch) over its speed; without mixed devices 1 / speed alone.
    std::vector<double> worst(stages, -1.0);
    const auto work = [this](int device, std::size_t stage) {
        if (m_devicePlans.empty())
            return 1.0;
        const StageCompute &c = m_devicePlans[static_cast<std::size_t>(device)].stages[stage];
        return c.forwardTime + c.backwardTime;
    };
    for (int r = 0; r < layout.worldSize(); ++r) {
        const int slot = mapping.slotOf(r);
        const auto s = static_cast<std::size_t>(layout.coord(r).p);
        const double speed = slot >= 0 && slot < static_cast<int>(m_slotSpeed.size())
            ? m_slotSpeed[static_cast<std::size_t>(slot)]
            : 1.0;
        const int device = deviceOfSlot(slot);
        const double t = work(device, s) / speed;
        // Equal times keep the first rank's pace (deterministic: rank order).
        if (t > worst[s]) {
            worst[s] = t;
            pace[s] = StagePace { device, speed };
        }
    }
    return pace;
}

WorkloadPlan ComputeSlowdown::paced(
    const WorkloadPlan &base, const std::vector<StagePace> &pace) const
{
    std::vector<double> speed(pace.size(), 1.0);
    for (std::size_t s = 0; s < pace.size(); ++s)
        speed[s] = pace[s].speed;
    if (m_devicePlans.empty())
        return stretched(base, speed);
    WorkloadPlan plan = base;
    for (std::size_t s = 0; s < pace.size() && s < plan.stages.size(); ++s) {
        if (pace[s].device == 0)
            continue;
        const WorkloadPlan &on = m_devicePlans[static_cast<std::size_t>(pace[s].device)];
        plan.stages[s] = on.stages[s];
        // Every device's plan has the same ops in the same order (planWorkload() derives them
        // from the model and the degrees alone); only the GEMM time they overlap differs.
        for (std::size_t i = 0; i < plan.ops.size() && i < on.ops.size(); ++i)
            if (plan.ops[i].stage == static_cast<int>(s))
                plan.ops[i].overlapTime = on.ops[i].overlapTime;
    }
    return stretched(plan, speed);
}

WorkloadPlan ComputeSlowdown::stretched(
    const WorkloadPlan &base, const std::vector<double> &stageSpeed)
{
    WorkloadPlan plan = base;
    for (std::size_t s = 0; s < plan.stages.size() && s < stageSpeed.size(); ++s) {
        const double k = 1.0 / stageSpeed[s]; // the reader keeps speeds in [0.001, 1]
        StageCompute &c = plan.stages[s];
        c.forwardTime *= k;
        c.backwardTime *= k;
        c.weightGradTime *= k;
        c.attentionCoreForwardTime *= k;
        c.attentionCoreBackwardTime *= k;
        c.optimizerTime *= k;
        for (double &t : c.chunkForwardTime)
            t *= k;
        for (double &t : c.chunkBackwardTime)
            t *= k;
    }
    for (CommOp &op : plan.ops)
        if (op.stage >= 0 && static_cast<std::size_t>(op.stage) < stageSpeed.size())
            op.overlapTime /= stageSpeed[static_cast<std::size_t>(op.stage)];
    return plan;
}

} // namespace railyard
