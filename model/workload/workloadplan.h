#pragma once

#include "layout/parallellayout.h"
#include "base/units.h"
#include "workload/memoryledger.h"
#include "workload/workload.h"

#include <vector>

namespace railyard {

enum class Collective { AllReduce, AllGather, ReduceScatter, AllToAll, SendRecv };
std::string_view collectiveName(Collective c); ///< "all-reduce", "all-gather", ... "send-recv"
bool parseCollective(std::string_view name, Collective &out);

/// Passes over the ring per collective: all-reduce = reduce-scatter + all-gather (2 passes of
/// n-1 steps each, Patarasuk & Yuan 2009); the others one pass.
inline int ringPasses(Collective c)
{
    return c == Collective::AllReduce ? 2 : 1;
}

/** When a communication op runs relative to the pipeline. */
enum class OpPass { Forward, Backward, Iteration };

/**
 * One kind of collective the workload issues, on one group kind, with its real message size.
 * `bytes` follows the nccl-tests convention for S: the all-reduce buffer, the all-gather
 * output, the reduce-scatter input, the all-to-all send buffer per rank, the send size.
 * `count` is how many times it runs per micro-batch on one stage (Forward/Backward passes),
 * or per iteration (Iteration pass, e.g. the DP gradient sync).
 */
struct CommOp
{
    Dim dim = Dim::Tp;
    Collective collective = Collective::AllReduce;
    OpPass pass = OpPass::Forward;
    int stage = 0;      ///< pipeline stage this op belongs to
    double bytes = 0.0;
    double count = 0.0;
    std::string what;   ///< "attention all-reduce", "MLP reduce-scatter", ...
    /// Seconds of one run's GEMM this op runs concurrently with (Megatron-LM's asynchronous
    /// backward communication, Transformer Engine's TP overlap): the engine exposes only what
    /// exceeds it. 0 = on the critical path.
    double overlapTime = 0.0;
    /// Hybrid sharding (TrainingSpec::fsdpShard): a DP op that runs over the replica groups
    /// (members i, i + R, i + 2R, ... of each dp-cp group) instead of the shard groups (R
    /// consecutive members); false for every other op.
    bool replicaGroup = false;
    /// A CP op of PyTorch's ring attention (CpAttention::TorchAllGather): each run hides only
    /// behind overlapTime, the SDPA step it is issued beside, and exposes the rest; false (every
    /// other CP op) = Megatron's ring, hidden behind the stage's whole attention core.
    bool stepwise = false;
};

/** Per-stage compute for one micro-batch, seconds, with the FLOPs behind it. */
struct StageCompute
{
    int layers = 0;
    int moeLayers = 0;
    double forwardFlops = 0.0;   ///< per rank
    double backwardFlops = 0.0;  ///< per rank, including recompute
    double forwardTime = 0.0;
    double backwardTime = 0.0;   ///< including recompute
    /// The part of backwardTime that is weight-gradient GEMMs (LayerCompute::weightGrad, plus the
    /// output layer's), what ZB-H1 and DualPipe run as a separate, deferrable W pass.
    double weightGradTime = 0.0;
    double attentionCoreForwardTime = 0.0; ///< what CP ring exchange can overlap with
    double attentionCoreBackwardTime = 0.0;
    double optimizerTime = 0.0;  ///< per iteration: the Adam step over this rank's optimizer shard
    /// Per model chunk (one entry unless interleaved): its layers and its share of forwardTime
    /// and backwardTime (the embedding sits in the first stage's chunk 0, the output layer in
    /// the last stage's last chunk).
    std::vector<int> chunkLayers;
    std::vector<double> chunkForwardTime;
    std::vector<double> chunkBackwardTime;
};

/**
 * Everything the cost engine needs from the workload, derived once per scenario: per-stage
 * compute times, every communication op with its real tensor size, the byte ledger per stage,
 * and the FLOPs for model-FLOPs utilisation. Independent of the fabric and the mapping.
 */
struct WorkloadPlan
{
    int microbatches = 1;              ///< per replica per iteration
    std::vector<StageCompute> stages;  ///< one per pipeline stage
    std::vector<CommOp> ops;           ///< every op, every stage
    std::vector<MemoryLedger> memory;  ///< one per pipeline stage
    double boundaryActivationBytes = 0.0; ///< per sending rank, per micro-batch, per direction
    /// S of the tied word embedding's gradient all-reduce between the first and the last stage
    /// (each pair of ranks with the same tp, dp and cp index, once per iteration after the
    /// flush); 0 when the embedding is untied or pp = 1.
    double tiedEmbeddingBytes = 0.0;
    double modelFlopsPerIteration = 0.0;  ///< whole job, 6*N*tokens-style model FLOPs (no recompute)
    double parametersTotal = 0.0;         ///< whole model
};

/// Layers of every virtual stage in model order (entry c*pp + s = chunk c of stage s): the
/// training spec's layers_per_stage (a per-stage entry split evenly over its chunks), else the
/// even split. Assumes checkWorkload() accepted the spec.
std::vector<int> virtualStageLayers(const ModelSpec &model, const TrainingSpec &training,
                                    const ParallelDegrees &degrees);

/** Throws ScenarioError for inconsistent sizes (layers not divisible by pp*interleave, ...). */
WorkloadPlan planWorkload(const ModelSpec &model, const TrainingSpec &training,
                          const DeviceSpec &device, const ParallelDegrees &degrees);

} // namespace railyard
