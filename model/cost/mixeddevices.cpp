#include "cost/mixeddevices.h"

#include "base/scenarioerror.h"
#include "fabric/fabric.h"
#include "scenario/devicepools.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace railyard {

std::vector<int> balancedLayers(
    int layers, const std::vector<double> &perLayer, const std::vector<double> &fixed)
{
    const std::size_t n = perLayer.size();
    if (n == 0 || layers < static_cast<int>(n) || fixed.size() != n)
        return {};
    // One layer each, then every further layer to the stage that would end first with it: for
    // identical jobs on machines of different speeds this greedy minimises the latest end (the
    // earliest-finish rule, optimal for unit jobs on uniform machines, Q|p_j=1|Cmax; Graham et
    // al. 1979's notation). Ties go to the lower stage.
    std::vector<int> out(n, 1);
    const auto endWithOneMore
        = [&](std::size_t s) { return fixed[s] + (out[s] + 1) * perLayer[s]; };
    const auto later = [&](std::size_t a, std::size_t b) {
        const double ea = endWithOneMore(a), eb = endWithOneMore(b);
        return ea > eb || (ea == eb && a > b);
    };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> next(later);
    for (std::size_t s = 0; s < n; ++s)
        next.push(s);
    for (int given = static_cast<int>(n); given < layers; ++given) {
        const std::size_t s = next.top();
        next.pop();
        ++out[s];
        next.push(s);
    }
    return out;
}

std::unique_ptr<MixedDevices> MixedDevices::build(const Scenario &scenario, const Fabric &fabric,
    const WorkloadPlan &base, ComputeSlowdown &slowdown)
{
    if (scenario.fabric.devicePools.empty())
        return nullptr;
    const ServerDevices servers = serverDevices(scenario.fabric, scenario.device);
    if (servers.devices.size() < 2)
        return nullptr;
    std::unique_ptr<MixedDevices> m(new MixedDevices);
    m->m_devices = servers.devices;
    m->m_precision = scenario.training.precision;
    m->m_layers = scenario.model.layers;

    std::vector<int> slotDevice(static_cast<std::size_t>(fabric.slotCount()), 0);
    for (int slot = 0; slot < fabric.slotCount(); ++slot)
        slotDevice[static_cast<std::size_t>(slot)]
            = servers.serverDevice[static_cast<std::size_t>(fabric.serverOfSlot(slot))];
    std::vector<WorkloadPlan> plans { base };
    for (std::size_t d = 1; d < servers.devices.size(); ++d)
        plans.push_back(
            planWorkload(scenario.model, scenario.training, servers.devices[d], scenario.degrees));

    // The per-layer and fixed parts of each stage on each device: the plan again with one more
    // layer in every stage; the difference is one layer's forward + backward.
    const int pp = scenario.degrees.pp;
    if (chunksPerRank(scenario.training) == 1) {
        ModelSpec more = scenario.model;
        more.layers += pp;
        TrainingSpec training = scenario.training;
        training.layersPerStage
            = virtualStageLayers(scenario.model, scenario.training, scenario.degrees);
        for (int &l : training.layersPerStage)
            ++l;
        try {
            for (std::size_t d = 0; d < plans.size(); ++d) {
                const WorkloadPlan bigger
                    = planWorkload(more, training, servers.devices[d], scenario.degrees);
                std::vector<double> perLayer, fixed;
                for (int s = 0; s < pp; ++s) {
                    const StageCompute &a = plans[d].stages[static_cast<std::size_t>(s)];
                    const StageCompute &b = bigger.stages[static_cast<std::size_t>(s)];
                    const double ta = a.forwardTime + a.backwardTime;
                    const double one = b.forwardTime + b.backwardTime - ta;
                    perLayer.push_back(one);
                    fixed.push_back(std::max(0.0, ta - a.layers * one));
                }
                if (std::any_of(
                        perLayer.begin(), perLayer.end(), [](double t) { return t <= 0.0; }))
                    throw ScenarioError("", "no per-layer time");
                m->m_perLayer.push_back(std::move(perLayer));
                m->m_fixed.push_back(std::move(fixed));
            }
        } catch (const ScenarioError &) {
            // A plan with one more layer per stage refused (a batch or memory rule): no
            // suggestion, the figures stand.
            m->m_perLayer.clear();
            m->m_fixed.clear();
        }
    }
    slowdown.setDevices(std::move(slotDevice), std::move(plans));
    return m;
}

void MixedDevices::fill(CostReport &report, const ComputeSlowdown &slowdown, const Mapping &mapping,
    const ParallelLayout &layout, const std::vector<StagePace> &pace,
    const WorkloadPlan &plan) const
{
    const auto stages = pace.size();
    report.stageDevices.assign(stages, std::string());
    report.stageHbmBytes.assign(stages, 0.0);
    report.stageHbmDevices.assign(stages, std::string());
    for (std::size_t s = 0; s < stages; ++s)
        report.stageDevices[s] = m_devices[static_cast<std::size_t>(pace[s].device)].name;
    // Memory per device: every rank of a stage holds the stage's ledger; the stage fits where
    // its smallest device does. MFU over each rank's own peak.
    double peaks = 0.0;
    for (int r = 0; r < layout.worldSize(); ++r) {
        const DeviceSpec &d
            = m_devices[static_cast<std::size_t>(slowdown.deviceOfSlot(mapping.slotOf(r)))];
        const auto s = static_cast<std::size_t>(layout.coord(r).p);
        if (report.stageHbmDevices[s].empty() || d.hbmBytes < report.stageHbmBytes[s]) {
            report.stageHbmBytes[s] = d.hbmBytes;
            report.stageHbmDevices[s] = d.name;
        }
        peaks += peakTflops(d, m_precision) * 1e12;
    }
    report.memoryFits = true;
    for (std::size_t s = 0; s < stages && s < report.memory.size(); ++s)
        report.memoryFits
            = report.memoryFits && report.memory[s].total() <= report.stageHbmBytes[s];
    report.mfu = report.iterationTime > 0.0 && peaks > 0.0
        ? plan.modelFlopsPerIteration / (report.iterationTime * peaks)
        : 0.0;

    // The layer split that balances the stages on their pacing devices, when they differ.
    report.suggestedLayersPerStage.clear();
    const bool differ = std::any_of(
        pace.begin(), pace.end(), [&](const StagePace &p) { return p.device != pace[0].device; });
    if (!differ || m_perLayer.empty())
        return;
    // Per layer: the pacing device's compute, stretched by a slow rank's speed, plus the stage's
    // exposed TP/EP/CP communication per layer (the fabric's: alike on every device).
    std::vector<double> perLayer(stages), fixed(stages);
    for (std::size_t s = 0; s < stages; ++s) {
        const auto d = static_cast<std::size_t>(pace[s].device);
        const StageCompute &c = plan.stages[s];
        const double comm = s < report.stageForward.size()
            ? std::max(0.0,
                report.stageForward[s] + report.stageBackward[s] - c.forwardTime - c.backwardTime)
            : 0.0;
        perLayer[s] = m_perLayer[d][s] / pace[s].speed + comm / std::max(1, c.layers);
        fixed[s] = m_fixed[d][s] / pace[s].speed;
    }
    report.suggestedLayersPerStage = balancedLayers(m_layers, perLayer, fixed);
}

} // namespace railyard
