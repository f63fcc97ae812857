#include "optimise/groupplacement.h"

#include <algorithm>

namespace railyard {

namespace {

int distinct(std::vector<int> &values)
{
    std::sort(values.begin(), values.end());
    return static_cast<int>(std::unique(values.begin(), values.end()) - values.begin());
}

} // namespace

GroupSpread groupSpread(
    const Fabric &fabric, std::span<const int> members, const std::vector<int> &slots)
{
    std::vector<int> servers, rails, leaves;
    const bool railed = fabric.railCount() > 0;
    for (int r : members) {
        const int slot = slots[static_cast<std::size_t>(r)];
        const int server = fabric.serverOfSlot(slot);
        servers.push_back(server);
        if (railed)
            rails.push_back(fabric.railOfSlot(slot));
        leaves.push_back(fabric.leafOfNic(server, fabric.nicOfGpu(fabric.gpuOfSlot(slot))));
    }
    GroupSpread s;
    s.servers = distinct(servers);
    s.rails = railed ? distinct(rails) : 0;
    s.leaves = distinct(leaves);
    return s;
}

int tpGroupsSplit(const Fabric &fabric, const ParallelLayout &layout, const std::vector<int> &slots)
{
    const int gpus = fabric.gpusPerServer();
    const int allowed = (layout.degrees().tp + gpus - 1) / gpus;
    int split = 0;
    for (const std::span<const int> g : layout.groups(GroupKind::Tp))
        split += groupSpread(fabric, g, slots).servers > allowed ? 1 : 0;
    return split;
}

int dpGroupsOffRail(
    const Fabric &fabric, const ParallelLayout &layout, const std::vector<int> &slots)
{
    if (fabric.railCount() == 0)
        return 0;
    int off = 0;
    for (const std::span<const int> g : layout.groups(GroupKind::Dp))
        off += g.size() > 1 && groupSpread(fabric, g, slots).rails > 1 ? 1 : 0;
    return off;
}

} // namespace railyard
