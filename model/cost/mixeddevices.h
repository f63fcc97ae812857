#pragma once

#include "cost/computeslowdown.h"
#include "cost/costreport.h"
#include "scenario/scenario.h"

#include <memory>
#include <vector>

namespace railyard {

class Fabric;

/// Layers per stage that make the stages end as close together as whole layers allow, stage s
/// taking `fixed[s] + layers_s * perLayer[s]` (its embedding or output layer, then its
/// transformer layers): the split whose latest stage ends first, each stage at least one layer
/// (ties: the lower stage takes the layer). With no fixed part it is the split in proportion to
/// each stage's speed 1 / perLayer[s], rounded. perLayer[s] > 0; empty when layers < stages.
std::vector<int> balancedLayers(
    int layers, const std::vector<double> &perLayer, const std::vector<double> &fixed);

/**
 * A job on a fabric of mixed devices (fabric.device_pools, docs/mixed-devices.md): the device
 * of every GPU slot, the workload planned on each device, and what the report says about them.
 * Compute and HBM are the device's; NVLink, PCIe and NIC speeds stay the fabric's, and the
 * collective tuning (NCCL's per-device constants) stays the scenario's device.
 */
class MixedDevices
{
public:
    /// Null when the fabric holds one device kind for this job (no pool, or every pool names
    /// the job's device). Otherwise gives `slowdown` the slots' devices and plans. Throws
    /// ScenarioError for a pool's unknown device or a device the workload cannot run on.
    static std::unique_ptr<MixedDevices> build(const Scenario &scenario, const Fabric &fabric,
        const WorkloadPlan &base, ComputeSlowdown &slowdown);

    /// The report's device figures for the current mapping: per stage its pacing device and
    /// smallest HBM, the memory fit per device, MFU over each rank's own peak, and the layer
    /// split that would balance the stages (docs/mixed-devices.md).
    void fill(CostReport &report, const ComputeSlowdown &slowdown, const Mapping &mapping,
        const ParallelLayout &layout, const std::vector<StagePace> &pace,
        const WorkloadPlan &plan) const;

private:
    MixedDevices() = default;
    std::vector<DeviceSpec> m_devices; ///< [0] = the scenario's
    Precision m_precision = Precision::Bf16;
    int m_layers = 0;
    /// Per device, per stage: forward + backward seconds per transformer layer and the rest
    /// (embedding, output layer), from two plans; empty when no suggestion is made
    /// (interleaved schedule, or a plan with one more layer per stage is refused).
    std::vector<std::vector<double>> m_perLayer;
    std::vector<std::vector<double>> m_fixed;
};

} // namespace railyard
