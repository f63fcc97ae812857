#pragma once

#include "optimise/optimiseresult.h"
#include "optimise/placementsearch.h"
#include "scenario/scenario.h"

namespace railyard {

/// Searches rank -> slot mappings of `scenario` for the options' objective (PlacementSearch)
/// from the options' start, keeps the constraint and the failed hardware, and explains the
/// result: the objectives before and after, each dimension's spine bytes and exposed time, a
/// replay stage by stage with the engine's objective after each stage's ranks moved and how
/// that stage's groups sit, and the constraint that refused most moves. The result is never
/// worse than the start (the start is returned when the search found nothing better). Throws
/// ScenarioError for a scenario the engine refuses, a preset that finds too few healthy slots
/// or a constraint the layout cannot meet.
OptimiseResult optimise(
    const Scenario &scenario, const OptimiseOptions &options, const SearchMonitor &monitor = {});

} // namespace railyard
