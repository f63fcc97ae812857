#pragma once

#include "scenario/scenario.h"

#include <cstdint>

/**
 * Random training scenarios for property tests: a small fabric (rail-optimised or ToR, with or
 * without oversubscription and PXN), degrees that fill it, a small dense or MoE model whose
 * sizes divide by them, a random schedule, placement, uneven stage split and overlap switches.
 * One in ten has one link kind at an edge of its accepted range (base/physicalranges.h).
 * The same seed gives the same scenario. Most scenarios are valid; a few are refused by the
 * engine (e.g. a memory or schedule rule), which a property test skips.
 */
namespace railyard::fixtures {

Scenario randomScenario(std::uint32_t seed);

} // namespace railyard::fixtures
