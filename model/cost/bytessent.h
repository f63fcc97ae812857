#pragma once

#include "base/units.h"
#include "layout/parallellayout.h"
#include "workload/workloadplan.h"

namespace railyard {

/// Bus-bandwidth factor of a collective over n ranks (nccl-tests doc/PERFORMANCE.md): the
/// share of the message size S each rank sends, 2(n-1)/n for an all-reduce, (n-1)/n for an
/// all-gather, a reduce-scatter and an all-to-all, 1 for a point-to-point send.
double busFactor(Collective c, int n);

/**
 * Bytes the ranks send per iteration, per parallel dimension, by the nccl-tests definition:
 * every run of an op sends S x busFactor per member rank, summed over all ranks that run it;
 * a pipeline boundary sends S per sending rank, each micro-batch once per model chunk in each
 * direction, plus the interleaved wrap-around between chunks. It depends on the workload and
 * the degrees only, not on the mapping or the algorithm: the link bytes of the report count
 * each of these bytes once per link it crosses.
 */
/// With hybrid sharding (`dpShard` = R > 0, TrainingSpec::fsdpShard) the dense DP ops run over
/// the shard groups of R ranks, the replica ops (CommOp::replicaGroup) over dp x cp / R ranks.
DimArray bytesSent(
    const WorkloadPlan &plan, const ParallelDegrees &degrees, int chunks, int dpShard = 0);

} // namespace railyard
