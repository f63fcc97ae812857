#pragma once

#include "workload/workload.h"

#include <vector>

namespace railyard {

/** What one compute op of a stage's program does (pipelineorders.cpp cites each schedule). */
enum class PipelineOpKind {
    Forward,
    Backward, ///< the whole backward: input and weight gradients together
    InputGrad, ///< the input gradient alone ("B" of Qi et al.); its weight gradient follows later
    WeightGrad, ///< the deferred weight gradient ("W")
    ForwardBackward, ///< DualPipe's overlapped pair: a forward and a whole backward in one slot
};

/**
 * One compute op in a stage's program order. `chunk` is the model chunk (interleaved) or the
 * direction (DualPipe: 0 enters at stage 0, 1 at the last stage); `microbatch` counts within
 * that chunk or direction. A ForwardBackward op's backward half is (chunk2, microbatch2).
 */
struct PipelineOp
{
    PipelineOpKind kind = PipelineOpKind::Forward;
    int chunk = 0;
    int microbatch = 0;
    int chunk2 = 0;
    int microbatch2 = 0;
};

/// Micro-batches per direction of DualPipe (half of m), 0 for every other schedule.
inline int dualPipeHalf(ScheduleKind kind, int microbatches)
{
    return kind == ScheduleKind::DualPipe ? microbatches / 2 : 0;
}

/**
 * The program order of every stage for schedule `kind` with p stages, m micro-batches and v
 * chunks (interleaved only). Forward only (`withBackward` false) every order keeps just its
 * forwards. Assumes the input was validated (interleaved m % p == 0; DualPipe p even, m even
 * and m >= 2p).
 */
std::vector<std::vector<PipelineOp>> pipelineOrders(
    ScheduleKind kind, int p, int m, int v, bool withBackward);

} // namespace railyard
