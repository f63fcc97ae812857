#include "publishedruns.h"

#include "workload/presets.h"
#include "workload/workloadnames.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <stdexcept>

/**
 * From a published run to a Scenario. The source gives the model, the degrees, the batch and
 * the precision; the rest follows the software the run used, by these rules (each one that
 * fires is recorded in PublishedRun::assumptions):
 *
 *  - Fabric: rail-optimised, one NIC per GPU at the run's `nic_gbps`, else the reference system
 *    of its GPU: DGX A100 200 Gb/s HDR, DGX H100 / DGX B200 / GB200 400 Gb/s ConnectX-7,
 *    GB300 800 Gb/s ConnectX-8 (deviceFabricDefaults(), workload/presets.cpp). Switch-to-switch
 *    ports run at the NIC speed, non-blocking. A GB200/GB300 NVL72 rack is one NVLink domain of
 *    72 GPUs, so it is modelled as one 72-GPU scale-up "server" (NVIDIA GB200 NVL72 spec: 72
 *    GPUs on one NVLink 5 switch system, 1.8 TB/s per GPU).
 *  - 2021-22 Megatron-LM on A100 (Narayanan et al. SC'21, Korthikanti et al. 2022): fp16, plain
 *    data parallelism without overlap, Megatron's fused softmax instead of FlashAttention.
 *  - NeMo / Megatron-Bridge / MLPerf on H100 and later: FlashAttention (TE fused attention),
 *    the distributed optimizer with overlapped gradient reduce-scatter, sequence parallelism
 *    whenever tp > 1, no recompute, unless the run states otherwise. Megatron-Bridge's recipes
 *    set all of these by default (sequence_parallel = tp > 1, use_distributed_optimizer,
 *    overlap_grad_reduce, overlap_param_gather), and their performance recipes for tp > 1
 *    Transformer Engine's TP communication overlap (tp_comm_overlap with userbuffers configs
 *    for GPT-3 20B/175B, Llama 3 70B, Llama 3.1 405B).
 *  - A virtual pipeline size vp > 1 is the interleaved 1F1B schedule with vp chunks.
 *  - Layers that do not split evenly over pp x vp: Megatron-Bridge's large recipes count the
 *    embedding and the loss as one layer slot each (account_for_embedding_in_pipeline_split,
 *    account_for_loss_in_pipeline_split), so the middle stages, which set the pace, hold
 *    ceil(layers / (pp vp)) layers per chunk. The scenario rounds the layer count up to that.
 *  - Meta's Llama 3 runs ("one Transformer layer removed from the first and from the last
 *    stage") get that split: 7, 8 x 14, 7 layers for 126 layers on 16 stages.
 *  - Megatron-DeepSpeed's 'type:transformer|embedding' partition (BLOOM): each tied embedding
 *    takes a layer slot, so the first and the last stage hold one layer fewer.
 *  - An unstated ffn is 4 h (GPT-3, Brown et al. 2020); MoE runs use moe_ffn per expert.
 *  - Stack (training.stack): the run's "stack", else DeepSpeed for Narayanan's ZeRO-3 rows,
 *    Megatron-LM for the other A100 runs (2021-22, no Transformer Engine), Megatron-Core with TE
 *    for the NeMo, Megatron-Bridge, MLPerf and later Megatron-LM runs; none for Meta's own.
 *  - FSDP2 (torchtitan): fully_shard over dp x cp with reshard_after_forward, i.e. ZeRO-3;
 *    gradients reduced in fp32 (its MixedPrecisionPolicy's reduce_dtype default); torch.compile
 *    (training.compile) as the run's `compile` says.
 *  - Composer FSDP (llm-foundry's MPT benchmarks): FULL_SHARD = ZeRO-3 with the FSDP prefetch
 *    on (training.fsdp_prefetch 1), SHARD_GRAD_OP = ZeRO-2; gradients reduced in fp32
 *    (mixed_precision DEFAULT).
 *  - DeepSpeed ZeRO (`parallel.zero` 1-3): the distributed optimizer with the stage's sharding.
 *    BigScience's BLOOM runs (Megatron-DeepSpeed, bf16, BF16_Optimizer = ZeRO-1) keep the A100
 *    rules above: fp32 gradient reduction after the pipeline flush, no overlap, no FlashAttention.
 *  - A device variant: `system.hbm_gb` replaces the preset's HBM capacity.
 *  - Published peak memory: `reported.peak_memory_gib` (GiB, what torch's caching allocator
 *    reserved at most).
 *  - Step time: `reported.step_time_s`, else `derived.step_time_s` (computed from the published
 *    tokens/s/GPU or TFLOP/s by the formula the file states), else the MLPerf log's
 *    `measured_from_log.step_time_s`.
 */
namespace railyard::published {

namespace {

using nlohmann::json;

[[noreturn]] void malformed(const std::string &run, const std::string &field, const std::string &why)
{
    throw std::runtime_error("training_runs.json: run " + run + ": " + field + ": " + why);
}

const json &member(const json &object, const std::string &key, const std::string &run)
{
    if (!object.is_object() || !object.contains(key))
        malformed(run, key, "missing");
    return object.at(key);
}

bool present(const json &object, const std::string &key)
{
    return object.is_object() && object.contains(key) && !object.at(key).is_null();
}

int integer(const json &object, const std::string &key, const std::string &run)
{
    const json &v = member(object, key, run);
    if (!v.is_number_integer())
        malformed(run, key, "expected an integer, got " + v.dump());
    return v.get<int>();
}

int integerOr(const json &object, const std::string &key, int fallback)
{
    return present(object, key) && object.at(key).is_number_integer() ? object.at(key).get<int>()
                                                                       : fallback;
}

std::string text(const json &object, const std::string &key)
{
    return present(object, key) && object.at(key).is_string() ? object.at(key).get<std::string>()
                                                               : std::string();
}

bool startsWith(const std::string &s, const std::string &prefix)
{
    return s.rfind(prefix, 0) == 0;
}

/// NVLink per GPU per direction in Gbit/s (devices.json: A100 300 GB/s, Hopper 450 GB/s,
/// Blackwell 900 GB/s per direction).
double scaleUpGbps(const std::string &device)
{
    if (device == "a100-80g")
        return 2400.0;
    if (device == "h100-sxm" || device == "h200")
        return 3600.0;
    return 7200.0;
}

Precision precisionOf(const std::string &compute, const std::string &run)
{
    if (startsWith(compute, "fp8"))
        return Precision::Fp8;
    if (startsWith(compute, "bf16"))
        return Precision::Bf16;
    // "mixed (16-bit)" and "fp16 (--fp16)": the 2021-22 Megatron-LM runs trained in fp16
    // (its GPT scripts pass --fp16).
    if (startsWith(compute, "fp16") || startsWith(compute, "mixed"))
        return Precision::Fp16;
    malformed(run, "precision.compute", "unknown precision \"" + compute + "\"");
}

} // namespace

std::string trainingRunsPath()
{
    return std::string(RAILYARD_SOURCE_DIR) + "/tests/data/published/training_runs.json";
}

std::string runGroup(const PublishedRun &run)
{
    return run.device + " " + run.precision + (run.scenario.model.experts > 0 ? " moe" : " dense");
}

std::vector<PublishedRun> loadPublishedRuns(const std::string &path)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    const json all = json::parse(in);
    if (!all.is_array())
        throw std::runtime_error(path + ": expected an array of runs");

    std::vector<PublishedRun> runs;
    for (const json &r : all) {
        PublishedRun out;
        out.id = member(r, "id", "?").get<std::string>();
        const std::string &id = out.id;
        out.set = member(r, "set", id).get<std::string>();
        out.complete = member(r, "complete", id).get<bool>();
        const json &system = member(r, "system", id);
        const json &model = member(r, "model", id);
        const json &parallel = member(r, "parallel", id);
        const json &batch = member(r, "batch", id);
        const json &precision = member(r, "precision", id);
        const json assumed = r.value("assumptions", json::object());
        auto assume = [&out](const std::string &what) { out.assumptions.push_back(what); };

        out.device = member(system, "gpu", id).get<std::string>();
        out.gpus = integer(system, "gpus", id);
        const std::optional<DeviceSpec> device = devicePreset(out.device);
        if (!device)
            malformed(id, "system.gpu", "no device preset \"" + out.device + "\"");
        const bool a100Era = out.device == "a100-80g";

        Scenario &s = out.scenario;
        s.name = id;
        s.device = *device;
        if (present(system, "hbm_gb"))
            s.device.hbmBytes = system.at("hbm_gb").get<double>() * 1e9;
        if (present(r, "reported") && present(r.at("reported"), "peak_memory_gib"))
            out.peakMemoryBytes =
                r.at("reported").at("peak_memory_gib").get<double>() * 1024.0 * 1024.0 * 1024.0;

        // ---- Parallel layout (the source's, or the file's stated assumptions).
        ParallelDegrees &d = s.degrees;
        d.tp = integerOr(parallel, "tp", 0);
        d.pp = integerOr(parallel, "pp", 0);
        d.dp = integerOr(parallel, "dp", 0);
        d.cp = integerOr(parallel, "cp", 1);
        d.ep = integerOr(parallel, "ep", 1);
        if (d.tp == 0 || d.pp == 0 || d.dp == 0) {
            out.unsupported = "the source does not give the tensor/pipeline split";
            runs.push_back(std::move(out));
            continue;
        }
        if (std::int64_t{d.tp} * d.pp * d.dp * d.cp != out.gpus)
            malformed(id, "parallel", "tp x pp x dp x cp does not make system.gpus");

        // ---- Fabric.
        const std::string family = text(model, "family");
        FabricSpec &f = s.fabric;
        f.kind = FabricKind::RailOptimised;
        const bool nvl72 = out.device == "gb200" || out.device == "gb300";
        f.gpusPerServer = nvl72 ? 72 : integerOr(system, "gpus_per_server", 8);
        if (nvl72)
            assume("one NVL72 rack = one 72-GPU NVLink domain");
        f.servers = (out.gpus + f.gpusPerServer - 1) / f.gpusPerServer;
        f.scaleUp.gbps = scaleUpGbps(out.device);
        double nic = present(system, "nic_gbps") ? system.at("nic_gbps").get<double>() : 0.0;
        if (nic <= 0.0) {
            nic = deviceFabricDefaults(out.device).nicGbps;
            assume("NIC " + std::to_string(static_cast<int>(nic)) + " Gb/s (reference system)");
        }
        f.nic.gbps = nic;
        f.fabricPort.gbps = nic;
        if (a100Era)
            f.pcie.gbps = 256.0; // PCIe Gen4 x16 on DGX A100
        if (f.servers > 32 * 32) // rail-optimised pods beyond one 64-port spine layer
            f.switchRadix = 128;

        // ---- Model.
        ModelSpec &m = s.model;
        m.name = text(model, "name");
        if (!present(model, "layers") || !present(model, "hidden") || !present(model, "heads")) {
            out.unsupported = "model shape not published";
            runs.push_back(std::move(out));
            continue;
        }
        m.layers = integer(model, "layers", id);
        m.hidden = integer(model, "hidden", id);
        m.heads = integer(model, "heads", id);
        m.kvHeads = integerOr(model, "kv_heads", 0);
        m.headDim = integerOr(model, "head_dim", 0);
        m.seq = integer(model, "seq", id);
        m.vocab = integerOr(model, "vocab", 0);
        if (m.vocab == 0) {
            // Incomplete runs only: the tokenizer each family is known to use.
            if (family == "gpt") {
                m.vocab = 51200;
                assume("vocab 51,200 (Megatron-LM GPT, as Narayanan et al.)");
            } else if (startsWith(text(model, "name"), "LLAMA2")
                       || startsWith(text(model, "name"), "Llama 2")) {
                m.vocab = 32000;
                assume("vocab 32,000 (Llama 2 tokenizer)");
            } else if (startsWith(id, "nemo2407-h100-nemotron")) {
                m.vocab = 256000;
                assume("vocab 256,000 (Nemotron-4 tokenizer)");
            } else {
                out.unsupported = "vocabulary not published";
                runs.push_back(std::move(out));
                continue;
            }
        }
        // Gated (SwiGLU) unless GPT or the source names another activation: Nemotron-4's MLP is
        // squared ReLU with two matrices (Nemotron-4 340B Technical Report, arXiv:2406.11704).
        m.gatedMlp = family != "gpt" && text(model, "activation") != "squared-relu";
        m.experts = integerOr(model, "experts", 0);
        m.topK = integerOr(model, "top_k", 0);
        if (m.experts > 0) {
            m.ffn = integer(model, "moe_ffn", id);
        } else if (present(model, "ffn")) {
            m.ffn = integer(model, "ffn", id);
        } else {
            m.ffn = 4 * m.hidden;
            assume("ffn = 4 h (GPT-3)");
        }

        // ---- Training.
        TrainingSpec &t = s.training;
        t.globalBatch = integer(batch, "global", id);
        if (present(batch, "micro")) {
            t.microBatch = integer(batch, "micro", id);
        } else if (present(assumed, "batch.micro")) {
            t.microBatch = assumed.at("batch.micro").get<int>();
            assume("micro-batch " + std::to_string(t.microBatch) + " (file's assumption)");
        } else {
            t.microBatch = 1;
            assume("micro-batch 1");
        }
        t.precision = precisionOf(text(precision, "compute"), id);
        out.precision = std::string(t.precision == Precision::Fp8   ? "fp8"
                                    : t.precision == Precision::Bf16 ? "bf16"
                                                                     : "fp16");
        const int vp = integerOr(parallel, "vp", 1);
        if (vp > 1) {
            t.schedule = ScheduleKind::Interleaved;
            t.interleave = vp;
        } else {
            t.schedule = ScheduleKind::OneFOneB;
            t.interleave = 1;
        }
        const int slots = d.pp * std::max(1, vp);
        const int sourceLayers = m.layers;
        if (startsWith(text(parallel, "pipeline_stages"),
                       "uneven: one Transformer layer removed from the first and from the last")
            && vp <= 1 && d.pp > 2 && (sourceLayers + 2) % d.pp == 0) {
            // Meta's split (Llama 3 §3.3.2): an even split of layers + 2, less one layer on the
            // first and on the last stage, which hold the embedding and the output layer.
            const int per = (sourceLayers + 2) / d.pp;
            t.layersPerStage.assign(static_cast<std::size_t>(d.pp), per);
            t.layersPerStage.front() = per - 1;
            t.layersPerStage.back() = per - 1;
            assume("layers per stage " + std::to_string(per - 1) + ", " + std::to_string(per)
                   + " x " + std::to_string(d.pp - 2) + ", " + std::to_string(per - 1)
                   + " (the source's uneven split)");
        } else if (startsWith(text(parallel, "pipeline_stages"), "type:transformer|embedding")) {
            // Megatron-DeepSpeed's --pp-partition-method 'type:transformer|embedding' (BLOOM,
            // train/tr11-176B-ml/README.md): DeepSpeed's PipelineModule balances the layers whose
            // class matches the regex, the transformer blocks and the tied embedding at each end,
            // so stage 0 holds the embedding and one block fewer, the last stage the output
            // embedding and one block fewer.
            if (vp > 1 || (m.layers + 2) % d.pp != 0 || (m.layers + 2) / d.pp < 2)
                malformed(id, "parallel.pipeline_stages",
                    "type:transformer|embedding needs layers + 2 to split evenly over pp, "
                    "at least two slots a stage, and no virtual stages");
            const int per = (m.layers + 2) / d.pp;
            t.layersPerStage.assign(static_cast<std::size_t>(d.pp), per);
            t.layersPerStage.front() = per - 1;
            t.layersPerStage.back() = per - 1;
            assume(std::to_string(m.layers) + " layers: " + std::to_string(per)
                + " per stage, one fewer in the first and the last (each tied embedding takes "
                  "a layer slot, type:transformer|embedding)");
        } else if (m.layers % slots != 0 && (m.layers + 2) % slots == 0
            && (m.layers + 2) / slots > 1
            && (startsWith(id, "nemo") || startsWith(id, "mb") || startsWith(id, "mlperf"))) {
            // Megatron-Bridge's account_for_embedding_in_pipeline_split and
            // account_for_loss_in_pipeline_split: the embedding takes a layer slot of the first
            // model chunk and the loss one of the last, so those chunks hold one layer fewer.
            const int per = (m.layers + 2) / slots;
            t.layersPerStage.assign(static_cast<std::size_t>(slots), per);
            t.layersPerStage.front() = per - 1;
            t.layersPerStage.back() = per - 1;
            assume(std::to_string(m.layers) + " layers: " + std::to_string(per)
                   + " per model chunk, one fewer in the first and the last (embedding and loss "
                     "take a layer slot each)");
        } else if (m.layers % slots != 0) {
            const int rounded = (m.layers + slots - 1) / slots * slots;
            assume(std::to_string(m.layers) + " layers split as " + std::to_string(rounded)
                   + " (embedding and loss take a layer slot each)");
            m.layers = rounded;
        }
        std::string recompute = text(parallel, "recompute");
        if (recompute.empty() && startsWith(id, "n21-t2-ptd-")) {
            // Narayanan et al. do not state it for Table 2; their throughput (Eq. 3) counts the
            // recompute forward and the same models in Table 1 run with full recompute.
            recompute = "full";
            assume("full recompute (Eq. 3 counts it; Table 1's runs use it)");
        }
        // "full (--checkpoint-activations)", "selective (torchtitan op-level SAC)": the first
        // word is the granularity, the rest says whose.
        t.recompute = startsWith(recompute, "full")        ? Recompute::Full
                      : startsWith(recompute, "selective") ? Recompute::Selective
                                                           : Recompute::None;
        if (a100Era) {
            t.sequenceParallel = present(parallel, "sequence_parallel")
                                 && parallel.at("sequence_parallel").get<bool>();
            t.distributedOptimizer = false;
            t.dpOverlap = false;
            t.flashAttention = false;
        } else {
            t.sequenceParallel = present(parallel, "sequence_parallel")
                                     ? parallel.at("sequence_parallel").get<bool>()
                                     : d.tp > 1;
            t.distributedOptimizer = !present(parallel, "distributed_optimizer")
                                     || parallel.at("distributed_optimizer").get<bool>();
            t.dpOverlap = true;
            t.overlapParamGather = t.distributedOptimizer;
            // The NeMo / Megatron-Bridge performance recipes of every model here with tp > 1
            // (GPT-3 20B and 175B, Llama 3 70B, Llama 3.1 405B) turn on Transformer Engine's
            // TP communication overlap (CommOverlapConfig / MegatronCommOverlapCallback with
            // tp_comm_overlap=True and a userbuffers_* configuration); it needs SP.
            t.tpCommOverlap = t.sequenceParallel && d.tp > 1;
            t.flashAttention = true;
            if (!present(parallel, "sequence_parallel") && d.tp > 1)
                assume("sequence parallelism (tp > 1)");
            if (!present(parallel, "distributed_optimizer"))
                assume("distributed optimizer");
        }
        // MoE with expert and tensor parallelism needs sequence parallelism in Megatron-LM.
        if (m.experts > 0 && d.ep > 1 && d.tp > 1)
            t.sequenceParallel = true;
        // Sliding-window attention (GPT-OSS) is an attention the engine does not model.
        if (text(model, "attention").find("sliding window") != std::string::npos)
            out.unsupported = "sliding-window attention on half the layers (not modelled)";
        // Expert parallelism that spans the tensor-parallel ranks (MoE parallel folding with
        // expert-TP 1) is not a layout this engine builds: ep must divide dp x cp.
        if (m.experts > 0 && (std::int64_t{d.dp} * d.cp) % d.ep != 0)
            out.unsupported = "ep " + std::to_string(d.ep) + " spans the tensor-parallel ranks "
                              "(expert-TP 1 with tp " + std::to_string(d.tp) + ")";
        // NVIDIA's performance recipes reduce gradients in bf16: the NeMo launcher's H100
        // example scripts pass optim.grad_sync_dtype=bf16, NeMo 2's performance mode sets
        // grad_reduce_in_fp32 = False (Megatron-Bridge's recipes derive from it).
        const bool nvidiaPerf = startsWith(id, "nemo") || startsWith(id, "mb")
                                || startsWith(id, "mlperf");
        if (nvidiaPerf && t.precision != Precision::Fp16) {
            t.gradReduceBf16 = true;
            assume("gradients reduced in bf16 (NVIDIA performance recipes)");
        }
        const std::string fsdp = text(parallel, "fsdp");
        if (present(r, "stack"))
            out.stack = text(r, "stack");
        else if (startsWith(fsdp, "ZeRO-3"))
            out.stack = "deepspeed";
        else if (a100Era)
            out.stack = "megatron-lm";
        else if (nvidiaPerf || startsWith(id, "mlm-"))
            out.stack = "megatron-core-te";
        if (!out.stack.empty()) {
            SoftwareStack stack = SoftwareStack::MegatronCoreTe;
            if (!parseStack(out.stack, stack))
                malformed(id, "stack", "unknown stack \"" + out.stack + "\"");
            t.stack = stack;
        }
        // torch.compile, as the run's row says (torchtitan's tables name it per row).
        if (present(r, "compile"))
            t.compile = r.at("compile").get<bool>();
        if (startsWith(fsdp, "FSDP2")) {
            // torchtitan: fully_shard with reshard_after_forward = ZeRO-3 over dp x cp.
            t.distributedOptimizer = true;
            t.dpSharding = DpSharding::OptimGradsParams;
        } else if (startsWith(fsdp, "ZeRO-3")) {
            // DeepSpeed ZeRO-3: everything sharded, parameters gathered per layer. A 175B model
            // does not fit in 80 GB without activation checkpointing at these micro-batches.
            t.distributedOptimizer = true;
            t.dpSharding = DpSharding::OptimGradsParams;
            if (t.recompute == Recompute::None) {
                t.recompute = Recompute::Full;
                assume("full activation recompute (ZeRO-3 runs do not fit without it)");
            }
        } else if (startsWith(fsdp, "Megatron-FSDP")) {
            assume("Megatron-FSDP modelled as the distributed optimizer (its per-micro-batch "
                   "gathers stay on NVLink, behind the compute)");
            // Its memory is ZeRO-3's: the performance recipes shard with optim_grads_params
            // (--data-parallel-sharding-strategy), parameters and gradients included.
            Scenario sharded = s;
            sharded.training.dpSharding = DpSharding::OptimGradsParams;
            out.memoryScenario = sharded;
        } else if (startsWith(fsdp, "Composer FSDP")) {
            // llm-foundry's FSDP (PyTorch FSDP1): FULL_SHARD is ZeRO-3, SHARD_GRAD_OP ZeRO-2;
            // mixed_precision DEFAULT reduces in fp32. Each layer's all-gather runs ahead of its
            // compute: FSDP1 issues the all-gathers on a stream of their own as the CPU runs
            // ahead of the GPU (its forward_prefetch option only adds an explicit prefetch for
            // CPU-bound workloads, torch.distributed.fsdp docs), and Composer's
            // backward_prefetch BACKWARD_POST gathers the next layer during the backward.
            t.distributedOptimizer = true;
            t.dpSharding = fsdp.find("SHARD_GRAD_OP") != std::string::npos
                ? DpSharding::OptimGrads
                : DpSharding::OptimGradsParams;
            if (t.dpSharding == DpSharding::OptimGradsParams) {
                t.fsdpPrefetch = 1.0;
                assume("FSDP prefetch on (implicit forward, BACKWARD_POST backward)");
            }
        } else if (startsWith(fsdp, "FSDP over DP")) {
            t.distributedOptimizer = true;
            t.dpSharding = DpSharding::OptimGrads; // Meta: optimizer state and gradients sharded
        }

        if (present(parallel, "zero")) {
            // DeepSpeed's ZeRO stage (zero_optimization.stage, or the BF16_Optimizer's own stage
            // 1 that Megatron-DeepSpeed's bf16 runs use with ZERO_STAGE=0): 1 shards the
            // optimizer state, 2 also the gradients, 3 also the parameters [ZeRO20].
            const int zero = integer(parallel, "zero", id);
            if (zero < 1 || zero > 3)
                malformed(id, "parallel.zero", "ZeRO stage 1, 2 or 3, got " + std::to_string(zero));
            t.distributedOptimizer = true;
            t.dpSharding = zero == 1 ? DpSharding::Optim
                : zero == 2          ? DpSharding::OptimGrads
                                     : DpSharding::OptimGradsParams;
        }

        // ---- Published step time.
        if (present(r, "reported") && present(r.at("reported"), "step_time_s")) {
            out.stepSeconds = r.at("reported").at("step_time_s").get<double>();
            out.stepFrom = "reported";
        } else if (present(r, "derived") && present(r.at("derived"), "step_time_s")) {
            out.stepSeconds = r.at("derived").at("step_time_s").get<double>();
            out.stepFrom = "derived";
        } else if (present(r, "measured_from_log")
                   && present(r.at("measured_from_log"), "step_time_s")) {
            out.stepSeconds = r.at("measured_from_log").at("step_time_s").get<double>();
            out.stepFrom = "measured_from_log";
        } else if (startsWith(id, "n21-") && present(r, "reported")
                   && present(r.at("reported"), "model_tflops_per_gpu")) {
            // Narayanan et al. count throughput with their Eq. 3, F = 96 B s l h^2
            // (1 + s/6h + V/16lh) per iteration, so the step is F / (GPUs x TFLOP/s).
            const double B = t.globalBatch, sq = m.seq, l = m.layers, h = m.hidden, V = m.vocab;
            const double flops = 96.0 * B * sq * l * h * h
                                 * (1.0 + sq / (6.0 * h) + V / (16.0 * l * h));
            out.stepSeconds = flops / (out.gpus * 1e12
                                       * r.at("reported").at("model_tflops_per_gpu").get<double>());
            out.stepFrom = "derived here (Eq. 3)";
        } else if (present(r, "reported") && present(r.at("reported"), "model_tflops_per_gpu")) {
            // Only a throughput: the comparison converts it with the engine's model-FLOPs count
            // (an assumption about the source's FLOP convention).
            out.tflopsPerGpu = r.at("reported").at("model_tflops_per_gpu").get<double>();
            out.stepFrom = "TFLOP/s only";
            assume("step time from the published TFLOP/s with the engine's model FLOPs");
        } else {
            out.unsupported = "no step time or throughput published";
        }
        if (out.stepFrom != "TFLOP/s only" && out.unsupported.empty()
            && (!(out.stepSeconds > 0.0) || !std::isfinite(out.stepSeconds)))
            malformed(id, "step_time_s", "must be positive");
        runs.push_back(std::move(out));
    }
    return runs;
}

} // namespace railyard::published
