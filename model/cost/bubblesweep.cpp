#include "cost/bubblesweep.h"

#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace railyard {

PipelineInput bubbleSweepInput(const CostEngine &engine, int microbatches)
{
    PipelineInput in = engine.pipelineInput();
    in.microbatches = microbatches;
    return in;
}

BubbleSweepPoint bubbleSweepPoint(const CostEngine &engine, int microbatches)
{
    BubbleSweepPoint p;
    p.microbatches = microbatches;
    try {
        const PipelineTimeline t = schedulePipeline(bubbleSweepInput(engine, microbatches));
        p.bubbleFraction = t.bubbleFraction;
        p.makespan = t.makespan;
        p.iterationTime = engine.iterationTime(t);
        p.valid = true;
    } catch (const ScenarioError &e) {
        p.error = e.what();
    }
    return p;
}

std::vector<BubbleSweepPoint> bubbleSweep(const PipelineInput &base, const std::vector<int> &counts)
{
    std::vector<BubbleSweepPoint> out;
    out.reserve(counts.size());
    PipelineInput in = base;
    for (const int m : counts) {
        BubbleSweepPoint p;
        p.microbatches = m;
        in.microbatches = m;
        try {
            const PipelineTimeline t = schedulePipeline(in);
            p.bubbleFraction = t.bubbleFraction;
            p.makespan = t.makespan;
            p.iterationTime = t.makespan;
            p.valid = true;
        } catch (const ScenarioError &e) {
            p.error = e.what();
        }
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<BubbleSweepPoint> bubbleSweep(const CostEngine &engine, const std::vector<int> &counts)
{
    std::vector<BubbleSweepPoint> out;
    out.reserve(counts.size());
    for (const int m : counts)
        out.push_back(bubbleSweepPoint(engine, m));
    return out;
}

std::vector<int> bubbleSweepCounts(const CostEngine &engine, int maxPoints)
{
    const Scenario &s = engine.scenario();
    const int pp = std::max(1, s.degrees.pp);
    const int current = engine.plan().microbatches;
    // Interleaved needs m % pp == 0, DualPipe an even m (half from each end, and m >= 2 pp:
    // smaller counts come back invalid with the scheduler's message).
    const int step = s.training.schedule == ScheduleKind::Interleaved ? pp
        : s.training.schedule == ScheduleKind::DualPipe               ? 2
                                                                      : 1;
    const auto limit = static_cast<int>(limits::kMaxMicrobatches);
    int hi = std::max({ 2 * current, 4 * pp, 8 });
    hi = std::min(hi, limit);
    hi = std::max(step, hi - hi % step);
    const int steps = hi / step; // multiples step, 2*step, ..., hi
    maxPoints = std::max(2, maxPoints);

    std::vector<int> out;
    if (steps <= maxPoints) {
        for (int k = 1; k <= steps; ++k)
            out.push_back(k * step);
    } else {
        // Roughly geometric, so the steep small-m part keeps its resolution.
        const double ratio = std::pow(static_cast<double>(steps), 1.0 / (maxPoints - 1));
        double k = 1.0;
        for (int i = 0; i < maxPoints; ++i, k *= ratio)
            out.push_back(std::min(steps, static_cast<int>(std::lround(k))) * step);
        out.push_back(steps * step);
    }
    if (current >= 1 && current <= limit)
        out.push_back(current);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace railyard
