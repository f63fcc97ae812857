#pragma once

#include "cost/costenginejobs.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace railyard {

/**
 * The forms of a SharedFabricReport that `railyard-cli evaluate` prints for a scenario with
 * jobs (docs/shared-fabric.md): `jobs[]` with each job's name, iteration time alone and shared,
 * slowdown and the links where its neighbours cost it, and the fabric's busiest link.
 */
nlohmann::json sharedFabricToJson(const SharedFabricReport &report);
std::string sharedFabricToText(const SharedFabricReport &report);

/// At most this many (link, neighbour) rows per job in the JSON and five in the text: a
/// 16,384-GPU fabric can have thousands of shared links, and a review reads the worst few;
/// `interference_rows` gives the full count.
inline constexpr std::size_t kMaxInterferenceRows = 100;

} // namespace railyard
