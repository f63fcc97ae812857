/**
 * Exporters: the format registry, the dispatcher and what every format shares (host names,
 * the per-rank placement table, the fabric hash, the node-major check of launchers).
 * The formats themselves live in export_records.cpp (mapping-json, csv and their import),
 * export_launchers.cpp (rankfile, slurm, torchrun, hostfile), export_megatron.cpp,
 * export_trace.cpp (chrome-trace) and export_ncclplan.cpp (the measurement plan).
 */
#include "export/exporters.h"

#include "export/export_common.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
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

constexpr std::array<FormatInfo, 9> kFormats { {
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
        "pipeline timeline as Chrome trace events (Perfetto)" },
    { ExportFormat::NcclPlan, "nccl-plan", ".nccl-plan.sh",
        "nccl-tests measurement plan with the engine's predictions" },
} };

const FormatInfo &info(ExportFormat f)
{
    for (const FormatInfo &i : kFormats)
        if (i.format == f)
            return i;
    return kFormats.front();
}

bool plainHostName(const std::string &name)
{
    if (name.empty() || name.size() > 253 || name.front() == '-' || name.front() == '.')
        return false;
    return std::all_of(name.begin(), name.end(), [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
            || ch == '.' || ch == '-' || ch == '_';
    });
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

std::string fabricHash(const FabricSpec &spec)
{
    // The fabric section exactly as a scenario file stores it; nlohmann's object keys are
    // sorted, so the dump is canonical. FNV-1a 64 (Fowler/Noll/Vo, IETF draft-eastlake-fnv).
    Scenario s;
    s.fabric = spec;
    const std::string text = scenarioToJson(s).at("fabric").dump();
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char ch : text) {
        h ^= ch;
        h *= 1099511628211ull;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::vector<std::string> parseHostsFile(const std::string &text, int servers)
{
    std::vector<std::string> plain;
    std::map<int, std::string> indexed;
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
        if (!plainHostName(name))
            throw ScenarioError(where,
                "'" + name.substr(0, 60) + "' is not a host name (letters, digits, '.', '-', '_')");
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
    }
    throw ScenarioError("format", "unknown export format");
}

std::vector<std::string> exportWarnings(
    const CostEngine &engine, ExportFormat format, const ExportOptions &options)
{
    using namespace exportdetail;
    std::vector<std::string> out;
    const bool nodeMajorLauncher = format == ExportFormat::Torchrun
        || format == ExportFormat::Hostfile || format == ExportFormat::Megatron;
    if (nodeMajorLauncher) {
        const NodeMajor nm = nodeMajor(engine, hostNames(engine, options, false));
        for (const std::string &p : nm.problems)
            out.push_back(std::string(exportFormatName(format)) + ": " + p);
    }
    if (format == ExportFormat::Megatron)
        for (const std::string &w : megatronWarnings(engine))
            out.push_back("megatron: " + w);
    return out;
}

namespace exportdetail {

std::string strf(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return {};
    if (static_cast<std::size_t>(n) < sizeof buf)
        return std::string(buf, static_cast<std::size_t>(n));
    std::string big(static_cast<std::size_t>(n) + 1, '\0');
    va_start(ap, fmt);
    std::vsnprintf(big.data(), big.size(), fmt, ap);
    va_end(ap);
    big.resize(static_cast<std::size_t>(n));
    return big;
}

std::vector<std::string> hostNames(
    const CostEngine &engine, const ExportOptions &options, bool forLaunchers)
{
    const Fabric &fabric = engine.fabric();
    if (!options.hosts.empty()) {
        if (static_cast<int>(options.hosts.size()) != fabric.servers())
            throw ScenarioError("--hosts",
                "lists " + std::to_string(options.hosts.size()) + " hosts but the fabric has "
                    + std::to_string(fabric.servers()) + " servers");
        for (std::size_t i = 0; i < options.hosts.size(); ++i)
            if (!plainHostName(options.hosts[i]))
                throw ScenarioError("--hosts",
                    "host " + std::to_string(i) + " '" + options.hosts[i].substr(0, 60)
                        + "' is not a host name");
        return options.hosts;
    }
    std::vector<std::string> names;
    names.reserve(static_cast<std::size_t>(fabric.servers()));
    for (int s = 0; s < fabric.servers(); ++s) {
        names.push_back(fabric.serverName(s));
        if (forLaunchers && !plainHostName(names.back()))
            throw ScenarioError("fabric.server_names[" + std::to_string(s) + "]",
                "'" + names.back().substr(0, 60)
                    + "' cannot be used as a host name in a launcher file "
                      "(letters, digits, '.', '-', '_'); give --hosts");
    }
    return names;
}

std::vector<RankPlacement> placements(
    const CostEngine &engine, const std::vector<std::string> &hosts)
{
    const Fabric &fabric = engine.fabric();
    const Mapping &mapping = engine.mapping();
    const ParallelLayout &layout = engine.layout();
    std::vector<RankPlacement> out(static_cast<std::size_t>(mapping.rankCount()));
    for (int r = 0; r < mapping.rankCount(); ++r) {
        RankPlacement &p = out[static_cast<std::size_t>(r)];
        p.rank = r;
        p.coord = layout.coord(r);
        p.slot = mapping.slotOf(r);
        p.server = fabric.serverOfSlot(p.slot);
        p.host = hosts[static_cast<std::size_t>(p.server)];
        p.gpu = fabric.gpuOfSlot(p.slot);
        p.nic = fabric.nicOfGpu(p.gpu);
        p.rail = fabric.railOfSlot(p.slot);
        p.leaf = fabric.leafOfNic(p.server, p.nic);
        p.leafName = fabric.node(fabric.leafVertex(p.leaf)).name;
        p.leafPort = fabric.leafPortOfNic(p.server, p.nic);
    }
    return out;
}

std::string rangesText(const std::vector<int> &sorted)
{
    std::string out;
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
            ++j;
        out += (out.empty() ? "" : ", ") + std::to_string(sorted[i]);
        if (j > i)
            out += "-" + std::to_string(sorted[j]);
        i = j + 1;
    }
    return out;
}

NodeMajor nodeMajor(const CostEngine &engine, const std::vector<std::string> &hosts)
{
    const Fabric &fabric = engine.fabric();
    const Mapping &mapping = engine.mapping();
    const int world = mapping.rankCount();
    std::vector<std::vector<int>> ranksOf(static_cast<std::size_t>(fabric.servers()));
    for (int r = 0; r < world; ++r)
        ranksOf[static_cast<std::size_t>(fabric.serverOfSlot(mapping.slotOf(r)))].push_back(r);

    NodeMajor nm;
    nm.nproc = static_cast<int>(
        ranksOf[static_cast<std::size_t>(fabric.serverOfSlot(mapping.slotOf(0)))].size());
    const auto problem = [&nm](std::string text) {
        nm.expressible = false;
        if (nm.problems.size() < 4)
            nm.problems.push_back(std::move(text));
    };
    for (int s = 0; s < fabric.servers(); ++s) {
        const std::vector<int> &rs = ranksOf[static_cast<std::size_t>(s)];
        if (rs.empty())
            continue;
        const int nodeRank = rs.front() / std::max(1, nm.nproc);
        const bool block = static_cast<int>(rs.size()) == nm.nproc && rs.front() % nm.nproc == 0
            && rs.back() == rs.front() + nm.nproc - 1;
        if (!block) {
            problem(hosts[static_cast<std::size_t>(s)] + " holds ranks " + rangesText(rs)
                + ", not one block of " + std::to_string(nm.nproc)
                + " consecutive ranks starting at a multiple of " + std::to_string(nm.nproc));
            continue;
        }
        if (static_cast<int>(nm.nodeServer.size()) <= nodeRank)
            nm.nodeServer.resize(static_cast<std::size_t>(nodeRank) + 1, -1);
        nm.nodeServer[static_cast<std::size_t>(nodeRank)] = s;
    }
    if (!nm.expressible)
        nm.nodeServer.clear();
    return nm;
}

std::string oneLine(std::string text)
{
    for (char &ch : text)
        if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f)
            ch = ' ';
    return text;
}

std::string layoutText(const CostEngine &engine)
{
    const ParallelDegrees &d = engine.layout().degrees();
    return strf("tp %d x pp %d x dp %d x cp %d x ep %d, order %s", d.tp, d.pp, d.dp, d.cp, d.ep,
        engine.layout().order().c_str());
}

std::string headerComment(const CostEngine &engine, const std::string &what)
{
    const Scenario &s = engine.scenario();
    const FabricSpec &f = engine.fabric().spec();
    std::string out = "# " + oneLine(what) + "\n";
    out += "# scenario \"" + oneLine(s.name) + "\", mapping version "
        + std::to_string(s.mappingVersion) + ", " + std::to_string(engine.layout().worldSize())
        + " ranks\n";
    out += "# layout " + layoutText(engine) + "\n";
    out += strf("# fabric \"%s\" (%s, %d servers x %d GPUs), %s\n", oneLine(f.name).c_str(),
        f.kind == FabricKind::Tor ? "tor" : "rail-optimised", f.servers, f.gpusPerServer,
        fabricHash(f).c_str());
    return out;
}

} // namespace exportdetail

} // namespace railyard
