#include "scenario/devicepools.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"
#include "scenario/composejobs.h"
#include "scenario/scenario.h"
#include "workload/presets.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace railyard {

namespace {

std::string poolPath(std::size_t i, const char *key)
{
    return jsonElementPath("fabric.device_pools", i) + "." + key;
}

std::string knownDevices(const DeviceSpec &device)
{
    std::string out = device.name;
    for (const std::string &name : devicePresetNames())
        if (name != device.name)
            out += ", " + name;
    return out;
}

} // namespace

std::optional<DeviceSpec> poolDevice(std::string_view name, const DeviceSpec &device)
{
    if (name == device.name)
        return device;
    return devicePreset(name);
}

ServerDevices serverDevices(const FabricSpec &fabric, const DeviceSpec &device)
{
    ServerDevices out;
    out.devices.push_back(device);
    if (fabric.devicePools.empty())
        return out;
    out.serverDevice.assign(static_cast<std::size_t>(fabric.servers), 0);
    for (std::size_t i = 0; i < fabric.devicePools.size(); ++i) {
        const DevicePool &pool = fabric.devicePools[i];
        const std::optional<DeviceSpec> spec = poolDevice(pool.device, device);
        if (!spec)
            throw ScenarioError(poolPath(i, "device"),
                "unknown device \"" + pool.device + "\" (accepted: " + knownDevices(device) + ")");
        const auto known = std::find_if(out.devices.begin(), out.devices.end(),
            [&](const DeviceSpec &d) { return d.name == spec->name; });
        const int index = static_cast<int>(known - out.devices.begin());
        if (known == out.devices.end())
            out.devices.push_back(*spec);
        for (const int server : pool.servers)
            if (server >= 0 && server < fabric.servers)
                out.serverDevice[static_cast<std::size_t>(server)] = index;
    }
    return out;
}

std::string serverRangeText(const std::vector<int> &servers)
{
    std::string out;
    for (std::size_t i = 0; i < servers.size();) {
        std::size_t j = i;
        while (j + 1 < servers.size() && servers[j + 1] == servers[j] + 1)
            ++j;
        out += (out.empty() ? "" : ",") + std::to_string(servers[i]);
        if (j > i)
            out += "-" + std::to_string(servers[j]);
        i = j + 1;
    }
    return out;
}

namespace devicepools {

std::vector<DevicePool> readDevicePools(const nlohmann::json &value, int servers)
{
    const std::string path = "fabric.device_pools";
    if (!value.is_array())
        throw ScenarioError(path, "expected a list of pools, got " + jsonTypeName(value));
    // One pool per device kind is the use; a server per pool is the most there can be.
    if (value.size() > static_cast<std::size_t>(servers))
        throw ScenarioError(path,
            std::to_string(value.size()) + " pools for " + std::to_string(servers)
                + " servers: a pool holds at least one server");
    std::vector<DevicePool> pools;
    std::vector<int> owner(static_cast<std::size_t>(servers), -1);
    for (std::size_t i = 0; i < value.size(); ++i) {
        JsonFields f(value[i], jsonElementPath(path, i), { "device", "servers" });
        f.rejectUnknown();
        f.required("device");
        f.required("servers");
        DevicePool pool;
        pool.device = f.string("device", "", limits::kMaxNameBytes, false);
        requirePrintableUtf8(f.fieldPath("device"), pool.device);
        const std::string list = f.string("servers", "", limits::kMaxNameBytes, false);
        pool.servers = parseServerList(list, servers, f.fieldPath("servers"));
        std::sort(pool.servers.begin(), pool.servers.end());
        for (const int s : pool.servers) {
            int &o = owner[static_cast<std::size_t>(s)];
            if (o >= 0)
                throw ScenarioError(f.fieldPath("servers"),
                    "server " + std::to_string(s) + " is already in pool " + std::to_string(o)
                        + " (" + pools[static_cast<std::size_t>(o)].device + ")");
            o = static_cast<int>(i);
        }
        pools.push_back(std::move(pool));
    }
    return pools;
}

void checkDevicePools(const Scenario &scenario)
{
    const std::vector<DevicePool> &pools = scenario.fabric.devicePools;
    for (std::size_t i = 0; i < pools.size(); ++i) {
        bool known = poolDevice(pools[i].device, scenario.device).has_value();
        for (const JobSpec &job : scenario.jobs)
            known = known || (job.device && job.device->name == pools[i].device);
        if (!known)
            throw ScenarioError(poolPath(i, "device"),
                "unknown device \"" + pools[i].device
                    + "\" (accepted: " + knownDevices(scenario.device) + ")");
    }
}

} // namespace devicepools

} // namespace railyard
