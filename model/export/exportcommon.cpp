#include "export/exportcommon.h"

#include "base/scenarioerror.h"
#include "export/runrecord.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace railyard::exportdetail {

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

} // namespace railyard::exportdetail
