#pragma once

#include "layout/mapping.h"

#include <utility>
#include <vector>

namespace railyard {

/** One rank's change of GPU slot. An edit of the mapping is the list of every rank it moves. */
struct MovedRank
{
    int rank = -1;
    int from = -1;
    int to = -1;
    bool operator==(const MovedRank &) const = default;
};

using MovedRanks = std::vector<MovedRank>;

/// The moves that put each rank of `rankToSlot` on its slot, in the given order, a rank already
/// on a target slot swapping out of the way (Mapping::moveRank). The list is complete (every
/// rank whose slot changes, displaced ones included), sorted by rank, and empty when nothing
/// moves; a swap of two ranks is two moves. Ranges are the caller's to check.
MovedRanks planMoves(const Mapping &mapping, const std::vector<std::pair<int, int>> &rankToSlot);

/// The moves that undo `moves` (each rank back to its old slot).
MovedRanks inverseMoves(const MovedRanks &moves);

} // namespace railyard
