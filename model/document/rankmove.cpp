#include "document/rankmove.h"

#include <algorithm>

namespace railyard {

MovedRanks planMoves(const Mapping &mapping, const std::vector<std::pair<int, int>> &rankToSlot)
{
    Mapping moved = mapping;
    std::vector<int> touched;
    for (const auto &[rank, slot] : rankToSlot) {
        const int occupant = moved.rankAt(slot);
        if (occupant == rank)
            continue;
        touched.push_back(rank);
        if (occupant >= 0)
            touched.push_back(occupant);
        moved.moveRank(rank, slot);
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    MovedRanks moves;
    for (int rank : touched) {
        if (mapping.slotOf(rank) != moved.slotOf(rank))
            moves.push_back({ rank, mapping.slotOf(rank), moved.slotOf(rank) });
    }
    return moves;
}

MovedRanks inverseMoves(const MovedRanks &moves)
{
    MovedRanks inverse = moves;
    for (MovedRank &m : inverse)
        std::swap(m.from, m.to);
    return inverse;
}

} // namespace railyard
