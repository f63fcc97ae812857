/**
 * Exporters: the format registry, the dispatcher, the export warnings and the --hosts file.
 * The formats themselves live in runrecord.cpp (mapping-json, csv and their import),
 * launcherexport.cpp (rankfile, slurm, torchrun, hostfile), megatronexport.cpp,
 * chrometrace.cpp, ncclplan.cpp (the measurement plan), astrasimexport.cpp and simaiexport.cpp (the
 * packet-level simulators, over packettopology.cpp), schedulertopology.cpp (Slurm topology.conf)
 * and kueueexport.cpp; what they share in exportcommon.cpp.
 */
#include "export/exporters.h"

#include "base/scenarioerror.h"
#include "export/astrasimexport.h"
#include "export/chrometrace.h"
#include "export/exportcommon.h"
#include "export/kubernetesexport.h"
#include "export/kueueexport.h"
#include "export/launcherexport.h"
#include "export/megatronexport.h"
#include "export/ncclplan.h"
#include "export/nccltopofile.h"
#include "export/runrecord.h"
#include "export/schedulertopology.h"
#include "export/simaiexport.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

namespace railyard {

namespace {

struct FormatInfo
{
    ExportFormat format;
    std::string_view name;
    std::string_view suffix;
    std::string_view description;
};

constexpr std::array<FormatInfo, 16> kFormats { {
    { ExportFormat::MappingJson, "mapping-json", ".mapping.json",
        "run record: rank, coordinates, server, GPU, NIC, rail, leaf port (importable)" },
    { ExportFormat::Csv, "csv", ".csv", "run record as CSV, one row per rank (importable)" },
    { ExportFormat::Rankfile, "rankfile", ".rankfile",
        "Open MPI rankfile: rank N=host slot=cores" },
    { ExportFormat::Slurm, "slurm", ".slurm.sh",
        "Slurm batch script: SLURM_HOSTFILE, --distribution=arbitrary, per-task GPU" },
    { ExportFormat::Torchrun, "torchrun", ".torchrun.sh",
        "torchrun per node with CUDA_VISIBLE_DEVICES in local-rank order" },
    { ExportFormat::Hostfile, "hostfile", ".hostfile",
        "DeepSpeed / Open MPI hostfile: host slots=N" },
    { ExportFormat::Megatron, "megatron", ".megatron.sh", "Megatron-LM arguments for this layout" },
    { ExportFormat::ChromeTrace, "chrome-trace", ".trace.json",
        "predicted iteration as Chrome trace events, a track per phase (Perfetto)" },
    { ExportFormat::NcclPlan, "nccl-plan", ".nccl-plan.sh",
        "nccl-tests measurement plan with the engine's predictions" },
    { ExportFormat::PyTorchJob, "pytorchjob", ".pytorchjob.yaml",
        "Kubeflow PyTorchJob: one pod per node on its host, GPUs and NICs per rank" },
    { ExportFormat::AstraSim, "astra-sim", ".astra-sim",
        "ASTRA-sim inputs (a directory): ns-3 topology, analytical network, system, comm groups" },
    { ExportFormat::SimAiTopo, "simai-topo", ".simai-topo.txt",
        "SimAI topology file: GPUs, NVSwitches, switches and one line per link" },
    { ExportFormat::NcclTopo, "nccl-topo", ".nccl-topo.xml",
        "NCCL_TOPO_FILE XML of one server: CPUs, PCIe switches, GPUs, NICs (needs bus ids)" },
    { ExportFormat::SlurmTopology, "slurm-topology", ".topology.conf",
        "Slurm topology.conf, topology/tree: leaf groups and spines; sbatch --switches line" },
    { ExportFormat::SlurmTopologyBlock, "slurm-topology-block", ".block-topology.conf",
        "Slurm topology.conf, topology/block: NVLink domains as blocks; sbatch --segment" },
    { ExportFormat::Kueue, "kueue", ".kueue.yaml",
        "Kueue Topology-Aware Scheduling: Topology levels, ResourceFlavor, Indexed Job" },
} };

const FormatInfo &info(ExportFormat f)
{
    for (const FormatInfo &i : kFormats)
        if (i.format == f)
            return i;
    return kFormats.front();
}

} // namespace

const std::vector<ExportFormat> &allExportFormats()
{
    static const std::vector<ExportFormat> all = [] {
        std::vector<ExportFormat> v;
        for (const FormatInfo &i : kFormats)
            v.push_back(i.format);
        return v;
    }();
    return all;
}

std::string_view exportFormatName(ExportFormat f)
{
    return info(f).name;
}
std::string_view exportFormatSuffix(ExportFormat f)
{
    return info(f).suffix;
}
std::string_view exportFormatDescription(ExportFormat f)
{
    return info(f).description;
}

bool parseExportFormat(std::string_view name, ExportFormat &out)
{
    for (const FormatInfo &i : kFormats)
        if (i.name == name) {
            out = i.format;
            return true;
        }
    return false;
}

std::vector<std::string> parseHostsFile(const std::string &text, int servers)
{
    std::vector<std::string> plain;
    std::map<int, std::string> indexed;
    std::map<std::string, int> lineOfHost;
    int lineNo = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        const std::size_t nl = text.find('\n', pos);
        std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        pos = nl == std::string::npos ? text.size() + 1 : nl + 1;
        ++lineNo;
        if (const std::size_t hash = line.find('#'); hash != std::string::npos)
            line.erase(hash);
        std::vector<std::string> words;
        std::size_t i = 0;
        while (i < line.size()) {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
                ++i;
            std::size_t j = i;
            while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j])))
                ++j;
            if (j > i)
                words.push_back(line.substr(i, j - i));
            i = j;
        }
        if (words.empty())
            continue;
        const std::string where = "--hosts line " + std::to_string(lineNo);
        if (words.size() > 2)
            throw ScenarioError(where,
                "expected 'hostname' or 'index hostname', got " + std::to_string(words.size())
                    + " words");
        const std::string &name = words.back();
        if (!exportdetail::plainHostName(name))
            throw ScenarioError(where,
                "'" + name.substr(0, 60) + "' is not a host name (letters, digits, '.', '-', '_')");
        const std::string shortName = exportdetail::shortHostName(name);
        if (const auto seen = lineOfHost.find(shortName); seen != lineOfHost.end())
            throw ScenarioError(where,
                "'" + name + "' names the same host as line " + std::to_string(seen->second)
                    + " (host names, and their short names before the first '.', must differ)");
        lineOfHost.emplace(shortName, lineNo);
        if (words.size() == 1) {
            plain.push_back(name);
            continue;
        }
        const std::string &idx = words.front();
        if (idx.empty() || idx.size() > 9
            || !std::all_of(idx.begin(), idx.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
            throw ScenarioError(where, "'" + idx.substr(0, 20) + "' is not a server index");
        const int server = std::stoi(idx);
        if (server >= servers)
            throw ScenarioError(where,
                "server " + idx + " does not exist (the fabric has " + std::to_string(servers)
                    + " servers, 0.." + std::to_string(servers - 1) + ")");
        if (!indexed.emplace(server, name).second)
            throw ScenarioError(where, "server " + idx + " is named twice");
    }
    if (!plain.empty() && !indexed.empty())
        throw ScenarioError("--hosts", "mixes 'hostname' lines with 'index hostname' lines");
    if (!indexed.empty()) {
        if (static_cast<int>(indexed.size()) != servers)
            throw ScenarioError("--hosts",
                "names " + std::to_string(indexed.size()) + " servers but the fabric has "
                    + std::to_string(servers) + " (server " + std::to_string([&] {
                          int s = 0;
                          while (indexed.count(s))
                              ++s;
                          return s;
                      }())
                    + " is missing)");
        for (auto &[server, name] : indexed)
            plain.push_back(std::move(name));
        return plain;
    }
    if (static_cast<int>(plain.size()) != servers)
        throw ScenarioError("--hosts",
            "lists " + std::to_string(plain.size()) + " hosts but the fabric has "
                + std::to_string(servers) + " servers");
    return plain;
}

bool exportWritesDirectory(ExportFormat f)
{
    return f == ExportFormat::AstraSim;
}

bool exportUsesHosts(ExportFormat f)
{
    return f != ExportFormat::ChromeTrace && f != ExportFormat::AstraSim
        && f != ExportFormat::SimAiTopo && f != ExportFormat::NcclTopo;
}

std::string exportUnavailableReason(const CostEngine &engine, ExportFormat f)
{
    if (f == ExportFormat::NcclTopo) {
        const std::vector<std::string> missing = ncclTopoMissingFields(engine.fabric().spec());
        if (!missing.empty())
            return ncclTopoMissingMessage(missing);
    }
    return {};
}

std::vector<ExportFile> exportFiles(
    const CostEngine &engine, ExportFormat format, const ExportOptions &options)
{
    if (format == ExportFormat::AstraSim)
        return exportdetail::exportAstraSim(engine, options);
    throw ScenarioError(
        "format", std::string(exportFormatName(format)) + " writes one file, not a directory");
}

std::string exportText(const CostEngine &engine, ExportFormat format, const ExportOptions &options)
{
    using namespace exportdetail;
    switch (format) {
    case ExportFormat::MappingJson:
        return exportMappingJson(engine, options);
    case ExportFormat::Csv:
        return exportCsv(engine, options);
    case ExportFormat::Rankfile:
        return exportRankfile(engine, options);
    case ExportFormat::Slurm:
        return exportSlurm(engine, options);
    case ExportFormat::Torchrun:
        return exportTorchrun(engine, options);
    case ExportFormat::Hostfile:
        return exportHostfile(engine, options);
    case ExportFormat::Megatron:
        return exportMegatron(engine, options);
    case ExportFormat::ChromeTrace:
        return exportChromeTrace(engine, options);
    case ExportFormat::NcclPlan:
        return exportNcclPlan(engine, options);
    case ExportFormat::PyTorchJob:
        return exportPyTorchJob(engine, options);
    case ExportFormat::AstraSim:
        return exportFilesListing(exportAstraSim(engine, options));
    case ExportFormat::SimAiTopo:
        return exportSimAiTopology(engine, options);
    case ExportFormat::NcclTopo: {
        NcclTopoFileOptions topo;
        topo.hcaPrefix = checkedHcaPrefix(options.hcaPrefix);
        topo.cpusPerHost = options.cpusPerHost;
        return ncclTopoFileText(engine.fabric().spec(), topo);
    }
    case ExportFormat::SlurmTopology:
        return exportSlurmTopologyTree(engine, options);
    case ExportFormat::SlurmTopologyBlock:
        return exportSlurmTopologyBlock(engine, options);
    case ExportFormat::Kueue:
        return exportKueue(engine, options);
    }
    throw ScenarioError("format", "unknown export format");
}

std::vector<std::string> exportWarnings(
    const CostEngine &engine, ExportFormat format, const ExportOptions &options)
{
    using namespace exportdetail;
    std::vector<std::string> out;
    const bool nodeMajorLauncher = format == ExportFormat::Torchrun
        || format == ExportFormat::PyTorchJob || format == ExportFormat::Hostfile
        || format == ExportFormat::Megatron;
    if (nodeMajorLauncher) {
        const NodeMajor nm = nodeMajor(engine, hostNames(engine, options, false));
        for (const std::string &p : nm.problems)
            out.push_back(std::string(exportFormatName(format)) + ": " + p);
    }
    if (format == ExportFormat::Megatron)
        for (const std::string &w : megatronWarnings(engine))
            out.push_back("megatron: " + w);
    if (format == ExportFormat::AstraSim)
        for (const std::string &w : astraSimWarnings(engine))
            out.push_back("astra-sim: " + w);
    if (format == ExportFormat::SimAiTopo)
        for (const std::string &w : simAiWarnings(engine))
            out.push_back("simai-topo: " + w);
    if (format == ExportFormat::SlurmTopology || format == ExportFormat::SlurmTopologyBlock
        || format == ExportFormat::Kueue)
        for (const std::string &w :
            schedulerTopologyWarnings(engine, format == ExportFormat::SlurmTopologyBlock))
            out.push_back(std::string(exportFormatName(format)) + ": " + w);
    return out;
}

} // namespace railyard
