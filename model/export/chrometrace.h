#pragma once

#include "export/exportoptions.h"

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

namespace exportdetail {

/// The pipeline timeline as Chrome Trace Event JSON (Perfetto, chrome://tracing).
std::string exportChromeTrace(const CostEngine &engine, const ExportOptions &options);

} // namespace exportdetail

} // namespace railyard
