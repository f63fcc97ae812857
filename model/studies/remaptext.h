#pragma once

#include "layout/parallellayout.h"
#include "studies/remapresult.h"

#include <string>
#include <vector>

namespace railyard {

/// The comparison table shared by the CLI and the GUI: one row per quantity, columns
/// label, healthy, then one per result ("-" where a result is impossible).
std::vector<std::vector<std::string>> remapComparisonRows(const std::vector<RemapResult> &results);
/// "(d 3, p 0, t 0)" with c and e when the layout uses them.
std::string rankCoordText(const RankCoord &coord, const ParallelDegrees &degrees);
/// "tp 8 x pp 4 x dp 3" (with " x cp c" and " (ep e)" when used).
std::string degreeText(const ParallelDegrees &degrees);

} // namespace railyard
