#pragma once

// The fixed scenario the readers' fuzz targets (nccl-tests logs, NCCL logs, compute
// calibrations) apply what they read to.

#include "scenario/scenario.h"

namespace railyard::fuzz {

/// A small dense job on `servers` x 8 GPUs (TP 8 x DP servers, 8 layers of hidden 1024): the
/// fixed scenario the readers' targets apply what they read to.
inline Scenario smallFuzzScenario(int servers)
{
    Scenario s;
    s.fabric.servers = servers;
    s.fabric.gpusPerServer = 8;
    s.fabric.nicsPerServer = 8;
    s.degrees.tp = 8;
    s.degrees.dp = servers;
    s.model.layers = 8;
    s.model.hidden = 1024;
    s.model.heads = 16;
    s.model.kvHeads = 16;
    s.model.ffn = 4096;
    s.training.globalBatch = 8 * servers;
    return s;
}

} // namespace railyard::fuzz
