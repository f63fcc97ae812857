#include "workload/workloadplan.h"

#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "workload/computemodel.h"
#include "workload/deviceefficiency.h"
#include "workload/elementwise.h"
#include "workload/eprouting.h"
#include "workload/modelparams.h"
#include "workload/ringattention.h"
#include "workload/workloadcheck.h"
#include "workload/workloadnames.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

/**
 * The workload model: per-stage compute (FLOPs and time), every communication op with its real
 * message size, and the per-stage byte ledger, derived from the model shape, the training
 * switches, the device and the parallel degrees. Everything is per rank and per micro-batch
 * unless a name says otherwise. Notation as in the Megatron-LM papers: b micro-batch, s sequence,
 * h hidden, a heads, t = tp, c = cp, L layers, V vocabulary, e = activation bytes per element.
 *
 * Papers cited below:
 *  [Shoeybi19]    Shoeybi et al., "Megatron-LM: Training Multi-Billion Parameter Language Models
 *                 Using Model Parallelism", 2019 (tensor parallelism, the f/g conjugate ops).
 *  [Narayanan21]  Narayanan et al., "Efficient Large-Scale Language Model Training on GPU
 *                 Clusters Using Megatron-LM", SC'21 (Eq. 2 parameters, Eq. 3 FLOPs, §4.1
 *                 scatter/gather of pipeline tensors, Table 1 throughput).
 *  [Korthikanti22] Korthikanti et al., "Reducing Activation Recomputation in Large Transformer
 *                 Models", 2022 (sequence parallelism, selective recompute, activation memory §4).
 *  [ZeRO20]       Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
 *                 Parameter Models", SC'20 (reduce-scatter + all-gather = all-reduce volume).
 *  [Williams09]   Williams, Waterman, Patterson, "Roofline: An Insightful Visual Performance
 *                 Model for Multicore Architectures", CACM 2009.
 *  [NvGemm]       NVIDIA Deep Learning Performance docs, "GPU Performance Background" and
 *                 "Matrix Multiplication Background" (tiles, wave quantization, arithmetic
 *                 intensity).
 *  [Dao23]        Dao, "FlashAttention-2: Faster Attention with Better Parallelism and Work
 *                 Partitioning", 2023 (forward/backward efficiency, backward = 2.5x forward work).
 *  [MegatronDocs] Megatron-LM README, "Distributed Optimizer" (bytes per parameter table) and
 *                 megatron/training/arguments.py (bf16 grads accumulated and reduced in fp32;
 *                 ep > 1 with tp > 1 needs sequence parallelism; vocabulary padding).
 */

namespace railyard {

namespace {

using namespace compute;

/// DeepSpeed ZeRO-3's stage3_max_live_parameters default: at most 1e9 gathered parameters stay
/// resident per GPU (DeepSpeed docs, "DeepSpeed Configuration JSON", ZeRO optimizations).
constexpr double kDeepSpeedMaxLiveParameters = 1e9;

// ---------------------------------------------------------------------------------------------

void addOp(WorkloadPlan &plan, Dim dim, Collective c, OpPass pass, int stage, double bytes,
           double count, std::string what, double overlapTime = 0.0)
{
    if (count <= 0.0 || bytes <= 0.0)
        return;
    plan.ops.push_back({dim, c, pass, stage, bytes, count, std::move(what), overlapTime});
}

/// A CP op of PyTorch's ring (CpAttention::TorchAllGather): each run hides behind `window`
/// seconds of the SDPA it is issued beside, not behind the whole attention core.
void addStepwiseCpOp(WorkloadPlan &plan, OpPass pass, int stage, double bytes, double count,
    std::string what, double window)
{
    if (count <= 0.0 || bytes <= 0.0)
        return;
    addOp(plan, Dim::Cp, Collective::AllGather, pass, stage, bytes, count, std::move(what), window);
    plan.ops.back().stepwise = true;
}

} // namespace

std::vector<int> virtualStageLayers(const ModelSpec &model, const TrainingSpec &training,
                                    const ParallelDegrees &degrees)
{
    const int pp = degrees.pp;
    const int chunks = chunksPerRank(training);
    const auto n = static_cast<std::size_t>(pp) * static_cast<std::size_t>(chunks);
    const std::vector<int> &given = training.layersPerStage;
    if (given.size() == n)
        return given;
    std::vector<int> out(n, 0);
    for (std::size_t k = 0; k < n; ++k) {
        // Virtual stage k is chunk k / pp on stage k % pp: a per-stage entry splits evenly.
        const std::size_t stage = k % static_cast<std::size_t>(pp);
        out[k] = given.size() == static_cast<std::size_t>(pp) ? given[stage] / chunks
                                                               : model.layers / (pp * chunks);
    }
    return out;
}

WorkloadPlan planWorkload(const ModelSpec &model, const TrainingSpec &training,
                          const DeviceSpec &device, const ParallelDegrees &degrees)
{
    checkWorkload(model, training, device, degrees);

    const int tp = degrees.tp;
    const int pp = degrees.pp;
    const int chunks = chunksPerRank(training);
    const bool sp = training.sequenceParallel && tp > 1;
    const int kvHeads = model.kvHeads == 0 ? model.heads : model.kvHeads;

    Shape x;
    x.b = training.microBatch;
    x.s = model.seq;
    x.h = model.hidden;
    x.a = model.heads;
    x.headDim = headDimOf(model);
    x.qDim = model.headDim > 0 ? x.a * x.headDim : 0.0;
    x.kvDim = kvHeads * x.headDim;
    x.ffn = model.ffn;
    x.vocab = paddedVocab(model, tp);
    x.t = tp;
    x.c = degrees.cp;
    x.tokens = x.b * x.s / x.c;
    x.spTokens = sp ? x.tokens / x.t : x.tokens;
    x.e = activationMessageBytes(training.precision);
    x.gated = model.gatedMlp;
    x.gptStyle = !model.gatedMlp;
    x.experts = model.experts;
    x.topK = model.topK;
    x.ep = degrees.ep;
    x.expertLoad = hotLoadFactor(model.routing, model.experts, degrees.ep, model.topK);
    // What the stack fuses of the element-wise kernels (elementwise.cpp); torchtitan's Llama
    // block copies grouped K/V to the query heads before PyTorch's SDPA (repeat_kv).
    x.fusion = fusionOf(training.stack, training.compile.value_or(false));
    x.repeatKv = training.stack == SoftwareStack::Fsdp2;

    Roofline r = deviceRoofline(device, training.precision);
    // The stack's attention kernel (deviceefficiency.cpp): one SDPA call sees s / c queries
    // against as many keys (the local block and each ring step alike).
    useAttentionKernel(r, device, training.precision, attentionKernelOf(training.stack), x.s / x.c);
    // The stack's share of the device's compute rates (deviceefficiency.cpp).
    const double stackFactor = stackComputeFactor(training.stack);
    r.gemmPeak *= stackFactor;
    r.attentionPeak *= stackFactor;
    r.flashForward *= stackFactor;
    r.flashBackward *= stackFactor;

    WorkloadPlan plan;
    plan.microbatches =
        static_cast<int>(training.globalBatch / (std::int64_t{training.microBatch} * degrees.dp));
    plan.stages.assign(pp, {});
    plan.memory.assign(pp, {});

    LayerCompute dense = layerCompute(r, x, false, training.flashAttention);
    LayerCompute moe = model.experts > 0 ? layerCompute(r, x, true, training.flashAttention)
                                         : dense;
    // PyTorch's ring (ringattention.h): one SDPA per K/V shard; the first, the local causal
    // block, is 1/c of the balanced attention and the only one its all-gather hides behind.
    // Its element-wise merges join the attention core.
    const bool torchRing = degrees.cp > 1 && cpAttentionOf(training) == CpAttention::TorchAllGather;
    const double sdpaStepForward = dense.attentionForward.time / x.c;
    const double sdpaStepBackward = dense.attentionBackward.time / x.c;
    if (torchRing) {
        addTorchRingMerges(r, x, dense);
        if (model.experts > 0)
            addTorchRingMerges(r, x, moe);
    }
    if (model.experts > 0 && x.expertLoad > 1.0) {
        // Skewed routing: the layer takes the busiest EP member's time (computemodel.cpp), but
        // model FLOPs (and so MFU) count the balanced, useful work.
        Shape balanced = x;
        balanced.expertLoad = 1.0;
        const LayerCompute even = layerCompute(r, balanced, true, training.flashAttention);
        moe.forward.flops = even.forward.flops;
        moe.backward.flops = even.backward.flops;
    }
    const GemmPair output = outputLayer(r, x);
    const LayerParams denseParams = layerParams(model, false);
    const LayerParams moeParams = layerParams(model, true);
    const double gptExtras = x.gptStyle ? 1.0 : 0.0;

    // Bytes per parameter, Megatron-LM's distributed-optimizer table [MegatronDocs]:
    // bf16 params + fp32 grads: 18 = 2 + 4 + 12, distributed 6 + 12/d (fp32 main params, Adam m
    // and v sharded); fp16 params + fp16 grads: 20 = 2 + 2 + 16, distributed 4 + 16/d (fp32 main
    // params and main grads join the sharded state). fp8 training keeps bf16 parameters (TE's
    // recipe), so it books like bf16. Gradients are reduced in their stored type: Megatron-LM
    // sets accumulate_allreduce_grads_in_fp32 for bf16, so 4 bytes, fp16 reduces in fp16; with
    // --grad-reduce-in-bf16 bf16 gradients stay 2 bytes.
    // Gradients kept and reduced in 16 bits (fp16, or bf16 with grad_reduce_bf16) book like the
    // fp16 row: the optimizer then holds fp32 main gradients in its shard too.
    const bool grads16 = training.precision == Precision::Fp16 || training.gradReduceBf16;
    const double paramBytes = 2.0;
    const double gradBytes = grads16 ? 2.0 : 4.0;
    // fp32 main parameters, Adam m and v: 12 bytes per parameter of the shard. The fp16 row's
    // other 4 (fp32 main gradients) exist only during the optimizer step: Megatron-Core's
    // DistributedOptimizer makes them in _copy_model_grads_to_main_grads
    // (shard_main_param.grad = shard_model_grad.float()) after the backward has freed the
    // activations, and drops them with zero_grad; so they join the peak only when they exceed
    // the activations (MemoryLedger::optimizerStep). With fp32 gradients the main gradients are
    // the gradient buffer itself.
    const double optimizerBytes = 12.0;
    const double optimizerStepBytes = grads16 ? 4.0 : 0.0;
    // PyTorch FSDP's mixed precision (FSDP2 MixedPrecisionPolicy, llm-foundry's FSDP) shards the
    // fp32 parameters themselves: the shard is the optimizer's fp32 master copy, and bf16
    // parameters exist only while a layer is gathered (torch.distributed.fsdp docs,
    // "fully_shard": "the sharded parameters ... in fp32; all-gathered in param_dtype").
    const bool fsdp2 = training.stack == SoftwareStack::Fsdp2;
    const bool deepSpeed = training.stack == SoftwareStack::DeepSpeed;
    // fsdp2's `selective` is torchtitan's op-level selective checkpointing
    // (_apply_ac_to_transformer_block, torchtitan/parallelisms/parallelize_llama.py in Dec 2024,
    // torchtitan/distributed/activation_checkpoint.py since: "Saves output of all compute ops,
    // except every second mm"; a fresh counter per block forward). It saves the
    // attention kernel's output and the odd matmuls of the block's forward (wq, wv, w1, w2 of
    // wq wk wv wo w1 w3 w2) and recomputes the rest: the even ones (wk, wo, w3) and every
    // element-wise operator. Megatron's selective recomputes the attention core instead.
    const bool opSac = fsdp2 && training.recompute == Recompute::Selective;
    const auto opSacRecompute = [&](const LayerCompute &lc) {
        Cost c = lc.elementwiseForward;
        c += gemm(r, x.tokens, x.kvDim / x.t, x.h); // wk
        c += lc.proj.forward; // wo
        if (x.gated)
            c += gemm(r, x.tokens, x.ffn / x.t, x.h); // w3, half of the engine's fused fc1
        return c;
    };
    const Cost opSacDense = opSacRecompute(dense);
    const Cost opSacMoe = opSacRecompute(moe);
    // With full recompute the layer being recomputed holds its whole activations during its
    // own backward (torch.utils.checkpoint and Megatron-LM's CheckpointFunction rerun the
    // forward, then backpropagate through it), once per rank, beside the stored inputs.
    TrainingSpec keepAll = training;
    keepAll.recompute = Recompute::None;
    const bool fp32Shards = training.stack
                            && (*training.stack == SoftwareStack::Fsdp2
                                || *training.stack == SoftwareStack::Composer);
    // The distributed optimizer all-gathers the updated parameters in bf16, or in fp8 with
    // Megatron-LM's --fp8-param-gather (TE fp8 primary weights); gradients keep gradBytes.
    const double gatherBytes =
        training.fp8ParamGather && training.precision == Precision::Fp8 ? 1.0 : paramBytes;
    // Dense gradients sync over the dp x cp group (Megatron's data_parallel_group_with_cp),
    // expert gradients over the expert-data-parallel group dp x cp / ep.
    const double dpGroup = static_cast<double>(degrees.dp) * degrees.cp;
    const double edpGroup = dpGroup / degrees.ep;
    // Hybrid sharding (PyTorch FSDP HYBRID_SHARD, FSDP2 HSDP; torch.distributed.fsdp docs,
    // ShardingStrategy.HYBRID_SHARD: "Apply FULL_SHARD within a node, and replicate parameters
    // across nodes"): the state is sharded over the R ranks of a shard group, 1/R each, not
    // 1/(dp x cp); checkWorkload() refuses it for MoE models, so the expert terms stay as they are.
    const double shardGroup = training.fsdpShard > 0 ? training.fsdpShard : dpGroup;
    const double replicaGroup = dpGroup / shardGroup;
    // ZeRO stages beyond the optimizer [ZeRO20]: OptimGrads also shards the gradients,
    // OptimGradsParams also the parameters. Both then reduce-scatter every micro-batch's
    // gradients (no unsharded buffer accumulates them), and ZeRO-3 all-gathers each layer's
    // parameters for the forward and again for the backward of every micro-batch.
    const bool shardGrads = training.dpSharding != DpSharding::Optim;
    const bool shardParams = training.dpSharding == DpSharding::OptimGradsParams;
    // DeepSpeed's pipeline engine in bf16 runs its BF16_Optimizer, a ZeRO-1 of its own: after
    // the pipeline flush the fp32 gradients are all-reduced whole over the data-parallel group
    // (PipelineEngine._exec_reduce_grads -> _bf16_reduce_grads -> buffered_allreduce_fallback),
    // then each rank updates its shard and all-gathers the bf16 parameters. ZeRO-1 elsewhere
    // (DeepSpeedZeroOptimizer, Megatron's distributed optimizer) reduce-scatters them.
    const bool gradientAllReduce = deepSpeed && pp > 1 && training.precision == Precision::Bf16
        && training.distributedOptimizer && training.dpSharding == DpSharding::Optim;
    const double syncsPerIteration = shardGrads ? plan.microbatches : 1.0;

    const Allowance allowance = memoryAllowance(training.memoryAllowance, degrees, model);

    // Layers of each virtual stage and the first layer of each, in model order.
    const std::vector<int> split = virtualStageLayers(model, training, degrees);
    std::vector<int> firstLayer(split.size(), 0);
    for (std::size_t k = 1; k < split.size(); ++k)
        firstLayer[k] = firstLayer[k - 1] + split[k - 1];
    double modelForwardFlops = 0.0; // one micro-batch, whole replica (times t c below)
    double totalParams = 0.0;

    for (int s = 0; s < pp; ++s) {
        StageCompute &sc = plan.stages[s];
        MemoryLedger &mem = plan.memory[s];
        double denseParamsStage = 0.0;
        double expertParamsStage = 0.0;
        double activations = 0.0;
        double workspace = 0.0;  // MemoryLedger::recomputeWorkspace
        double rootParams = 0.0; // embedding and output layer (FSDP2's root module)
        Cost fwd;
        Cost bwd;
        Cost recompute;
        Cost coreFwd;
        Cost coreBwd;
        Cost weightGrad;
        sc.chunkLayers.assign(chunks, 0);
        sc.chunkForwardTime.assign(chunks, 0.0);
        sc.chunkBackwardTime.assign(chunks, 0.0);
        for (int chunk = 0; chunk < chunks; ++chunk) {
            const auto k = static_cast<std::size_t>(chunk * pp + s);
            const int first = firstLayer[k];
            const double fwdBefore = fwd.time;
            const double bwdBefore = bwd.time + recompute.time;
            sc.chunkLayers[chunk] = split[k];
            for (int layer = first; layer < first + split[k]; ++layer) {
                const bool isMoe = isMoeLayer(model, layer);
                const LayerCompute &lc = isMoe ? moe : dense;
                const LayerParams &lp = isMoe ? moeParams : denseParams;
                ++sc.layers;
                sc.moeLayers += isMoe ? 1 : 0;
                fwd += lc.forward;
                bwd += lc.backward;
                coreFwd += lc.attentionForward;
                coreBwd += lc.attentionBackward;
                weightGrad += lc.weightGrad;
                // Recompute [Korthikanti22] §5: full re-runs the layer's forward before its
                // backward; selective re-runs only the attention core (fsdp2: torchtitan's
                // op-level policy, above).
                if (training.recompute == Recompute::Full)
                    recompute += lc.forward;
                else if (opSac)
                    recompute += isMoe ? opSacMoe : opSacDense;
                else if (training.recompute == Recompute::Selective)
                    recompute += lc.attentionForward;
                denseParamsStage += lp.dense;
                expertParamsStage += lp.expert;
                activations += layerActivationBytes(model, training, x, isMoe);
                if (training.recompute == Recompute::Full)
                    workspace = std::max(workspace, layerActivationBytes(model, keepAll, x, isMoe));
            }
            sc.chunkForwardTime[chunk] = fwd.time - fwdBefore;
            sc.chunkBackwardTime[chunk] = bwd.time + recompute.time - bwdBefore;
        }
        // Stage 0 holds the word embedding (and GPT's learned positions, s h); the last stage
        // the output layer (a copy of the embedding when tied, Megatron-LM keeps one per end),
        // plus the final norm. A single stage holds a tied embedding once.
        if (s == 0) {
            denseParamsStage += x.vocab * x.h + gptExtras * x.s * x.h;
            rootParams += x.vocab * x.h;
            // Embedding lookup and (GPT) dropout: write T_sp h, negligible FLOPs.
            const Cost lookupFwd = streaming(r, 3.0 * kElementwiseBytes * x.spTokens * x.h, 2);
            const Cost lookupBwd = streaming(r, (4.0 + kElementwiseBytes) * x.spTokens * x.h, 2);
            fwd += lookupFwd;
            bwd += lookupBwd;
            sc.chunkForwardTime.front() += lookupFwd.time;
            sc.chunkBackwardTime.front() += lookupBwd.time;
            activations += gptExtras * x.spTokens * x.h; // embedding dropout mask
        }
        if (s == pp - 1) {
            const bool sharedWithInput = pp == 1 && x.gptStyle;
            denseParamsStage += (sharedWithInput ? 0.0 : x.vocab * x.h) + (x.gptStyle ? 2.0 : 1.0) * x.h;
            rootParams += sharedWithInput ? 0.0 : x.vocab * x.h;
            fwd += output.forward;
            bwd += output.backward;
            weightGrad += output.wgrad;
            sc.chunkForwardTime.back() += output.forward.time;
            sc.chunkBackwardTime.back() += output.backward.time;
            // [Korthikanti22] §4.3: final norm input and fp32 logits for the cross entropy,
            // 4 s b h / t (1 + v/h) with SP.
            // FSDP2 (torchtitan): the loss is PyTorch's cross_entropy on the logits cast to fp32,
            // log_softmax then nll_loss; its backward holds the fp32 log-probabilities, the
            // dense nll gradient and the log_softmax gradient at once, 12 bytes per logit, where
            // Megatron's fused vocab-parallel cross entropy reuses its softmax buffer (4).
            const double lossBytes = fsdp2 ? 12.0 : 4.0;
            activations += 4.0 * x.spTokens * x.h + lossBytes * x.tokens * x.vocab / x.t;
        }

        // FLOPs: backward = 2 x forward [Narayanan21]; recompute adds its forward FLOPs.
        sc.forwardFlops = fwd.flops;
        sc.backwardFlops = bwd.flops + recompute.flops;
        sc.forwardTime = fwd.time;
        sc.backwardTime = bwd.time + recompute.time;
        sc.weightGradTime = weightGrad.time;
        sc.attentionCoreForwardTime = coreFwd.time;
        sc.attentionCoreBackwardTime
            = coreBwd.time + (training.recompute != Recompute::None && !opSac ? coreFwd.time : 0.0);
        modelForwardFlops += fwd.flops * x.t * x.c;

        // Ledger: dense parameters split over t, expert parameters over ep x t (expert TP = t).
        const double denseRank = denseParamsStage / x.t;
        const double expertRank = expertParamsStage / (x.ep * x.t);
        const double dDense = training.distributedOptimizer ? shardGroup : 1.0;
        const double dExpert = training.distributedOptimizer ? edpGroup : 1.0;
        const double shardedRank = denseRank / dDense + expertRank / dExpert;
        // ZeRO-3 keeps only its shard, plus the gathered parameters of the layer being computed
        // and of the next one, prefetched (DeepSpeed's and FSDP's default of one layer ahead).
        // FSDP2 gathers the root module (embedding, output layer) for the whole step (the root
        // is not resharded after forward), beside the two transformer layers.
        const double rootRank = rootParams / x.t;
        // DeepSpeed ZeRO-3 gathers parameter by parameter (submodule hooks) and keeps at most
        // stage3_max_live_parameters (default 1e9, DeepSpeed's config docs) resident, but never
        // less than the largest single weight it must gather.
        const double largestWeight =
            std::max({x.h * (attentionWidth(x) + 2.0 * x.kvDim), attentionWidth(x) * x.h,
                      x.h * x.ffn * (x.gated ? 2.0 : 1.0), x.ffn * x.h,
                      (s == 0 || s == pp - 1) ? x.vocab * x.h : 0.0})
            / x.t;
        const double gathered = deepSpeed
            ? std::min(denseRank + expertRank, std::max(kDeepSpeedMaxLiveParameters, largestWeight))
            : fsdp2 ? rootRank
                        + std::min(2.0, static_cast<double>(sc.layers))
                              * (denseRank + expertRank - rootRank) / std::max(1, sc.layers)
                  : std::min(2.0, static_cast<double>(sc.layers)) * (denseRank + expertRank)
                        / std::max(1, sc.layers);
        mem.parameters = shardParams
                             ? ((fp32Shards ? 0.0 : shardedRank) + gathered) * paramBytes
                             : (denseRank + expertRank) * paramBytes;
        mem.gradients = (shardGrads ? shardedRank : denseRank + expertRank) * gradBytes;
        mem.optimizer = shardedRank * optimizerBytes;
        mem.optimizerStep = shardedRank * optimizerStepBytes;
        mem.activationsPerMicrobatch = activations;
        mem.activations = 0.0;
        mem.recomputeWorkspace = workspace;
        mem.cudaContext = allowance.cudaContext;
        mem.nccl = allowance.nccl;
        mem.fragmentationShare = allowance.fragmentationShare;
        // The Adam update, memory-bound, plus the stack's fixed host time per step
        // (deviceefficiency.cpp, stackStepSeconds), which the step's end waits for.
        sc.optimizerTime
            = (denseRank / dDense + expertRank / dExpert) * kAdamBytesPerParameter / r.hbm
            + r.overhead + stackStepSeconds(training.stack);
        totalParams += denseParamsStage + expertParamsStage;

        // ---- Communication ops of this stage.
        const double actBytes = x.tokens * x.h * x.e; // b s h e / c, the TP message S
        const double layers = sc.layers;
        const double moeLayers = sc.moeLayers;
        const double denseLayers = layers - moeLayers;
        const double recomputeAll = training.recompute == Recompute::Full ? 1.0 : 0.0;
        if (tp > 1) {
            // [Shoeybi19] f/g: forward one all-reduce after attention and one after the MLP;
            // backward the conjugate all-reduces. With SP [Korthikanti22] §4.2.2 each becomes an
            // all-gather before and a reduce-scatter after the block, same S = b s h e / c;
            // backward swaps them, and the column-parallel linear (QKV, fc1) gathers its
            // sequence-sharded input once more for its weight gradient (SP keeps only the shard,
            // §4.2.2). Full recompute repeats the forward's comm in the backward.
            // MoE layers: Megatron-Core's alltoall dispatcher all-gathers the routed tokens over
            // the expert-TP group after the EP all-to-all and reduce-scatters them before the
            // combine, S = b s topK h e / c.
            // Without SP (possible for MoE only with ep = 1) the expert block all-reduces its
            // row-parallel output like a dense MLP.
            //
            // What each op runs beside (CommOp::overlapTime, one run):
            //  - always, a column-parallel linear's backward: the input re-gather starts
            //    asynchronously before the input-gradient GEMM and the input gradient's
            //    reduce-scatter (all-reduce without SP) before the weight-gradient GEMM
            //    (Megatron-LM megatron/core/tensor_parallel/layers.py,
            //    LinearWithGradAccumulationAndAsyncCommunication.backward);
            //  - with tp_comm_overlap, Transformer Engine's userbuffers overlap (NeMo/Megatron
            //    "Communication Overlap" guide: TP all-gather and reduce-scatter pipelined with the
            //    GEMM that consumes or produces them): the forward all-gather with the
            //    column-parallel GEMM, the forward reduce-scatter with the row-parallel GEMM, the
            //    backward output-gradient all-gather with the row-parallel input-gradient GEMM;
            //  - nothing else: the expert blocks, the embedding and the cross entropy.
            struct Block
            {
                const char *name;
                double count;
                double bytes;
                const GemmPair *column; ///< null: nothing to overlap with (expert block)
                const GemmPair *row;
            };
            const std::array<Block, 3> blocks{
                {{"attention", layers, actBytes, &dense.qkv, &dense.proj},
                 {"MLP", denseLayers, actBytes, &dense.fc1, &dense.fc2},
                 {"expert", moeLayers, sp ? actBytes * x.topK : actBytes, nullptr, nullptr}}};
            const bool te = training.tpCommOverlap && sp;
            for (const Block &blk : blocks) {
                const std::string n = blk.name;
                const auto with = [&blk](Cost GemmPair::*part, bool column, bool when) {
                    const GemmPair *g = column ? blk.column : blk.row;
                    return g && when ? (g->*part).time : 0.0;
                };
                if (sp) {
                    addOp(plan, Dim::Tp, Collective::AllGather, OpPass::Forward, s, blk.bytes,
                          blk.count, n + " all-gather", with(&GemmPair::forward, true, te));
                    addOp(plan, Dim::Tp, Collective::ReduceScatter, OpPass::Forward, s,
                          blk.bytes, blk.count, n + " reduce-scatter",
                          with(&GemmPair::forward, false, te));
                    addOp(plan, Dim::Tp, Collective::AllGather, OpPass::Backward, s, blk.bytes,
                          blk.count, n + " all-gather (backward)",
                          with(&GemmPair::dgrad, false, te));
                    addOp(plan, Dim::Tp, Collective::ReduceScatter, OpPass::Backward, s,
                          blk.bytes, blk.count, n + " reduce-scatter (backward)",
                          with(&GemmPair::wgrad, true, true));
                    if (blk.column)
                        addOp(plan, Dim::Tp, Collective::AllGather, OpPass::Backward, s,
                              blk.bytes, blk.count, n + " all-gather (backward re-gather)",
                              with(&GemmPair::dgrad, true, true));
                    if (recomputeAll > 0) {
                        addOp(plan, Dim::Tp, Collective::AllGather, OpPass::Backward, s,
                              blk.bytes, blk.count, n + " all-gather (recompute)",
                              with(&GemmPair::forward, true, te));
                        addOp(plan, Dim::Tp, Collective::ReduceScatter, OpPass::Backward, s,
                              blk.bytes, blk.count, n + " reduce-scatter (recompute)",
                              with(&GemmPair::forward, false, te));
                    }
                } else {
                    addOp(plan, Dim::Tp, Collective::AllReduce, OpPass::Forward, s, blk.bytes,
                          blk.count, n + " all-reduce");
                    addOp(plan, Dim::Tp, Collective::AllReduce, OpPass::Backward, s, blk.bytes,
                          blk.count, n + " all-reduce (backward)",
                          with(&GemmPair::wgrad, true, true));
                    if (recomputeAll > 0)
                        addOp(plan, Dim::Tp, Collective::AllReduce, OpPass::Backward, s,
                              blk.bytes, blk.count, n + " all-reduce (recompute)");
                }
            }
            // Vocab-parallel embedding: all-reduce (reduce-scatter with SP) of its output; the
            // output layer all-gathers the SP-sharded input (its backward reduce-scatters), or
            // all-reduces the input gradient without SP; the vocab-parallel cross entropy
            // all-reduces three fp32 values per token (max, target logit, sum of exps).
            if (s == 0) {
                addOp(plan, Dim::Tp, sp ? Collective::ReduceScatter : Collective::AllReduce,
                      OpPass::Forward, s, actBytes, 1, "embedding output");
                if (sp)
                    addOp(plan, Dim::Tp, Collective::AllGather, OpPass::Backward, s, actBytes, 1,
                          "embedding gradient");
            }
            if (s == pp - 1) {
                // The output layer is a column-parallel linear: its backward overlaps as above.
                if (sp) {
                    addOp(plan, Dim::Tp, Collective::AllGather, OpPass::Forward, s, actBytes, 1,
                          "output-layer all-gather");
                    addOp(plan, Dim::Tp, Collective::ReduceScatter, OpPass::Backward, s,
                          actBytes, 1, "output-layer reduce-scatter", output.wgrad.time);
                    addOp(plan, Dim::Tp, Collective::AllGather, OpPass::Backward, s, actBytes, 1,
                          "output-layer all-gather (backward re-gather)", output.dgrad.time);
                } else {
                    addOp(plan, Dim::Tp, Collective::AllReduce, OpPass::Backward, s, actBytes, 1,
                          "output-layer input-gradient all-reduce", output.wgrad.time);
                }
                addOp(plan, Dim::Tp, Collective::AllReduce, OpPass::Forward, s, x.tokens * 4.0,
                      3, "cross-entropy all-reduce");
            }
        }
        if (torchRing) {
            // PyTorch's ring (ringattention.h), per layer: the K/V all-gather, S = c x 4U,
            // beside the first SDPA step of the forward, of its recompute, and of the backward;
            // the fp32 dK/dV passed on each of the c steps (one ring step of an all-gather of
            // S = c x 8U is one pass): c - 1 beside the next step's backward, the last waited.
            const TorchRingAttention ring = torchRingAttention(r, x);
            const double ringSize = x.c;
            // Full recompute re-runs the ring; torchtitan's op-level selective policy saves the
            // SDPA output (opSac above), so its backward has no second forward ring.
            const double again = training.recompute == Recompute::Full
                    || (training.recompute == Recompute::Selective && !opSac)
                ? 1.0
                : 0.0;
            addStepwiseCpOp(plan, OpPass::Forward, s, ringSize * ring.kvBytes, layers,
                "K/V all-gather", sdpaStepForward);
            addStepwiseCpOp(plan, OpPass::Backward, s, ringSize * ring.kvBytes, layers * again,
                "K/V all-gather (recompute)", sdpaStepForward);
            addStepwiseCpOp(plan, OpPass::Backward, s, ringSize * ring.kvBytes, layers,
                "K/V all-gather (backward)", sdpaStepBackward);
            addStepwiseCpOp(plan, OpPass::Backward, s, ringSize * ring.dkvBytes, layers,
                "dK/dV ring (fp32)", (ringSize - 1.0) * sdpaStepBackward);
            addStepwiseCpOp(plan, OpPass::Backward, s, ringSize * ring.dkvBytes,
                layers / (ringSize - 1.0), "dK/dV last pass (fp32)", 0.0);
        } else if (degrees.cp > 1) {
            // Ring attention (Megatron-LM context parallelism): every layer passes K and V
            // around the CP ring, c - 1 steps of 2 b (s/c) kvDim e / t, modelled as an
            // all-gather of S = 2 b s kvDim e / t; backward also returns dK and dV (2x);
            // recompute (selective or full) re-runs the ring with the attention core.
            const double kvBytes = 2.0 * x.b * x.s * x.kvDim * x.e / x.t;
            const double again = training.recompute != Recompute::None ? 1.0 : 0.0;
            addOp(plan, Dim::Cp, Collective::AllGather, OpPass::Forward, s, kvBytes, layers,
                  "K/V ring exchange");
            addOp(plan, Dim::Cp, Collective::AllGather, OpPass::Backward, s, kvBytes,
                  layers * (2.0 + again), "K/V + dK/dV ring exchange");
        }
        if (degrees.ep > 1 && moeLayers > 0) {
            // Token dispatch and combine all-to-alls per MoE layer, each rank sending its
            // T_sp topK routed tokens (T_sp = b s / (c t) with SP: Megatron-Core dispatches the
            // sequence-parallel shard), S = T_sp topK h e; backward the same two.
            const double a2a = x.spTokens * x.topK * x.h * x.e;
            addOp(plan, Dim::Ep, Collective::AllToAll, OpPass::Forward, s, a2a, 2.0 * moeLayers,
                  "token dispatch + combine all-to-all");
            addOp(plan, Dim::Ep, Collective::AllToAll, OpPass::Backward, s, a2a,
                  2.0 * moeLayers * (1.0 + recomputeAll),
                  "token dispatch + combine all-to-all (backward"
                      + std::string(recomputeAll > 0 ? " + recompute)" : ")"));
        }
        // Gradient sync per iteration [ZeRO20]: all-reduce of the gradients, or with the
        // distributed optimizer a reduce-scatter of the gradients then an all-gather of the
        // updated bf16 parameters (same 2 Psi volume).
        struct Sync
        {
            const char *name;
            double params;
            double group;
        };
        const std::array<Sync, 2> syncs{{{"dense", denseRank, dpGroup},
                                         {"expert", expertRank, edpGroup}}};
        for (const Sync &sync : syncs) {
            if (sync.group <= 1.0 || sync.params <= 0.0)
                continue;
            const bool hybrid = sync.group == dpGroup && replicaGroup > 1.0;
            const std::string n = sync.name;
            // The engine sizes the DP sync from these ops' bytes (one run each per iteration),
            // so per-micro-batch exchanges are folded into the bytes.
            if (training.distributedOptimizer) {
                if (gradientAllReduce)
                    addOp(plan, Dim::Dp, Collective::AllReduce, OpPass::Iteration, s,
                        sync.params * gradBytes, 1, n + " gradient all-reduce (BF16_Optimizer)");
                else
                    addOp(plan, Dim::Dp, Collective::ReduceScatter, OpPass::Iteration, s,
                        sync.params * gradBytes * syncsPerIteration, 1,
                        n
                            + (shardGrads ? " gradient reduce-scatter (every micro-batch)"
                                          : " gradient reduce-scatter"));
                const double gathers = shardParams ? 2.0 * plan.microbatches : 1.0;
                addOp(plan, Dim::Dp, Collective::AllGather, OpPass::Iteration, s,
                      sync.params * gatherBytes * gathers, 1,
                      n + (shardParams ? " parameter all-gather (forward + backward, every "
                                         "micro-batch)"
                                       : " parameter all-gather"));
                // HSDP: the reduce-scatter and the all-gathers above run in the shard group; each
                // rank's reduced shard (1/R of the gradients) is then all-reduced over its
                // replica group, once per iteration (torch.distributed.fsdp.fully_shard docs,
                // `mesh`: a 2-D mesh shards parameters across its inner dimension and replicates
                // them across the outer one; FSDP1's HYBRID_SHARD likewise).
                if (hybrid) {
                    addOp(plan, Dim::Dp, Collective::AllReduce, OpPass::Iteration, s,
                        sync.params / shardGroup * gradBytes, 1,
                        n + " gradient shard all-reduce (replica groups)");
                    plan.ops.back().replicaGroup = true;
                }
            } else {
                addOp(plan, Dim::Dp, Collective::AllReduce, OpPass::Iteration, s,
                      sync.params * gradBytes, 1, n + " gradient all-reduce");
            }
        }
        // Tied embeddings across a pipeline: the first stage's word embedding and the last
        // stage's output layer are one weight, whose gradient the two stages all-reduce once per
        // iteration after the flush, each pair of ranks with the same tp, dp and cp index
        // (Megatron-LM's finalize_model_grads, _allreduce_word_embedding_grads, in the main
        // gradients' type; DeepSpeed's PipelineEngine._exec_reduce_tied_grads, on the
        // BF16_Optimizer's fp32 copy): gradBytes per element of the TP shard.
        if (pp > 1 && x.gptStyle && (s == 0 || s == pp - 1)) {
            plan.tiedEmbeddingBytes = x.vocab * x.h / x.t * gradBytes;
            addOp(plan, Dim::Pp, Collective::AllReduce, OpPass::Iteration, s,
                plan.tiedEmbeddingBytes, 1, "tied embedding gradient all-reduce");
        }
    }

    // DualPipe: rank r holds pipeline stage r of one direction and stage p-1-r of the other
    // (DeepSeek-V3 Technical Report §3.2.1 and Table 2, "Parameter 2x"), so it keeps both
    // stages' parameters, gradients and optimizer state and runs the optimizer step over both.
    // Its stashed micro-batches come from both directions: each counts the mean of the two
    // stages' activations.
    if (training.schedule == ScheduleKind::DualPipe) {
        const std::vector<MemoryLedger> single = plan.memory;
        const std::vector<StageCompute> stages = plan.stages;
        for (int s = 0; s < pp; ++s) {
            const MemoryLedger &own = single[s];
            const MemoryLedger &mirror = single[pp - 1 - s];
            MemoryLedger &mem = plan.memory[s];
            mem.parameters = own.parameters + mirror.parameters;
            mem.gradients = own.gradients + mirror.gradients;
            mem.optimizer = own.optimizer + mirror.optimizer;
            mem.optimizerStep = own.optimizerStep + mirror.optimizerStep;
            mem.recomputeWorkspace = std::max(own.recomputeWorkspace, mirror.recomputeWorkspace);
            mem.activationsPerMicrobatch =
                0.5 * (own.activationsPerMicrobatch + mirror.activationsPerMicrobatch);
            // Both stages' Adam updates; the stack's host time per step once.
            plan.stages[s].optimizerTime = stages[s].optimizerTime
                + stages[pp - 1 - s].optimizerTime - stackStepSeconds(training.stack);
        }
    }

    // PP boundary: the b s h e / c activation; with SP each rank already holds a 1/t sequence
    // shard, and without SP Megatron's scatter/gather sends 1/t per rank and all-gathers it on
    // NVLink at the receiver ([Narayanan21] §4.1); otherwise every TP rank sends the full tensor.
    if (pp > 1) {
        const double full = x.tokens * x.h * x.e;
        plan.boundaryActivationBytes = (sp || (tp > 1 && training.pipelineScatterGather))
                                           ? full / x.t
                                           : full;
    }

    // Model FLOPs (no recompute): forward + 2x backward over every micro-batch and replica;
    // the whole-model forward is the stages' per-rank forward times t c.
    plan.modelFlopsPerIteration = 3.0 * modelForwardFlops * plan.microbatches * degrees.dp;
    // Unique parameters: a tied embedding held by two stages counts once.
    plan.parametersTotal = totalParams - ((pp > 1 && x.gptStyle) ? x.vocab * x.h : 0.0);
    return plan;
}

} // namespace railyard
