// The hand-derivation workload the workload suites share (tst_workloadplan,
// tst_workloadvalidation): a small GPT (L 4, h 1024, a 16, s 2048, V 51200), its training
// options, and the H100 preset.
#pragma once

#include "workload/presets.h"
#include "workload/workloadplan.h"

namespace railyard::smallworkload {

/// The hand-derivation model: GPT block, L 4, h 1024, a 16, s 2048, V 51200, b 1.
inline ModelSpec smallModel()
{
    ModelSpec m;
    m.name = "small";
    m.layers = 4;
    m.hidden = 1024;
    m.heads = 16;
    m.kvHeads = 0;
    m.ffn = 4096;
    m.gatedMlp = false;
    m.seq = 2048;
    m.vocab = 51200;
    return m;
}

inline TrainingSpec smallTraining()
{
    TrainingSpec t;
    t.microBatch = 1;
    t.globalBatch = 8;
    t.sequenceParallel = false;
    t.recompute = Recompute::None;
    t.distributedOptimizer = false;
    t.flashAttention = false;
    return t;
}

inline DeviceSpec h100() { return *devicePreset("h100-sxm"); }

} // namespace railyard::smallworkload
