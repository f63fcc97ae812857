/**
 * The workload parts of `railyard-cli generate`'s scenario document (generateworkload.h): what a
 * custom model, a software stack, the sharding flags and a device variant write.
 */
#include "generateworkload.h"

#include "usageerror.h"

#include "base/text.h"
#include "workload/presets.h"
#include "workload/workloadnames.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <system_error>

namespace railyard::cli {

namespace {

/// The flags that shape a model: without --model, any of them makes the model the flags' own,
/// and no preset value is inherited (--seq and --vocab alone keep the default preset: they
/// describe the data, not the network; --top-k alone is refused on a dense model).
constexpr std::array<const char *, 8> kModelShapeFlags { "layers", "hidden", "heads", "kv-heads",
    "ffn", "gated-mlp", "no-gated-mlp", "experts" };

} // namespace

bool customModel(const GenerateOptions &o)
{
    if (o.given("model"))
        return false;
    return std::any_of(kModelShapeFlags.begin(), kModelShapeFlags.end(),
        [&o](const char *f) { return o.given(f); });
}

/// A custom model (no --model): the flags given, the rest the GPT-3 block's values (Brown et
/// al. 2020; the block Narayanan et al. 2021 and Korthikanti et al. 2022 count, 12 h^2 per
/// layer), each default in `assumed`.
nlohmann::json customModelDocument(const GenerateOptions &o, std::vector<std::string> &assumed)
{
    std::string missing;
    for (const char *f : { "layers", "hidden", "heads" })
        if (!o.given(f))
            missing += std::string(missing.empty() ? "" : " ") + "--" + f;
    if (!missing.empty())
        throw UsageError("a model flag without --model describes a custom model: give " + missing
            + " too (or --model NAME to start from a preset)");
    nlohmann::json model = nlohmann::json::object();
    model["name"] = "custom";
    const std::int64_t heads = o.integers.at("heads");
    const std::int64_t hidden = o.integers.at("hidden");
    if (!o.given("kv-heads")) {
        model["kv_heads"] = heads;
        assumed.push_back(
            "kv_heads = heads = " + std::to_string(heads) + " (multi-head attention)");
    }
    if (!o.given("ffn")) {
        // The loader checks the range; the product of two in-range ints fits 64 bits.
        model["ffn"] = 4 * hidden;
        assumed.push_back("ffn = 4 x hidden = " + std::to_string(4 * hidden) + " (GPT-3)");
    }
    if (!o.given("gated-mlp") && !o.given("no-gated-mlp")) {
        model["gated_mlp"] = false;
        assumed.push_back("gated_mlp false (GPT-style GeLU MLP; --gated-mlp for SwiGLU)");
    }
    if (!o.given("seq")) {
        model["seq"] = 2048;
        assumed.push_back("seq 2048 (GPT-3)");
    }
    if (!o.given("vocab")) {
        model["vocab"] = 51200;
        assumed.push_back("vocab 51200 (GPT-2 BPE padded, as Megatron-LM's GPT runs)");
    }
    return model;
}

/**
 * What a stack sets by default, written before the flags so that a flag wins. Sources:
 * Megatron-Core with TE as NeMo / Megatron-Bridge performance recipes run it (distributed
 * optimizer, overlapped gradient reduce-scatter and parameter all-gather, sequence parallelism
 * and TE's TP overlap for tp > 1, bf16 gradient reduction: tests/common/publishedruns.cpp cites
 * the recipes); Megatron-LM's argument defaults (megatron/training/arguments.py: every overlap,
 * --use-distributed-optimizer, --sequence-parallel and --use-flash-attn off); torchtitan's FSDP2
 * (fully_shard with reshard_after_forward, prefetching the next layer's all-gather, reduce-scatter
 * in backward, reduce_dtype fp32, SequenceParallel norms under TP); DeepSpeed ZeRO (stage 1 as
 * Megatron-DeepSpeed's BLOOM runs; zero_optimization.overlap_comm off for stages 1-2, on for 3;
 * FlashAttention opt-in, Megatron-DeepSpeed's --use-flash-attn-v1/-v2 store_true arguments in
 * megatron/arguments.py, and off on the BigScience runs its constant was fitted on);
 * llm-foundry's FSDP (FULL_SHARD, BACKWARD_PRE prefetch, mixed_precision PURE = bf16 reduce).
 */
void stackDefaults(SoftwareStack stack, const GenerateOptions &o, nlohmann::json &training)
{
    const bool tensorParallel = o.degrees.tp > 1;
    const bool fp16 = o.given("precision") && o.texts.at("precision") == "fp16";
    const auto shardAll = [&training] {
        training["distributed_optimizer"] = true;
        training["dp_sharding"] = std::string(dpShardingName(DpSharding::OptimGradsParams));
        training["overlap_grad_reduce"] = true;
        training["overlap_param_gather"] = true;
    };
    switch (stack) {
    case SoftwareStack::MegatronCoreTe:
        training["distributed_optimizer"] = true;
        training["overlap_grad_reduce"] = true;
        training["overlap_param_gather"] = true;
        training["sequence_parallel"] = tensorParallel;
        // TE's TP overlap needs sequence parallelism: not with --no-sequence-parallel.
        training["tp_comm_overlap"] = tensorParallel && !o.given("no-sequence-parallel");
        if (!fp16)
            training["grad_reduce_bf16"] = true;
        break;
    case SoftwareStack::MegatronLm:
        training["distributed_optimizer"] = false;
        training["sequence_parallel"] = false;
        training["flash_attention"] = false;
        break;
    case SoftwareStack::Fsdp2:
        shardAll();
        training["sequence_parallel"] = tensorParallel;
        break;
    case SoftwareStack::DeepSpeed:
        training["distributed_optimizer"] = true;
        training["sequence_parallel"] = false;
        training["flash_attention"] = false;
        break;
    case SoftwareStack::Composer:
        shardAll();
        // FSDP1 gathers the next layer while the GPU computes (the prefetch its constant was
        // fitted with, tests/common/publishedruns.cpp).
        training["fsdp_prefetch"] = 1.0;
        training["sequence_parallel"] = false;
        if (!fp16)
            training["grad_reduce_bf16"] = true;
        break;
    }
}

/// --zero N and --fsdp MODE as training.dp_sharding (both set the distributed optimizer, which
/// is ZeRO-1); a DeepSpeed stack overlaps ZeRO-3's gathers (overlap_comm's stage-3 default).
void shardingFlags(const GenerateOptions &o, nlohmann::json &training)
{
    if (o.given("zero") && o.given("fsdp"))
        throw UsageError("--zero and --fsdp both set the data-parallel sharding: give one");
    std::optional<DpSharding> sharding;
    if (o.given("zero")) {
        const std::int64_t stage = o.integers.at("zero");
        if (stage < 1 || stage > 3)
            throw UsageError("--zero: ZeRO stage 1, 2 or 3, got " + std::to_string(stage));
        sharding = stage == 1 ? DpSharding::Optim
            : stage == 2      ? DpSharding::OptimGrads
                              : DpSharding::OptimGradsParams;
    } else if (o.given("fsdp")) {
        const std::string &mode = o.texts.at("fsdp");
        int shard = 0;
        if (!parseFsdpMode(mode, shard))
            throw UsageError("--fsdp: expected full or hybrid:R, got '" + escapeControls(mode)
                + "' (R: ranks per shard group, 1 or more; the scenario check wants it to divide "
                  "dp x cp)");
        if (shard > 0)
            training["fsdp"] = fsdpModeName(shard);
        sharding = DpSharding::OptimGradsParams;
    }
    if (o.given("fsdp-prefetch")) {
        const std::string &text = o.texts.at("fsdp-prefetch");
        double share = 0.0;
        if (text == "on")
            share = 1.0;
        else if (text == "off")
            share = 0.0;
        else if (const auto [stop, ec]
                 = std::from_chars(text.data(), text.data() + text.size(), share);
                 text.empty() || ec != std::errc() || stop != text.data() + text.size()
                 || !(share >= 0.0 && share <= 1.0))
            throw UsageError("--fsdp-prefetch: expected on, off or a share from 0 to 1, got '"
                + escapeControls(text) + "'");
        training["fsdp_prefetch"] = share;
    }
    if (!sharding)
        return;
    if (o.given("no-distributed-optimizer"))
        throw UsageError(std::string(o.given("zero") ? "--zero" : "--fsdp")
            + " shards the optimizer state over the data-parallel group and contradicts "
              "--no-distributed-optimizer");
    training["distributed_optimizer"] = true;
    training["dp_sharding"] = std::string(dpShardingName(*sharding));
    // A stack's prefetch default is ZeRO-3's: a lower stage given beside it drops it.
    if (*sharding != DpSharding::OptimGradsParams && !o.given("fsdp-prefetch"))
        training.erase("fsdp_prefetch");
    if (*sharding == DpSharding::OptimGradsParams && o.given("stack")
        && o.texts.at("stack") == stackName(SoftwareStack::DeepSpeed)) {
        training["overlap_grad_reduce"] = true;
        training["overlap_param_gather"] = true;
    }
}

/// The device preset, with --device-peak-tflops (bf16 and fp16; fp8 at the preset's ratio),
/// --hbm-gb and --hbm-gbps as a variant of it.
nlohmann::json deviceDocument(const GenerateOptions &o, const std::string &device)
{
    nlohmann::json doc { { "preset", device } };
    if (o.given("device-peak-tflops")) {
        const double peak = o.numbers.at("device-peak-tflops");
        doc["peak_tflops_bf16"] = peak;
        doc["peak_tflops_fp16"] = peak;
        const std::optional<DeviceSpec> preset = devicePreset(device);
        if (preset && preset->peakTflopsBf16 > 0.0 && preset->peakTflopsFp8 > 0.0)
            doc["peak_tflops_fp8"] = peak * preset->peakTflopsFp8 / preset->peakTflopsBf16;
    }
    if (o.given("hbm-gb"))
        doc["hbm_gb"] = o.numbers.at("hbm-gb");
    if (o.given("hbm-gbps"))
        doc["hbm_gbps"] = o.numbers.at("hbm-gbps");
    return doc;
}

} // namespace railyard::cli
