#pragma once

#include "export/exportoptions.h"

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

namespace exportdetail {

/// Open MPI rankfile: `rank N=host slot=cores` per rank.
std::string exportRankfile(const CostEngine &engine, const ExportOptions &options);
/// Slurm batch script with an arbitrary-distribution host list (one line per rank).
std::string exportSlurm(const CostEngine &engine, const ExportOptions &options);
/// One torchrun command per node (static rendezvous), when the mapping is node-major.
std::string exportTorchrun(const CostEngine &engine, const ExportOptions &options);
/// DeepSpeed/MPI-style hostfile: `host slots=N` per server, in node order.
std::string exportHostfile(const CostEngine &engine, const ExportOptions &options);

} // namespace exportdetail

} // namespace railyard
