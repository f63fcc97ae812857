/**
 * The consistency rules of a workload, checked before planWorkload() sizes anything: ranges of
 * every degree and model dimension, Megatron-LM's divisibility rules (megatron/training/
 * arguments.py: layers over pp and the virtual stages, heads and the MLP over tp, the global
 * batch over micro-batch x dp, experts over ep, sequence parallelism for ep with tp), and a
 * device that can run the chosen precision.
 */
#include "workload/workloadcheck.h"

#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "workload/workloadnames.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace railyard {

namespace {

[[noreturn]] void fail(const std::string &field, const std::string &reason)
{
    throw ScenarioError(field, reason);
}

std::string str(std::int64_t v) { return std::to_string(v); }

void checkRange(const std::string &field, std::int64_t value, std::int64_t lo, std::int64_t hi)
{
    if (value < lo)
        fail(field, "must be at least " + str(lo) + ", got " + str(value));
    if (value > hi)
        fail(field, "must be at most " + str(hi) + ", got " + str(value));
}

void checkPositive(const std::string &field, double value)
{
    if (!(value > 0.0) || !std::isfinite(value))
        fail(field, "must be a positive number, got " + std::to_string(value));
}

} // namespace

void checkWorkload(const ModelSpec &m, const TrainingSpec &tr, const DeviceSpec &dev,
                   const ParallelDegrees &d)
{
    const std::int64_t maxDegree = limits::kMaxDegree;
    checkRange("parallel.tp", d.tp, 1, maxDegree);
    checkRange("parallel.pp", d.pp, 1, maxDegree);
    checkRange("parallel.dp", d.dp, 1, maxDegree);
    checkRange("parallel.cp", d.cp, 1, maxDegree);
    checkRange("parallel.ep", d.ep, 1, maxDegree);
    checkRange("model.layers", m.layers, 1, limits::kMaxLayers);
    checkRange("model.hidden", m.hidden, 1, std::int64_t{1} << 20);
    checkRange("model.heads", m.heads, 1, m.hidden);
    checkRange("model.kv_heads", m.kvHeads, 0, m.heads);
    checkRange("model.ffn", m.ffn, 1, std::int64_t{1} << 22);
    checkRange("model.seq", m.seq, 1, std::int64_t{1} << 24);
    checkRange("model.vocab", m.vocab, 1, std::int64_t{1} << 24);
    checkRange("model.experts", m.experts, 0, 1 << 16);
    checkRange("model.moe_layer_freq", m.moeLayerFreq, 1, limits::kMaxLayers);
    checkRange("training.micro_batch", tr.microBatch, 1, std::int64_t{1} << 20);
    checkRange("training.global_batch", tr.globalBatch, 1, std::int64_t{1} << 30);
    checkRange("training.interleave", tr.interleave, 1, limits::kMaxLayers);

    checkRange("model.head_dim", m.headDim, 0, std::int64_t{1} << 16);
    if (m.headDim == 0 && m.hidden % m.heads != 0)
        fail("model.hidden", "hidden size " + str(m.hidden) + " is not a multiple of the "
                                 + str(m.heads) + " attention heads (set model.head_dim)");
    const int kv = m.kvHeads == 0 ? m.heads : m.kvHeads;
    if (m.heads % kv != 0)
        fail("model.kv_heads", str(m.heads) + " attention heads do not form equal groups over "
                                   + str(kv) + " key/value heads");
    if (m.experts > 0) {
        if (m.topK < 1 || m.topK > m.experts)
            fail("model.top_k", "an MoE model routes each token to 1.." + str(m.experts)
                                    + " experts, got top_k " + str(m.topK));
    }
    checkRouting(m.routing, m.experts, "model.routing"); // model/workload/eprouting.h

    // Pipeline split: equal layers per stage (per model chunk when interleaved), Megatron-LM's
    // rule (num_layers % pipeline_model_parallel_size, and % virtual size when interleaved),
    // unless layers_per_stage gives the split (Megatron-LM's uneven first/last stages,
    // --decoder-first/last-pipeline-num-layers, or a custom --pipeline-model-parallel-layout).
    const int chunks = chunksPerRank(tr);
    if (chunks > 1 && d.pp < 2)
        fail("training.interleave", "the interleaved schedule needs pp >= 2, got pp "
                                        + str(d.pp));
    if (!tr.layersPerStage.empty()) {
        const std::string field = "training.layers_per_stage";
        const auto n = static_cast<std::int64_t>(tr.layersPerStage.size());
        const std::int64_t virtualStages = std::int64_t{d.pp} * chunks;
        if (n != d.pp && n != virtualStages)
            fail(field, "has " + str(n) + " entries but pp is " + str(d.pp)
                            + (chunks > 1 ? " (give pp entries, or pp x interleave = "
                                                + str(virtualStages) + " for uneven model chunks)"
                                          : ""));
        std::int64_t sum = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            const int layers = tr.layersPerStage[static_cast<std::size_t>(i)];
            const std::string at = field + "[" + str(i) + "]";
            if (layers < 1)
                fail(at, "a stage needs at least 1 layer, got " + str(layers));
            if (n == d.pp && chunks > 1 && layers % chunks != 0)
                fail(at, str(layers) + " layers do not split evenly into interleave "
                             + str(chunks) + " model chunks (give pp x interleave = "
                             + str(virtualStages) + " entries for uneven chunks)");
            sum += layers;
        }
        if (sum != m.layers)
            fail(field, "the entries sum to " + str(sum) + " layers but model.layers is "
                            + str(m.layers));
    } else if (m.layers % (std::int64_t{d.pp} * chunks) != 0) {
        if (chunks > 1)
            fail("model.layers", str(m.layers) + " layers do not split evenly into pp "
                                     + str(d.pp) + " x interleave " + str(chunks)
                                     + " model chunks (training.layers_per_stage gives an "
                                       "uneven split)");
        fail("model.layers", str(m.layers) + " layers do not split evenly over pp " + str(d.pp)
                                 + " pipeline stages (training.layers_per_stage gives an uneven "
                                   "split)");
    }

    // Tensor parallelism splits heads, key/value groups and the MLP columns: Megatron-Core
    // divides num_attention_heads, num_query_groups and ffn_hidden_size by tp (divide() asserts).
    if (m.heads % d.tp != 0)
        fail("model.heads", str(m.heads) + " attention heads do not split over tp " + str(d.tp));
    if (kv % d.tp != 0)
        fail("model.kv_heads", str(kv) + " key/value heads do not split over tp " + str(d.tp)
                                   + " (Megatron-LM needs num_query_groups % tp == 0)");
    if (m.ffn % d.tp != 0)
        fail("model.ffn", "MLP size " + str(m.ffn) + " does not split over tp " + str(d.tp));

    // Context parallelism: Megatron's load-balanced causal split gives every CP rank two chunks
    // of s/(2c) tokens, so s % (2c) == 0.
    if (d.cp > 1 && m.seq % (2 * d.cp) != 0)
        fail("model.seq", "sequence " + str(m.seq) + " does not split into 2 x cp "
                              + str(d.cp) + " equal chunks (load-balanced context parallelism)");

    // Expert parallelism.
    if (d.ep > 1 && m.experts == 0)
        fail("parallel.ep", "ep " + str(d.ep) + " needs an MoE model (model.experts > 0)");
    if (m.experts > 0 && m.experts % d.ep != 0)
        fail("parallel.ep", str(m.experts) + " experts do not split over ep " + str(d.ep));
    if ((std::int64_t{d.dp} * d.cp) % d.ep != 0)
        fail("parallel.ep", "ep " + str(d.ep) + " must divide dp x cp = "
                                + str(std::int64_t{d.dp} * d.cp));
    if (m.experts > 0 && d.ep > 1 && d.tp > 1 && !tr.sequenceParallel)
        fail("training.sequence_parallel",
             "Megatron-LM needs sequence parallelism when expert and tensor parallelism are "
             "combined (ep " + str(d.ep) + ", tp " + str(d.tp) + ")");

    // Batch: micro-batches per replica = global / (micro * dp); cp does not multiply the batch.
    const std::int64_t perStep = std::int64_t{tr.microBatch} * d.dp;
    if (tr.globalBatch % perStep != 0)
        fail("training.global_batch", "global batch " + str(tr.globalBatch)
                                          + " is not a multiple of micro_batch x dp = "
                                          + str(perStep));
    if (tr.globalBatch / perStep > limits::kMaxMicrobatches)
        fail("training.global_batch", str(tr.globalBatch / perStep)
                                          + " micro-batches per replica exceed the limit "
                                          + str(limits::kMaxMicrobatches));

    // Data-parallel sharding and fp8 parameter gathers build on the distributed optimizer
    // (Megatron-LM: --fp8-param-gather needs --use-distributed-optimizer or FSDP).
    if (tr.dpSharding != DpSharding::Optim && !tr.distributedOptimizer)
        fail("training.dp_sharding", "\"" + std::string(dpShardingName(tr.dpSharding))
                                         + "\" shards beyond the optimizer state and needs "
                                           "distributed_optimizer true");
    // Hybrid sharding (HSDP) splits the dp-cp group into shard groups of R consecutive members.
    if (tr.fsdpShard > 0) {
        const std::int64_t dpcp = std::int64_t { d.dp } * d.cp;
        const std::string mode = "\"" + fsdpModeName(tr.fsdpShard) + "\"";
        if (!tr.distributedOptimizer)
            fail("training.fsdp",
                mode
                    + " shards the training state and needs "
                      "distributed_optimizer true");
        if (dpcp % tr.fsdpShard != 0)
            fail("training.fsdp",
                mode + ": R = " + str(tr.fsdpShard) + " must divide dp x cp = " + str(dpcp));
        // Not modelled: the expert state's own (edp) groups would need shard groups of theirs.
        if (m.experts > 0)
            fail("training.fsdp",
                mode + " is modelled for dense models only (model.experts = " + str(m.experts)
                    + "); give \"full\"");
    }
    if (tr.fsdpPrefetch && tr.dpSharding != DpSharding::OptimGradsParams)
        fail("training.fsdp_prefetch",
            "prefetches the per-layer parameter all-gathers of dp_sharding "
            "\"optim_grads_params\" (ZeRO-3 / FSDP full shard), got \""
                + std::string(dpShardingName(tr.dpSharding)) + "\"");
    // torch.compile is a PyTorch-native stack's switch; Megatron-based stacks (and a file
    // without a stack, the device's calibrated Megatron-Core) fuse their own kernels.
    if (tr.compile && *tr.compile
        && !(tr.stack == SoftwareStack::Fsdp2 || tr.stack == SoftwareStack::Composer))
        fail("training.compile",
            "torch.compile is modelled for the PyTorch-native stacks (fsdp2, composer), got "
                + (tr.stack ? "stack \"" + std::string(stackName(*tr.stack)) + "\""
                            : std::string("no training.stack")));
    if (tr.fp8ParamGather && tr.precision != Precision::Fp8)
        fail("training.fp8_param_gather", "gathers fp8 parameters and needs precision fp8, got "
                                              + std::string(precisionName(tr.precision)));
    if (tr.fp8ParamGather && !tr.distributedOptimizer)
        fail("training.fp8_param_gather", "is the distributed optimizer's parameter all-gather "
                                          "and needs distributed_optimizer true");
    if (tr.gradReduceBf16 && tr.precision == Precision::Fp16)
        fail("training.grad_reduce_bf16", "applies to bf16 and fp8 runs; fp16 gradients are "
                                          "reduced in fp16 already");
    const MemoryAllowanceSpec &mem = tr.memoryAllowance;
    const auto checkBytes = [](const char *field, const std::optional<double> &v) {
        if (v && !(*v >= 0.0 && std::isfinite(*v)))
            fail(field, "must be zero or positive, got " + std::to_string(*v));
    };
    checkBytes("training.memory_allowance.cuda_context_gb", mem.cudaContextBytes);
    checkBytes("training.memory_allowance.nccl_gb", mem.ncclBytes);
    if (mem.fragmentation && !(*mem.fragmentation >= 0.0 && *mem.fragmentation < 1.0))
        fail("training.memory_allowance.fragmentation",
             "is a share of the ledger in 0..1, got " + std::to_string(*mem.fragmentation));

    // Device.
    checkPositive(std::string("device.peak_tflops_") + std::string(precisionName(tr.precision)),
                  peakTflops(dev, tr.precision));
    checkPositive("device.peak_tflops_bf16", dev.peakTflopsBf16);
    checkPositive("device.hbm_gbps", dev.hbmGBps);
    checkPositive("device.hbm_gb", dev.hbmBytes);
    checkRange("device.streaming_multiprocessors", dev.streamingMultiprocessors, 1, 1 << 16);
    if (!(dev.maxEfficiency >= 0.0 && dev.maxEfficiency <= 1.0))
        fail("device.max_efficiency", "must lie in 0..1, got "
                                          + std::to_string(dev.maxEfficiency));
    if (!(dev.maxEfficiencyFp8 >= 0.0 && dev.maxEfficiencyFp8 <= 1.0))
        fail("device.max_efficiency_fp8", "must lie in 0..1, got "
                                              + std::to_string(dev.maxEfficiencyFp8));
    if (!(dev.kernelOverheadUs >= 0.0) || !std::isfinite(dev.kernelOverheadUs))
        fail("device.kernel_overhead_us", "must be zero or positive, got "
                                              + std::to_string(dev.kernelOverheadUs));
}

} // namespace railyard
