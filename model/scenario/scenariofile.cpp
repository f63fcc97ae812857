/**
 * Scenario files: reading, checking and atomically writing the JSON that holds one design.
 *
 * ## Schema (format_version 1)
 *
 * Bandwidths are per link and per direction in Gbit/s (10^9 bit/s: a 400G NIC is 400),
 * latencies in microseconds. "Required" fields must be present; every other field may be left
 * out and then takes the default shown. Keys not listed here are an error ("fabric.nic_gbsp:
 * unknown field (did you mean 'nic_gbps'?)"), and so is a key given twice in one object.
 * Saving writes every field (empty optional arrays are left out), so saved files are explicit.
 *
 *   {
 *     "format_version": 1,                   required; files newer than this Railyard are refused
 *     "name": "seed-128",                    default ""
 *     "description": "...",                  default ""
 *     "fabric": {                            required
 *       "kind": "rail-optimised" | "tor" | "rail-only", default "rail-optimised" ("rail-optimized"
 *                                            accepted); rail-only: rail switches, no spine
 *       "name": "dgx-h100-1su",              default ""
 *       "servers": 16,                       required, 1..131072
 *       "gpus_per_server": 8,                required, 1..1024; servers * gpus_per_server <=
 * 1048576 "nics_per_server": 8,                default 0 = one NIC per GPU "gpu_to_nic": [0, 1,
 * ...],           optional, gpus_per_server entries, each a NIC index "server_names": ["node000",
 * ...],    optional, servers entries, unique and non-empty "gpu_numa": [0, 0, 0, 0, 1, ...],
 * optional, gpus_per_server NUMA nodes (0..63) "nic_devices": ["mlx5_0", ...],      optional, one
 * RDMA device name per NIC "gpu_pci_bus_ids": ["0000:18:00.0", ...], "nic_pci_bus_ids": [...]
 * optional, per GPU / per NIC (from a topology import) "servers_per_su": 32,                default
 * 32, rail-optimised servers per scalable unit "servers_per_leaf": 0,               default 0 =
 * derived (tor) "scaleup_domain_servers": 1,         default 1; servers (trays) per NVLink domain,
 * 18 for a GB200/GB300 NVL72 rack; divides servers (and a rail-optimised SU) "switch_radix": 64,
 * default 64, 2..65536 ports per switch "spines": 0,                         default 0 = derived
 * from the radix "super_spines": 0,                   default 0 = derived; spines + super_spines <=
 * 131072 "leaf_oversubscription": 1.0,        default 1 (non-blocking), > 0
 *       "spine_oversubscription": 1.0,       default 1, > 0
 *       "scaleup_gbps": 3600, "scaleup_latency_us": 0.6,   one GPU's NVLink port
 *       "pcie_gbps": 512,     "pcie_latency_us": 0.5,      GPU <-> NIC host path
 *       "nic_gbps": 400,      "nic_latency_us": 1.0,       NIC port <-> leaf
 *       "fabric_gbps": 400,   "fabric_latency_us": 0.6,    one switch-to-switch port
 *       "pxn": false,                        NCCL PXN (cross-rail traffic over NVLink first)
 *       "planes": 1,                         default 1; network planes, one NIC port per plane
 *       "routing": "ideal",                  ideal | hashed | adaptive ECMP (docs/ecmp.md)
 *       "qps_per_connection": 1,             NCCL_IB_QPS_PER_CONNECTION (hashed)
 *       "seeds": 64,                         hashed: seeds K for the expected and p99 figures
 *       "adaptive_efficiency": 0.95,         adaptive: share of the ECMP links' bandwidth
 *       "plane_port_gbps": 0,                default 0 = nic_gbps / planes (per NIC port)
 *       "cabling": [["node000", "mlx5_0", "leaf-1", "swp1", 400], ...]   optional: the network
 *                                            is exactly these cables, [a_device, a_port,
 *                                            b_device, b_port, gbps(, latency_us)] each
 *                                            (fabric/cablingbuilder.h; import-topology --cabling)
 *       "device_pools": [{"device": "h200", "servers": "16-31"}, ...]   optional: servers that
 *                                            hold another device than "device" (a preset name
 *                                            or device.name; docs/mixed-devices.md)
 *       "nic_numa": [0, 0, 0, 0, 1, ...],    optional, per NIC its NUMA node (0..63)
 *       "gpu_pci_paths": [["0000:15:00.0"], ...], "nic_pci_paths": [...]   optional, per GPU /
 *                                            per NIC the PCIe bridges above it, CPU side first
 *                                            (import-topology; the nccl-topo export nests them)
 *     },
 *     "parallel": {                          required
 *       "tp": 8, "pp": 4, "dp": 4,           required, each 1..1048576
 *       "cp": 1, "ep": 1,                    default 1
 *       "order": "tp-cp-ep-dp-pp"            default; Megatron-LM order, fastest dimension first
 *     },                                     tp*pp*dp*cp must fit in servers * gpus_per_server
 *     "model": {                             optional; or a preset name: "model": "llama3-8b"
 *       "preset": "llama2-70b",              optional: start from a preset, the fields below
 * override "name": "llama2-70b",                default: the preset's name, else "" "layers": 80,
 * "hidden": 8192, "heads": 64, "kv_heads": 8,                       0 = heads (multi-head
 * attention) "head_dim": 0,                       0 = hidden / heads; written only when set "ffn":
 * 28672, "gated_mlp": true, "seq": 4096, "vocab": 32000, "experts": 0, "top_k": 0,
 * "moe_layer_freq": 1,    experts 0 = dense "routing": {                         optional, written
 * only when not uniform "kind": "uniform" | "zipf" | "explicit",   the router's destination
 * distribution "zipf_exponent": 1.0,              zipf only, 0..10: expert i has weight 1/(i+1)^s
 *         "hotness": [4, 2, 1, 1],           explicit: one weight >= 0 per expert (not all 0)
 *         "hotness_file": "hot.csv"          explicit, instead of hotness: a JSON array or
 *       }                                    numbers separated by commas/spaces, relative to
 *     },                                     the scenario file; saved inline as "hotness"
 *     },
 *     "training": {                          optional
 *       "micro_batch": 1, "global_batch": 512,   at most 65536 micro-batches per replica
 *       "precision": "bf16" | "fp16" | "fp8",
 *       "sequence_parallel": true,
 *       "recompute": "none" | "selective" | "full",
 *       "distributed_optimizer": true,
 *       "schedule": "gpipe" | "1f1b" | "interleaved",
 *       "interleave": 1,                     virtual stages per rank (interleaved)
 *       "layers_per_stage": [7, 8, ..., 7],  optional: pp entries (layers per stage), or
 *                                            pp x interleave entries (per virtual stage in
 *                                            model order, entry c*pp + s = chunk c of stage s);
 *                                            each >= 1, summing to model.layers; absent = even
 *       "overlap_grad_reduce": false,        Megatron-LM --overlap-grad-reduce (old name
 *                                            "dp_overlap", still read)
 *       "overlap_param_gather": false,       --overlap-param-gather (distributed optimizer and
 *                                            overlap_grad_reduce needed)
 *       "tp_comm_overlap": false,            --tp-comm-overlap (sequence parallelism needed)
 *       "hierarchical_allreduce": false,     true: with collectives.algorithm auto, all-reduces
 *                                            run the hierarchical algorithm
 * (cost/collectiveplanner.h) "flash_attention": true,             fused attention; false =
 * Megatron's 2021 GEMMs + softmax "pipeline_scatter_gather": true,     without SP, each rank sends
 * 1/tp of a boundary tensor "fp8_param_gather": false,           fp8 + distributed optimizer:
 * parameters all-gathered in fp8 (--fp8-param-gather); other messages stay bf16 "grad_reduce_bf16":
 * false,           bf16/fp8: gradients kept and reduced in bf16
 *                                            (--grad-reduce-in-bf16); default fp32
 *       "dp_sharding": "optim" | "optim_grads" | "optim_grads_params",   ZeRO-1/2/3 (needs
 *                                            distributed_optimizer); default "optim"
 *       "fsdp": "full" | "hybrid:R",         hybrid: the sharded state split over groups of R
 *                                            dp-cp ranks, replicated across (HSDP)
 *       "fsdp_prefetch": 0..1 | true | false, optim_grads_params: share of each layer's
 *                                            parameter all-gather prefetched beside compute;
 *                                            absent = the gathers stay in the DP sync
 *       "stack": "megatron-core-te" | "megatron-lm" | "fsdp2" | "deepspeed" | "composer",
 *                                            the training software; absent = the device's
 *                                            calibrated stack (workload.h SoftwareStack)
 *       "compile": true | false,             fsdp2 / composer: torch.compile (Inductor's fused
 *                                            element-wise kernels); absent = off, eager
 *       "cp_attention": "te-p2p" | "torch-allgather",  context-parallel attention (workload.h
 *                                            CpAttention); absent = the stack's (fsdp2:
 *                                            torch-allgather, others te-p2p)
 *       "memory_allowance": {                optional, each part optional (default in brackets):
 *         "cuda_context_gb": 0.75,           CUDA context and library workspaces [0.75]
 *         "nccl_gb": 1.2,                    NCCL buffers [from the degrees, memoryledger.cpp]
 *         "fragmentation": 0.05              allocator overhead, share of the ledger [0.05]
 *       }                                    the last three are written only when not default
 *     },
 *     "device": {                            optional; or a preset name: "device": "h100-sxm"
 *       "preset": "h100-sxm",                optional: start from a preset, the fields below
 * override "name": "h100-sxm", "peak_tflops_bf16": 989, "peak_tflops_fp16": 989, "peak_tflops_fp8":
 * 1979,  dense "hbm_gb": 80, "hbm_gbps": 3350,      HBM capacity (10^9 bytes) and bandwidth (GB/s)
 *       "max_efficiency": 0,                 0..1; 0 = the calibrated table (deviceefficiency.cpp)
 *       "max_efficiency_fp8": 0,             0..1, fp8 GEMMs only; 0 = max_efficiency / the table
 *       "kernel_overhead_us": 0,             0 = the calibrated default
 *       "streaming_multiprocessors": 132     SMs, for GEMM wave quantization; 1..65536
 *     },
 *     "mapping": {                           optional
 *       "placement": "packed" | "rail-aligned" | "scattered",    default "packed"
 *       "slots": [0, 1, ...],                optional, one GPU slot per rank (wins over placement);
 *                                            slot = server * gpus_per_server + gpu, each used once
 *       "version": 1                         >= 1, bumped by every remap
 *     },
 *     "collectives": {                       optional, written only when not the default
 *       "algorithm": "auto" | "ring" | "member-order" | "tree" | "nvls" | "hierarchical" | "pat",
 *                                            default auto: per op the fastest under NCCL's cost
 *                                            model (cost/nccltuning.h)
 *       "nvls": true | false                 optional: NVLink SHARP; default from the device
 *     },
 *     "failures": ["server:3", "gpu:17",      optional, written only when not empty: failed
 *                  "nic:5", "leaf:2"]         hardware, KIND:INDEX with global 0-based indexes
 *   }                                        (fabric/failedcomponent.h); no rank may sit on a
 *                                            slot they make unusable (checked by the engine)
 *
 * An optional "degradations" section follows "failures": slow GPUs and hosts, NICs and cables
 * below speed (schema in degradationsection.h, docs/stragglers.md); absent when empty.
 *
 * An optional top-level "inference" object (prefill and decode pools) follows "failures"; its
 * schema is in workload/inferencespec.cpp, its rules in scenario/inferencecheck.cpp. Absent,
 * nothing is written for it.
 *
 * Two optional whiteboard sections follow (scenarionotes.cpp reads them; the engine ignores
 * them; absent when empty):
 *
 *     "annotations": [                        at most 4096
 *       {"kind": "note", "text": "TP stays on NVLink",   text required, <= 2048 bytes
 *        "anchor": "server:3",                server:N, rank:N (follows the rank) or link:N
 *        "offset": [40, -60],                 default [40, -60], fabric-layout units from the pin
 *        "colour": "yellow"},                 yellow (default), blue, green or pink
 *       {"kind": "arrow", "text": "",         label, may be empty
 *        "from": "rank:5", "to": "link:240"}  two different pins
 *     ],
 *     "snapshots": [                          at most 256, names unique
 *       {"name": "healthy",                   required
 *        "taken_at": "2025-06-03T14:32:00",   default ""
 *        "parallel": {...},                   as the top-level "parallel"
 *        "global_batch": 64,                  required
 *        "mapping": {"placement": ..., "slots": [...], "version": 1},   slots required
 *        "failures": [...]}                   as the top-level "failures"
 *     ]
 *
 * An optional "jobs" section puts several training jobs on the fabric (jobssection.h,
 * docs/shared-fabric.md); the top-level "parallel", "model", "training" and "mapping" then move
 * into each job, and the top-level "device" is the default of a job without one:
 *
 *     "jobs": [                               at most 1024, names unique
 *       {"name": "a",                         required
 *        "colour": "#e69f00",                 default: the Okabe-Ito palette by position
 *        "parallel": {...}, "model": ..., "training": {...}, "device": ...,   as top-level
 *        "mapping": {"slots": [...], "version": 1}}   slots required; no slot in two jobs
 *     ]
 *
 * An optional "calibration" section comes last: values fitted on measured nccl-tests runs,
 * which the engine uses in place of its defaults per tier (schema in calibrationsection.h).
 * An optional "nccl_observed" section after it: the rings NCCL logged, which the engine uses
 * for the groups they match (schema in ncclobservedsection.h).
 * An optional "catalogue" section after those prices the bill of materials (cataloguesection.h).
 *
 * Loading checks types, ranges and sizes against base/sizelimits.h before anything is allocated
 * from them (the section readers, scenariosections.cpp), and throws ScenarioError naming the
 * field path. The workload's divisibility rules (layers % pp, heads % tp, ...) belong to
 * planWorkload(), the fabric's wiring rules to Fabric::build() and the order string to
 * ParallelLayout, not to this file.
 */
#include "scenario/scenariofile.h"

#include "base/fileio.h"
#include "base/jsonfields.h"
#include "base/jsonlines.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/stalefiles.h"
#include "base/text.h"
#include "scenario/cablingsection.h"
#include "scenario/calibrationsection.h"
#include "scenario/cataloguesection.h"
#include "scenario/degradationsection.h"
#include "scenario/devicepools.h"
#include "scenario/inferencecheck.h"
#include "scenario/jobssection.h"
#include "scenario/ncclobservedsection.h"
#include "scenario/scenarionotes.h"
#include "scenario/scenariosections.h"
#include "workload/workloadnames.h"

#include <nlohmann/json.hpp>

#include <climits>
#include <cstdint>

namespace railyard {

namespace {

using nlohmann::json;
using namespace scenariosections;

// ---------------------------------------------------------------------------------------------
// Writing: one template so scenarioToText keeps the schema's key order (ordered_json) while
// scenarioToJson returns the plain json the header promises.

template<typename Json> Json toJson(const Scenario &s)
{
    const FabricSpec &f = s.fabric;
    Json fabric;
    fabric["kind"] = std::string(fabricKindText(f.kind));
    fabric["name"] = f.name;
    fabric["servers"] = f.servers;
    fabric["gpus_per_server"] = f.gpusPerServer;
    fabric["nics_per_server"] = f.nicsPerServer;
    if (!f.gpuToNic.empty())
        fabric["gpu_to_nic"] = f.gpuToNic;
    if (!f.serverNames.empty())
        fabric["server_names"] = f.serverNames;
    // Written only when set, so a fabric without them keeps its hash (and its run records).
    if (!f.gpuNuma.empty())
        fabric["gpu_numa"] = f.gpuNuma;
    if (!f.nicDevices.empty())
        fabric["nic_devices"] = f.nicDevices;
    if (!f.gpuPciBusIds.empty())
        fabric["gpu_pci_bus_ids"] = f.gpuPciBusIds;
    if (!f.nicPciBusIds.empty())
        fabric["nic_pci_bus_ids"] = f.nicPciBusIds;
    if (!f.nicNuma.empty())
        fabric["nic_numa"] = f.nicNuma;
    if (!f.gpuPciPaths.empty())
        fabric["gpu_pci_paths"] = f.gpuPciPaths;
    if (!f.nicPciPaths.empty())
        fabric["nic_pci_paths"] = f.nicPciPaths;
    fabric["servers_per_su"] = f.serversPerSu;
    // Written only when > 1, so a fabric of one-server domains keeps its hash.
    if (f.scaleUpDomainServers != 1)
        fabric["scaleup_domain_servers"] = f.scaleUpDomainServers;
    fabric["servers_per_leaf"] = f.serversPerLeaf;
    fabric["switch_radix"] = f.switchRadix;
    fabric["spines"] = f.spines;
    fabric["super_spines"] = f.superSpines;
    fabric["leaf_oversubscription"] = f.leafOversubscription;
    fabric["spine_oversubscription"] = f.spineOversubscription;
    fabric["scaleup_gbps"] = f.scaleUp.gbps;
    fabric["scaleup_latency_us"] = f.scaleUp.latencyUs;
    fabric["pcie_gbps"] = f.pcie.gbps;
    fabric["pcie_latency_us"] = f.pcie.latencyUs;
    fabric["nic_gbps"] = f.nic.gbps;
    fabric["nic_latency_us"] = f.nic.latencyUs;
    fabric["fabric_gbps"] = f.fabricPort.gbps;
    fabric["fabric_latency_us"] = f.fabricPort.latencyUs;
    fabric["pxn"] = f.pxn;
    // Written only when set, so a one-plane fabric keeps its hash (and its run records).
    if (f.planes != 1)
        fabric["planes"] = f.planes;
    if (f.planePortGbps != 0.0)
        fabric["plane_port_gbps"] = f.planePortGbps;
    if (!f.cabling.empty())
        fabric["cabling"] = cablingToJson(f.cabling);
    // ECMP fields are written only when set, so an ideal-routing file keeps its hash.
    const EcmpRouting ecmpDefaults;
    if (f.routing.mode != ecmpDefaults.mode)
        fabric["routing"] = std::string(ecmpModeName(f.routing.mode));
    if (f.routing.qpsPerConnection != ecmpDefaults.qpsPerConnection)
        fabric["qps_per_connection"] = f.routing.qpsPerConnection;
    if (f.routing.seeds != ecmpDefaults.seeds)
        fabric["seeds"] = f.routing.seeds;
    if (f.routing.adaptiveEfficiency != ecmpDefaults.adaptiveEfficiency)
        fabric["adaptive_efficiency"] = f.routing.adaptiveEfficiency;
    // Written only when set, so a fabric of one device keeps its hash.
    if (!f.devicePools.empty()) {
        Json pools = Json::array();
        for (const DevicePool &pool : f.devicePools) {
            Json p;
            p["device"] = pool.device;
            p["servers"] = serverRangeText(pool.servers);
            pools.push_back(std::move(p));
        }
        fabric["device_pools"] = std::move(pools);
    }

    Json parallel;
    parallel["tp"] = s.degrees.tp;
    parallel["pp"] = s.degrees.pp;
    parallel["dp"] = s.degrees.dp;
    parallel["cp"] = s.degrees.cp;
    parallel["ep"] = s.degrees.ep;
    parallel["order"] = s.order;

    const ModelSpec &m = s.model;
    Json model;
    model["name"] = m.name;
    model["layers"] = m.layers;
    model["hidden"] = m.hidden;
    model["heads"] = m.heads;
    model["kv_heads"] = m.kvHeads;
    if (m.headDim > 0) // absent when hidden / heads: existing files stay byte-identical
        model["head_dim"] = m.headDim;
    model["ffn"] = m.ffn;
    model["gated_mlp"] = m.gatedMlp;
    model["seq"] = m.seq;
    model["vocab"] = m.vocab;
    model["experts"] = m.experts;
    model["top_k"] = m.topK;
    model["moe_layer_freq"] = m.moeLayerFreq;
    if (!m.routing.isUniform()) { // absent when uniform: existing files stay byte-identical
        Json routing;
        routing["kind"] = std::string(routingKindName(m.routing.kind));
        if (m.routing.kind == RoutingKind::Zipf)
            routing["zipf_exponent"] = m.routing.zipfExponent;
        else
            routing["hotness"] = m.routing.hotness;
        model["routing"] = std::move(routing);
    }

    const TrainingSpec &t = s.training;
    Json training;
    training["micro_batch"] = t.microBatch;
    training["global_batch"] = t.globalBatch;
    training["precision"] = std::string(precisionName(t.precision));
    training["sequence_parallel"] = t.sequenceParallel;
    training["recompute"] = std::string(recomputeName(t.recompute));
    training["distributed_optimizer"] = t.distributedOptimizer;
    training["schedule"] = std::string(scheduleName(t.schedule));
    training["interleave"] = t.interleave;
    if (!t.layersPerStage.empty()) // absent for the even split: existing files stay identical
        training["layers_per_stage"] = t.layersPerStage;
    training["overlap_grad_reduce"] = t.dpOverlap;
    training["overlap_param_gather"] = t.overlapParamGather;
    training["tp_comm_overlap"] = t.tpCommOverlap;
    training["hierarchical_allreduce"] = t.hierarchicalAllReduce;
    training["flash_attention"] = t.flashAttention;
    training["pipeline_scatter_gather"] = t.pipelineScatterGather;
    // The fields below are written only when they differ from the default, so files that do not
    // use them stay byte-identical.
    if (t.fp8ParamGather)
        training["fp8_param_gather"] = true;
    if (t.gradReduceBf16)
        training["grad_reduce_bf16"] = true;
    if (t.dpSharding != DpSharding::Optim)
        training["dp_sharding"] = std::string(dpShardingName(t.dpSharding));
    if (t.fsdpShard > 0)
        training["fsdp"] = fsdpModeName(t.fsdpShard);
    if (t.fsdpPrefetch)
        training["fsdp_prefetch"] = *t.fsdpPrefetch;
    if (t.stack)
        training["stack"] = std::string(stackName(*t.stack));
    if (t.compile)
        training["compile"] = *t.compile;
    if (t.cpAttention)
        training["cp_attention"] = std::string(cpAttentionName(*t.cpAttention));
    if (t.memoryAllowance != MemoryAllowanceSpec {}) {
        Json allowance;
        if (t.memoryAllowance.cudaContextBytes)
            allowance["cuda_context_gb"] = *t.memoryAllowance.cudaContextBytes / 1e9;
        if (t.memoryAllowance.ncclBytes)
            allowance["nccl_gb"] = *t.memoryAllowance.ncclBytes / 1e9;
        if (t.memoryAllowance.fragmentation)
            allowance["fragmentation"] = *t.memoryAllowance.fragmentation;
        training["memory_allowance"] = std::move(allowance);
    }

    const DeviceSpec &d = s.device;
    Json device;
    device["name"] = d.name;
    device["peak_tflops_bf16"] = d.peakTflopsBf16;
    device["peak_tflops_fp16"] = d.peakTflopsFp16;
    device["peak_tflops_fp8"] = d.peakTflopsFp8;
    device["hbm_gb"] = d.hbmBytes / 1e9;
    device["hbm_gbps"] = d.hbmGBps;
    device["max_efficiency"] = d.maxEfficiency;
    if (d.maxEfficiencyFp8 > 0.0)
        device["max_efficiency_fp8"] = d.maxEfficiencyFp8;
    device["kernel_overhead_us"] = d.kernelOverheadUs;
    device["streaming_multiprocessors"] = d.streamingMultiprocessors;

    Json mapping;
    mapping["placement"] = std::string(placementName(s.placement));
    if (!s.slots.empty())
        mapping["slots"] = s.slots;
    mapping["version"] = s.mappingVersion;

    Json failures = Json::array();
    for (const FailedComponent &failure : s.failures)
        failures.push_back(failureText(failure));

    Json root;
    if (!s.schema.empty())
        root["$schema"] = s.schema;
    root["format_version"] = kScenarioFormatVersion;
    root["name"] = s.name;
    root["description"] = s.description;
    root["fabric"] = std::move(fabric);
    if (s.jobs.empty()) {
        root["parallel"] = std::move(parallel);
        root["model"] = std::move(model);
        root["training"] = std::move(training);
        root["device"] = std::move(device);
        root["mapping"] = std::move(mapping);
    } else { // each job's sections as a single-job file writes them (docs/shared-fabric.md)
        root["device"] = std::move(device);
        Json jobs = Json::array();
        // The first job as the top-level fields hold it: a command or the explorer that
        // handles one job edits those (adoptFirstJob()), and the edit must reach the file.
        Scenario withFirst = s;
        JobSpec &first = withFirst.jobs.front();
        first.degrees = s.degrees;
        first.order = s.order;
        first.model = s.model;
        first.training = s.training;
        first.slots = s.slots;
        first.mappingVersion = s.mappingVersion;
        for (std::size_t i = 0; i < withFirst.jobs.size(); ++i) {
            const JobSpec &spec = withFirst.jobs[i];
            Json one = toJson<Json>(jobScenario(withFirst, i));
            Json job;
            job["name"] = spec.name;
            job["colour"] = spec.colour;
            job["parallel"] = std::move(one["parallel"]);
            job["model"] = std::move(one["model"]);
            job["training"] = std::move(one["training"]);
            if (spec.device)
                job["device"] = std::move(one["device"]);
            Json jobMapping;
            jobMapping["slots"] = spec.slots;
            jobMapping["version"] = spec.mappingVersion;
            job["mapping"] = std::move(jobMapping);
            jobs.push_back(std::move(job));
        }
        root["jobs"] = std::move(jobs);
    }
    if (s.collectives != CollectiveSpec {}) { // absent when default: files stay byte-identical
        Json collectives;
        collectives["algorithm"] = std::string(collectiveAlgorithmName(s.collectives.algorithm));
        if (s.collectives.nvls)
            collectives["nvls"] = *s.collectives.nvls;
        root["collectives"] = std::move(collectives);
    }
    if (!s.failures.empty()) // absent when empty: files without failures stay byte-identical
        root["failures"] = std::move(failures);
    // Absent when empty: files without slow parts stay byte-identical.
    if (!s.degradations.empty())
        root["degradations"] = degradationsection::degradationsToJson<Json>(s.degradations);
    if (s.inference) { // absent for training-only scenarios: their files stay byte-identical
        Json inference;
        inferenceToJson(*s.inference, inference);
        root["inference"] = std::move(inference);
    }
    // Absent when empty, like the failures: files without whiteboard marks stay byte-identical.
    if (!s.annotations.empty())
        root["annotations"] = scenarionotes::annotationsToJson<Json>(s.annotations);
    if (!s.snapshots.empty())
        root["snapshots"] = scenarionotes::snapshotsToJson<Json>(s.snapshots);
    // Absent when empty: files never calibrated stay byte-identical.
    if (!s.calibration.empty())
        root["calibration"] = calibrationsection::calibrationToJson<Json>(s.calibration);
    // Absent when empty: files without NCCL's rings stay byte-identical.
    if (!s.ncclObserved.empty())
        root["nccl_observed"] = ncclobservedsection::ncclObservedToJson<Json>(s.ncclObserved);
    // Absent unless edited: files priced with the defaults stay byte-identical.
    if (s.catalogue)
        root["catalogue"] = cataloguesection::catalogueToJson<Json>(*s.catalogue);
    return root;
}

/// Size first, then a parse that refuses deep nesting and duplicate keys as they are met.
json parseJson(const std::string &text)
{
    if (static_cast<std::int64_t>(text.size()) > limits::kMaxFileBytes)
        throw ScenarioError("",
            "scenario text is " + std::to_string(text.size()) + " bytes, more than the limit of "
                + std::to_string(limits::kMaxFileBytes) + " bytes (64 MiB)");
    return parseJsonGuarded(text, limits::kMaxJsonDepth);
}

} // namespace

Scenario scenarioFromJson(const json &value)
{
    return scenarioFromJson(value, std::string());
}

Scenario scenarioFromJson(const json &value, const std::string &baseDir)
{
    if (!value.is_object())
        throw ScenarioError(
            "", "expected a JSON object at the top level, got " + jsonTypeName(value));
    // "$schema" names docs/scenario.schema.json for editors (JSON Schema's own key): kept and
    // written back, never read by the engine.
    JsonFields top(value, "",
        { "$schema", "format_version", "name", "description", "fabric", "parallel", "model",
            "training", "device", "mapping", "collectives", "failures", "degradations", "inference",
            "annotations", "snapshots", "calibration", "nccl_observed", "catalogue", "jobs" });
    // The version comes before the unknown-key check: a newer file may well have new keys.
    const std::int64_t version = top.requiredInteger("format_version", 1, INT_MAX);
    if (version > kScenarioFormatVersion)
        throw ScenarioError("format_version",
            "the file is format version " + std::to_string(version)
                + ", newer than this Railyard reads (up to version "
                + std::to_string(kScenarioFormatVersion) + "); upgrade Railyard to open it");
    top.rejectUnknown();

    Scenario s;
    // A URI reference (RFC 3986) of printable ASCII/UTF-8; its length is a name's.
    s.schema = top.string("$schema", s.schema, limits::kMaxNameBytes);
    requirePrintableUtf8("$schema", s.schema);
    s.name = top.string("name", s.name, limits::kMaxNameBytes);
    s.description = top.string("description", s.description, limits::kMaxDescriptionBytes);
    requirePrintableUtf8("name", s.name);
    requirePrintableUtf8("description", s.description, true); // multi-line text
    s.fabric = readFabric(top.required("fabric"));
    const std::int64_t slotCount = std::int64_t { s.fabric.servers } * s.fabric.gpusPerServer;
    const json *jobs = top.find("jobs");
    if (jobs) { // several jobs: each holds its own layout, model, training and mapping
        for (const char *own : { "parallel", "model", "training", "mapping" })
            if (top.find(own))
                throw ScenarioError(own,
                    "a file with \"jobs\" gives each job its own \"" + std::string(own)
                        + "\" (move it into the jobs)");
    } else {
        readParallel(top.required("parallel"), slotCount, s);
        if (const json *model = top.find("model"))
            s.model = readModel(*model, baseDir);
        if (const json *training = top.find("training"))
            s.training = readTraining(*training);
    }
    if (const json *device = top.find("device"))
        s.device = readDevice(*device);
    if (jobs) {
        s.jobs = jobssection::readJobs(*jobs, slotCount, s, baseDir);
        adoptFirstJob(s);
    } else if (const json *mapping = top.find("mapping")) {
        readMapping(*mapping, slotCount, s);
    }
    devicepools::checkDevicePools(s); // needs the device and the jobs' devices read above
    if (const json *collectives = top.find("collectives"))
        s.collectives = readCollectives(*collectives);
    if (const json *failures = top.find("failures"))
        s.failures = readFailures(*failures, s.fabric);
    if (const json *degradations = top.find("degradations"))
        s.degradations = degradationsection::readDegradations(*degradations, s.fabric);
    if (const json *inference = top.find("inference")) {
        s.inference = inferenceFromJson(*inference);
        validateInference(s); // needs the fabric, model and device read above
    }
    if (const json *annotations = top.find("annotations"))
        s.annotations = scenarionotes::readAnnotations(*annotations);
    if (const json *snapshots = top.find("snapshots"))
        s.snapshots = scenarionotes::readSnapshots(*snapshots, s.fabric);
    if (const json *calibration = top.find("calibration"))
        s.calibration = calibrationsection::readCalibration(*calibration);
    if (const json *observed = top.find("nccl_observed"))
        s.ncclObserved
            = ncclobservedsection::readNcclObserved(*observed, static_cast<int>(slotCount),
                s.fabric.nicsPerServer > 0 ? s.fabric.nicsPerServer : s.fabric.gpusPerServer);
    if (const json *catalogue = top.find("catalogue"))
        s.catalogue = cataloguesection::readCatalogue(*catalogue);

    // The pipeline scheduler allocates events per micro-batch: refuse absurd counts here.
    auto checkMicrobatches = [](const TrainingSpec &t, const ParallelDegrees &d,
                                 const std::string &path) {
        const std::int64_t perStep = std::int64_t { t.microBatch } * d.dp;
        const std::int64_t microbatches = (t.globalBatch + perStep - 1) / perStep;
        if (microbatches > limits::kMaxMicrobatches)
            throw ScenarioError(path,
                std::to_string(t.globalBatch) + " samples make " + std::to_string(microbatches)
                    + " micro-batches per replica (micro_batch " + std::to_string(t.microBatch)
                    + ", dp " + std::to_string(d.dp) + "), more than the limit of "
                    + std::to_string(limits::kMaxMicrobatches));
    };
    if (s.jobs.empty())
        checkMicrobatches(s.training, s.degrees, "training.global_batch");
    for (std::size_t i = 0; i < s.jobs.size(); ++i)
        checkMicrobatches(s.jobs[i].training, s.jobs[i].degrees,
            jsonElementPath("jobs", i) + ".training.global_batch");
    return s;
}

json scenarioToJson(const Scenario &scenario)
{
    return toJson<json>(scenario);
}

std::string scenarioToText(const Scenario &scenario)
{
    // Names set in code may hold invalid UTF-8; replace it rather than fail the save.
    return toJson<nlohmann::ordered_json>(scenario).dump(
               2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
        + "\n";
}

Scenario parseScenario(const std::string &text)
{
    return scenarioFromJson(parseJson(text));
}

Scenario loadScenario(const std::string &path)
{
    const std::string text
        = readFileLimited(path, limits::kMaxFileBytes, "a scenario file", " (64 MiB)");
    // Relative paths inside the file (model.routing.hotness_file) start at its directory.
    const std::size_t slash = path.rfind('/');
    const nlohmann::json json = parseJson(text);
    try {
        return scenarioFromJson(
            json, slash == std::string::npos ? std::string(".") : path.substr(0, slash + 1));
    } catch (const ScenarioError &e) {
        // A field's message says where the field is: "FILE:LINE: fabric.servers: ...".
        const int line = e.field().empty() ? 0 : jsonPathLine(text, e.field());
        throw ScenarioError(e, line > 0 ? path + ":" + std::to_string(line) : path);
    }
}

void saveScenario(const Scenario &scenario, const std::string &path)
{
    sweepStaleFiles(path); // temporaries a killed earlier save of this file left
    writeFileAtomically(path, scenarioToText(scenario));
}

} // namespace railyard
