/**
 * Megatron-LM arguments reproducing the scenario's layout, training switches and model.
 *
 * Every flag is checked against Megatron-LM's megatron/training/arguments.py at tag
 * core_v0.12.0 (NVIDIA/Megatron-LM, May 2025); the defaults quoted below are that file's.
 * Megatron's defaults build a GPT-2/3-style model (--position-embedding-type learned_absolute,
 * --normalization LayerNorm, biases in every linear layer, GeLU, tied input and output
 * embeddings, dropout 0.1), so a gated-MLP (SwiGLU) scenario - the Llama 2/3 and Mixtral
 * family, as the engine's compute model assumes it - names each difference: rope, RMSNorm,
 * --disable-bias-linear, --swiglu, --untie-embeddings-and-output-weights, no dropout, and the
 * GQA group count. An MoE model runs --moe-token-dispatcher-type alltoall: Megatron's default
 * (allgather) all-gathers every token to every expert rank instead of the all-to-all traffic
 * the engine predicts.
 *
 * Flags as defined there:
 * --tensor-model-parallel-size, --pipeline-model-parallel-size, --context-parallel-size,
 * --expert-model-parallel-size, --num-layers-per-virtual-pipeline-stage, --sequence-parallel,
 * --use-distributed-optimizer, --overlap-grad-reduce, --overlap-param-gather, --micro-batch-size,
 * --global-batch-size, --recompute-granularity/--recompute-method/--recompute-num-layers,
 * --bf16/--fp16/--fp8-format, the model shape flags, --num-experts, --moe-router-topk,
 * --moe-layer-freq and --use-tp-pp-dp-mapping ("distributed ranks initialize order is changed
 * from tp-cp-ep-dp-pp to tp-cp-ep-pp-dp"). Data parallelism is not a flag: Megatron derives
 * dp = world / (tp * pp * cp). Only those two orders exist in Megatron, so any other order is
 * reported as not launchable; a mapping that is not node-major cannot be produced by launcher
 * order plus CUDA_VISIBLE_DEVICES and is reported too.
 */
#include "export/megatronexport.h"

#include "export/exportcommon.h"

#include "cost/pipelineschedule.h"

#include <algorithm>
#include <sstream>

namespace railyard::exportdetail {

namespace {

/// The order's dimensions that have size > 1, missing ones appended in Megatron's default
/// order (ParallelLayout appends size-1 dimensions the same way).
std::vector<std::string> effectiveOrder(const std::string &order, const ParallelDegrees &d)
{
    const auto degree = [&d](const std::string &t) {
        return t == "tp" ? d.tp : t == "pp" ? d.pp : t == "dp" ? d.dp : t == "cp" ? d.cp : d.ep;
    };
    std::vector<std::string> tokens;
    std::stringstream in(order);
    for (std::string t; std::getline(in, t, '-');)
        tokens.push_back(t);
    for (const char *t : { "tp", "cp", "ep", "dp", "pp" })
        if (std::find(tokens.begin(), tokens.end(), t) == tokens.end())
            tokens.emplace_back(t);
    std::vector<std::string> out;
    for (const std::string &t : tokens)
        if (degree(t) > 1)
            out.push_back(t);
    return out;
}

/// 0 = Megatron's default order, 1 = --use-tp-pp-dp-mapping, -1 = neither.
int megatronOrder(const CostEngine &engine)
{
    const ParallelDegrees &d = engine.layout().degrees();
    const auto mine = effectiveOrder(engine.layout().order(), d);
    if (mine == effectiveOrder("tp-cp-ep-dp-pp", d))
        return 0;
    if (mine == effectiveOrder("tp-cp-ep-pp-dp", d))
        return 1;
    return -1;
}

} // namespace

std::vector<std::string> megatronWarnings(const CostEngine &engine)
{
    std::vector<std::string> out;
    if (megatronOrder(engine) < 0)
        out.push_back("order " + engine.layout().order()
            + " is not one Megatron-LM can initialise (tp-cp-ep-dp-pp, or tp-cp-ep-pp-dp "
              "with --use-tp-pp-dp-mapping): its groups would differ from this layout's");
    if (engine.scenario().training.schedule == ScheduleKind::GPipe)
        out.push_back(
            "schedule gpipe has no Megatron-LM flag: Megatron runs 1F1B (or interleaved)");
    // Upstream Megatron-LM's arguments.py has no flag for either: the zero-bubble schedules
    // live in a fork (sail-sg/zero-bubble-pipeline-parallelism, --enable-zero-bubble) and
    // DualPipe in its own repository (deepseek-ai/DualPipe). No schedule flag is written.
    if (const ScheduleKind k = engine.scenario().training.schedule;
        k == ScheduleKind::ZbH1 || k == ScheduleKind::DualPipe)
        out.push_back("schedule " + std::string(scheduleName(k))
            + " has no upstream Megatron-LM flag: these arguments run plain 1F1B (zero-bubble "
              "schedules need the sail-sg/zero-bubble-pipeline-parallelism fork, DualPipe "
              "deepseek-ai/DualPipe), so the timings here do not describe that run");
    const TrainingSpec &t = engine.scenario().training;
    if (t.overlapParamGather && t.distributedOptimizer && !t.dpOverlap)
        out.push_back("overlap_param_gather without overlap_grad_reduce: Megatron-LM refuses "
                      "--overlap-param-gather alone, so the flag is left out");
    if (engine.scenario().training.hierarchicalAllReduce)
        out.push_back(
            "hierarchical_allreduce has no Megatron-LM flag (NCCL chooses its algorithm)");
    return out;
}

std::string exportMegatron(const CostEngine &engine, const ExportOptions &options)
{
    const Scenario &s = engine.scenario();
    const ParallelDegrees &d = engine.layout().degrees();
    const ModelSpec &m = s.model;
    const TrainingSpec &t = s.training;
    const NodeMajor nm = nodeMajor(engine, hostNames(engine, options, false));

    std::string out
        = headerComment(engine, "Megatron-LM arguments (bash arrays; source this file)");
    out += strf("# world size %d: dp = world / (tp * pp * cp) = %d is derived by Megatron.\n",
        engine.layout().worldSize(), d.dp);
    for (const std::string &w : megatronWarnings(engine))
        out += "# WARNING: " + oneLine(w) + "\n";
    if (!nm.expressible) {
        out += "# WARNING: the mapping is not expressible as launcher order + "
               "CUDA_VISIBLE_DEVICES\n"
               "# (Megatron's global rank is the launcher's rank); launch with the rankfile or "
               "slurm\n"
               "# export, which place every rank explicitly:\n";
        for (const std::string &p : nm.problems)
            out += "#   " + oneLine(p) + "\n";
    }

    out += "MEGATRON_PARALLEL_ARGS=(\n";
    out += strf("  --tensor-model-parallel-size %d\n", d.tp);
    out += strf("  --pipeline-model-parallel-size %d\n", d.pp);
    if (d.cp > 1)
        out += strf("  --context-parallel-size %d\n", d.cp);
    if (d.ep > 1)
        out += strf("  --expert-model-parallel-size %d\n", d.ep);
    if (const int chunks = chunksPerRank(t); chunks > 1)
        out += strf("  --num-layers-per-virtual-pipeline-stage %d\n", m.layers / (d.pp * chunks));
    if (t.sequenceParallel && d.tp > 1)
        out += "  --sequence-parallel\n";
    if (megatronOrder(engine) == 1)
        out += "  --use-tp-pp-dp-mapping\n";
    out += ")\n";

    out += "MEGATRON_TRAINING_ARGS=(\n";
    out += strf("  --micro-batch-size %d\n  --global-batch-size %d\n", t.microBatch, t.globalBatch);
    if (t.distributedOptimizer)
        out += "  --use-distributed-optimizer\n";
    if (t.dpOverlap)
        out += "  --overlap-grad-reduce\n";
    if (t.overlapParamGather && t.distributedOptimizer && t.dpOverlap)
        out += "  --overlap-param-gather\n";
    if (t.tpCommOverlap && d.tp > 1 && t.sequenceParallel)
        out += "  --tp-comm-overlap\n";
    switch (t.recompute) {
    case Recompute::None:
        break;
    case Recompute::Selective:
        out += "  --recompute-granularity selective\n";
        break;
    case Recompute::Full:
        out += "  --recompute-granularity full\n  --recompute-method uniform\n"
               "  --recompute-num-layers 1\n";
        break;
    }
    switch (t.precision) {
    case Precision::Bf16:
        out += "  --bf16\n";
        break;
    case Precision::Fp16:
        out += "  --fp16\n";
        break;
    case Precision::Fp8:
        out += "  --bf16\n  --fp8-format hybrid\n";
        if (t.fp8ParamGather)
            out += "  --fp8-param-gather\n";
        break;
    }
    if (t.gradReduceBf16 && t.precision != Precision::Fp16)
        out += "  --grad-reduce-in-bf16\n";
    out += ")\n";

    out += "MEGATRON_MODEL_ARGS=(\n";
    out += strf("  --num-layers %d\n  --hidden-size %d\n  --num-attention-heads %d\n", m.layers,
        m.hidden, m.heads);
    if (m.kvHeads > 0 && m.kvHeads != m.heads)
        out += strf("  --group-query-attention\n  --num-query-groups %d\n", m.kvHeads);
    if (m.headDim > 0 && m.headDim * m.heads != m.hidden)
        out += strf("  --kv-channels %d\n", m.headDim);
    out += strf("  --ffn-hidden-size %d\n", m.ffn);
    if (m.gatedMlp) {
        // The Llama / Mixtral block (Touvron et al. 2023, Jiang et al. 2024): rotary positions,
        // RMSNorm, no biases, SwiGLU, separate output layer, no dropout.
        out += "  --position-embedding-type rope\n  --normalization RMSNorm\n"
               "  --disable-bias-linear\n  --swiglu\n"
               "  --untie-embeddings-and-output-weights\n"
               "  --attention-dropout 0.0\n  --hidden-dropout 0.0\n";
    } else {
        // GPT-3 (Brown et al. 2020): Megatron's defaults, named so the file says what it is.
        out += "  --position-embedding-type learned_absolute\n  --normalization LayerNorm\n";
    }
    out += strf("  --seq-length %d\n  --max-position-embeddings %d\n", m.seq, m.seq);
    if (m.experts > 0)
        out += strf("  --num-experts %d\n  --moe-router-topk %d\n  --moe-layer-freq %d\n"
                    "  --moe-token-dispatcher-type alltoall\n",
            m.experts, m.topK, m.moeLayerFreq);
    out += ")\n";
    out += strf("# vocabulary: %d tokens (set by the tokenizer).%s\n", m.vocab,
        t.flashAttention ? " Fused attention: --use-flash-attn (older Megatron-LM) or"
                           " --attention-backend flash (newer)."
                         : "");
    out += "# usage: torchrun ... pretrain_gpt.py \"${MEGATRON_PARALLEL_ARGS[@]}\" "
           "\"${MEGATRON_TRAINING_ARGS[@]}\" \"${MEGATRON_MODEL_ARGS[@]}\" <data, tokenizer, "
           "optimizer args>\n";
    return out;
}

} // namespace railyard::exportdetail
