/**
 * The ASTRA-sim inputs for the chosen mapping. Each file follows what ASTRA-sim's own readers
 * take, read at these upstream commits:
 *  - astra-sim/astra-sim 518bd513 (2026-03-25): system JSON keys (astra-sim/system/Sys.cc,
 *    Sys::initialize_sys; astraccl/CollectiveImplLookup.cc for the implementation names), the
 *    communicator groups (astra-sim/workload/Workload.cc, initialize_comm_groups: an object of
 *    "id": [NPU ids], id 0 and an empty id being the default all-ranks group, and
 *    extract_comm_group), the ns-3 front end's logical topology ({"logical-dims": ["8", "2"]},
 *    network_frontend/ns3/AstraSimNetwork.cc) and the remote memory file
 *    (examples/remote_memory/analytical/no_memory_expansion.json);
 *  - astra-sim/astra-network-analytical 599a0473: the network YAML (common/network-parser/
 *    NetworkParser.cpp: topology, npus_count, bandwidth, latency per dimension, each npus_count
 *    above 1), bandwidth in GB/s of 2^30 bytes (common/NetworkFunction.cpp, bw_GBps_to_Bpns),
 *    latency in ns per hop, a Switch dimension counting two hops (congestion_unaware/
 *    basic-topology/Switch.cpp);
 *  - astra-sim/astra-network-ns3 8fd36047: the topology text and the config keys
 *    (scratch/common.h, SetupNetwork and ReadConf): "nodes switches links", the switch ids, then
 *    "src dst rate delay error_rate" per link, each line one full-duplex link (both devices are
 *    installed from it); the ECN maps must name every link rate in bit/s.
 * NPU r is global rank r, as ASTRA-sim's NPU id is the rank of its Chakra trace.
 */
#include "export/astrasimexport.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exportcommon.h"
#include "export/packettopology.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <set>

namespace railyard::exportdetail {

namespace {

using ojson = nlohmann::ordered_json;

/// 1 GB in ASTRA-sim's analytical backend is 2^30 bytes (NetworkFunction.cpp).
constexpr double kAnalyticalGB = 1073741824.0;

/** One dimension of the analytical network and of the logical topology. */
struct Dimension
{
    const char *what; ///< "scale-up" or "scale-out", for replay.txt
    int npus = 0;
    double bytesPerSecond = 0.0; ///< per NPU, one direction
    double hopLatency = 0.0; ///< seconds per hop (a Switch dimension crosses two)
};

struct Dimensions
{
    std::vector<Dimension> dims;
    std::vector<std::string> warnings;
};

/// ASTRA-sim's dimensions are ranks in id order, dimension 0 fastest: for a node-major mapping
/// (server k holds ranks [k*n, (k+1)*n)) that is n NPUs behind the scale-up switch and S
/// servers behind the scale-out network. Any other mapping has no such factoring, so the
/// analytical network is one scale-out switch of every NPU (the ns-3 topology is exact).
Dimensions dimensionsOf(const CostEngine &engine)
{
    const Fabric &fabric = engine.fabric();
    const int world = engine.mapping().rankCount();
    const int slot0 = engine.mapping().slotOf(0);
    const int gpuV = fabric.gpuVertex(slot0);
    const int server0 = fabric.serverOfSlot(slot0);
    const int nic0 = fabric.nicOfGpu(fabric.gpuOfSlot(slot0));
    const FabricLink &scaleUp
        = fabric.link(fabric.linkBetween(gpuV, fabric.scaleUpVertex(server0)));
    const FabricLink &pcie = fabric.link(fabric.linkBetween(gpuV, fabric.nicVertex(server0, nic0)));
    const int nicV = fabric.nicVertex(server0, nic0);
    const FabricLink &port
        = fabric.link(fabric.linkBetween(nicV, fabric.leafVertex(fabric.leafOfNic(server0, nic0))));
    int sharing = 0;
    for (int g = 0; g < fabric.gpusPerServer(); ++g)
        sharing += fabric.nicOfGpu(g) == nic0 ? 1 : 0;
    // Scale-out per NPU: the slower of its PCIe path and its share of the NIC port (every GPU
    // of a server sends at once in a dimension-1 phase); one hop is GPU -> NIC -> leaf.
    const Dimension out { "scale-out", 0, std::min(pcie.bandwidth, port.bandwidth / sharing),
        pcie.latency + port.latency };

    Dimensions d;
    const NodeMajor nm = nodeMajor(engine, hostNames(engine, {}, false));
    if (!nm.expressible) {
        d.dims.push_back(out);
        d.dims.back().npus = world;
        d.warnings.push_back("network.yml: the analytical backend orders NPUs by id inside each "
                             "dimension, and this mapping's servers do not hold consecutive rank "
                             "blocks ("
            + nm.problems.front()
            + "), so network.yml is one switch of all NPUs at the scale-out bandwidth; "
              "topology.txt (ns-3) keeps every rank on its GPU");
        return d;
    }
    // Rack-scale NVLink domains (NVL72): when full trays fill whole domains in rank order, the
    // scale-up dimension is the domain (its GPUs share one NVLink switch), not the tray.
    int unit = nm.nproc;
    const int domainGpus = fabric.scaleUpDomainGpus();
    if (fabric.scaleUpDomainServers() > 1 && nm.nproc == fabric.gpusPerServer()
        && world % domainGpus == 0) {
        bool whole = true;
        for (int r = 0; r < world && whole; ++r)
            whole = fabric.sameScaleUpDomain(
                engine.mapping().slotOf(r), engine.mapping().slotOf(r - r % domainGpus));
        if (whole)
            unit = domainGpus;
    }
    const int servers = world / unit;
    if (unit > 1)
        d.dims.push_back({ "scale-up", unit, scaleUp.bandwidth, scaleUp.latency });
    if (servers > 1) {
        d.dims.push_back(out);
        d.dims.back().npus = servers;
    }
    return d;
}

/// ASTRA-sim's name for the scenario's algorithm on a dimension: only a fixed tree becomes its
/// double binary tree (across servers, NCCL's tree is a chain inside them); every other choice
/// is a ring, which the multi-dimensional collective already runs hierarchically per dimension.
std::string allReduceImplementation(const CostEngine &engine, const Dimension &dim)
{
    const bool tree = engine.scenario().collectives.algorithm == CollectiveAlgorithm::Tree;
    return tree && std::string(dim.what) == "scale-out" ? "doubleBinaryTree" : "ring";
}

std::string networkYaml(const CostEngine &engine, const Dimensions &d)
{
    std::string topology, npus, bandwidth, latency;
    for (std::size_t i = 0; i < d.dims.size(); ++i) {
        const std::string sep = i == 0 ? " " : ", ";
        topology += sep + "Switch";
        npus += sep + std::to_string(d.dims[i].npus);
        bandwidth += sep + strf("%.6g", d.dims[i].bytesPerSecond / kAnalyticalGB);
        latency += sep + strf("%.6g", d.dims[i].hopLatency * 1e9);
    }
    std::string what;
    for (const Dimension &dim : d.dims)
        what += std::string(what.empty() ? "" : ", ") + dim.what;
    return "# ASTRA-sim analytical network of " + oneLine(engine.scenario().name) + ": " + what
        + "\n# bandwidth per NPU and direction in GB/s of 2^30 bytes, latency per hop in ns "
          "(a Switch is two hops)\n"
        + "topology: [" + topology + " ]\nnpus_count: [" + npus + " ]\nbandwidth: [" + bandwidth
        + " ]\nlatency: [" + latency + " ]\n";
}

std::string systemJson(const CostEngine &engine, const Dimensions &d)
{
    ojson allReduce = ojson::array(), ring = ojson::array(), direct = ojson::array();
    for (const Dimension &dim : d.dims) {
        allReduce.push_back(allReduceImplementation(engine, dim));
        ring.push_back("ring");
        direct.push_back("direct");
    }
    const DeviceSpec &device = engine.scenario().device;
    ojson j;
    // Scheduling, endpoint delay (cycles = ns), chunking and the optimisation are the values of
    // ASTRA-sim's examples/system/native_collectives/Ring_4chunks.json.
    j["scheduling-policy"] = "LIFO";
    j["endpoint-delay"] = 10;
    j["active-chunks-per-dimension"] = 1;
    j["preferred-dataset-splits"] = 4;
    j["all-reduce-implementation"] = allReduce;
    j["all-gather-implementation"] = ring;
    j["reduce-scatter-implementation"] = ring;
    // Expert dispatch is pairwise, as the engine routes it.
    j["all-to-all-implementation"] = direct;
    j["collective-optimization"] = "localBWAware";
    j["local-mem-bw"] = device.hbmGBps; // GB/s (Sys.cc multiplies by 1e9)
    j["boost-mode"] = 0;
    j["roofline-enabled"] = 0;
    j["peak-perf"] = device.peakTflopsBf16; // TFLOP/s (Sys.cc multiplies by 1e12)
    return jsonDump(j, 4) + "\n";
}

/** The communicator groups: the kinds whose degree is above 1, ids from 1 in this order. */
struct GroupTable
{
    struct Kind
    {
        GroupKind kind;
        int firstId = 0;
        int count = 0;
        int size = 0;
    };
    std::vector<Kind> kinds;
    std::string json;
};

GroupTable commGroups(const CostEngine &engine)
{
    const ParallelLayout &layout = engine.layout();
    const ParallelDegrees &deg = layout.degrees();
    std::vector<GroupKind> kinds;
    for (const auto &[kind, degree] : std::array<std::pair<GroupKind, int>, 5> {
             { { GroupKind::Tp, deg.tp }, { GroupKind::Pp, deg.pp }, { GroupKind::Dp, deg.dp },
                 { GroupKind::Cp, deg.cp }, { GroupKind::Ep, deg.ep } } })
        if (degree > 1)
            kinds.push_back(kind);
    // Megatron-LM reduces dense gradients over dp x cp and expert gradients over the expert
    // data-parallel group: those collectives need their own communicators.
    if (deg.cp > 1 && deg.dp > 1)
        kinds.push_back(GroupKind::DpCp);
    if (deg.ep > 1 && layout.groups(GroupKind::ExpertDp).front().size() > 1)
        kinds.push_back(GroupKind::ExpertDp);

    GroupTable t;
    int id = 1;
    std::string body;
    for (GroupKind kind : kinds) {
        const auto &groups = layout.groups(kind);
        t.kinds.push_back(
            { kind, id, static_cast<int>(groups.size()), static_cast<int>(groups.front().size()) });
        for (const std::span<const int> g : groups) {
            body += std::string(body.empty() ? "" : ",\n") + "  \"" + std::to_string(id++)
                + "\": " + nlohmann::json(g).dump();
        }
    }
    t.json = body.empty() ? "{}\n" : "{\n" + body + "\n}\n";
    return t;
}

std::string logicalTopologyJson(const Dimensions &d)
{
    ojson dims = ojson::array();
    for (const Dimension &dim : d.dims)
        dims.push_back(std::to_string(dim.npus));
    ojson j;
    j["logical-dims"] = dims;
    return jsonDump(j) + "\n";
}

std::string topologyText(const PacketTopology &t)
{
    std::string out = std::to_string(t.nodeCount()) + " "
        + std::to_string(t.scaleUp.size() + t.switches.size()) + " "
        + std::to_string(t.links.size()) + "\n";
    std::vector<int> ids = t.scaleUp;
    ids.insert(ids.end(), t.switches.begin(), t.switches.end());
    std::sort(ids.begin(), ids.end());
    for (std::size_t i = 0; i < ids.size(); ++i)
        out += (i ? " " : "") + std::to_string(ids[i]);
    out += "\n";
    for (const PacketLink &l : t.links)
        out += linkLine(l) + "\n";
    return out;
}

/// The ECN thresholds of astra-network-ns3's scratch/config/config.txt (kmin and kmax in KB,
/// pmax) by link rate; a rate the table lacks takes the entry of the next lower rate (the
/// lowest entry below 25 Gbit/s). ns-3 refuses a link rate without an entry.
struct EcnEntry
{
    long long bits;
    int kmin, kmax;
};
constexpr std::array<EcnEntry, 6> kEcn { { { 25'000'000'000LL, 100, 400 },
    { 40'000'000'000LL, 200, 800 }, { 100'000'000'000LL, 400, 1600 },
    { 200'000'000'000LL, 600, 2400 }, { 400'000'000'000LL, 800, 3200 },
    { 2'400'000'000'000LL, 800, 3200 } } };

std::string ns3Config(const PacketTopology &t)
{
    std::set<long long> rates;
    for (const PacketLink &l : t.links)
        rates.insert(rateBits(l.bitsPerSecond));
    std::string kmax = "KMAX_MAP " + std::to_string(rates.size());
    std::string kmin = "KMIN_MAP " + std::to_string(rates.size());
    std::string pmax = "PMAX_MAP " + std::to_string(rates.size());
    for (long long r : rates) {
        const EcnEntry *e = &kEcn.front();
        for (const EcnEntry &x : kEcn)
            if (x.bits <= r)
                e = &x;
        kmax += " " + std::to_string(r) + " " + std::to_string(e->kmax);
        kmin += " " + std::to_string(r) + " " + std::to_string(e->kmin);
        pmax += " " + std::to_string(r) + " 0.2";
    }
    // The remaining values are those of astra-network-ns3's scratch/config/config.txt; the
    // input and output files are this directory's (run ASTRA-sim from here).
    return "ENABLE_QCN 1\n"
           "USE_DYNAMIC_PFC_THRESHOLD 1\n"
           "PACKET_PAYLOAD_SIZE 1000\n"
           "TOPOLOGY_FILE topology.txt\n"
           "TRACE_FILE ns3-trace.txt\n"
           "TRACE_OUTPUT_FILE ns3-mix.tr\n"
           "FCT_OUTPUT_FILE ns3-fct.txt\n"
           "PFC_OUTPUT_FILE ns3-pfc.txt\n"
           "QLEN_MON_FILE ns3-qlen.txt\n"
           "QLEN_MON_START 0\n"
           "QLEN_MON_END 20000\n"
           "SIMULATOR_STOP_TIME 40000000000000.00\n"
           "CC_MODE 12\n"
           "ALPHA_RESUME_INTERVAL 1\n"
           "RATE_DECREASE_INTERVAL 4\n"
           "CLAMP_TARGET_RATE 0\n"
           "RP_TIMER 900\n"
           "EWMA_GAIN 0.00390625\n"
           "FAST_RECOVERY_TIMES 1\n"
           "RATE_AI 50Mb/s\n"
           "RATE_HAI 100Mb/s\n"
           "MIN_RATE 100Mb/s\n"
           "DCTCP_RATE_AI 1000Mb/s\n"
           "ERROR_RATE_PER_LINK 0.0000\n"
           "L2_CHUNK_SIZE 4000\n"
           "L2_ACK_INTERVAL 1\n"
           "L2_BACK_TO_ZERO 0\n"
           "HAS_WIN 1\n"
           "GLOBAL_T 0\n"
           "VAR_WIN 1\n"
           "FAST_REACT 1\n"
           "U_TARGET 0.95\n"
           "MI_THRESH 0\n"
           "INT_MULTI 1\n"
           "MULTI_RATE 0\n"
           "SAMPLE_FEEDBACK 0\n"
           "PINT_LOG_BASE 1.05\n"
           "PINT_PROB 1.0\n"
           "NIC_TOTAL_PAUSE_TIME 0\n"
           "RATE_BOUND 1\n"
           "ACK_HIGH_PRIO 0\n"
           "LINK_DOWN 0 0 0\n"
           "ENABLE_TRACE 0\n"
        + kmax + "\n" + kmin + "\n" + pmax + "\n" + "BUFFER_SIZE 32\n";
}

std::string replayText(const CostEngine &engine, const PacketTopology &t, const Dimensions &d,
    const GroupTable &groups)
{
    std::string out = "ASTRA-sim replay of scenario " + oneLine(engine.scenario().name)
        + ", mapping version " + std::to_string(engine.scenario().mappingVersion) + " ("
        + layoutText(engine) + ").\n\n";
    out += "NPU r is global rank r. The workload is not written: give ASTRA-sim a Chakra\n"
           "execution trace per rank (WORKLOAD.<r>.et) whose collectives name the\n"
           "communicator groups below in their pg_name.\n\n";
    out += "Analytical backend (congestion aware), from this directory:\n"
           "  \"$ASTRA_SIM_ANALYTICAL\" --workload-configuration=\"$WORKLOAD\" \\\n"
           "    --system-configuration=system.json --network-configuration=network.yml \\\n"
           "    --remote-memory-configuration=remote-memory.json \\\n"
           "    --comm-group-configuration=comm-groups.json\n"
           "  (ASTRA_SIM_ANALYTICAL: build/astra_analytical/build/bin/"
           "AstraSim_Analytical_Congestion_Aware)\n\n";
    out += "ns-3 backend, from this directory (its outputs land here as ns3-*.txt):\n"
           "  \"$ASTRA_SIM_NS3\" --workload-configuration=\"$WORKLOAD\" \\\n"
           "    --system-configuration=system.json --network-configuration=ns3-config.txt \\\n"
           "    --remote-memory-configuration=remote-memory.json \\\n"
           "    --logical-topology-configuration=logical-topology.json \\\n"
           "    --comm-group-configuration=comm-groups.json\n"
           "  (ASTRA_SIM_NS3: extern/network_backend/ns-3/build/scratch/"
           "ns3.42-AstraSimNetwork-default)\n\n";
    out += "Dimensions (network.yml, logical-topology.json, system.json):\n";
    for (const Dimension &dim : d.dims)
        out += strf("  %-9s %5d NPUs, %.6g GB/s (2^30 B) per NPU, %.6g ns per hop\n", dim.what,
            dim.npus, dim.bytesPerSecond / kAnalyticalGB, dim.hopLatency * 1e9);
    out += "\ntopology.txt: " + std::to_string(t.nodeCount()) + " nodes (" + std::to_string(t.npus)
        + " NPUs, " + std::to_string(t.scaleUp.size()) + " NVSwitches, "
        + std::to_string(t.switches.size()) + " NICs and switches), "
        + std::to_string(t.links.size())
        + " links, one per full-duplex cable, rate per direction.\n\n";
    out += "Communicator groups (comm-groups.json; id 0 is ASTRA-sim's group of all ranks):\n";
    for (const GroupTable::Kind &k : groups.kinds)
        out += strf("  %5d-%-5d %-5s %d groups of %d ranks\n", k.firstId, k.firstId + k.count - 1,
            std::string(groupKindName(k.kind)).c_str(), k.count, k.size);
    if (groups.kinds.empty())
        out += "  none (every degree is 1)\n";
    if (!d.warnings.empty()) {
        out += "\nWarnings:\n";
        for (const std::string &w : d.warnings)
            out += "  " + oneLine(w) + "\n";
    }
    out += "\nNodes of topology.txt:\n";
    for (int id = 0; id < t.nodeCount(); ++id)
        out += strf("  %6d %s\n", id, oneLine(t.names[static_cast<std::size_t>(id)]).c_str());
    return out;
}

} // namespace

std::vector<std::string> astraSimWarnings(const CostEngine &engine)
{
    if (engine.mapping().rankCount() < 2)
        return {};
    return dimensionsOf(engine).warnings;
}

std::vector<ExportFile> exportAstraSim(const CostEngine &engine, const ExportOptions &)
{
    if (engine.mapping().rankCount() < 2)
        throw ScenarioError("parallel",
            "a world of one rank has no network for ASTRA-sim to simulate (its analytical "
            "backend needs at least 2 NPUs per dimension)");
    const PacketTopology t = packetTopology(engine, NicModel::Node);
    const Dimensions d = dimensionsOf(engine);
    const GroupTable groups = commGroups(engine);
    return {
        { "topology.txt", topologyText(t) },
        { "ns3-config.txt", ns3Config(t) },
        { "ns3-trace.txt", "0\n" }, // ns-3 reads the count of nodes to trace, then their ids
        { "logical-topology.json", logicalTopologyJson(d) },
        { "network.yml", networkYaml(engine, d) },
        { "system.json", systemJson(engine, d) },
        { "remote-memory.json", "{\n    \"memory-type\": \"NO_MEMORY_EXPANSION\"\n}\n" },
        { "comm-groups.json", groups.json },
        { "replay.txt", replayText(engine, t, d, groups) },
    };
}

} // namespace railyard::exportdetail
