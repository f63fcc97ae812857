#pragma once

#include "export/exportoptions.h"

#include <string>

namespace railyard {

class CostEngine;

namespace exportdetail {

/// Kueue Topology-Aware Scheduling manifests for the mapping (kueueexport.cpp).
std::string exportKueue(const CostEngine &engine, const ExportOptions &options);

} // namespace exportdetail

} // namespace railyard
