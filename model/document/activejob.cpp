#include "document/activejob.h"

#include "scenario/jobssection.h"

#include <algorithm>
#include <cstdint>
#include <set>

namespace railyard::activejob {

namespace {

std::size_t jobIndex(int i)
{
    return static_cast<std::size_t>(i);
}

} // namespace

void sync(Scenario &scenario, int active, const DeviceSpec &sharedDevice)
{
    if (scenario.jobs.empty() || active < 0 || jobIndex(active) >= scenario.jobs.size())
        return;
    JobSpec &job = scenario.jobs[jobIndex(active)];
    takeJobFields(job, scenario);
    if (job.device || !(scenario.device == sharedDevice))
        job.device = scenario.device;
}

void activate(Scenario &scenario, int index, const DeviceSpec &sharedDevice)
{
    if (scenario.jobs.empty() || index < 0 || jobIndex(index) >= scenario.jobs.size())
        return;
    const JobSpec &job = scenario.jobs[jobIndex(index)];
    scenario.degrees = job.degrees;
    scenario.order = job.order;
    scenario.model = job.model;
    scenario.training = job.training;
    scenario.device = job.device.value_or(sharedDevice);
    scenario.slots = job.slots;
    scenario.mappingVersion = job.mappingVersion;
}

Scenario fileForm(Scenario scenario, int active, const DeviceSpec &sharedDevice)
{
    if (scenario.jobs.empty())
        return scenario;
    sync(scenario, active, sharedDevice);
    adoptFirstJob(scenario);
    scenario.device = sharedDevice;
    return scenario;
}

void otherJobSlots(
    const Scenario &scenario, int active, std::vector<int> &job, std::vector<int> &rank)
{
    const auto slots
        = static_cast<std::size_t>(std::max<std::int64_t>(0, scenario.fabric.slotCount()));
    job.assign(scenario.jobs.empty() ? 0 : slots, -1);
    rank.assign(job.size(), -1);
    for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
        if (static_cast<int>(j) == active)
            continue;
        const std::vector<int> &held = scenario.jobs[j].slots;
        for (std::size_t r = 0; r < held.size(); ++r)
            if (held[r] >= 0 && static_cast<std::size_t>(held[r]) < slots) {
                job[static_cast<std::size_t>(held[r])] = static_cast<int>(j);
                rank[static_cast<std::size_t>(held[r])] = static_cast<int>(r);
            }
    }
}

std::vector<int> movedJobSlots(const Scenario &scenario, int index, const std::vector<int> &slots,
    const std::vector<int> &servers, int active, std::string &error)
{
    const int gpus = scenario.fabric.gpusPerServer;
    const std::string name = "job \"" + scenario.jobs.at(jobIndex(index)).name + "\"";
    std::set<int> used;
    for (const int slot : slots)
        used.insert(slot / gpus);
    if (servers.size() != used.size()) {
        error = name + " takes " + std::to_string(used.size()) + " servers: name "
            + std::to_string(used.size()) + " (got " + std::to_string(servers.size()) + ")";
        return {};
    }
    std::set<int> seen;
    for (const int s : servers) {
        if (s < 0 || s >= scenario.fabric.servers) {
            error = "server " + std::to_string(s) + " is not in the fabric (0-"
                + std::to_string(scenario.fabric.servers - 1) + ")";
            return {};
        }
        if (!seen.insert(s).second) {
            error = "server " + std::to_string(s) + " is listed twice";
            return {};
        }
    }
    const std::vector<int> from(used.begin(), used.end());
    // Who holds each slot: the other jobs, and the active job on its top-level slots.
    std::vector<int> owner, rank;
    otherJobSlots(scenario, active, owner, rank);
    for (const int slot : scenario.slots)
        if (slot >= 0 && jobIndex(slot) < owner.size())
            owner[jobIndex(slot)] = active;
    std::vector<int> out;
    out.reserve(slots.size());
    for (const int slot : slots) {
        const auto k = static_cast<std::size_t>(
            std::lower_bound(from.begin(), from.end(), slot / gpus) - from.begin());
        const int next = servers[k] * gpus + slot % gpus;
        const int holder = jobIndex(next) < owner.size() ? owner[jobIndex(next)] : -1;
        if (holder >= 0 && holder != index) {
            error = "server " + std::to_string(next / gpus) + " GPU " + std::to_string(next % gpus)
                + " (slot " + std::to_string(next) + ") is taken by job \""
                + scenario.jobs[jobIndex(holder)].name + "\"";
            return {};
        }
        out.push_back(next);
    }
    return out;
}

} // namespace railyard::activejob
