#pragma once

// Internal to the failure remap (failureremap.cpp): where the ranks of a new layout go.

#include "fabric/fabric.h"
#include "layout/parallellayout.h"

#include <vector>

namespace railyard::remap_detail {

/** Where the placement put the new ranks. */
struct Placed
{
    std::vector<int> slots;
    int forcedSplits = 0; ///< TP groups that had to be split to place them
    int shortfall = 0; ///< ranks without a usable slot
};

/**
 * Places the ranks of `layout`: each on its preferred slot when usable, else its whole TP group
 * on a free lane (see the file comment), else rank by rank.
 */
Placed placeRanks(const ParallelLayout &layout, const Fabric &fabric,
    const std::vector<char> &usable, const std::vector<int> &preferred);

} // namespace railyard::remap_detail
