#include "layout/mapping.h"

#include "base/scenarioerror.h"
#include "fabric/failedcomponent.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <numeric>
#include <string>
#include <utility>

namespace railyard {

namespace {

/// Per-category cap on validate() messages: a 16k-GPU scattered layout would otherwise list
/// thousands of split groups; the rest is summarised in one line.
constexpr int kMaxIssuesPerKind = 20;

int ceilDiv(int a, int b)
{
    return (a + b - 1) / b;
}

/// "0, 4, 8" or "24..31" (runs of three or more consecutive ranks are folded), shortened
/// after a few items so that a message stays one readable line.
std::string rankList(std::span<const int> ranks)
{
    constexpr std::size_t kMaxItems = 8;
    std::vector<std::string> items;
    for (std::size_t i = 0; i < ranks.size();) {
        std::size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
            ++j;
        if (j - i >= 2) {
            items.push_back(std::to_string(ranks[i]) + ".." + std::to_string(ranks[j]));
        } else {
            for (std::size_t k = i; k <= j; ++k)
                items.push_back(std::to_string(ranks[k]));
        }
        i = j + 1;
    }
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < kMaxItems; ++i)
        text += (i ? ", " : "") + items[i];
    if (items.size() > kMaxItems)
        text += ", ... (" + std::to_string(ranks.size()) + " ranks)";
    return text;
}

/// Joins names, shortened like rankList().
std::string nameList(const std::vector<std::string> &names)
{
    constexpr std::size_t kMaxItems = 8;
    std::string text;
    for (std::size_t i = 0; i < names.size() && i < kMaxItems; ++i)
        text += (i ? ", " : "") + names[i];
    if (names.size() > kMaxItems)
        text += " and " + std::to_string(names.size() - kMaxItems) + " more";
    return text;
}

/** Collects the issues of one kind: keeps kMaxIssuesPerKind, summarises the rest on exit. */
class IssueKind
{
public:
    IssueKind(std::vector<MappingIssue> &out, MappingIssue::Severity severity, std::string overflow)
        : m_out(out)
        , m_severity(severity)
        , m_overflow(std::move(overflow))
    {
    }
    ~IssueKind()
    {
        if (m_count > kMaxIssuesPerKind)
            m_out.push_back({ m_severity,
                "... and " + std::to_string(m_count - kMaxIssuesPerKind) + " more " + m_overflow });
    }
    IssueKind(const IssueKind &) = delete;
    IssueKind &operator=(const IssueKind &) = delete;

    void add(std::string message)
    {
        if (++m_count <= kMaxIssuesPerKind)
            m_out.push_back({ m_severity, std::move(message) });
    }

private:
    std::vector<MappingIssue> &m_out;
    MappingIssue::Severity m_severity;
    std::string m_overflow;
    int m_count = 0;
};

/**
 * RailAligned placement. The unit is a "column": the dp TP groups of one (p, c), i.e. the
 * members of every DP group of that (p, c). A column occupies one "lane" (tp consecutive GPU
 * indices, GPU t + tp*lane for shard t) on dp different servers, replica d on the d-th server
 * of its block, so all DP peers of one (p, t, c) share a GPU index and hence a NIC and rail
 * (with GPU i <-> NIC i every DP group is then same-rail: it never touches a spine). A server has G/tp lanes, so G/tp columns share
 * a block of dp servers; columns fill blocks in (p, c) order, c fastest, and replicas d within
 * a block: servers therefore fill in (p, c, d) order. With the default order and tp = G this is
 * exactly the packed layout (rank = t + G*d + G*dp*p).
 *
 * When tp > G a TP group spans ceil(tp/G) servers with shard t on GPU t mod G, one lane.
 * When tp does not divide G the spare GPUs of each server stay free for the fallback.
 * Fallback: columns that do not fit (fewer than dp free servers per block left) are packed
 * into the remaining free slots in (p, c, d, t) order. Free space then consists of whole lanes,
 * so TP groups stay on one server where they can, but their DP peers no longer share a rail:
 * validate() reports that.
 */
std::vector<int> railAlignedSlots(const ParallelLayout &layout, const Fabric &fabric)
{
    const ParallelDegrees &deg = layout.degrees();
    const int gpus = fabric.gpusPerServer();
    const int span = ceilDiv(deg.tp, gpus); // servers per TP group
    const int lanes = deg.tp <= gpus ? gpus / deg.tp : 1; // TP groups side by side per server
    const int columns = deg.pp * deg.cp;
    const int blockServers = deg.dp * span;
    const int blocks = fabric.servers() / blockServers;
    const int fitted = std::min(columns, blocks * lanes); // blocks*lanes <= slots: no overflow

    std::vector<int> slotOf(static_cast<std::size_t>(layout.worldSize()), -1);
    std::vector<char> used(static_cast<std::size_t>(fabric.slotCount()), 0);
    for (int q = 0; q < fitted; ++q) {
        const int p = q / deg.cp, c = q % deg.cp;
        const int block = q / lanes, lane = q % lanes;
        for (int d = 0; d < deg.dp; ++d) {
            for (int t = 0; t < deg.tp; ++t) {
                const int server = (block * deg.dp + d) * span + t / gpus;
                const int slot = server * gpus + t % gpus + deg.tp * lane;
                slotOf[static_cast<std::size_t>(layout.rankOf(t, p, d, c))] = slot;
                used[static_cast<std::size_t>(slot)] = 1;
            }
        }
    }
    int next = 0;
    for (int q = fitted; q < columns; ++q) {
        const int p = q / deg.cp, c = q % deg.cp;
        for (int d = 0; d < deg.dp; ++d) {
            for (int t = 0; t < deg.tp; ++t) {
                while (used[static_cast<std::size_t>(next)])
                    ++next; // world <= slots, so a free slot exists
                slotOf[static_cast<std::size_t>(layout.rankOf(t, p, d, c))] = next;
                used[static_cast<std::size_t>(next)] = 1;
            }
        }
    }
    return slotOf;
}

std::string coordText(const RankCoord &c, const ParallelLayout &layout)
{
    std::string text
        = "d " + std::to_string(c.d) + ", p " + std::to_string(c.p) + ", t " + std::to_string(c.t);
    if (layout.degrees().cp > 1)
        text += ", c " + std::to_string(c.c);
    if (layout.degrees().ep > 1)
        text += ", e " + std::to_string(c.e);
    return text;
}

} // namespace

Mapping::Mapping(std::vector<int> slotOfRank, int slotCount)
    : m_slotOfRank(std::move(slotOfRank))
    , m_rankOfSlot(static_cast<std::size_t>(std::max(slotCount, 0)), -1)
{
    // Best effort: slots out of range have no inverse entry, and of two ranks on one slot the
    // first keeps it. validate() names both problems.
    for (std::size_t r = 0; r < m_slotOfRank.size(); ++r) {
        const int s = m_slotOfRank[r];
        if (s >= 0 && s < this->slotCount() && m_rankOfSlot[static_cast<std::size_t>(s)] < 0)
            m_rankOfSlot[static_cast<std::size_t>(s)] = static_cast<int>(r);
    }
}

Mapping Mapping::place(Placement placement, const ParallelLayout &layout, const Fabric &fabric)
{
    const int world = layout.worldSize();
    const int slots = fabric.slotCount();
    if (world > slots)
        throw ScenarioError("mapping",
            "the layout needs " + std::to_string(world) + " GPU slots but the fabric has "
                + std::to_string(slots));

    std::vector<int> slotOf(static_cast<std::size_t>(world));
    switch (placement) {
    case Placement::Packed:
        // Launcher order (torchrun / SLURM): global rank r on server r/G, local rank r mod G.
        std::iota(slotOf.begin(), slotOf.end(), 0);
        break;
    case Placement::RailAligned:
        slotOf = railAlignedSlots(layout, fabric);
        break;
    case Placement::Scattered: {
        // Round-robin over servers: rank r -> server r mod S, GPU floor(r / S). This stays
        // one-to-one whenever world <= S*G (floor(r/S) < G), so a world smaller than the fabric
        // needs no other spread: the high GPU indices of some servers simply stay empty.
        const int servers = fabric.servers();
        const int gpus = fabric.gpusPerServer();
        for (int r = 0; r < world; ++r)
            slotOf[static_cast<std::size_t>(r)] = (r % servers) * gpus + r / servers;
        break;
    }
    }
    return Mapping(std::move(slotOf), slots);
}

void Mapping::swapRanks(int a, int b)
{
    assert(a >= 0 && a < rankCount() && b >= 0 && b < rankCount());
    if (a == b)
        return;
    auto &sa = m_slotOfRank[static_cast<std::size_t>(a)];
    auto &sb = m_slotOfRank[static_cast<std::size_t>(b)];
    std::swap(sa, sb);
    if (sa >= 0 && sa < slotCount())
        m_rankOfSlot[static_cast<std::size_t>(sa)] = a;
    if (sb >= 0 && sb < slotCount())
        m_rankOfSlot[static_cast<std::size_t>(sb)] = b;
}

void Mapping::placeRanks(const std::vector<std::pair<int, int>> &rankToSlot)
{
    for (const auto &[rank, slot] : rankToSlot) {
        const int old = m_slotOfRank[static_cast<std::size_t>(rank)];
        if (old >= 0 && old < slotCount() && m_rankOfSlot[static_cast<std::size_t>(old)] == rank)
            m_rankOfSlot[static_cast<std::size_t>(old)] = -1;
    }
    for (const auto &[rank, slot] : rankToSlot) {
        assert(slot >= 0 && slot < slotCount() && m_rankOfSlot[static_cast<std::size_t>(slot)] < 0);
        m_slotOfRank[static_cast<std::size_t>(rank)] = slot;
        m_rankOfSlot[static_cast<std::size_t>(slot)] = rank;
    }
}

void Mapping::moveRank(int rank, int slot)
{
    assert(rank >= 0 && rank < rankCount());
    const bool inRange = slot >= 0 && slot < slotCount();
    const int other = inRange ? m_rankOfSlot[static_cast<std::size_t>(slot)] : -1;
    if (other >= 0) {
        swapRanks(rank, other); // also a no-op when the rank already sits there
        return;
    }
    const int old = m_slotOfRank[static_cast<std::size_t>(rank)];
    if (old >= 0 && old < slotCount() && m_rankOfSlot[static_cast<std::size_t>(old)] == rank)
        m_rankOfSlot[static_cast<std::size_t>(old)] = -1;
    m_slotOfRank[static_cast<std::size_t>(rank)] = slot;
    if (inRange)
        m_rankOfSlot[static_cast<std::size_t>(slot)] = rank;
}

std::vector<MappingIssue> Mapping::validate(
    const ParallelLayout &layout, const Fabric &fabric) const
{
    std::vector<MappingIssue> issues;
    const int world = layout.worldSize();
    const int slots = fabric.slotCount();
    const auto slotName = [&](int slot) {
        return "slot " + std::to_string(slot) + " (" + fabric.node(fabric.gpuVertex(slot)).name
            + ")";
    };

    // Errors. Each IssueKind adds its overflow summary when it goes out of scope.
    {
        IssueKind sizes(issues, MappingIssue::Error, "size problems");
        if (rankCount() != world)
            sizes.add("the slot list has " + std::to_string(rankCount())
                + " entries but the layout has " + std::to_string(world) + " ranks");
        if (slotCount() != slots)
            sizes.add("the mapping covers " + std::to_string(slotCount())
                + " slots but the fabric has " + std::to_string(slots));
    }
    std::vector<int> missing;
    {
        IssueKind outOfRange(issues, MappingIssue::Error, "ranks on slots outside the fabric");
        IssueKind duplicate(issues, MappingIssue::Error, "ranks on occupied slots");
        std::vector<int> holder(static_cast<std::size_t>(slots), -1);
        for (int r = 0; r < rankCount(); ++r) {
            const int s = m_slotOfRank[static_cast<std::size_t>(r)];
            if (s < 0) {
                if (r < world)
                    missing.push_back(r);
            } else if (s >= slots) {
                outOfRange.add("rank " + std::to_string(r) + " is on slot " + std::to_string(s)
                    + ", outside the fabric's " + std::to_string(slots) + " slots");
            } else if (int &first = holder[static_cast<std::size_t>(s)]; first >= 0) {
                duplicate.add("ranks " + std::to_string(first) + " and " + std::to_string(r)
                    + " are both on " + slotName(s));
            } else {
                first = r;
            }
        }
        for (int r = rankCount(); r < world; ++r)
            missing.push_back(r);
    }
    if (!missing.empty())
        issues.push_back({ MappingIssue::Error,
            (missing.size() == 1 ? "rank " : "ranks ") + rankList(missing)
                + (missing.size() == 1 ? " has" : " have") + " no slot" });

    // Warnings, over the groups whose members all sit on valid slots.
    const auto placedSlots = [&](std::span<const int> group, std::vector<int> &out) {
        out.clear();
        for (int r : group) {
            if (r >= rankCount())
                return false;
            const int s = m_slotOfRank[static_cast<std::size_t>(r)];
            if (s < 0 || s >= slots)
                return false;
            out.push_back(s);
        }
        return true;
    };
    std::vector<int> groupSlots;
    // The scale-up domains a group's slots span, named in order, when they are more than
    // `allowed`; empty otherwise.
    const auto excessDomains = [&fabric](std::span<const int> members, int allowed) {
        std::vector<int> domains;
        for (int s : members)
            if (std::find(domains.begin(), domains.end(), fabric.scaleUpDomainOfSlot(s))
                == domains.end())
                domains.push_back(fabric.scaleUpDomainOfSlot(s));
        std::vector<std::string> names;
        if (static_cast<int>(domains.size()) <= allowed)
            return names;
        std::sort(domains.begin(), domains.end());
        for (int d : domains)
            names.push_back(fabric.scaleUpDomainName(d));
        return names;
    };
    {
        // A TP group needs ceil(tp / domain GPUs) scale-up domains at least; more means TP
        // traffic leaves NVLink. A domain is one server (HGX/DGX) or a rack of trays (NVL72),
        // so the warning names servers or racks accordingly.
        const bool racks = fabric.scaleUpDomainServers() > 1;
        IssueKind split(issues, MappingIssue::Warning,
            racks ? "tp groups split across scale-up domains" : "tp groups split across servers");
        const int allowed = ceilDiv(layout.degrees().tp, fabric.scaleUpDomainGpus());
        const auto &groups = layout.groups(GroupKind::Tp);
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (!placedSlots(groups[g], groupSlots))
                continue;
            const std::vector<std::string> names = excessDomains(groupSlots, allowed);
            if (names.empty())
                continue;
            split.add("tp group " + std::to_string(g) + " (ranks " + rankList(groups[g])
                + (racks ? ") is split across scale-up domains " : ") is split across servers ")
                + nameList(names));
        }
    }
    if (fabric.scaleUpDomainServers() > 1 && layout.degrees().ep > 1) {
        // Rack-scale NVLink domains: an EP group's all-to-all stays on NVLink exactly when the
        // group needs no more domains than ceil(members / domain GPUs). (With one server per
        // domain the EP locality summary, epsummary.h, reports this instead.)
        IssueKind split(issues, MappingIssue::Warning, "ep groups split across scale-up domains");
        const auto &groups = layout.groups(GroupKind::Ep);
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (!placedSlots(groups[g], groupSlots))
                continue;
            const int allowed
                = ceilDiv(static_cast<int>(groups[g].size()), fabric.scaleUpDomainGpus());
            const std::vector<std::string> names = excessDomains(groupSlots, allowed);
            if (names.empty())
                continue;
            split.add("ep group " + std::to_string(g) + " (ranks " + rankList(groups[g])
                + ") is split across scale-up domains " + nameList(names));
        }
    }
    if (fabric.spec().kind == FabricKind::RailOptimised) {
        // Same-rail DP groups never touch a spine: their members share a rail leaf.
        IssueKind rails(issues, MappingIssue::Warning, "dp groups span several rails");
        const auto &groups = layout.groups(GroupKind::Dp);
        for (std::size_t g = 0; g < groups.size(); ++g) {
            if (!placedSlots(groups[g], groupSlots))
                continue;
            std::vector<int> railsUsed;
            for (int s : groupSlots)
                if (std::find(railsUsed.begin(), railsUsed.end(), fabric.railOfSlot(s))
                    == railsUsed.end())
                    railsUsed.push_back(fabric.railOfSlot(s));
            if (railsUsed.size() <= 1)
                continue;
            std::sort(railsUsed.begin(), railsUsed.end());
            std::vector<std::string> names;
            for (int rail : railsUsed)
                names.push_back(std::to_string(rail));
            rails.add("dp group " + std::to_string(g) + " (ranks " + rankList(groups[g])
                + ") spans rails " + nameList(names));
        }
    }
    return issues;
}

void checkRanksOnUsableSlots(const Mapping &mapping, const ParallelLayout &layout,
    const Fabric &fabric, const std::vector<FailedComponent> &failures)
{
    if (failures.empty() && !fabric.cabled())
        return;
    const std::vector<int> cause = failedSlotCauses(fabric, failures);
    for (int r = 0; r < mapping.rankCount(); ++r) {
        const int slot = mapping.slotOf(r);
        if (slot < 0 || slot >= static_cast<int>(cause.size()))
            continue; // Mapping::validate() names these
        const std::string coords
            = r < layout.worldSize() ? " (" + coordText(layout.coord(r), layout) + ")" : "";
        if (!fabric.slotCabled(slot)) {
            const int server = fabric.serverOfSlot(slot);
            throw ScenarioError("mapping",
                "rank " + std::to_string(r) + coords + " is on slot " + std::to_string(slot) + " ("
                    + fabric.node(fabric.gpuVertex(slot)).name + "), whose NIC "
                    + fabric.node(fabric.nicVertex(server, fabric.nicOfGpu(fabric.gpuOfSlot(slot)))).name
                    + " has no cable in the fabric's cabling");
        }
        const int c = cause[static_cast<std::size_t>(slot)];
        if (c < 0)
            continue;
        throw ScenarioError("mapping",
            "rank " + std::to_string(r) + coords + " is on slot " + std::to_string(slot) + " ("
                + fabric.node(fabric.gpuVertex(slot)).name + "), which is unusable: "
                + describeFailure(fabric, failures[static_cast<std::size_t>(c)]) + " failed");
    }
}

} // namespace railyard
