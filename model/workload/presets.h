#pragma once

#include "workload/workload.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/**
 * Named models and devices. Model shapes come from the published configs (GPT-3 paper table
 * 2.1; Llama 2 and Llama 3 papers/model cards; Mixtral 8x7B paper); device peaks from the
 * vendors' datasheets (dense, no sparsity). Each entry in presets.cpp cites its source.
 */
std::optional<ModelSpec> modelPreset(std::string_view name);   ///< "gpt3-175b", "llama2-70b", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b"
std::vector<std::string> modelPresetNames();
std::optional<DeviceSpec> devicePreset(std::string_view name); ///< "a100-80g", "h100-sxm", "h200", "b200", "gb200", "gb300"
std::vector<std::string> devicePresetNames();

/// Scale-up (one GPU's NVLink port, per direction) and NIC defaults that go with a device, and
/// its rack-scale NVLink domain where it has one (GB200/GB300 NVL72: 18 trays of 4 GPUs).
struct DeviceFabricDefaults
{
    double scaleUpGbps = 3600.0;
    double nicGbps = 400.0;
    int rackTrays = 0; ///< compute trays (servers) per NVLink domain; 0 = one server per domain
    int trayGpus = 0;  ///< GPUs per compute tray of that rack; 0 = none
};
DeviceFabricDefaults deviceFabricDefaults(std::string_view deviceName);

} // namespace railyard
