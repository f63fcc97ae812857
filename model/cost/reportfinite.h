#pragma once

#include "cost/costreport.h"

#include <string>
#include <vector>

namespace railyard {

/**
 * The second line of defence behind the readers' ranges (base/physicalranges.h): every figure
 * of a report must be finite. Returns the figures that are not, each as its path in the report
 * and its value ("iteration_time_s = inf", "links[12].busy_time_s = nan"); empty when all are.
 * Walks every number the report holds: the scalars, the per-dimension and per-tier arrays,
 * the link statistics, every link, phase, stage, memory ledger and timeline event.
 */
std::vector<std::string> nonFiniteFigures(const CostReport &report);

/// Throws ScenarioError when nonFiniteFigures() finds any: the report would print inf or nan.
/// The message names the figures and the inputs they come from.
void checkReportFinite(const CostReport &report);

} // namespace railyard
