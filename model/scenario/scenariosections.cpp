/**
 * The sections of a scenario file, read one by one: "fabric", "parallel", "model" (with its
 * "routing"), "training", "device", "mapping" and "failures". Each reader checks types and
 * ranges against base/sizelimits.h before anything is allocated from them and throws
 * ScenarioError naming the field path; the schema is documented in scenariofile.cpp.
 */
#include "scenario/scenariosections.h"

#include "base/jsonfields.h"
#include "base/physicalranges.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"
#include "scenario/cablingsection.h"
#include "scenario/devicepools.h"
#include "workload/presets.h"
#include "workload/workloadnames.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_set>

namespace railyard::scenariosections {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxOrderBytes = 64;
constexpr std::int64_t kMaxSwitchRadix = 1 << 16;
constexpr double kMaxOversubscription = 1000.0;
constexpr double kMaxHbmGB = 1e6;
/// The lowest GEMM efficiency a device may be given: 1 % of peak. Real training reaches 30 to
/// 60 % model FLOPs utilisation (Megatron-LM, Narayanan et al. 2021); a lower share is a typo,
/// and a share near 0 would make every compute time infinite.
constexpr double kMinEfficiency = 0.01;
constexpr std::int64_t kMaxHidden = 1 << 20;
constexpr std::int64_t kMaxHeads = 1 << 16;
constexpr std::int64_t kMaxHeadDim = 1 << 16;
constexpr double kMaxAllowanceGB = 1e6;
constexpr std::int64_t kMaxFfn = 1 << 22;
constexpr std::int64_t kMaxSeq = 1 << 24;
constexpr std::int64_t kMaxVocab = 1 << 24;
constexpr std::int64_t kMaxExperts = 1 << 16;
constexpr std::int64_t kMaxMicroBatch = 1 << 20;
constexpr std::int64_t kMaxGlobalBatch = 1 << 30;
constexpr std::int64_t kMaxSms = 1 << 16;

/// "a, b, c" for the "(accepted: ...)" part of a message.
std::string joined(const std::vector<std::string> &names)
{
    std::string out;
    for (const std::string &n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

ModelSpec presetModel(const std::string &name, const std::string &path)
{
    if (std::optional<ModelSpec> preset = modelPreset(name))
        return *preset;
    throw ScenarioError(path,
        "unknown preset " + jsonQuote(json(name)) + " (accepted: " + joined(modelPresetNames())
            + ")");
}

DeviceSpec presetDevice(const std::string &name, const std::string &path)
{
    if (std::optional<DeviceSpec> preset = devicePreset(name))
        return *preset;
    throw ScenarioError(path,
        "unknown preset " + jsonQuote(json(name)) + " (accepted: " + joined(devicePresetNames())
            + ")");
}

/// "model.routing" (workload/eprouting.h). `baseDir` resolves a relative hotness_file.
ExpertRouting readRouting(
    const json &value, const std::string &path, int experts, const std::string &baseDir)
{
    JsonFields f(value, path, { "kind", "zipf_exponent", "hotness", "hotness_file" });
    f.rejectUnknown();
    ExpertRouting r;
    r.kind = f.choice("kind", r.kind,
        { RoutingKind::Uniform, RoutingKind::Zipf, RoutingKind::Explicit }, routingKindName);
    const auto onlyWith = [&f, &r](std::string_view key, RoutingKind kind) {
        if (f.has(key) && r.kind != kind)
            throw ScenarioError(f.fieldPath(key),
                "only used with kind \"" + std::string(routingKindName(kind)) + "\", but kind is \""
                    + std::string(routingKindName(r.kind)) + "\"");
    };
    onlyWith("zipf_exponent", RoutingKind::Zipf);
    onlyWith("hotness", RoutingKind::Explicit);
    onlyWith("hotness_file", RoutingKind::Explicit);
    r.zipfExponent = f.number("zipf_exponent", r.zipfExponent, 0.0, kMaxZipfExponent);
    if (r.kind == RoutingKind::Explicit) {
        if (f.has("hotness") == f.has("hotness_file"))
            throw ScenarioError(path,
                "explicit routing needs exactly one of hotness and "
                "hotness_file");
        if (const json *hot = f.array("hotness", static_cast<std::size_t>(kMaxExperts))) {
            for (std::size_t i = 0; i < hot->size(); ++i)
                r.hotness.push_back(
                    jsonNumber((*hot)[i], jsonElementPath(f.fieldPath("hotness"), i), 0.0, 1e300));
        } else {
            const std::string file = f.string("hotness_file", "", 4096, false);
            requirePrintableUtf8(f.fieldPath("hotness_file"), file);
            const bool relative = file.front() != '/' && !baseDir.empty();
            r.hotness = loadHotnessFile(relative ? baseDir + "/" + file : file);
        }
    }
    checkRouting(r, experts, path);
    return r;
}

/// "training.memory_allowance": each part optional; an absent part keeps its default.
MemoryAllowanceSpec readMemoryAllowance(const json &value, const std::string &path)
{
    JsonFields f(value, path, { "cuda_context_gb", "nccl_gb", "fragmentation" });
    f.rejectUnknown();
    MemoryAllowanceSpec a;
    if (f.has("cuda_context_gb"))
        a.cudaContextBytes = f.number("cuda_context_gb", 0.0, 0.0, kMaxAllowanceGB) * 1e9;
    if (f.has("nccl_gb"))
        a.ncclBytes = f.number("nccl_gb", 0.0, 0.0, kMaxAllowanceGB) * 1e9;
    if (f.has("fragmentation"))
        a.fragmentation = f.number("fragmentation", 0.0, 0.0, 0.99);
    return a;
}

} // namespace

std::string_view fabricKindText(FabricKind k)
{
    return k == FabricKind::Tor     ? "tor"
        : k == FabricKind::RailOnly ? "rail-only"
                                    : "rail-optimised";
}

FabricSpec readFabric(const json &value)
{
    JsonFields f(value, "fabric",
        { "kind", "name", "servers", "gpus_per_server", "nics_per_server", "gpu_to_nic",
            "server_names", "servers_per_su", "servers_per_leaf", "switch_radix", "spines",
            "super_spines", "leaf_oversubscription", "spine_oversubscription", "scaleup_gbps",
            "scaleup_latency_us", "pcie_gbps", "pcie_latency_us", "nic_gbps", "nic_latency_us",
            "fabric_gbps", "fabric_latency_us", "pxn", "gpu_numa", "nic_devices", "gpu_pci_bus_ids",
            "nic_pci_bus_ids", "nic_numa", "gpu_pci_paths", "nic_pci_paths", "cabling",
            "scaleup_domain_servers", "planes", "plane_port_gbps", "routing", "qps_per_connection",
            "seeds", "adaptive_efficiency", "device_pools" });
    f.rejectUnknown();

    FabricSpec spec;
    if (const json *kind = f.find("kind");
        kind && kind->is_string() && kind->get<std::string>() == "rail-optimized")
        spec.kind = FabricKind::RailOptimised; // the American spelling is read, never written
    else
        spec.kind = f.choice("kind", spec.kind,
            { FabricKind::RailOptimised, FabricKind::Tor, FabricKind::RailOnly }, fabricKindText);
    spec.name = f.string("name", spec.name, limits::kMaxNameBytes);
    requirePrintableUtf8(f.fieldPath("name"), spec.name);

    // The product is checked before the per-field limits, so an absurd size is named as such;
    // values that are no plain integers get their own message from the strict reads below.
    const auto loose = [&f](std::string_view key) -> std::int64_t {
        const json &v = f.required(key);
        const bool plain = v.is_number_integer() && !v.is_number_float();
        if (!plain || (v.is_number_unsigned() && v.get<std::uint64_t>() > INT_MAX))
            return 0;
        const auto n = v.get<std::int64_t>();
        return n >= 1 && n <= INT_MAX ? n : 0;
    };
    const std::int64_t slots = loose("servers") * loose("gpus_per_server");
    if (slots > limits::kMaxGpus)
        throw ScenarioError("fabric",
            std::to_string(slots) + " GPU slots exceed the limit of "
                + std::to_string(limits::kMaxGpus) + " (servers * gpus_per_server)");
    spec.servers = static_cast<int>(f.requiredInteger("servers", 1, limits::kMaxServers));
    spec.gpusPerServer
        = static_cast<int>(f.requiredInteger("gpus_per_server", 1, limits::kMaxGpusPerServer));
    spec.nicsPerServer
        = f.integer("nics_per_server", spec.nicsPerServer, 0, limits::kMaxGpusPerServer);
    const int nics = spec.nicsPerServer > 0 ? spec.nicsPerServer : spec.gpusPerServer;

    if (const json *map = f.array("gpu_to_nic", limits::kMaxGpusPerServer)) {
        if (map->size() != static_cast<std::size_t>(spec.gpusPerServer))
            throw ScenarioError(f.fieldPath("gpu_to_nic"),
                "has " + std::to_string(map->size()) + " entries but gpus_per_server is "
                    + std::to_string(spec.gpusPerServer));
        spec.gpuToNic.reserve(map->size());
        for (std::size_t i = 0; i < map->size(); ++i) {
            const std::string path = jsonElementPath(f.fieldPath("gpu_to_nic"), i);
            const std::int64_t nic = jsonInteger((*map)[i], path, 0, INT_MAX);
            if (nic >= nics)
                throw ScenarioError(path,
                    "NIC " + std::to_string(nic) + " does not exist (the server has "
                        + std::to_string(nics) + " NICs)");
            spec.gpuToNic.push_back(static_cast<int>(nic));
        }
    }

    if (const json *names = f.array("server_names", limits::kMaxServers)) {
        if (names->size() != static_cast<std::size_t>(spec.servers))
            throw ScenarioError(f.fieldPath("server_names"),
                "has " + std::to_string(names->size()) + " entries but servers is "
                    + std::to_string(spec.servers));
        std::unordered_set<std::string> seen;
        spec.serverNames.reserve(names->size());
        for (std::size_t i = 0; i < names->size(); ++i) {
            const std::string path = jsonElementPath(f.fieldPath("server_names"), i);
            const json &name = (*names)[i];
            if (!name.is_string())
                throw ScenarioError(path, "expected a string, got " + jsonTypeName(name));
            const auto &text = name.get_ref<const std::string &>();
            if (text.empty())
                throw ScenarioError(path, "must not be empty");
            if (text.size() > limits::kMaxNameBytes)
                throw ScenarioError(path,
                    "text of " + std::to_string(text.size()) + " bytes exceeds the limit of "
                        + std::to_string(limits::kMaxNameBytes));
            requirePrintableUtf8(path, text);
            if (!seen.insert(text).second)
                throw ScenarioError(path, "duplicate server name " + jsonQuote(name));
            spec.serverNames.push_back(text);
        }
    }

    // The host's identity for launchers and the run record (NUMA, RDMA names, PCI bus IDs).
    if (const json *numa = f.array("gpu_numa", limits::kMaxGpusPerServer)) {
        if (numa->size() != static_cast<std::size_t>(spec.gpusPerServer))
            throw ScenarioError(f.fieldPath("gpu_numa"),
                "has " + std::to_string(numa->size()) + " entries but gpus_per_server is "
                    + std::to_string(spec.gpusPerServer));
        for (std::size_t i = 0; i < numa->size(); ++i)
            spec.gpuNuma.push_back(static_cast<int>(
                jsonInteger((*numa)[i], jsonElementPath(f.fieldPath("gpu_numa"), i), 0, 63)));
    }
    const auto names = [&f](const char *key, std::size_t count, const char *per,
                           bool (*valid)(const std::string &), const char *form) {
        std::vector<std::string> out;
        const json *list = f.array(key, count);
        if (!list)
            return out;
        if (list->size() != count)
            throw ScenarioError(f.fieldPath(key),
                "has " + std::to_string(list->size()) + " entries but the server has "
                    + std::to_string(count) + " " + per);
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string path = jsonElementPath(f.fieldPath(key), i);
            const json &v = (*list)[i];
            if (!v.is_string())
                throw ScenarioError(path, "expected a string, got " + jsonTypeName(v));
            const auto &text = v.get_ref<const std::string &>();
            if (!valid(text))
                throw ScenarioError(path, jsonQuote(v).substr(0, 80) + " is not " + form);
            out.push_back(text);
        }
        return out;
    };
    const auto rdmaName = [](const std::string &t) {
        return !t.empty() && t.size() <= 64 && std::all_of(t.begin(), t.end(), [](char ch) {
            return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-'
                || ch == '.';
        });
    };
    // domain:bus:device.function, hexadecimal (lspci -D, nvidia-smi's pci.bus_id).
    const auto busId = [](const std::string &t) {
        if (t.size() < 7 || t.size() > 16)
            return false;
        const std::size_t dot = t.rfind('.'), colon = t.rfind(':');
        return dot != std::string::npos && colon != std::string::npos && colon < dot
            && std::all_of(t.begin(), t.end(), [](char ch) {
                   return std::isxdigit(static_cast<unsigned char>(ch)) || ch == ':' || ch == '.';
               });
    };
    const auto gpus = static_cast<std::size_t>(spec.gpusPerServer);
    const auto nicCount = static_cast<std::size_t>(nics);
    spec.nicDevices = names("nic_devices", nicCount, "NICs", +rdmaName,
        "an RDMA device name (letters, digits, '_', '-', '.')");
    spec.gpuPciBusIds = names(
        "gpu_pci_bus_ids", gpus, "GPUs", +busId, "a PCI bus ID (domain:bus:device.function)");
    spec.nicPciBusIds = names(
        "nic_pci_bus_ids", nicCount, "NICs", +busId, "a PCI bus ID (domain:bus:device.function)");
    if (const json *numa = f.array("nic_numa", nicCount)) {
        if (numa->size() != nicCount)
            throw ScenarioError(f.fieldPath("nic_numa"),
                "has " + std::to_string(numa->size()) + " entries but the server has "
                    + std::to_string(nicCount) + " NICs");
        for (std::size_t i = 0; i < numa->size(); ++i)
            spec.nicNuma.push_back(static_cast<int>(
                jsonInteger((*numa)[i], jsonElementPath(f.fieldPath("nic_numa"), i), 0, 63)));
    }
    // The PCIe tree: per device the bridges above it, each a bus ID (a few levels at most;
    // NCCL_TOPO_DUMP_FILE of a DGX H100 has one or two).
    const auto paths = [&f, &busId](const char *key, std::size_t count, const char *per) {
        std::vector<std::vector<std::string>> out;
        const json *list = f.array(key, count);
        if (!list)
            return out;
        if (list->size() != count)
            throw ScenarioError(f.fieldPath(key),
                "has " + std::to_string(list->size()) + " entries but the server has "
                    + std::to_string(count) + " " + per);
        constexpr std::size_t kMaxPciDepth = 16;
        for (std::size_t i = 0; i < list->size(); ++i) {
            const std::string path = jsonElementPath(f.fieldPath(key), i);
            const json &chain = (*list)[i];
            if (!chain.is_array())
                throw ScenarioError(
                    path, "expected a list of PCIe bridge bus IDs, got " + jsonTypeName(chain));
            if (chain.size() > kMaxPciDepth)
                throw ScenarioError(path,
                    std::to_string(chain.size()) + " PCIe levels exceed the limit of "
                        + std::to_string(kMaxPciDepth));
            std::vector<std::string> bridges;
            for (std::size_t j = 0; j < chain.size(); ++j) {
                const std::string where = jsonElementPath(path, j);
                const json &v = chain[j];
                if (!v.is_string())
                    throw ScenarioError(where, "expected a string, got " + jsonTypeName(v));
                if (!busId(v.get_ref<const std::string &>()))
                    throw ScenarioError(where,
                        jsonQuote(v).substr(0, 80)
                            + " is not a PCI bus ID (domain:bus:device.function)");
                bridges.push_back(v.get<std::string>());
            }
            out.push_back(std::move(bridges));
        }
        return out;
    };
    spec.gpuPciPaths = paths("gpu_pci_paths", gpus, "GPUs");
    spec.nicPciPaths = paths("nic_pci_paths", nicCount, "NICs");

    spec.serversPerSu = f.integer("servers_per_su", spec.serversPerSu, 1, limits::kMaxServers);
    // Servers per scale-up (NVLink) domain; Fabric::build() checks that it divides the servers.
    spec.scaleUpDomainServers
        = f.integer("scaleup_domain_servers", spec.scaleUpDomainServers, 1, limits::kMaxServers);
    spec.serversPerLeaf
        = f.integer("servers_per_leaf", spec.serversPerLeaf, 0, limits::kMaxServers);
    spec.switchRadix = f.integer("switch_radix", spec.switchRadix, 2, kMaxSwitchRadix);
    spec.spines = f.integer("spines", spec.spines, 0, limits::kMaxSwitches);
    spec.superSpines = f.integer("super_spines", spec.superSpines, 0, limits::kMaxSwitches);
    if (std::int64_t { spec.spines } + spec.superSpines > limits::kMaxSwitches)
        throw ScenarioError("fabric",
            "spines + super_spines = "
                + std::to_string(std::int64_t { spec.spines } + spec.superSpines)
                + " switches exceed the limit of " + std::to_string(limits::kMaxSwitches));
    spec.leafOversubscription = f.number("leaf_oversubscription", spec.leafOversubscription, 0.0,
        kMaxOversubscription, LowerBound::Exclusive);
    spec.spineOversubscription = f.number("spine_oversubscription", spec.spineOversubscription, 0.0,
        kMaxOversubscription, LowerBound::Exclusive);

    const auto link = [&f](const char *gbpsKey, const char *latencyKey, LinkSpec fallback) {
        LinkSpec l;
        l.gbps = f.number(gbpsKey, fallback.gbps, ranges::kMinLinkGbps, ranges::kMaxLinkGbps);
        l.latencyUs = f.number(latencyKey, fallback.latencyUs, 0.0, ranges::kMaxLatencyUs);
        return l;
    };
    spec.scaleUp = link("scaleup_gbps", "scaleup_latency_us", spec.scaleUp);
    spec.pcie = link("pcie_gbps", "pcie_latency_us", spec.pcie);
    spec.nic = link("nic_gbps", "nic_latency_us", spec.nic);
    spec.fabricPort = link("fabric_gbps", "fabric_latency_us", spec.fabricPort);
    spec.pxn = f.boolean("pxn", spec.pxn);
    // Network planes (fabric.h): Fabric::build() checks the upper bound with its message.
    spec.planes = f.integer("planes", spec.planes, 1, 16);
    spec.planePortGbps = f.number("plane_port_gbps", spec.planePortGbps, 0.0, ranges::kMaxLinkGbps);
    if (spec.planePortGbps > 0.0 && spec.planePortGbps < ranges::kMinLinkGbps)
        throw ScenarioError(f.fieldPath("plane_port_gbps"),
            "must be 0 (nic_gbps / planes) or at least "
                + nlohmann::json(ranges::kMinLinkGbps).dump() + " Gbit/s, got "
                + nlohmann::json(spec.planePortGbps).dump());
    if (const json *cabling = f.find("cabling"))
        spec.cabling = readCabling(*cabling);
    // ECMP (docs/ecmp.md): how flows take the equal-cost paths; bounds in EcmpRouting.
    EcmpRouting &r = spec.routing;
    r.mode = f.choice(
        "routing", r.mode, { EcmpMode::Ideal, EcmpMode::Hashed, EcmpMode::Adaptive }, ecmpModeName);
    r.qpsPerConnection
        = f.integer("qps_per_connection", r.qpsPerConnection, 1, EcmpRouting::kMaxQps);
    r.seeds = f.integer("seeds", r.seeds, 1, EcmpRouting::kMaxSeeds);
    r.adaptiveEfficiency
        = f.number("adaptive_efficiency", r.adaptiveEfficiency, 0.0, 1.0, LowerBound::Exclusive);
    // Mixed devices (docs/mixed-devices.md); the names are checked once the device is read.
    if (const json *pools = f.find("device_pools"))
        spec.devicePools = devicepools::readDevicePools(*pools, spec.servers);
    return spec;
}

/// Reads "parallel"; `slotCount` is the fabric's GPU slots (already checked against the limit).
void readParallel(const json &value, std::int64_t slotCount, Scenario &s)
{
    JsonFields f(value, "parallel", { "tp", "pp", "dp", "cp", "ep", "order" });
    f.rejectUnknown();
    ParallelDegrees &d = s.degrees;
    d.tp = static_cast<int>(f.requiredInteger("tp", 1, limits::kMaxDegree));
    d.pp = static_cast<int>(f.requiredInteger("pp", 1, limits::kMaxDegree));
    d.dp = static_cast<int>(f.requiredInteger("dp", 1, limits::kMaxDegree));
    d.cp = f.integer("cp", 1, 1, limits::kMaxDegree);
    d.ep = f.integer("ep", 1, 1, limits::kMaxDegree);
    s.order = f.string("order", s.order, kMaxOrderBytes, false);

    // Each degree is <= 2^20, so tp*pp*dp fits in 64 bits; times cp it may not.
    const std::int64_t tpPpDp = std::int64_t { d.tp } * d.pp * d.dp;
    std::int64_t world = 0;
    const bool overflow = __builtin_mul_overflow(tpPpDp, std::int64_t { d.cp }, &world);
    if (overflow || world > slotCount)
        throw ScenarioError("parallel",
            "tp*pp*dp*cp = "
                + (overflow ? "more than " + std::to_string(INT64_MAX) : std::to_string(world))
                + " ranks but the fabric has " + std::to_string(slotCount) + " GPU slots");
}

ModelSpec readModel(const json &value, const std::string &baseDir)
{
    if (value.is_string())
        return presetModel(value.get<std::string>(), "model");
    if (!value.is_object())
        throw ScenarioError(
            "model", "expected an object or a preset name, got " + jsonTypeName(value));
    JsonFields f(value, "model",
        { "preset", "name", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "gated_mlp",
            "seq", "vocab", "experts", "top_k", "moe_layer_freq", "routing" });
    f.rejectUnknown();
    ModelSpec m;
    if (f.has("preset"))
        m = presetModel(f.string("preset", "", limits::kMaxNameBytes), f.fieldPath("preset"));
    m.name = f.string("name", m.name, limits::kMaxNameBytes);
    requirePrintableUtf8(f.fieldPath("name"), m.name);
    m.layers = f.integer("layers", m.layers, 1, limits::kMaxLayers);
    m.hidden = f.integer("hidden", m.hidden, 1, kMaxHidden);
    m.heads = f.integer("heads", m.heads, 1, kMaxHeads);
    m.kvHeads = f.integer("kv_heads", m.kvHeads, 0, kMaxHeads);
    m.headDim = f.integer("head_dim", m.headDim, 0, kMaxHeadDim);
    m.ffn = f.integer("ffn", m.ffn, 1, kMaxFfn);
    m.gatedMlp = f.boolean("gated_mlp", m.gatedMlp);
    m.seq = f.integer("seq", m.seq, 1, kMaxSeq);
    m.vocab = f.integer("vocab", m.vocab, 1, kMaxVocab);
    m.experts = f.integer("experts", m.experts, 0, kMaxExperts);
    m.topK = f.integer("top_k", m.topK, 0, kMaxExperts);
    m.moeLayerFreq = f.integer("moe_layer_freq", m.moeLayerFreq, 1, limits::kMaxLayers);
    if (const json *routing = f.find("routing"))
        m.routing = readRouting(*routing, f.fieldPath("routing"), m.experts, baseDir);
    return m;
}

TrainingSpec readTraining(const json &value)
{
    JsonFields f(value, "training",
        { "micro_batch", "global_batch", "precision", "sequence_parallel", "recompute",
            "distributed_optimizer", "schedule", "interleave", "layers_per_stage",
            "overlap_grad_reduce", "overlap_param_gather", "tp_comm_overlap", "dp_overlap",
            "hierarchical_allreduce", "flash_attention", "pipeline_scatter_gather",
            "fp8_param_gather", "grad_reduce_bf16", "dp_sharding", "memory_allowance", "stack",
            "fsdp", "fsdp_prefetch", "compile", "cp_attention" });
    f.rejectUnknown();
    TrainingSpec t;
    t.microBatch = f.integer("micro_batch", t.microBatch, 1, kMaxMicroBatch);
    t.globalBatch = f.integer("global_batch", t.globalBatch, 1, kMaxGlobalBatch);
    t.precision = f.choice("precision", t.precision,
        { Precision::Bf16, Precision::Fp16, Precision::Fp8 }, precisionName);
    t.sequenceParallel = f.boolean("sequence_parallel", t.sequenceParallel);
    t.recompute = f.choice("recompute", t.recompute,
        { Recompute::None, Recompute::Selective, Recompute::Full }, recomputeName);
    t.distributedOptimizer = f.boolean("distributed_optimizer", t.distributedOptimizer);
    t.schedule = f.choice("schedule", t.schedule,
        { ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved,
            ScheduleKind::ZbH1, ScheduleKind::DualPipe },
        scheduleName);
    t.interleave = f.integer("interleave", t.interleave, 1, limits::kMaxLayers);
    // One entry per pipeline stage or per virtual stage: at most kMaxDegree x kMaxLayers, but
    // no split has more entries than layers, so the layer limit bounds the array first.
    if (const json *split
        = f.array("layers_per_stage", static_cast<std::size_t>(limits::kMaxLayers))) {
        const std::string path = f.fieldPath("layers_per_stage");
        t.layersPerStage.reserve(split->size());
        for (std::size_t i = 0; i < split->size(); ++i)
            t.layersPerStage.push_back(static_cast<int>(
                jsonInteger((*split)[i], jsonElementPath(path, i), 1, limits::kMaxLayers)));
    }
    // Megatron-LM's names; "dp_overlap" is the name files before them used for
    // overlap_grad_reduce, still read (never written).
    if (f.has("dp_overlap") && f.has("overlap_grad_reduce"))
        throw ScenarioError(f.fieldPath("dp_overlap"),
            "the old name of overlap_grad_reduce: give only overlap_grad_reduce");
    t.dpOverlap = f.boolean("dp_overlap", t.dpOverlap);
    t.dpOverlap = f.boolean("overlap_grad_reduce", t.dpOverlap);
    t.overlapParamGather = f.boolean("overlap_param_gather", t.overlapParamGather);
    t.tpCommOverlap = f.boolean("tp_comm_overlap", t.tpCommOverlap);
    t.hierarchicalAllReduce = f.boolean("hierarchical_allreduce", t.hierarchicalAllReduce);
    t.flashAttention = f.boolean("flash_attention", t.flashAttention);
    t.pipelineScatterGather = f.boolean("pipeline_scatter_gather", t.pipelineScatterGather);
    t.fp8ParamGather = f.boolean("fp8_param_gather", t.fp8ParamGather);
    t.gradReduceBf16 = f.boolean("grad_reduce_bf16", t.gradReduceBf16);
    t.dpSharding = f.choice("dp_sharding", t.dpSharding,
        { DpSharding::Optim, DpSharding::OptimGrads, DpSharding::OptimGradsParams },
        dpShardingName);
    if (const json *fsdp = f.find("fsdp")) {
        const std::string text = f.string("fsdp", "full", 32, false);
        if (!parseFsdpMode(text, t.fsdpShard))
            throw ScenarioError(f.fieldPath("fsdp"),
                "expected \"full\" or \"hybrid:R\" (R ranks per shard group, 1 to "
                    + std::to_string(limits::kMaxDegree) + "), got " + fsdp->dump());
    }
    if (const json *prefetch = f.find("fsdp_prefetch")) {
        // true = 1 (every gather prefetched), false = 0 (none), or the share in between.
        t.fsdpPrefetch = prefetch->is_boolean() ? (prefetch->get<bool>() ? 1.0 : 0.0)
                                                : f.number("fsdp_prefetch", 1.0, 0.0, 1.0);
    }
    if (f.has("stack"))
        t.stack = f.choice("stack", SoftwareStack::MegatronCoreTe,
            { SoftwareStack::MegatronCoreTe, SoftwareStack::MegatronLm, SoftwareStack::Fsdp2,
                SoftwareStack::DeepSpeed, SoftwareStack::Composer },
            stackName);
    if (f.has("compile"))
        t.compile = f.boolean("compile", false);
    if (f.has("cp_attention"))
        t.cpAttention = f.choice("cp_attention", CpAttention::TeP2p,
            { CpAttention::TeP2p, CpAttention::TorchAllGather }, cpAttentionName);
    if (const json *allowance = f.find("memory_allowance"))
        t.memoryAllowance = readMemoryAllowance(*allowance, f.fieldPath("memory_allowance"));
    return t;
}

CollectiveSpec readCollectives(const json &value)
{
    JsonFields f(value, "collectives", { "algorithm", "nvls" });
    f.rejectUnknown();
    CollectiveSpec c;
    using A = CollectiveAlgorithm;
    c.algorithm = f.choice("algorithm", c.algorithm,
        { A::Auto, A::Ring, A::MemberOrder, A::Tree, A::Nvls, A::Hierarchical, A::Pat },
        collectiveAlgorithmName);
    if (f.has("nvls"))
        c.nvls = f.boolean("nvls", false);
    return c;
}

DeviceSpec readDevice(const json &value)
{
    if (value.is_string())
        return presetDevice(value.get<std::string>(), "device");
    if (!value.is_object())
        throw ScenarioError(
            "device", "expected an object or a preset name, got " + jsonTypeName(value));
    JsonFields f(value, "device",
        { "preset", "name", "peak_tflops_bf16", "peak_tflops_fp16", "peak_tflops_fp8", "hbm_gb",
            "hbm_gbps", "max_efficiency", "max_efficiency_fp8", "kernel_overhead_us",
            "streaming_multiprocessors" });
    f.rejectUnknown();
    DeviceSpec d;
    if (f.has("preset"))
        d = presetDevice(f.string("preset", "", limits::kMaxNameBytes), f.fieldPath("preset"));
    d.name = f.string("name", d.name, limits::kMaxNameBytes);
    requirePrintableUtf8(f.fieldPath("name"), d.name);
    d.peakTflopsBf16
        = f.number("peak_tflops_bf16", d.peakTflopsBf16, ranges::kMinTflops, ranges::kMaxTflops);
    d.peakTflopsFp16
        = f.number("peak_tflops_fp16", d.peakTflopsFp16, ranges::kMinTflops, ranges::kMaxTflops);
    // 0 = the device has no fp8 tensor cores (A100); planWorkload refuses fp8 on it.
    d.peakTflopsFp8 = f.number("peak_tflops_fp8", d.peakTflopsFp8, 0.0, ranges::kMaxTflops);
    if (d.peakTflopsFp8 > 0.0 && d.peakTflopsFp8 < ranges::kMinTflops)
        throw ScenarioError(f.fieldPath("peak_tflops_fp8"),
            "must be 0 (no fp8) or at least " + nlohmann::json(ranges::kMinTflops).dump() + ", got "
                + nlohmann::json(d.peakTflopsFp8).dump());
    d.hbmBytes = f.number("hbm_gb", d.hbmBytes / 1e9, 0.0, kMaxHbmGB, LowerBound::Exclusive) * 1e9;
    d.hbmGBps = f.number("hbm_gbps", d.hbmGBps, ranges::kMinHbmGBps, ranges::kMaxHbmGBps);
    // 0 = the calibrated default; else a share of peak no lower than kMinEfficiency.
    const auto efficiency = [&f](const char *key, double fallback) {
        const double e = f.number(key, fallback, 0.0, 1.0);
        if (e > 0.0 && e < kMinEfficiency)
            throw ScenarioError(f.fieldPath(key),
                "must be 0 (the calibrated default) or at least "
                    + nlohmann::json(kMinEfficiency).dump() + " of peak, got "
                    + nlohmann::json(e).dump());
        return e;
    };
    d.maxEfficiency = efficiency("max_efficiency", d.maxEfficiency);
    d.maxEfficiencyFp8 = efficiency("max_efficiency_fp8", d.maxEfficiencyFp8);
    d.kernelOverheadUs
        = f.number("kernel_overhead_us", d.kernelOverheadUs, 0.0, ranges::kMaxLatencyUs);
    d.streamingMultiprocessors
        = f.integer("streaming_multiprocessors", d.streamingMultiprocessors, 1, kMaxSms);
    return d;
}

void readMapping(const json &value, std::int64_t slotCount, Scenario &s)
{
    JsonFields f(value, "mapping", { "placement", "slots", "version" });
    f.rejectUnknown();
    s.placement = f.choice("placement", s.placement,
        { Placement::Packed, Placement::RailAligned, Placement::Scattered }, placementName);
    s.mappingVersion = f.integer("version", s.mappingVersion, 1, INT_MAX);

    const std::int64_t world
        = std::int64_t { s.degrees.tp } * s.degrees.pp * s.degrees.dp * s.degrees.cp;
    const json *slots = f.array("slots", static_cast<std::size_t>(limits::kMaxGpus));
    if (!slots)
        return;
    const std::string path = f.fieldPath("slots");
    if (slots->size() != static_cast<std::size_t>(world))
        throw ScenarioError(path,
            "has " + std::to_string(slots->size()) + " entries but the layout has "
                + std::to_string(world) + " ranks (tp*pp*dp*cp)");
    std::vector<int> rankOnSlot(static_cast<std::size_t>(slotCount), -1);
    s.slots.reserve(slots->size());
    for (std::size_t r = 0; r < slots->size(); ++r) {
        const std::string element = jsonElementPath(path, r);
        const std::int64_t slot = jsonInteger((*slots)[r], element, 0, INT_MAX);
        if (slot >= slotCount)
            throw ScenarioError(element,
                "slot " + std::to_string(slot) + " does not exist (the fabric has "
                    + std::to_string(slotCount) + " GPU slots)");
        int &holder = rankOnSlot[static_cast<std::size_t>(slot)];
        if (holder >= 0)
            throw ScenarioError(element,
                "slot " + std::to_string(slot) + " is already taken by rank "
                    + std::to_string(holder));
        holder = static_cast<int>(r);
        s.slots.push_back(static_cast<int>(slot));
    }
}

/// "failures": KIND:INDEX strings, each once, inside the fabric (leaf indexes are checked when
/// the engine builds the fabric: the leaf count is derived).
std::vector<FailedComponent> readFailures(const json &value, const FabricSpec &fabric)
{
    if (!value.is_array())
        throw ScenarioError("failures",
            "expected an array of strings such as \"server:3\", got " + jsonTypeName(value));
    if (value.size() > static_cast<std::size_t>(limits::kMaxGpus))
        throw ScenarioError("failures",
            "has " + std::to_string(value.size()) + " entries, more than the limit of "
                + std::to_string(limits::kMaxGpus));
    std::vector<FailedComponent> out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string path = jsonElementPath("failures", i);
        if (!value[i].is_string())
            throw ScenarioError(
                path, "expected a string such as \"server:3\", got " + jsonTypeName(value[i]));
        const FailedComponent f = parseFailure(value[i].get_ref<const std::string &>(), path);
        checkFailureRange(f, fabric, path);
        for (std::size_t j = 0; j < out.size(); ++j)
            if (out[j] == f)
                throw ScenarioError(path,
                    "duplicate entry \"" + failureText(f) + "\" (already failures["
                        + std::to_string(j) + "])");
        out.push_back(f);
    }
    return out;
}

} // namespace railyard::scenariosections
