#include "cost/rankmoves.h"

#include "base/scenarioerror.h"

#include <algorithm>
#include <string>

namespace railyard {

std::vector<int> checkRankMoves(const Mapping &mapping, int world, const std::vector<char> &usable,
    const std::vector<std::pair<int, int>> &rankToSlot)
{
    const int slots = mapping.slotCount();
    std::vector<int> ranks;
    ranks.reserve(rankToSlot.size());
    for (const auto &[rank, slot] : rankToSlot) {
        if (rank < 0 || rank >= world)
            throw ScenarioError("move",
                "rank " + std::to_string(rank) + " is outside 0.." + std::to_string(world - 1));
        if (slot < 0 || slot >= slots)
            throw ScenarioError("move",
                "slot " + std::to_string(slot) + " is outside 0.." + std::to_string(slots - 1));
        if (!usable.empty() && !usable[static_cast<std::size_t>(slot)])
            throw ScenarioError("move", "slot " + std::to_string(slot) + " is on failed hardware");
        ranks.push_back(rank);
    }
    // Batches are small (a swap, a server's or a group's ranks): pairwise checks are cheaper
    // than a set.
    for (std::size_t i = 0; i < rankToSlot.size(); ++i) {
        const auto [rank, slot] = rankToSlot[i];
        for (std::size_t j = 0; j < i; ++j)
            if (rankToSlot[j].first == rank || rankToSlot[j].second == slot)
                throw ScenarioError("move",
                    "rank " + std::to_string(rank) + " or slot " + std::to_string(slot)
                        + " is listed twice");
        if (const int holder = mapping.rankAt(slot);
            holder >= 0 && std::find(ranks.begin(), ranks.end(), holder) == ranks.end())
            throw ScenarioError("move",
                "slot " + std::to_string(slot) + " is held by rank " + std::to_string(holder)
                    + ", which does not move");
    }
    return ranks;
}

} // namespace railyard
