#include "cost/reportwarnings.h"

namespace railyard {

std::vector<std::string> iterationWarnings(const CostReport &report, const Fabric &fabric,
                                           double deviceBytes, double scheduleEnd)
{
    std::vector<std::string> warnings;
    if (!report.memoryFits && !report.stageHbmBytes.empty()) {
        // Mixed devices: each stage against its smallest device (docs/mixed-devices.md).
        for (std::size_t s = 0; s < report.stageHbmBytes.size() && s < report.memory.size(); ++s)
            if (report.memory[s].total() > report.stageHbmBytes[s])
                warnings.push_back("memory: a rank of stage " + std::to_string(s) + " needs "
                                   + std::to_string(report.memory[s].total() / 1e9).substr(0, 6)
                                   + " GB but its " + report.stageHbmDevices[s] + " has "
                                   + std::to_string(report.stageHbmBytes[s] / 1e9).substr(0, 6)
                                   + " GB");
    } else if (!report.memoryFits)
        warnings.push_back("memory: a rank needs "
                           + std::to_string(report.maxMemoryPerRank / 1e9).substr(0, 6)
                           + " GB but the device has "
                           + std::to_string(deviceBytes / 1e9).substr(0, 6) + " GB");
    if (report.linkBound && report.bottleneckLink >= 0)
        warnings.push_back("link bound: " + fabric.linkName(report.bottleneckLink) + " carries "
                           + std::to_string(report.linkBoundTime).substr(0, 8)
                           + " s of traffic per iteration, more than the overlapped schedule's "
                           + std::to_string(scheduleEnd).substr(0, 8)
                           + " s; the iteration waits for it (traffic of different stages or "
                             "pipeline sends contend on it)");
    return warnings;
}

} // namespace railyard
