#pragma once

#include <string_view>

namespace railyard {

/**
 * The named placements of ranks on GPU slots (Mapping::place() implements them): Packed is a
 * launcher's order, RailAligned keeps tensor shard t on GPU/NIC index t, Scattered spreads
 * ranks round-robin over servers.
 */
enum class Placement { Packed, RailAligned, Scattered };
std::string_view placementName(Placement p); ///< "packed", "rail-aligned", "scattered"
bool parsePlacement(std::string_view name, Placement &out);

} // namespace railyard
