#pragma once

// Internal to the failure remap (failureremap.cpp): where the ranks of a new layout go.

#include "fabric/fabric.h"
#include "layout/parallellayout.h"

#include <string>
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

/**
 * The hot-spare swap (studies/remapresult.h, HotSpare): ranks on usable preferred slots stay;
 * each other rank takes the first of `candidates` that is usable and free, in the NVLink domain
 * of its TP group (the domain of a member that stays, else of the first member placed) and on
 * its preferred slot's rail. A rank with none left is a shortfall, `reason` says which rank and
 * what it needed.
 */
Placed swapOntoSpares(const ParallelLayout &layout, const Fabric &fabric,
    const std::vector<char> &usable, const std::vector<int> &preferred,
    const std::vector<int> &candidates, std::string &reason);

} // namespace railyard::remap_detail
