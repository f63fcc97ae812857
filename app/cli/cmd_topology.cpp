/**
 * `railyard-cli import-topology FILE [--topology FILE...] [--cabling CSV]`: sets the scenario's
 * server model (GPU <-> NIC affinity, NICs per server, NIC speed, NVLink bandwidth) from the
 * topology NCCL dumps with NCCL_TOPO_DUMP_FILE (model/io/nccltopology.h), and its network from
 * a cabling inventory (model/io/cablingcsv.h, fabric/cablingbuilder.h), and says where the
 * wiring is not what the design assumes. A --topology file is told by its content: NCCL XML, a
 * Slurm topology.conf or topograph's (io/slurmtopologyconf.h: a switch tree becomes the
 * network, blocks the NVLink domains) or nvidia-smi -q output (io/nvlinkdomains.h: ClusterUUIDs
 * become the NVLink domains). The scenario goes to stdout or -o; the affinity table, the fabric
 * found and the findings to stderr.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fabric/failedcomponent.h"
#include "io/cablingcsv.h"
#include "io/nccltopology.h"
#include "io/nvlinkdomains.h"
#include "io/slurmtopologyconf.h"
#include "layout/mapping.h"
#include "scenario/scenariofile.h"
#include "studies/remapplacement.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace railyard::cli {

namespace {

struct TopologyOptions
{
    std::string file;
    std::vector<std::string> topologies;
    std::string cabling;
    std::string serverPattern;
    std::string output;
};

/// Keeps the scenario's mapping when it still fits the imported fabric; otherwise places its
/// preset anew, moving ranks off GPUs whose NIC has no cable (the failure remap's rules).
std::string fitMapping(Scenario &s)
{
    const Fabric fabric = Fabric::build(s.fabric);
    const ParallelLayout layout(s.degrees, s.order);
    if (layout.worldSize() > fabric.slotCount())
        throw ScenarioError("parallel",
            "the job has " + std::to_string(layout.worldSize())
                + " ranks but the imported fabric has " + std::to_string(fabric.slotCount())
                + " GPU slots (" + std::to_string(fabric.servers()) + " servers x "
                + std::to_string(fabric.gpusPerServer()) + ")");
    const std::vector<char> usable = usableSlots(fabric, s.failures);
    const auto fits = [&](const std::vector<int> &slots) {
        return std::all_of(slots.begin(), slots.end(), [&](int slot) {
            return slot >= 0 && slot < fabric.slotCount() && usable[static_cast<std::size_t>(slot)];
        });
    };
    if (!s.slots.empty() && fits(s.slots))
        return {};
    const std::vector<int> preset = Mapping::place(s.placement, layout, fabric).slots();
    if (s.slots.empty() && fits(preset))
        return {};
    const remap_detail::Placed placed = remap_detail::placeRanks(layout, fabric, usable, preset);
    if (placed.shortfall > 0)
        throw ScenarioError("parallel",
            std::to_string(placed.shortfall)
                + " ranks find no GPU slot with a cabled NIC on the imported fabric");
    const bool hadExplicit = !s.slots.empty();
    s.slots = placed.slots;
    ++s.mappingVersion;
    return std::string(
               hadExplicit ? "the scenario's mapping does not fit the imported fabric: " : "")
        + "ranks placed " + std::string(placementName(s.placement))
        + (placed.slots != preset ? ", moved off GPUs whose NIC has no cable" : "") + "\n";
}

std::string topologySummary(const ServerTopology &t)
{
    std::string summary = t.file + ": " + std::to_string(t.gpus.size()) + " GPUs, "
        + std::to_string(t.rails.size()) + " rail NICs";
    if (t.scaleUpGbps > 0.0)
        summary += ", NVLink " + std::to_string(static_cast<long long>(t.scaleUpGbps / 8.0))
            + " GB/s per GPU and direction";
    summary += "\n";
    for (const TopologyGpu &g : t.gpus) {
        const TopologyNic &nic
            = t.nics[static_cast<std::size_t>(t.rails[static_cast<std::size_t>(g.nic)])];
        char line[256];
        std::snprintf(line, sizeof line, "  GPU %d %-14s -> %-8s rail %d  %s  numa %d\n", g.dev,
            g.busId.c_str(), nic.label().c_str(), g.nic, g.pathType.c_str(), g.numa);
        summary += line;
    }
    return summary;
}

/// The --topology files sorted by what they hold (the content decides, not the name).
struct TopologyInputs
{
    std::vector<ServerTopology> servers; ///< NCCL XML
    std::vector<SlurmTopologyConf> trees, blocks; ///< Slurm / topograph topology.conf
    std::vector<NvlinkDomainRecord> fabricRecords; ///< nvidia-smi -q ClusterUUIDs
    std::vector<std::string> fabricFiles;
};

TopologyInputs readTopologyInputs(const std::vector<std::string> &paths)
{
    // 64 MiB: a topology.conf or an nvidia-smi -q dump of 131,072 servers' GPUs stays far below.
    constexpr long long kMaxSchedulerTopologyBytes = 64LL << 20;
    TopologyInputs in;
    for (const std::string &path : paths) {
        const std::string text
            = readFileLimited(path, kMaxSchedulerTopologyBytes, "a topology file", " (64 MiB)");
        const std::size_t first = text.find_first_not_of(" \t\r\n");
        if (first != std::string::npos && text[first] == '<') {
            in.servers.push_back(loadNcclTopology(path));
        } else if (looksLikeSlurmTopologyConf(text)) {
            SlurmTopologyConf conf = parseSlurmTopologyConf(text, path);
            (conf.block ? in.blocks : in.trees).push_back(std::move(conf));
        } else if (looksLikeNvidiaSmiFabric(text)) {
            const std::vector<NvlinkDomainRecord> r = parseNvidiaSmiFabric(text, path);
            in.fabricRecords.insert(in.fabricRecords.end(), r.begin(), r.end());
            in.fabricFiles.push_back(path);
        } else {
            throw ScenarioError(path,
                "is neither NCCL topology XML, a Slurm topology.conf "
                "(SwitchName= or BlockName= lines) nor nvidia-smi -q "
                "output (ClusterUUID lines)");
        }
    }
    if (in.trees.size() > 1)
        throw UsageError("two switch trees (" + in.trees[0].file + ", " + in.trees[1].file
            + "): give one topology/tree file");
    if (in.blocks.size() + (in.fabricRecords.empty() ? 0 : 1) > 1)
        throw UsageError("NVLink domains from two sources: give one topology/block file or "
                         "nvidia-smi -q output");
    return in;
}

int runImportTopology(const TopologyOptions &o)
{
    if (o.topologies.empty() && o.cabling.empty())
        throw UsageError("import-topology needs --topology FILE, --cabling CSV or both");
    if (!o.serverPattern.empty() && o.cabling.empty())
        throw UsageError("--server-pattern applies only with --cabling");
    Scenario scenario = loadScenarioFile(o.file);
    std::string summary;
    std::vector<std::string> warnings;
    TopologyInputs inputs = readTopologyInputs(o.topologies);
    if (!inputs.trees.empty() && !o.cabling.empty())
        throw UsageError("--cabling and a topology/tree file (" + inputs.trees.front().file
            + ") both describe the network: give one");
    const std::vector<ServerTopology> &servers = inputs.servers;
    if (!servers.empty()) {
        applyTopology(scenario.fabric, servers.front());
        summary += topologySummary(servers.front());
        for (const ServerTopology &s : servers)
            warnings.insert(warnings.end(), s.warnings.begin(), s.warnings.end());
        const std::vector<std::string> across = compareTopologies(servers);
        warnings.insert(warnings.end(), across.begin(), across.end());
    }
    if (!o.cabling.empty()) {
        const CablingCsv csv = loadCablingCsv(o.cabling);
        const CablingImport result = importCabling(scenario.fabric, csv, o.serverPattern);
        const Fabric fabric = Fabric::build(scenario.fabric);
        summary += csv.file + ": " + std::to_string(csv.cables.size()) + " cables, "
            + std::to_string(result.servers) + " servers, " + std::to_string(fabric.leafCount())
            + " leaves, " + std::to_string(fabric.spineCount()) + " spines, "
            + std::to_string(fabric.superSpineCount()) + " super-spines, "
            + std::to_string(fabric.podCount()) + " pod(s)\n";
        for (const std::string &note : result.notes)
            summary += "  " + note + "\n";
        summary += fitMapping(scenario);
        for (const std::string &finding : fabric.cablingFindings())
            warnings.push_back(finding);
    }
    // The scheduler's view: the switch tree, then the NVLink domains (blocks or ClusterUUIDs).
    std::vector<std::string> schedulerNotes;
    for (const SlurmTopologyConf &tree : inputs.trees)
        for (const std::string &n : applySlurmTopology(scenario.fabric, tree).notes)
            schedulerNotes.push_back(n);
    for (const SlurmTopologyConf &block : inputs.blocks)
        for (const std::string &n : applySlurmTopology(scenario.fabric, block).notes)
            schedulerNotes.push_back(n);
    if (!inputs.fabricRecords.empty()) {
        std::vector<std::vector<std::string>> domains;
        std::vector<std::string> where;
        groupNvlinkDomains(inputs.fabricRecords, domains, where);
        std::string files;
        for (const std::string &f : inputs.fabricFiles)
            files += (files.empty() ? "" : ", ") + f;
        for (const std::string &n :
            applyNvlinkDomains(scenario.fabric, files, domains, where).notes)
            schedulerNotes.push_back(n);
    }
    if (!schedulerNotes.empty()) {
        const Fabric fabric = Fabric::build(scenario.fabric);
        for (const std::string &n : schedulerNotes)
            summary += n + "\n";
        summary += "fabric: " + std::to_string(fabric.servers()) + " servers, "
            + std::to_string(fabric.leafCount()) + " leaves, " + std::to_string(fabric.spineCount())
            + " spines, " + std::to_string(fabric.superSpineCount()) + " super-spines, NVLink "
            + "domains of " + std::to_string(fabric.scaleUpDomainServers()) + " server(s)\n";
        summary += fitMapping(scenario);
        for (const std::string &finding : fabric.cablingFindings())
            warnings.push_back(finding);
    }
    // The loader's checks (bus ids, device names, cabling) and the engine's, before anything
    // is written.
    const std::string text = scenarioToText(scenario);
    const CostEngine check(parseScenario(text));
    for (const std::string &w : warnings)
        summary += "warning: " + w + "\n";
    writeOutput(o.output, text);
    std::fputs(terminalText(summary).c_str(), stderr);
    return kExitOk;
}

} // namespace

void addImportTopology(CommandLine &line)
{
    auto o = std::make_shared<TopologyOptions>();
    Command c(line,
        line.addCommand("import-topology",
            "Set the scenario's server model from NCCL topology XML (NCCL_TOPO_DUMP_FILE): GPU "
            "<-> NIC affinity by PCIe proximity as NCCL ranks paths, NICs per server, NIC speed "
            "and NVLink bandwidth. Several files (one per server) are compared: a GPU index on "
            "different rails is a warning. With --cabling, the network comes from a cabling "
            "inventory: any two- or three-tier fabric, with a NIC on the wrong rail leaf, two "
            "NICs of a server on one leaf, unequal uplinks, missing cables and mixed speeds "
            "named. A Slurm topology.conf (or topograph's) sets the switch tree or, with "
            "topology/block, the NVLink domains; nvidia-smi -q ClusterUUIDs set the NVLink "
            "domains. Writes the scenario; the affinity, the fabric and the warnings go to stderr.",
            [o] { return runImportTopology(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    c.texts("--topology", o->topologies, "FILE",
        "A topology file, told by its content (repeatable): NCCL topology XML (the first sets "
        "the server model); a Slurm topology.conf or topograph's, whose topology/tree switches "
        "become the network and topology/block blocks the NVLink domains; nvidia-smi -q output "
        "(per host, or gathered with pdsh/clush as 'HOST: ' lines) whose ClusterUUIDs become "
        "the NVLink domains.");
    c.file("--cabling", o->cabling, "CSV",
        "A cabling inventory, one cable per line: a_device,a_port,b_device,b_port,gbps"
        "[,latency_us] (an LLDP or DCIM export). The network becomes exactly these cables: "
        "tiers, rails, pods and miswirings are found from them.");
    c.text("--server-pattern", o->serverPattern, "REGEX",
        "With --cabling: the devices that are servers (RE2 regular expression on the whole "
        "name, matched in linear time; at most 1024 bytes); default: every device whose ports "
        "all name NICs (mlx5_0, nic0, ...).");
    c.output(o->output, "Write the scenario to FILE (atomically) instead of stdout.");
}

} // namespace railyard::cli
