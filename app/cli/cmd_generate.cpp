/**
 * `railyard-cli generate`: writes a scenario file from flags. The flags become a scenario JSON
 * document that goes through the same loader as any file (so every range and size check and
 * every message is the loader's), then the written text is read back and checked by the
 * engine's own validation (checkScenario): a file is written only when `evaluate` can use it.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "generateerrors.h"
#include "generateoptions.h"
#include "generateworkload.h"
#include "usageerror.h"

#include "base/scenarioerror.h"
#include "base/text.h"
#include "cost/pipelineschedule.h"
#include "cost/scenariocheck.h"
#include "fabric/ecmprouting.h"
#include "io/computecalibration.h"
#include "layout/mapping.h"
#include "scenario/scenariofile.h"
#include "workload/presets.h"
#include "workload/workload.h"
#include "workload/workloadnames.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <exception>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace railyard::cli {

namespace {

using nlohmann::json;

enum class Kind { Integer, Number, Text, Switch, Degree };

/** One command-line flag, the scenario field it sets (for error messages) and its help. */
struct Flag
{
    const char *name;
    const char *field;
    Kind kind;
    const char *valueName;
    const char *help;
    const char *group;
};

constexpr const char *kFabric = "Fabric";
constexpr const char *kLayout = "Layout";
constexpr const char *kWorkload = "Workload";
constexpr const char *kScenario = "Scenario";

// Bandwidths are per link per direction in Gbit/s, as in scenario files.
const std::vector<Flag> &flags()
{
    static const std::vector<Flag> all {
        { "fabric", "fabric.kind", Kind::Text, "KIND", "The fabric's wiring.", kFabric },
        { "servers", "fabric.servers", Kind::Integer, "N", "Number of servers.", kFabric },
        { "gpus-per-server", "fabric.gpus_per_server", Kind::Integer, "G", "GPU slots per server.",
            kFabric },
        { "nics-per-server", "fabric.nics_per_server", Kind::Integer, "N",
            "NICs per server (default: one per GPU).", kFabric },
        { "servers-per-su", "fabric.servers_per_su", Kind::Integer, "K",
            "Rail-optimised: servers per scalable unit (32).", kFabric },
        { "servers-per-leaf", "fabric.servers_per_leaf", Kind::Integer, "K",
            "ToR: servers per leaf (0 = derived).", kFabric },
        { "spines", "fabric.spines", Kind::Integer, "S",
            "Spines per pod (0 = derived from the radix).", kFabric },
        { "super-spines", "fabric.super_spines", Kind::Integer, "S", "Super-spines (0 = derived).",
            kFabric },
        { "switch-radix", "fabric.switch_radix", Kind::Integer, "R", "Ports per switch (64).",
            kFabric },
        { "nic-gbps", "fabric.nic_gbps", Kind::Number, "B",
            "One NIC port, Gbit/s per direction (device default, 400).", kFabric },
        { "scaleup-gbps", "fabric.scaleup_gbps", Kind::Number, "B",
            "One GPU's scale-up port, Gbit/s per direction (device default, 3600).", kFabric },
        { "pcie-gbps", "fabric.pcie_gbps", Kind::Number, "B",
            "GPU <-> NIC host path, Gbit/s per direction (512).", kFabric },
        { "fabric-gbps", "fabric.fabric_gbps", Kind::Number, "B",
            "One switch-to-switch port (leaf <-> spine <-> super-spine), Gbit/s (400).", kFabric },
        { "scaleup-latency-us", "fabric.scaleup_latency_us", Kind::Number, "US",
            "Scale-up (NVLink) hop latency, microseconds (0.6).", kFabric },
        { "pcie-latency-us", "fabric.pcie_latency_us", Kind::Number, "US",
            "GPU <-> NIC host path latency, microseconds (0.5).", kFabric },
        { "nic-latency-us", "fabric.nic_latency_us", Kind::Number, "US",
            "NIC <-> leaf hop latency, microseconds (1.0).", kFabric },
        { "fabric-latency-us", "fabric.fabric_latency_us", Kind::Number, "US",
            "Switch-to-switch hop latency, microseconds (0.6).", kFabric },
        { "leaf-oversubscription", "fabric.leaf_oversubscription", Kind::Number, "R",
            "Leaf downlink : uplink bandwidth (1 = non-blocking).", kFabric },
        { "spine-oversubscription", "fabric.spine_oversubscription", Kind::Number, "R",
            "Spine downlink : uplink bandwidth (1 = non-blocking).", kFabric },
        { "pxn", "fabric.pxn", Kind::Switch, nullptr,
            "NCCL PXN: cross-rail traffic hops over NVLink first.", kFabric },
        { "planes", "fabric.planes", Kind::Integer, "P",
            "Network planes: every NIC has P ports, one per independent switch plane (1; 2 = "
            "Alibaba HPN dual-plane, 8 = DeepSeek-V3 multi-plane).",
            kFabric },
        { "plane-port-gbps", "fabric.plane_port_gbps", Kind::Number, "B",
            "One NIC port's speed with several planes, Gbit/s (0 = NIC speed / planes).", kFabric },
        { "ecmp", "fabric.routing", Kind::Text, "MODE",
            "How flows take equal-cost paths (docs/ecmp.md): ideal (even split), hashed (one "
            "path per queue pair, over seeds) or adaptive.",
            kFabric },
        { "qps-per-connection", "fabric.qps_per_connection", Kind::Integer, "N",
            "Hashed ECMP: queue pairs per connection, NCCL_IB_QPS_PER_CONNECTION (1).", kFabric },
        { "seeds", "fabric.seeds", Kind::Integer, "K",
            "Hashed ECMP: seeds for the expected and p99 figures (64).", kFabric },
        { "scaleup-domain-servers", "fabric.scaleup_domain_servers", Kind::Integer, "K",
            "Servers (trays) per NVLink domain (1; 18 for an NVL72 rack).", kFabric },
        { "nvl72", "fabric.scaleup_domain_servers", Kind::Switch, nullptr,
            "GB200/GB300 NVL72 racks: the device's 18 trays of 4 GPUs per NVLink domain, one "
            "rack per SU (device default gb200).",
            kFabric },
        { "devices", "fabric.device_pools", Kind::Text, "POOLS",
            "Mixed devices: servers holding another device than --device, as DEVICE:SERVERS "
            "pools, e.g. h200:16-31 or h100-sxm:0-7,b200:8-11,14 (docs/mixed-devices.md).",
            kFabric },
        { "tp", "parallel.tp", Kind::Degree, nullptr, nullptr, kLayout },
        { "pp", "parallel.pp", Kind::Degree, nullptr, nullptr, kLayout },
        { "dp", "parallel.dp", Kind::Degree, nullptr, nullptr, kLayout },
        { "cp", "parallel.cp", Kind::Degree, nullptr, nullptr, kLayout },
        { "ep", "parallel.ep", Kind::Degree, nullptr, nullptr, kLayout },
        { "order", "parallel.order", Kind::Text, "ORDER",
            "Megatron-LM rank order (tp-cp-ep-dp-pp).", kLayout },
        { "placement", "mapping.placement", Kind::Text, "NAME", "Rank placement (packed).",
            kLayout },
        { "model", "model.preset", Kind::Text, "NAME",
            "Model preset (llama2-70b when no model flag is given); the flags below override it. "
            "Without it, --layers --hidden --heads define a custom model (GPT-3 block defaults, "
            "stated in the description).",
            kWorkload },
        { "layers", "model.layers", Kind::Integer, "N", "Transformer layers.", kWorkload },
        { "hidden", "model.hidden", Kind::Integer, "N", "Hidden size.", kWorkload },
        { "heads", "model.heads", Kind::Integer, "N", "Attention heads.", kWorkload },
        { "kv-heads", "model.kv_heads", Kind::Integer, "N",
            "Key/value heads (default: the heads, multi-head attention; fewer = GQA).", kWorkload },
        { "gated-mlp", "model.gated_mlp", Kind::Switch, nullptr,
            "SwiGLU-style gated MLP, 3 matrices (Llama).", kWorkload },
        { "no-gated-mlp", "model.gated_mlp", Kind::Switch, nullptr,
            "GPT-style GeLU MLP, 2 matrices (a custom model's default).", kWorkload },
        { "ffn", "model.ffn", Kind::Integer, "N", "MLP intermediate size.", kWorkload },
        { "seq", "model.seq", Kind::Integer, "N", "Sequence length.", kWorkload },
        { "vocab", "model.vocab", Kind::Integer, "N", "Vocabulary size.", kWorkload },
        { "experts", "model.experts", Kind::Integer, "N", "Experts per MoE layer (0 = dense).",
            kWorkload },
        { "top-k", "model.top_k", Kind::Integer, "K", "Experts per token.", kWorkload },
        { "micro-batch", "training.micro_batch", Kind::Integer, "N", "Micro-batch size (1).",
            kWorkload },
        { "global-batch", "training.global_batch", Kind::Integer, "N", "Global batch size (512).",
            kWorkload },
        { "precision", "training.precision", Kind::Text, "P", "Training precision (bf16).",
            kWorkload },
        { "recompute", "training.recompute", Kind::Text, "R",
            "Activation recomputation (selective).", kWorkload },
        { "sequence-parallel", "training.sequence_parallel", Kind::Switch, nullptr,
            "Megatron sequence parallelism (default on).", kWorkload },
        { "no-sequence-parallel", "training.sequence_parallel", Kind::Switch, nullptr,
            "Turn sequence parallelism off.", kWorkload },
        { "distributed-optimizer", "training.distributed_optimizer", Kind::Switch, nullptr,
            "Shard optimizer state over DP (default on).", kWorkload },
        { "no-distributed-optimizer", "training.distributed_optimizer", Kind::Switch, nullptr,
            "Keep full optimizer state per replica.", kWorkload },
        { "schedule", "training.schedule", Kind::Text, "S", "Pipeline schedule (1f1b).",
            kWorkload },
        { "interleave", "training.interleave", Kind::Integer, "V",
            "Virtual stages per rank (interleaved).", kWorkload },
        { "layers-per-stage", "training.layers_per_stage", Kind::Text, "L,L,...",
            "Layers per pipeline stage (pp entries, or pp x interleave per model chunk), "
            "summing to the layers; default the even split.",
            kWorkload },
        { "overlap-grad-reduce", "training.overlap_grad_reduce", Kind::Switch, nullptr,
            "Megatron-LM --overlap-grad-reduce: gradient reduction during backward (off).",
            kWorkload },
        { "overlap-param-gather", "training.overlap_param_gather", Kind::Switch, nullptr,
            "Megatron-LM --overlap-param-gather: parameter all-gather behind the next forward "
            "(off; needs the two above).",
            kWorkload },
        { "tp-comm-overlap", "training.tp_comm_overlap", Kind::Switch, nullptr,
            "Megatron-LM --tp-comm-overlap: TP all-gather / reduce-scatter beside the GEMMs "
            "(off; needs sequence parallelism).",
            kWorkload },
        { "stack", "training.stack", Kind::Text, "NAME",
            "Training software; writes its defaults (docs/scenario-format.md). Default: none "
            "(the device's calibrated stack).",
            kWorkload },
        { "compile", "training.compile", Kind::Text, "on|off",
            "torch.compile for the PyTorch-native stacks (fsdp2, composer): element-wise "
            "operators fused by Inductor (on) or one eager kernel each (off, their default).",
            kWorkload },
        { "zero", "training.dp_sharding", Kind::Integer, "1|2|3",
            "ZeRO stage over the data-parallel group: 1 optimizer state, 2 also gradients, 3 "
            "also parameters (sets the distributed optimizer).",
            kWorkload },
        { "fsdp", "training.fsdp", Kind::Text, "full|hybrid:R",
            "FSDP (ZeRO-3): full = parameters, gradients and optimizer state sharded over the "
            "data-parallel group; hybrid:R = sharded within groups of R ranks, replicated "
            "across them (HSDP).",
            kWorkload },
        { "fsdp-prefetch", "training.fsdp_prefetch", Kind::Text, "on|off|F",
            "FSDP: each layer's parameter all-gather prefetched beside the previous layer's "
            "compute (on = 1), exposed (off = 0), or the share F hidden (needs ZeRO-3).",
            kWorkload },
        { "cp-attention", "training.cp_attention", Kind::Text, "NAME",
            "Context-parallel attention: te-p2p (Transformer Engine's ring, Megatron-Core) or "
            "torch-allgather (PyTorch's context_parallel, torchtitan). Default: the stack's "
            "(fsdp2: torch-allgather, else te-p2p).",
            kWorkload },
        { "device", "device.preset", Kind::Text, "NAME",
            "Device preset (h100-sxm); sets NIC and scale-up defaults.", kWorkload },
        { "device-peak-tflops", "device.peak_tflops_bf16", Kind::Number, "TFLOPS",
            "Dense bf16/fp16 peak of a device variant (e.g. a lower power cap); the fp8 peak "
            "keeps the preset's fp8/bf16 ratio.",
            kWorkload },
        { "hbm-gb", "device.hbm_gb", Kind::Number, "GB", "HBM capacity, 10^9 bytes (preset's).",
            kWorkload },
        { "hbm-gbps", "device.hbm_gbps", Kind::Number, "GB/S", "HBM bandwidth, GB/s (preset's).",
            kWorkload },
        { "calibration", "device.max_efficiency", Kind::Text, "CAL",
            "A compute calibration (calibrate --compute-out) measured on another layout of the "
            "same device, precision and stack: its fitted GEMM efficiency is written into the "
            "scenario's device.",
            kWorkload },
        { "name", "name", Kind::Text, "NAME", "Scenario name (default from model and degrees).",
            kScenario },
        { "description", "description", Kind::Text, "TEXT",
            "Scenario description (default: this command line).", kScenario },
    };
    return all;
}

/// The values accepted where the engine has a name table; the loader checks them.
std::vector<std::string> choicesOf(const std::string &flag)
{
    std::vector<std::string> out;
    if (flag == "fabric")
        out = { "rail-optimised", "tor", "rail-only" }; // FabricKind, as the loader names them
    else if (flag == "placement")
        for (Placement p : { Placement::Packed, Placement::RailAligned, Placement::Scattered })
            out.emplace_back(placementName(p));
    else if (flag == "precision")
        for (Precision p : { Precision::Bf16, Precision::Fp16, Precision::Fp8 })
            out.emplace_back(precisionName(p));
    else if (flag == "recompute")
        for (Recompute r : { Recompute::None, Recompute::Selective, Recompute::Full })
            out.emplace_back(recomputeName(r));
    else if (flag == "schedule")
        for (ScheduleKind k : kScheduleKinds)
            out.emplace_back(scheduleName(k));
    else if (flag == "model")
        out = modelPresetNames();
    else if (flag == "stack")
        for (SoftwareStack k : kSoftwareStacks)
            out.emplace_back(stackName(k));
    else if (flag == "cp-attention")
        for (CpAttention a : kCpAttentions)
            out.emplace_back(cpAttentionName(a));
    else if (flag == "device")
        out = devicePresetNames();
    else if (flag == "ecmp")
        for (const EcmpMode m : kAllEcmpModes)
            out.emplace_back(ecmpModeName(m));
    return out;
}

/// `--on` / `--no-on` into `object[key]`; both at once is a contradiction.
bool readSwitchPair(
    const GenerateOptions &o, const char *on, const char *off, json &object, const char *key)
{
    const bool yes = o.given(on);
    const bool no = o.given(off);
    if (yes && no)
        return false;
    if (yes || no)
        object[key] = yes;
    return true;
}

/// The loader names JSON fields; name the flags that set them (generateerrors.h).
[[noreturn]] void rethrowForFlags(
    const ScenarioError &e, const GenerateOptions &o, const json &values)
{
    std::vector<FlagField> table;
    for (const Flag &f : flags())
        table.push_back({ f.name, f.field, o.given(f.name) });
    throw errorNamingFlags(e, table, values);
}

/// "7,8,8,7" as a JSON array of integers; the loader checks the values against the model.
json layersPerStage(const std::string &list)
{
    json out = json::array();
    std::size_t at = 0;
    while (at <= list.size()) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const std::string item = list.substr(at, comma - at);
        std::size_t used = 0;
        long long value = 0;
        try {
            value = std::stoll(item, &used);
        } catch (const std::exception &) {
            used = 0;
        }
        if (item.empty() || used != item.size())
            throw ScenarioError("--layers-per-stage",
                "expected a comma-separated list of layer counts such as 9,8,8,9, got '" + list
                    + "'");
        out.push_back(value);
        at = comma + 1;
    }
    return out;
}

/// --devices "h100-sxm:0-7,b200:8-11,14" as fabric.device_pools: a DEVICE:SERVERS item starts a
/// pool, an item without a colon adds servers to the pool before it. The loader checks the
/// device names and the servers (its errors name --devices).
json devicePoolsDocument(const std::string &list)
{
    json pools = json::array();
    std::size_t at = 0;
    while (at <= list.size()) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        const std::string item = list.substr(at, comma - at);
        const std::size_t colon = item.find(':');
        if (colon != std::string::npos)
            pools.push_back(
                { { "device", item.substr(0, colon) }, { "servers", item.substr(colon + 1) } });
        else if (!pools.empty())
            pools.back()["servers"] = pools.back()["servers"].get<std::string>() + "," + item;
        else
            throw ScenarioError("--devices",
                "expected DEVICE:SERVERS pools such as h200:16-31 or h100-sxm:0-7,b200:8-15, got '"
                    + list + "'");
        at = comma + 1;
    }
    return pools;
}

/// Whether any flag describes the workload (a preset, the model, the training or the device).
bool anyWorkloadFlag(const GenerateOptions &o)
{
    for (const Flag &f : flags())
        if (std::string(f.group) == kWorkload && o.given(f.name))
            return true;
    return false;
}

/// The scenario document the flags describe; values are checked by the loader afterwards.
/// What a custom model took by default goes to `assumed`.
json documentFromFlags(const GenerateOptions &o, std::vector<std::string> &assumed)
{
    const auto integer = [&o](json &object, const char *key, const char *flag) {
        if (o.given(flag))
            object[key] = o.integers.at(flag);
    };
    const auto text = [&o](json &object, const char *key, const char *flag) {
        if (o.given(flag))
            object[key] = o.texts.at(flag);
    };

    json fabric = json::object();
    text(fabric, "kind", "fabric");
    const std::int64_t servers = o.integers.at("servers");
    const std::int64_t gpus = o.integers.at("gpus-per-server");
    fabric["servers"] = servers;
    fabric["gpus_per_server"] = gpus;
    integer(fabric, "nics_per_server", "nics-per-server");
    integer(fabric, "servers_per_su", "servers-per-su");
    integer(fabric, "servers_per_leaf", "servers-per-leaf");
    integer(fabric, "spines", "spines");
    integer(fabric, "super_spines", "super-spines");
    integer(fabric, "switch_radix", "switch-radix");
    integer(fabric, "planes", "planes");
    text(fabric, "routing", "ecmp");
    integer(fabric, "qps_per_connection", "qps-per-connection");
    integer(fabric, "seeds", "seeds");
    if (o.given("plane-port-gbps"))
        fabric["plane_port_gbps"] = o.numbers.at("plane-port-gbps");
    const std::string device = o.given("device") ? o.texts.at("device")
        : o.given("nvl72")                       ? std::string("gb200")
                                                 : std::string("h100-sxm");
    const DeviceFabricDefaults defaults = deviceFabricDefaults(device);
    integer(fabric, "scaleup_domain_servers", "scaleup-domain-servers");
    if (o.given("nvl72")) {
        // The rack is the device's (presets.cpp cites the NVL72 figures); refused below when
        // the device has none or the tray size differs.
        fabric["scaleup_domain_servers"] = defaults.rackTrays;
        if (!o.given("servers-per-su") && o.texts.at("fabric") != "tor")
            fabric["servers_per_su"] = defaults.rackTrays; // a rack's trays on its rail leaves
    }
    fabric["nic_gbps"] = o.given("nic-gbps") ? o.numbers.at("nic-gbps") : defaults.nicGbps;
    fabric["scaleup_gbps"]
        = o.given("scaleup-gbps") ? o.numbers.at("scaleup-gbps") : defaults.scaleUpGbps;
    for (const auto &[key, flag] :
        std::vector<std::pair<const char *, const char *>> { { "pcie_gbps", "pcie-gbps" },
            { "fabric_gbps", "fabric-gbps" }, { "scaleup_latency_us", "scaleup-latency-us" },
            { "pcie_latency_us", "pcie-latency-us" }, { "nic_latency_us", "nic-latency-us" },
            { "fabric_latency_us", "fabric-latency-us" },
            { "leaf_oversubscription", "leaf-oversubscription" },
            { "spine_oversubscription", "spine-oversubscription" } })
        if (o.given(flag))
            fabric[key] = o.numbers.at(flag);
    fabric["pxn"] = o.given("pxn");
    if (o.given("devices"))
        fabric["device_pools"] = devicePoolsDocument(o.texts.at("devices"));
    fabric["name"]
        = o.texts.at("fabric") + "-" + std::to_string(servers) + "x" + std::to_string(gpus);

    json parallel = json::object();
    const DegreeOptions &d = o.degrees;
    parallel["tp"] = d.tp;
    parallel["pp"] = d.pp;
    parallel["cp"] = d.cp;
    if (d.epOption->count() > 0)
        parallel["ep"] = d.ep;
    text(parallel, "order", "order");
    if (d.dpOption->count() > 0) {
        parallel["dp"] = d.dp;
    } else {
        // dp fills the fabric. Out-of-range inputs skip this: the loader names them.
        const std::int64_t slots = servers * gpus;
        bool sane = servers >= 1 && gpus >= 1 && servers <= INT32_MAX && gpus <= INT32_MAX;
        std::int64_t cell = 1;
        for (std::int64_t degree : { d.tp, d.pp, d.cp }) {
            sane = sane && degree >= 1 && degree <= INT32_MAX;
            if (sane)
                sane = !__builtin_mul_overflow(cell, degree, &cell);
        }
        if (sane && (cell > slots || slots % cell != 0))
            throw ScenarioError("--dp",
                "not given, and the " + std::to_string(slots)
                    + " GPU slots (servers * gpus-per-server) are not a "
                      "multiple of tp*pp*cp = "
                    + std::to_string(cell) + "; give --dp");
        parallel["dp"] = sane ? slots / cell : 1;
    }

    json model = json::object();
    if (customModel(o))
        model = customModelDocument(o, assumed);
    else
        model["preset"] = o.given("model") ? o.texts.at("model") : std::string("llama2-70b");
    if (!readSwitchPair(o, "gated-mlp", "no-gated-mlp", model, "gated_mlp"))
        throw ScenarioError("--gated-mlp", "contradicts --no-gated-mlp");
    for (const auto &[key, flag] : std::vector<std::pair<const char *, const char *>> {
             { "layers", "layers" }, { "hidden", "hidden" }, { "heads", "heads" },
             { "kv_heads", "kv-heads" }, { "ffn", "ffn" }, { "seq", "seq" }, { "vocab", "vocab" },
             { "experts", "experts" }, { "top_k", "top-k" } })
        integer(model, key, flag);

    json training = json::object();
    if (o.given("stack")) {
        SoftwareStack stack = SoftwareStack::MegatronCoreTe;
        if (parseStack(o.texts.at("stack"), stack)) { // else the loader names the accepted ones
            stackDefaults(stack, o, training);
        }
        training["stack"] = o.texts.at("stack");
    }
    integer(training, "micro_batch", "micro-batch");
    integer(training, "global_batch", "global-batch");
    integer(training, "interleave", "interleave");
    text(training, "precision", "precision");
    text(training, "recompute", "recompute");
    text(training, "schedule", "schedule");
    text(training, "cp_attention", "cp-attention");
    if (!readSwitchPair(
            o, "sequence-parallel", "no-sequence-parallel", training, "sequence_parallel"))
        throw ScenarioError("--sequence-parallel", "contradicts --no-sequence-parallel");
    if (!readSwitchPair(o, "distributed-optimizer", "no-distributed-optimizer", training,
            "distributed_optimizer"))
        throw ScenarioError("--distributed-optimizer", "contradicts --no-distributed-optimizer");

    shardingFlags(o, training);
    if (o.given("compile")) {
        const std::string &mode = o.texts.at("compile");
        if (mode != "on" && mode != "off")
            throw UsageError("--compile: expected on or off, got '" + escapeControls(mode) + "'");
        training["compile"] = mode == "on";
    }
    if (o.given("layers-per-stage"))
        training["layers_per_stage"] = layersPerStage(o.texts.at("layers-per-stage"));
    for (const auto &[key, flag] : std::vector<std::pair<const char *, const char *>> {
             { "overlap_grad_reduce", "overlap-grad-reduce" },
             { "overlap_param_gather", "overlap-param-gather" },
             { "tp_comm_overlap", "tp-comm-overlap" } })
        if (o.given(flag))
            training[key] = true;
    if (!anyWorkloadFlag(o) && !training.contains("global_batch")) {
        // A fabric-only scenario (no workload flag): the layout and the fabric are the study,
        // so the batch is not the user's to check. The default global batch is rounded up to
        // the next multiple of micro_batch x dp (x cp), so that the file evaluates.
        const std::int64_t perStep = parallel["dp"].get<std::int64_t>() * d.cp;
        if (perStep >= 1 && perStep <= INT32_MAX) {
            const std::int64_t batch = TrainingSpec {}.globalBatch;
            training["global_batch"] = (batch + perStep - 1) / perStep * perStep;
        }
    }

    json mapping = json::object();
    text(mapping, "placement", "placement");

    json doc;
    doc["format_version"] = kScenarioFormatVersion;
    text(doc, "name", "name");
    text(doc, "description", "description");
    doc["fabric"] = std::move(fabric);
    doc["parallel"] = std::move(parallel);
    doc["model"] = std::move(model);
    doc["training"] = std::move(training);
    doc["device"] = deviceDocument(o, device);
    doc["mapping"] = std::move(mapping);
    return doc;
}

/// "llama2-70b-tp8-pp4-dp4" (cp and ep only when > 1).
std::string defaultName(const Scenario &s)
{
    std::string name = s.model.name.empty() ? std::string("scenario") : s.model.name;
    name += "-tp" + std::to_string(s.degrees.tp) + "-pp" + std::to_string(s.degrees.pp) + "-dp"
        + std::to_string(s.degrees.dp);
    if (s.degrees.cp > 1)
        name += "-cp" + std::to_string(s.degrees.cp);
    if (s.degrees.ep > 1)
        name += "-ep" + std::to_string(s.degrees.ep);
    return name;
}

/// The command line without the output path, for the description: the options in the order
/// they were given, each value with it (an option given twice lists both).
std::string commandLine(const CLI::App &app)
{
    std::string line = "railyard-cli generate";
    std::map<const CLI::Option *, std::size_t> seen;
    for (const CLI::Option *option : app.parse_order()) {
        const std::size_t occurrence = seen[option]++;
        if (option->check_lname("output"))
            continue;
        line += " " + option->get_name();
        if (option->get_type_size() == 0 || occurrence >= option->results().size())
            continue;
        const std::string &value = option->results()[occurrence];
        const bool quote = value.empty() || value.find_first_of(" \t'\"") != std::string::npos;
        // Control characters shown as \xHH: the description is text a report prints.
        line += quote ? " '" + escapeControls(value) + "'" : " " + escapeControls(value);
    }
    return line;
}

/// Flags the scenario would carry but nothing would read: refused, naming what they need.
void refuseFlagsThatDoNotApply(const GenerateOptions &o)
{
    const std::string &fabric = o.texts.at("fabric");
    if (o.given("servers-per-su") && fabric != "rail-optimised")
        throw UsageError("--servers-per-su applies only to --fabric rail-optimised (a ToR "
                         "fabric groups servers with --servers-per-leaf, a rail-only fabric "
                         "has one rail switch per rail)");
    if ((o.given("spines") || o.given("super-spines")) && fabric == "rail-only")
        throw UsageError("--spines and --super-spines do not apply to --fabric rail-only (it "
                         "has no spine)");
    if (o.given("plane-port-gbps") && !o.given("planes"))
        throw UsageError("--plane-port-gbps applies only with --planes P (P > 1)");
    if (o.given("servers-per-leaf") && fabric != "tor")
        throw UsageError("--servers-per-leaf applies only to --fabric tor (a rail-optimised "
                         "fabric groups servers with --servers-per-su)");
    if (o.given("nvl72")) {
        const std::string device = o.given("device") ? o.texts.at("device") : "gb200";
        const DeviceFabricDefaults d = deviceFabricDefaults(device);
        if (o.given("scaleup-domain-servers"))
            throw UsageError("--nvl72 sets the NVLink domain (--scaleup-domain-servers); give "
                             "one of them");
        if (d.rackTrays == 0)
            throw UsageError("--nvl72 applies only to a device with NVL72 racks (--device gb200 "
                             "or gb300), not "
                + device);
        if (o.integers.at("gpus-per-server") != d.trayGpus)
            throw UsageError("--nvl72: a " + device + " compute tray holds "
                + std::to_string(d.trayGpus) + " GPUs; give --gpus-per-server "
                + std::to_string(d.trayGpus));
    }
    const bool interleaved = o.given("schedule") && o.texts.at("schedule") == "interleaved";
    if (o.given("interleave") && !interleaved)
        throw UsageError("--interleave applies only to --schedule interleaved");
}

int runGenerate(const GenerateOptions &o)
{
    refuseFlagsThatDoNotApply(o);
    Scenario scenario;
    std::string text;
    json values; // what an error message quotes: the flags' document, then the scenario
    std::vector<std::string> assumed; // a custom model's defaults, stated
    try {
        values = documentFromFlags(o, assumed);
        scenario = scenarioFromJson(values);
        values = scenarioToJson(scenario);
        // Whether the model has experts is known once the preset is applied.
        if (o.given("top-k") && scenario.model.experts == 0)
            throw UsageError("--top-k applies only to a mixture-of-experts model (--experts > 0 "
                             "or a MoE --model such as mixtral-8x7b)");
        if (o.given("calibration"))
            applyComputeCalibration(scenario, loadComputeCalibration(o.texts.at("calibration")));
        if (!o.given("name"))
            scenario.name = defaultName(scenario);
        std::string assumptions;
        for (const std::string &a : assumed)
            assumptions += (assumptions.empty() ? "" : "; ") + a;
        if (!o.given("description"))
            scenario.description = commandLine(*o.app)
                + (assumed.empty() ? "" : " (custom model, assumed: " + assumptions + ")");

        // What is written must load back, and the engine must accept it.
        text = scenarioToText(scenario);
        Scenario written = parseScenario(text);
        // The mapping is checked against the fabric's vertices and NIC attachments, which is
        // what the check reads: building its links and graph too was 2 GB and most of
        // generate's time at a million GPUs (docs/performance.md, "A million GPUs"). Link
        // degradations need the links; a file with them is checked on the whole fabric.
        // Built inside the check, beside the layout and plan on a second thread (from 16,384
        // GPUs, prepareEvaluation()).
        checkScenario(written, nullptr, FabricParts::Shape);
    } catch (const ScenarioError &e) {
        rethrowForFlags(e, o, values);
    }
    writeOutput(o.output, text);
    if (!assumed.empty()) {
        std::string note = "railyard-cli: note: custom model (no --model), assumed:";
        for (const std::string &a : assumed)
            note += "\n  " + a;
        std::cerr << note << "\n";
    }
    return kExitOk;
}

} // namespace

void addGenerate(CommandLine &line)
{
    auto o = std::make_shared<GenerateOptions>();
    CLI::App &app = line.addCommand("generate",
        "Write a scenario (fabric, parallel layout, workload, device, placement) as JSON.\n"
        "Bandwidths are per link per direction in Gbit/s. Workload flags override --model.",
        [o] { return runGenerate(*o); });
    o->app = &app;
    Command c(line, app);
    for (const Flag &f : flags()) {
        const std::string names = std::string("--") + f.name;
        CLI::Option *option = nullptr;
        switch (f.kind) {
        case Kind::Integer:
            option = c.integer(names, o->integers[f.name], f.valueName, f.help);
            break;
        case Kind::Number:
            option = c.number(names, o->numbers[f.name], f.valueName, f.help);
            break;
        case Kind::Text: {
            std::vector<std::string> values = choicesOf(f.name);
            option = values.empty()
                ? c.text(names, o->texts[f.name], f.valueName, f.help)
                : c.choice(names, o->texts[f.name], f.valueName, f.help, std::move(values));
            break;
        }
        case Kind::Switch:
            option = c.flag(names, o->switches[f.name], f.help);
            break;
        case Kind::Degree:
            // The table lists the degrees for rethrowForFlags; the shared degree options are
            // added once, where the first of them stands, so the help keeps the table's order.
            if (std::string(f.name) == "tp") {
                c.degrees(o->degrees, "Data-parallel degree (default: all slots / (tp*pp*cp)).",
                    "Expert-parallel degree (default 1).");
                for (const char *degree : { "--tp", "--pp", "--dp", "--cp", "--ep" })
                    app.get_option(degree)->group(f.group);
            }
            continue;
        }
        option->group(f.group);
    }
    for (const char *required : { "--fabric", "--servers", "--gpus-per-server" })
        app.get_option(required)->required();
    c.output(o->output)->group(kScenario);
}

} // namespace railyard::cli
