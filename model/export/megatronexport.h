#pragma once

#include "export/exportoptions.h"

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

namespace exportdetail {

/// Megatron-LM arguments reproducing the layout and the training switches.
std::string exportMegatron(const CostEngine &engine, const ExportOptions &options);
/// What the Megatron-LM arguments cannot express (an order, a schedule), one line each.
std::vector<std::string> megatronWarnings(const CostEngine &engine);

} // namespace exportdetail

} // namespace railyard
