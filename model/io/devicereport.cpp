#include "io/devicereport.h"

#include "base/quantityformat.h"

#include <nlohmann/json.hpp>

#include <string>

namespace railyard {

namespace {

std::string layerList(const std::vector<int> &layers)
{
    std::string out = "[";
    for (std::size_t i = 0; i < layers.size(); ++i)
        out += (i ? ", " : "") + std::to_string(layers[i]);
    return out + "]";
}

} // namespace

void addDevicesJson(const CostReport &report, nlohmann::json &out)
{
    if (report.stageDevices.empty())
        return;
    nlohmann::json stages = nlohmann::json::array();
    std::vector<int> layers;
    for (std::size_t s = 0; s < report.stageDevices.size(); ++s) {
        stages.push_back({ { "stage", s }, { "device", report.stageDevices[s] },
            { "hbm_device", report.stageHbmDevices[s] }, { "hbm_bytes", report.stageHbmBytes[s] },
            { "fits",
                s >= report.memory.size()
                    || report.memory[s].total() <= report.stageHbmBytes[s] } });
        layers.push_back(s < report.stages.size() ? report.stages[s].layers : 0);
    }
    out["devices"] = { { "stages", stages }, { "layers_per_stage", layers },
        { "suggested_layers_per_stage",
            report.suggestedLayersPerStage.empty()
                ? nlohmann::json(nullptr)
                : nlohmann::json(report.suggestedLayersPerStage) } };
}

void writeDevicesText(const CostReport &report, std::ostream &out)
{
    if (report.stageDevices.empty())
        return;
    out << "Devices        per stage the device of its slowest rank (sets its compute), HBM of "
           "its smallest\n";
    for (std::size_t s = 0; s < report.stageDevices.size(); ++s) {
        out << "  stage " << s << "      " << report.stageDevices[s] << ", HBM "
            << formatBytes(report.stageHbmBytes[s]) << " (" << report.stageHbmDevices[s] << ")";
        if (s < report.memory.size() && report.memory[s].total() > report.stageHbmBytes[s])
            out << " DOES NOT FIT";
        out << "\n";
    }
    if (!report.suggestedLayersPerStage.empty()) {
        std::vector<int> now;
        for (const StageReport &st : report.stages)
            now.push_back(st.layers);
        out << "  suggested    layers_per_stage " << layerList(report.suggestedLayersPerStage)
            << " balances the stages (now " << layerList(now) << ")\n";
    }
}

} // namespace railyard
