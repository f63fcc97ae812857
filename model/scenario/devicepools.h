#pragma once

#include "fabric/fabricspec.h"
#include "workload/workload.h"

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

struct Scenario;

/**
 * Which device each server of a fabric holds (docs/mixed-devices.md): the fabric's
 * device_pools, every other server the scenario's (or the job's) device. devices[0] is always
 * that device; a pool naming it shares its index.
 */
struct ServerDevices
{
    std::vector<DeviceSpec> devices; ///< distinct by name; [0] = the scenario's device
    std::vector<int> serverDevice; ///< per server an index into devices; empty = none mixed

    bool mixed() const { return !serverDevice.empty(); }
    const DeviceSpec &ofServer(int server) const
    {
        return mixed()
            ? devices[static_cast<std::size_t>(serverDevice[static_cast<std::size_t>(server)])]
            : devices.front();
    }
};

/// The device a pool names: `device` itself when the names agree (a custom device keeps its
/// figures), else the preset of that name (workload/presets.h); nullopt when neither.
std::optional<DeviceSpec> poolDevice(std::string_view name, const DeviceSpec &device);

/// The devices of `fabric`'s servers for a job on `device`. Throws ScenarioError
/// ("fabric.device_pools[1].device") for a name poolDevice() does not know.
ServerDevices serverDevices(const FabricSpec &fabric, const DeviceSpec &device);

/// "0-15,32": ascending server numbers as ranges (what parseServerList() reads back).
std::string serverRangeText(const std::vector<int> &servers);

namespace devicepools {

/// Reads "fabric.device_pools": [{"device": "h200", "servers": "16-31"}, ...]; each device name
/// printable, servers within the fabric, none in two pools. Names are checked once the device
/// is read (checkDevicePools()).
std::vector<DevicePool> readDevicePools(const nlohmann::json &value, int servers);
/// Every pool's device is a preset or the scenario's (or a job's) device name.
void checkDevicePools(const Scenario &scenario);

} // namespace devicepools

} // namespace railyard
