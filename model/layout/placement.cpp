#include "layout/placement.h"

#include <algorithm>
#include <array>

namespace railyard {

namespace {

constexpr std::array<std::string_view, 3> kPlacementNames { "packed", "rail-aligned", "scattered" };

} // namespace

std::string_view placementName(Placement p)
{
    return kPlacementNames[static_cast<std::size_t>(p)];
}

bool parsePlacement(std::string_view name, Placement &out)
{
    const auto it = std::find(kPlacementNames.begin(), kPlacementNames.end(), name);
    if (it == kPlacementNames.end())
        return false;
    out = static_cast<Placement>(it - kPlacementNames.begin());
    return true;
}

} // namespace railyard
