// Rank placement of the failure remap; the rules are in failureremap.cpp's file comment.
#include "studies/remapplacement.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <tuple>

namespace railyard::remap_detail {

/**
 * Places the ranks of `layout`: each on its preferred slot when usable, else its whole TP group
 * on a free lane (see the file comment), else rank by rank.
 */
Placed placeRanks(const ParallelLayout &layout, const Fabric &fabric,
    const std::vector<char> &usable, const std::vector<int> &preferred)
{
    const int world = layout.worldSize();
    const int gpus = fabric.gpusPerServer();
    const int servers = fabric.servers();
    const int tp = layout.degrees().tp;
    Placed out;
    out.slots.assign(static_cast<std::size_t>(world), -1);
    std::vector<char> taken(usable.size(), 0);
    const auto freeSlot = [&](int s) {
        return s >= 0 && s < static_cast<int>(usable.size()) && usable[static_cast<std::size_t>(s)]
            && !taken[static_cast<std::size_t>(s)];
    };
    const auto put = [&](int rank, int slot) {
        out.slots[static_cast<std::size_t>(rank)] = slot;
        taken[static_cast<std::size_t>(slot)] = 1;
    };

    // 1. Groups whose every member keeps its predecessor's slot stay where they are.
    const GroupList &groups = layout.groups(GroupKind::Tp);
    std::vector<std::size_t> repair;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        bool keep = true;
        for (int r : groups[g]) {
            const int s = preferred[static_cast<std::size_t>(r)];
            keep = keep && freeSlot(s);
        }
        if (!keep) {
            repair.push_back(g);
            continue;
        }
        for (int r : groups[g])
            put(r, preferred[static_cast<std::size_t>(r)]);
    }
    if (repair.empty())
        return out;

    // 2. Whole lanes. Lanes are only ever taken here, so a per-lane cursor over servers never
    //    needs to go back: O(servers * lanes) in all.
    const int span = (tp + gpus - 1) / gpus; // servers per TP group when tp > G
    const int lanes = tp <= gpus ? gpus / tp : 0;
    std::vector<int> cursor(static_cast<std::size_t>(std::max(lanes, 1)), 0);
    const auto laneFree = [&](int server, int lane) {
        for (int t = 0; t < tp; ++t)
            if (!freeSlot(server * gpus + tp * lane + t))
                return false;
        return true;
    };
    const auto serverFree = [&](int server) {
        for (int g = 0; g < gpus; ++g)
            if (!freeSlot(server * gpus + g))
                return false;
        return true;
    };
    int serverCursor = 0;
    std::vector<std::size_t> leftover;
    for (std::size_t g : repair) {
        const std::span<const int> members = groups[g]; // member i is shard t = i
        bool placed = false;
        if (tp <= gpus) {
            // Lanes by how many shards keep their predecessor's GPU index (hence rail).
            std::vector<std::pair<int, int>> order; // (-score, lane)
            for (int l = 0; l < lanes; ++l) {
                int score = 0;
                for (int t = 0; t < tp; ++t) {
                    const int s = preferred[static_cast<std::size_t>(members[t])];
                    score += s >= 0 && fabric.gpuOfSlot(s) == tp * l + t;
                }
                order.emplace_back(-score, l);
            }
            std::sort(order.begin(), order.end());
            for (const auto &[score, l] : order) {
                int &c = cursor[static_cast<std::size_t>(l)];
                while (c < servers && !laneFree(c, l))
                    ++c;
                if (c < servers) {
                    for (int t = 0; t < tp; ++t)
                        put(members[t], c * gpus + tp * l + t);
                    placed = true;
                    break;
                }
            }
        } else {
            // tp > G: ceil(tp/G) whole free servers, shard t on server t/G, GPU t mod G.
            std::vector<int> picked;
            for (int s = serverCursor; s < servers && static_cast<int>(picked.size()) < span; ++s)
                if (serverFree(s))
                    picked.push_back(s);
            if (static_cast<int>(picked.size()) == span) {
                for (int t = 0; t < tp; ++t)
                    put(members[t], picked[t / gpus] * gpus + t % gpus);
                serverCursor = picked.front() + 1;
                placed = true;
            }
        }
        if (!placed)
            leftover.push_back(g);
    }

    // 3. Rank by rank: keep usable predecessor slots, move the others to a free slot with the
    //    same GPU index (same rail) first, then to any free slot.
    std::vector<int> byGpuCursor(static_cast<std::size_t>(gpus), 0);
    int anyCursor = 0;
    for (std::size_t g : leftover) {
        for (int r : groups[g]) {
            const int s = preferred[static_cast<std::size_t>(r)];
            if (freeSlot(s))
                put(r, s);
        }
        for (int r : groups[g]) {
            if (out.slots[static_cast<std::size_t>(r)] >= 0)
                continue;
            const int s = preferred[static_cast<std::size_t>(r)];
            int slot = -1;
            if (s >= 0) {
                const int gpu = fabric.gpuOfSlot(s);
                int &c = byGpuCursor[static_cast<std::size_t>(gpu)];
                while (c < servers && !freeSlot(c * gpus + gpu))
                    ++c;
                if (c < servers)
                    slot = c * gpus + gpu;
            }
            if (slot < 0) {
                while (anyCursor < static_cast<int>(usable.size()) && !freeSlot(anyCursor))
                    ++anyCursor;
                if (anyCursor < static_cast<int>(usable.size()))
                    slot = anyCursor;
            }
            if (slot < 0) {
                ++out.shortfall;
                continue;
            }
            put(r, slot);
        }
        std::vector<int> used;
        for (int r : groups[g]) {
            const int s = out.slots[static_cast<std::size_t>(r)];
            if (s >= 0 && std::find(used.begin(), used.end(), fabric.serverOfSlot(s)) == used.end())
                used.push_back(fabric.serverOfSlot(s));
        }
        if (static_cast<int>(used.size()) > span)
            ++out.forcedSplits;
    }
    return out;
}

Placed swapOntoSpares(const ParallelLayout &layout, const Fabric &fabric,
    const std::vector<char> &usable, const std::vector<int> &preferred,
    const std::vector<int> &candidates, std::string &reason)
{
    const int world = layout.worldSize();
    Placed out;
    out.slots.assign(static_cast<std::size_t>(world), -1);
    std::vector<char> taken(usable.size(), 0);
    const auto usableSlot = [&](int s) {
        return s >= 0 && s < static_cast<int>(usable.size()) && usable[static_cast<std::size_t>(s)];
    };
    // Every rank whose slot survived stays (a hot spare moves only what the failure hit).
    for (int r = 0; r < world; ++r) {
        const int s = preferred[static_cast<std::size_t>(r)];
        if (usableSlot(s) && !taken[static_cast<std::size_t>(s)]) {
            out.slots[static_cast<std::size_t>(r)] = s;
            taken[static_cast<std::size_t>(s)] = 1;
        }
    }
    // Rails only exist on rail-optimised fabrics; elsewhere (top-of-rack) any rail will do.
    const bool rails = fabric.railCount() > 0;
    for (const std::span<const int> group : layout.groups(GroupKind::Tp)) {
        int domain = -1; // the group's NVLink domain, from a member that stayed
        for (const int r : group)
            if (const int s = out.slots[static_cast<std::size_t>(r)]; s >= 0) {
                domain = fabric.scaleUpDomainOfSlot(s);
                break;
            }
        for (const int r : group) {
            if (out.slots[static_cast<std::size_t>(r)] >= 0)
                continue;
            const int old = preferred[static_cast<std::size_t>(r)];
            const int rail = old >= 0 && rails ? fabric.railOfSlot(old) : -1;
            int slot = -1;
            for (const int c : candidates)
                if (usableSlot(c) && !taken[static_cast<std::size_t>(c)]
                    && (domain < 0 || fabric.scaleUpDomainOfSlot(c) == domain)
                    && (rail < 0 || fabric.railOfSlot(c) == rail)) {
                    slot = c;
                    break;
                }
            if (slot < 0) {
                if (reason.empty())
                    reason = "no spare slot for rank " + std::to_string(r) + " (it sat on slot "
                        + std::to_string(old) + ")"
                        + (rail >= 0 ? " on rail " + std::to_string(rail) : "")
                        + (domain >= 0 ? " in NVLink domain " + fabric.scaleUpDomainName(domain)
                                       : "");
                ++out.shortfall;
                continue;
            }
            out.slots[static_cast<std::size_t>(r)] = slot;
            taken[static_cast<std::size_t>(slot)] = 1;
            if (domain < 0)
                domain = fabric.scaleUpDomainOfSlot(slot);
        }
    }
    return out;
}

} // namespace railyard::remap_detail
