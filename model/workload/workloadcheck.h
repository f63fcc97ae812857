#pragma once

#include "layout/parallellayout.h"
#include "workload/workload.h"

namespace railyard {

/// Throws ScenarioError naming the field ("parallel.tp", "model.layers", "training.interleave",
/// "device.peak_tflops_fp8", ...) for a workload planWorkload() cannot plan: a size out of
/// range, a dimension that does not split over its degree, a batch that does not divide.
void checkWorkload(const ModelSpec &model, const TrainingSpec &training, const DeviceSpec &device,
    const ParallelDegrees &degrees);

} // namespace railyard
