#pragma once

#include "export/exportoptions.h"

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

namespace exportdetail {

/// The measurement plan as nccl-tests runs (a shell script, or JSON with options.jsonPlan),
/// each with the engine's prediction.
std::string exportNcclPlan(const CostEngine &engine, const ExportOptions &options);

} // namespace exportdetail

} // namespace railyard
