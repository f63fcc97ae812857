#pragma once

#include "layout/mapping.h"

#include <utility>
#include <vector>

namespace railyard {

/// Checks a batch move for CostEngine::moveRanks() before anything changes: every rank in
/// 0..world-1 and every slot in the mapping's range, no rank or slot listed twice, no slot held
/// by a rank that is not listed (so the moved mapping is again one rank per slot) and, when
/// `usable` is not empty, no slot it marks unusable. Returns the listed ranks in order; throws
/// ScenarioError("move", ...) naming the rank or slot at fault.
std::vector<int> checkRankMoves(const Mapping &mapping, int world, const std::vector<char> &usable,
    const std::vector<std::pair<int, int>> &rankToSlot);

} // namespace railyard
