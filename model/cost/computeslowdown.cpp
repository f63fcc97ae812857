#include "cost/computeslowdown.h"

#include <algorithm>
#include <utility>

namespace railyard {

ComputeSlowdown::ComputeSlowdown(std::vector<double> slotSpeed)
    : m_slotSpeed(std::move(slotSpeed))
{
}

std::vector<double> ComputeSlowdown::stageSpeeds(
    const Mapping &mapping, const ParallelLayout &layout) const
{
    std::vector<double> speed(static_cast<std::size_t>(layout.degrees().pp), 1.0);
    for (int r = 0; r < layout.worldSize(); ++r) {
        const int slot = mapping.slotOf(r);
        if (slot < 0 || slot >= static_cast<int>(m_slotSpeed.size()))
            continue;
        double &s = speed[static_cast<std::size_t>(layout.coord(r).p)];
        s = std::min(s, m_slotSpeed[static_cast<std::size_t>(slot)]);
    }
    return speed;
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
