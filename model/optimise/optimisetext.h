#pragma once

#include "optimise/optimiseresult.h"

#include <string>

namespace railyard {

/// The optimiser's report as text: the search, the objectives of the file's mapping, the start
/// and the result, each dimension's spine bytes and exposed time, the stage-by-stage replay
/// with its groups' locality, and the constraints.
std::string optimiseText(const OptimiseResult &r);

/// One replay step in a line: "stage 2 (32 ranks moved): iteration time 4.1 s -> 3.2 s
/// (-22 %); DP groups on one rail 0 -> 8 of 8".
std::string stageStepText(const StageStep &step, Objective objective, bool rails);

} // namespace railyard
