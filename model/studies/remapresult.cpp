// The failure remap's results: strategy and rank-kind names, and the summary of an evaluated
// scenario that the healthy and the degraded side share.
#include "studies/remapresult.h"

#include "cost/costengine.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace railyard {

namespace {

constexpr std::array<std::string_view, 3> kStrategyNames { "drop-dp", "spares", "shrink-pp" };

int dpGroupsAcrossRails(const CostEngine &e)
{
    const Fabric &fabric = e.fabric();
    if (fabric.spec().kind != FabricKind::RailOptimised)
        return 0;
    int count = 0;
    for (const std::span<const int> group : e.layout().groups(GroupKind::Dp)) {
        const int rail = fabric.railOfSlot(e.mapping().slotOf(group.front()));
        for (int r : group) {
            if (fabric.railOfSlot(e.mapping().slotOf(r)) != rail) {
                ++count;
                break;
            }
        }
    }
    return count;
}

} // namespace

const std::vector<RemapStrategy> &allRemapStrategies()
{
    static const std::vector<RemapStrategy> all { RemapStrategy::DropDp, RemapStrategy::Spares,
        RemapStrategy::ShrinkPp };
    return all;
}

std::string_view remapStrategyName(RemapStrategy s)
{
    return kStrategyNames[static_cast<std::size_t>(s)];
}

bool parseRemapStrategy(std::string_view name, RemapStrategy &out)
{
    const auto it = std::find(kStrategyNames.begin(), kStrategyNames.end(), name);
    if (it == kStrategyNames.end())
        return false;
    out = static_cast<RemapStrategy>(it - kStrategyNames.begin());
    return true;
}

std::string_view remapStrategyDescription(RemapStrategy s)
{
    switch (s) {
    case RemapStrategy::DropDp:
        return "keep tp and pp, drop the data-parallel replicas the failure hit";
    case RemapStrategy::Spares:
        return "keep every degree, move the hit TP groups to spare slots";
    case RemapStrategy::ShrinkPp:
        return "keep tp and dp, fewer pipeline stages with more layers each";
    }
    return "";
}

std::string_view remappedRankKindName(RemappedRank::Kind kind)
{
    switch (kind) {
    case RemappedRank::Kind::Moved:
        return "moved";
    case RemappedRank::Kind::Renumbered:
        return "renumbered";
    case RemappedRank::Kind::Dropped:
        return "dropped";
    }
    return "";
}

std::vector<std::string> splitTpGroups(const CostEngine &e)
{
    const ParallelLayout &layout = e.layout();
    const Fabric &fabric = e.fabric();
    const int allowed = (layout.degrees().tp + fabric.gpusPerServer() - 1) / fabric.gpusPerServer();
    std::vector<std::string> out;
    const auto &groups = layout.groups(GroupKind::Tp);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        std::vector<int> servers;
        for (int r : groups[g]) {
            const int s = fabric.serverOfSlot(e.mapping().slotOf(r));
            if (std::find(servers.begin(), servers.end(), s) == servers.end())
                servers.push_back(s);
        }
        if (static_cast<int>(servers.size()) <= allowed)
            continue;
        std::sort(servers.begin(), servers.end());
        RankCoord c = layout.coord(groups[g].front());
        std::string text = "tp group " + std::to_string(g) + " (d " + std::to_string(c.d) + ", p "
            + std::to_string(c.p) + (layout.degrees().cp > 1 ? ", c " + std::to_string(c.c) : "")
            + "):";
        for (std::size_t i = 0; i < servers.size(); ++i)
            text += (i ? ", " : " ") + fabric.serverName(servers[i]);
        out.push_back(text);
    }
    return out;
}

double maxOverMean(const std::vector<double> &v)
{
    if (v.empty())
        return 1.0;
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    return mean > 0.0 ? *std::max_element(v.begin(), v.end()) / mean : 1.0;
}

RemapSummary remapSummary(const CostEngine &e)
{
    const CostReport &r = e.report();
    const Scenario &s = e.scenario();
    RemapSummary out;
    out.ranks = r.ranks;
    out.degrees = s.degrees;
    out.globalBatch = s.training.globalBatch;
    out.microbatches = e.plan().microbatches;
    out.iterationTime = r.iterationTime;
    out.samplesPerSecond = r.iterationTime > 0.0 ? s.training.globalBatch / r.iterationTime : 0.0;
    out.tokensPerSecond = out.samplesPerSecond * s.model.seq;
    out.bubble = r.bubbleFraction;
    out.mfu = r.mfu;
    out.maxMemoryPerRank = r.maxMemoryPerRank;
    const TightestMemory memory = tightestMemory(r, s.device.hbmBytes);
    out.deviceMemory = memory.capacity;
    out.memoryUsed = memory.used;
    out.memoryDevice = memory.device;
    out.memoryFits = r.memoryFits;
    out.tpGroupsAcrossServers = static_cast<int>(splitTpGroups(e).size());
    out.dpGroupsAcrossRails = dpGroupsAcrossRails(e);
    out.spineShare = r.spineBytesShare;
    out.linkP99 = r.linkStats.p99;
    out.linkMax = r.linkStats.max;
    std::vector<double> compute;
    for (std::size_t st = 0; st < r.stageForward.size(); ++st)
        compute.push_back(r.stageForward[st] + r.stageBackward[st]);
    out.stageImbalance = maxOverMean(compute);
    return out;
}

} // namespace railyard
