#pragma once

#include "fabric/fabric.h"
#include "layout/parallellayout.h"

#include <span>
#include <vector>

namespace railyard {

/** Where one group's members sit: on how many servers, rails and leaves. */
struct GroupSpread
{
    int servers = 0;
    int rails = 0; ///< 0 on fabrics without rails
    int leaves = 0;
};

/// The spread of `members` with rank r on slot slots[r].
GroupSpread groupSpread(
    const Fabric &fabric, std::span<const int> members, const std::vector<int> &slots);

/// TP groups on more servers than ceil(tp / G).
int tpGroupsSplit(
    const Fabric &fabric, const ParallelLayout &layout, const std::vector<int> &slots);
/// DP groups of more than one member on more than one rail (0 on fabrics without rails).
int dpGroupsOffRail(
    const Fabric &fabric, const ParallelLayout &layout, const std::vector<int> &slots);

} // namespace railyard
