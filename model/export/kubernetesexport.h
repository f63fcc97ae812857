#pragma once

#include "export/exportoptions.h"

#include <string>

namespace railyard {

class CostEngine;

namespace exportdetail {

/// A Kubeflow PyTorchJob manifest (kubeflow.org/v1), one pod per node pinned to its host.
std::string exportPyTorchJob(const CostEngine &engine, const ExportOptions &options);

} // namespace exportdetail

} // namespace railyard
