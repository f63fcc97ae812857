#include "studies/fragmentation.h"

#include "fabric/fabric.h"
#include "fabric/failedcomponent.h"

#include <algorithm>
#include <cstddef>
#include <map>

namespace railyard {

namespace {

std::size_t fragSz(int i)
{
    return static_cast<std::size_t>(i);
}

/// One block's figures from its servers (ascending).
FreeBlock freeBlock(
    std::string name, const std::vector<int> &servers, const std::vector<char> &free)
{
    FreeBlock b;
    b.name = std::move(name);
    b.servers = static_cast<int>(servers.size());
    int run = 0, previous = -2;
    for (const int s : servers) {
        if (!free[fragSz(s)]) {
            run = 0;
            previous = -2;
            continue;
        }
        ++b.freeServers;
        run = s == previous + 1 ? run + 1 : 1;
        previous = s;
        b.largestRun = std::max(b.largestRun, run);
    }
    return b;
}

} // namespace

std::vector<char> freeServers(const Fabric &fabric, const Scenario &scenario)
{
    const int gpus = fabric.gpusPerServer();
    std::vector<char> free(fragSz(fabric.servers()), 1);
    const std::vector<char> usable = usableSlots(fabric, scenario.failures);
    for (int slot = 0; slot < fabric.slotCount(); ++slot)
        if (!usable[fragSz(slot)])
            free[fragSz(slot / gpus)] = 0;
    auto take = [&](const std::vector<int> &slots) {
        for (const int slot : slots)
            if (slot >= 0 && slot < fabric.slotCount())
                free[fragSz(slot / gpus)] = 0;
    };
    if (scenario.jobs.empty())
        take(scenario.slots);
    for (const JobSpec &job : scenario.jobs)
        take(job.slots);
    return free;
}

Fragmentation fragmentation(
    const Fabric &fabric, const std::vector<char> &serverFree, int serversPerJob)
{
    Fragmentation f;
    f.serversPerJob = std::max(1, serversPerJob);
    // Leaf groups in the order of their leaves; servers with an uncabled first NIC apart.
    std::map<int, std::vector<int>> byLeaf;
    for (int s = 0; s < fabric.servers(); ++s) {
        f.freeServers += serverFree[fragSz(s)] ? 1 : 0;
        byLeaf[fabric.nicsPerServer() > 0 ? fabric.leafOfNic(s, 0) : -1].push_back(s);
    }
    for (const auto &[leaf, servers] : byLeaf) {
        const std::string name = leaf >= 0 ? fabric.node(fabric.leafVertex(leaf)).name : "no leaf";
        f.leaves.push_back(freeBlock(name, servers, serverFree));
        f.largestRun = std::max(f.largestRun, f.leaves.back().largestRun);
        f.jobsFitInOneLeaf += f.leaves.back().freeServers / f.serversPerJob;
    }
    if (fabric.scaleUpDomainServers() > 1) {
        for (int d = 0; d < fabric.scaleUpDomainCount(); ++d) {
            std::vector<int> servers;
            for (int s = 0; s < fabric.scaleUpDomainServers(); ++s)
                servers.push_back(d * fabric.scaleUpDomainServers() + s);
            f.domains.push_back(freeBlock(fabric.scaleUpDomainName(d), servers, serverFree));
        }
    }
    f.jobsFit = f.freeServers / f.serversPerJob;
    return f;
}

std::string fragmentationText(const Fragmentation &f)
{
    std::string out = std::to_string(f.freeServers) + " free servers; " + std::to_string(f.jobsFit)
        + " more jobs of " + std::to_string(f.serversPerJob) + " servers fit ("
        + std::to_string(f.jobsFitInOneLeaf) + " each under one leaf); longest free run "
        + std::to_string(f.largestRun) + "\n";
    auto blocks = [&out](const char *title, const std::vector<FreeBlock> &list) {
        std::string line;
        for (const FreeBlock &b : list)
            if (b.freeServers > 0)
                line += (line.empty() ? "" : ", ") + b.name + " " + std::to_string(b.freeServers)
                    + "/" + std::to_string(b.servers) + " (run " + std::to_string(b.largestRun)
                    + ")";
        if (!list.empty())
            out += std::string(title) + (line.empty() ? std::string("none free") : line) + "\n";
    };
    blocks("  free per leaf: ", f.leaves);
    blocks("  free per NVLink domain: ", f.domains);
    return out;
}

} // namespace railyard
