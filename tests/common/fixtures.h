#pragma once

#include "base/units.h"
#include "cost/pipelineschedule.h"
#include "fabric/fabricspec.h"
#include "layout/parallellayout.h"
#include "scenario/scenario.h"

/**
 * Scenarios and fabrics that several engine suites build: the 128-GPU sample job, a small dense
 * and a small MoE job on a few servers, and rail-optimised or ToR fabric specs. Each returns a
 * fresh value a test may modify.
 */
namespace railyard::fixtures {

/// samples/seed-128.json: 16 servers x 8 GPUs on a rail-optimised fabric, tp 8 x pp 4 x dp 4
/// (128 ranks), Llama-2-70B, 1F1B with 16 micro-batches per replica, packed placement.
Scenario seed128();

/// Degrees in the order tp, pp, dp, cp, ep.
ParallelDegrees degrees(int tp, int pp = 1, int dp = 1, int cp = 1, int ep = 1);

/// `servers` x `gpus` on a rail-optimised fabric (one NIC per GPU, rail i = NIC i) with
/// `serversPerSu` servers per scalable unit and `radix`-port switches; default bandwidths.
FabricSpec railFabric(int servers, int gpus, int serversPerSu = 32, int radix = 64);
/// The same servers on top-of-rack leaves of `serversPerLeaf` servers (0 = derived).
FabricSpec torFabric(int servers, int gpus, int serversPerLeaf = 0, int radix = 64);

/// A small dense GPT-style job on `servers` x `gpus`: 8 layers, hidden 1024, 16 heads (MHA),
/// GeLU MLP of 4096, sequence 2048, vocabulary 32000, micro-batch 1, 8 micro-batches per
/// replica, bf16, defaults otherwise.
Scenario smallDense(
    int servers, int gpus, ParallelDegrees degrees, FabricKind kind = FabricKind::RailOptimised);

/// A small MoE job on `servers` x `gpus`: 8 layers (all MoE), hidden 1024, 16 heads (MHA),
/// SwiGLU experts of 2048, sequence 2048, vocabulary 32000, `experts` experts with top-`topK`
/// routing, micro-batch 1, 8 micro-batches per replica, bf16.
Scenario smallMoe(int servers, int gpus, ParallelDegrees degrees, int experts = 8, int topK = 2);

} // namespace railyard::fixtures

namespace railyard {
class CostEngine;
}

namespace railyard::fixtures {

/// Bytes per iteration of dimension `dim` summed over the report's links of tier `tier`.
double tierDimBytes(const CostEngine &engine, Tier tier, Dim dim);

/// A timeline event of `kind` at `stage` and model chunk `chunk`, from `start` to `end`.
PipelineEvent pipeEvent(PipelineEventKind kind, int stage, int chunk, double start, double end);

/// The index of the timeline's event of `kind` at `stage` for micro-batch `mb`, -1 when none.
int findEvent(const PipelineTimeline &t, PipelineEventKind kind, int stage, int mb);

} // namespace railyard::fixtures
