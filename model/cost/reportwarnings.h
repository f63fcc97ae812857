#pragma once

#include "cost/costreport.h"
#include "fabric/fabric.h"

#include <string>
#include <vector>

namespace railyard {

/// The report's warnings about the iteration as a whole: a rank that needs more memory than the
/// device has, and an iteration that waits for its busiest link (`scheduleEnd` is when the
/// overlapped schedule alone would end).
std::vector<std::string> iterationWarnings(const CostReport &report, const Fabric &fabric,
                                           double deviceBytes, double scheduleEnd);

} // namespace railyard
