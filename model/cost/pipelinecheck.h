#pragma once

#include "cost/pipelineschedule.h"

namespace railyard {

/// Throws ScenarioError naming the field when `in` cannot be scheduled: sizes, negative or
/// non-finite times, the schedules' own constraints (interleaved m % p, DualPipe's even p and
/// m >= 2p), parts (W, exposed communication) larger than the pass they belong to.
void checkPipelineInput(const PipelineInput &in);

} // namespace railyard
