#include "export/exportcommon.h"

#include "base/scenarioerror.h"
#include "export/runrecord.h"
#include "scenario/scenariosections.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace railyard::exportdetail {

std::string shortHostName(const std::string &name)
{
    return name.substr(0, name.find('.'));
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
        for (std::size_t i = 0; i < options.hosts.size(); ++i) {
            if (!plainHostName(options.hosts[i]))
                throw ScenarioError("--hosts",
                    "host " + std::to_string(i) + " '" + oneLine(options.hosts[i].substr(0, 60))
                        + "' is not a host name");
            for (std::size_t j = 0; j < i; ++j)
                if (shortHostName(options.hosts[j]) == shortHostName(options.hosts[i]))
                    throw ScenarioError("--hosts",
                        "servers " + std::to_string(j) + " and " + std::to_string(i) + " are both '"
                            + shortHostName(options.hosts[i])
                            + "' (a host name, or its short name before the first '.', names "
                              "one server)");
        }
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

int numaOfGpu(const FabricSpec &spec, int gpu)
{
    if (static_cast<std::size_t>(gpu) < spec.gpuNuma.size())
        return spec.gpuNuma[static_cast<std::size_t>(gpu)];
    return spec.gpusPerServer >= 2 && gpu >= spec.gpusPerServer / 2 ? 1 : 0;
}

int numaNodes(const FabricSpec &spec)
{
    int n = 1;
    for (int g = 0; g < spec.gpusPerServer; ++g)
        n = std::max(n, numaOfGpu(spec, g) + 1);
    return n;
}

std::string rdmaDevice(const FabricSpec &spec, const std::string &prefix, int nic)
{
    if (static_cast<std::size_t>(nic) < spec.nicDevices.size())
        return spec.nicDevices[static_cast<std::size_t>(nic)];
    return prefix + std::to_string(nic);
}

std::pair<int, int> coresOfGpu(const FabricSpec &spec, int gpu, int cpus)
{
    const int gpus = spec.gpusPerServer;
    if (cpus < gpus)
        throw ScenarioError("--cpus-per-host",
            std::to_string(cpus) + " cores per host is fewer than the " + std::to_string(gpus)
                + " GPUs: every rank needs a core of its own");
    const int nodes = numaNodes(spec);
    const int node = numaOfGpu(spec, gpu);
    int index = 0, onNode = 0;
    for (int g = 0; g < gpus; ++g)
        if (numaOfGpu(spec, g) == node) {
            index += g < gpu;
            ++onNode;
        }
    const long long base = static_cast<long long>(node) * cpus / nodes;
    const long long size = static_cast<long long>(node + 1) * cpus / nodes - base;
    const long long lo = base + index * size / onNode;
    const long long hi = std::max(lo, base + (index + 1) * size / onNode - 1);
    return { static_cast<int>(lo), static_cast<int>(hi) };
}

std::vector<RankPlacement> placements(
    const CostEngine &engine, const std::vector<std::string> &hosts, const std::string &hcaPrefix)
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
        const FabricSpec &spec = fabric.spec();
        p.numa = numaOfGpu(spec, p.gpu);
        p.hca = rdmaDevice(spec, hcaPrefix, p.nic);
        if (static_cast<std::size_t>(p.gpu) < spec.gpuPciBusIds.size())
            p.gpuBusId = spec.gpuPciBusIds[static_cast<std::size_t>(p.gpu)];
        if (static_cast<std::size_t>(p.nic) < spec.nicPciBusIds.size())
            p.nicBusId = spec.nicPciBusIds[static_cast<std::size_t>(p.nic)];
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

void refuseControlCharacters(const std::string &field, const std::string &text)
{
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto ch = static_cast<unsigned char>(text[i]);
        if (ch < 0x20 || ch == 0x7f)
            throw ScenarioError(field,
                strf("holds a control character (0x%02x at offset %zu); a newline or other "
                     "control character cannot be passed safely to a launcher",
                    ch, i));
    }
}

std::vector<std::string> commandWords(const std::string &field, const std::string &command)
{
    refuseControlCharacters(field, command);
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < command.size()) {
        while (i < command.size() && command[i] == ' ')
            ++i;
        std::size_t j = i;
        while (j < command.size() && command[j] != ' ')
            ++j;
        if (j > i)
            words.push_back(command.substr(i, j - i));
        i = j;
    }
    if (words.empty())
        throw ScenarioError(field, "is empty: give the training program (and its fixed arguments)");
    return words;
}

std::string checkedHcaPrefix(const std::string &prefix)
{
    if (prefix.empty())
        throw ScenarioError("--hca-prefix",
            "is empty: NIC i is the RDMA device <prefix><i> (e.g. mlx5_ gives mlx5_0), so an "
            "empty prefix would give NCCL_IB_HCA=\"=0\"");
    const bool ok = prefix.size() <= 32 && std::all_of(prefix.begin(), prefix.end(), [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9')
            || ch == '_' || ch == '-' || ch == '.';
    });
    if (!ok)
        throw ScenarioError("--hca-prefix",
            "'" + oneLine(prefix.substr(0, 40))
                + "' is not an RDMA device prefix (1..32 letters, digits, '_', '-', '.')");
    return prefix;
}

std::string quotedWords(const std::vector<std::string> &words)
{
    std::string out;
    for (const std::string &w : words)
        out += (out.empty() ? "" : " ") + shellQuote(w);
    return out;
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
        std::string(scenariosections::fabricKindText(f.kind)).c_str(), f.servers, f.gpusPerServer,
        fabricHash(f).c_str());
    return out;
}

std::string mnnvlEnvironment(int domainServers)
{
    return "# Rack-scale NVLink domains of " + std::to_string(domainServers)
        + " servers: NCCL's multi-node NVLink (MNNVL) carries tray-to-tray traffic.\n"
          "export NCCL_MNNVL_ENABLE=1\n";
}

} // namespace railyard::exportdetail
