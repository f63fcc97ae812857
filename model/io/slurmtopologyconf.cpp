/**
 * Reads a Slurm topology.conf (slurmtopologyconf.h). The grammar and checks follow
 * topology.conf(5) and the plugins that read the file (SchedMD/slurm):
 *  - "Parameter names are case insensitive. Any text following a "#" ... is treated as a
 *    comment"; Nodes= and Switches= are hostlist expressions (slurmhostlist.h).
 *  - tree (tag slurm-22-05-8-1, src/plugins/topology/tree/topology_tree.c): SwitchName at most
 *    64 characters; a repeated switch, an unknown child, a switch without children, one with
 *    both child switches and nodes, and a configuration that "is not a tree" are errors; a node
 *    under several leaf switches is only a warning there, but a fabric cannot be built from it.
 *  - block (tag slurm-24-11-0-1, src/plugins/topology/block/block_record.c): a repeated block, a
 *    block without nodes, one with fewer nodes than the planning base block size; BlockSizes
 *    values are positive, each the base times a power of two, at most level 15.
 */
#include "io/slurmtopologyconf.h"

#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"
#include "export/slurmhostlist.h"
#include "io/cablingcsv.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace railyard {

namespace {

std::string lowered(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::vector<std::string> blankSplit(const std::string &line)
{
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
    return words;
}

/// A positive decimal integer of at most 9 digits (it fits an int), else -1.
long long smallNumber(const std::string &s)
{
    if (s.empty() || s.size() > 9)
        return -1;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return -1;
    return std::stoll(s);
}

} // namespace

bool looksLikeSlurmTopologyConf(const std::string &text)
{
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos)
            nl = text.size();
        std::size_t i = pos;
        while (i < nl && std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
        const std::string head = lowered(text.substr(i, std::min<std::size_t>(11, nl - i)));
        if (head.rfind("switchname=", 0) == 0 || head.rfind("blockname=", 0) == 0)
            return true;
        pos = nl + 1;
    }
    return false;
}

SlurmTopologyConf parseSlurmTopologyConf(const std::string &text, const std::string &file)
{
    SlurmTopologyConf conf;
    conf.file = file;
    const auto fail = [&](int line, const std::string &why) {
        throw ScenarioError(file + ":" + std::to_string(line), why);
    };
    const auto expand = [&](int line, const std::string &key, const std::string &value) {
        try {
            return slurmhostlist::expand(value, static_cast<std::size_t>(limits::kMaxServers));
        } catch (const std::invalid_argument &e) {
            fail(line, key + "=" + value.substr(0, 80) + ": " + e.what());
        }
        return std::vector<std::string>();
    };
    std::map<std::string, int> lineOfName;
    std::string hardwareName, hardwareFor;
    bool sawTree = false, sawBlock = false;
    std::size_t totalNodes = 0;
    int lineNo = 0;
    std::size_t pos = 0;
    std::string pending; // a line continued with '\'
    int pendingLine = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos)
            nl = text.size();
        std::string raw = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++lineNo;
        if (!raw.empty() && raw.back() == '\r')
            raw.pop_back();
        for (char c : raw)
            if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
                fail(lineNo, "a control character (is this a text file?)");
        std::string line = raw;
        if (const std::size_t hash = line.find('#'); hash != std::string::npos) {
            // topograph: "# switch.1.1=leaf-1-1" names the next entry's hardware.
            const std::vector<std::string> words = blankSplit(line.substr(hash + 1));
            if (pending.empty() && hash == line.find_first_not_of(" \t") && words.size() == 1) {
                const std::size_t eq = words[0].find('=');
                if (eq != std::string::npos && eq > 0 && eq + 1 < words[0].size()) {
                    hardwareFor = words[0].substr(0, eq);
                    hardwareName = words[0].substr(eq + 1);
                }
            }
            line.erase(hash);
        }
        if (!pending.empty() || (!line.empty() && line.back() == '\\')) {
            if (pending.empty())
                pendingLine = lineNo;
            const bool more = !line.empty() && line.back() == '\\';
            pending += " " + (more ? line.substr(0, line.size() - 1) : line);
            if (more)
                continue;
            line = pending;
            pending.clear();
        } else {
            pendingLine = lineNo;
        }
        const std::vector<std::string> words = blankSplit(line);
        if (words.empty())
            continue;
        SlurmTopologyConf::Entry e;
        e.line = pendingLine;
        std::string kind;
        bool sawNodes = false, sawSwitches = false;
        for (const std::string &w : words) {
            const std::size_t eq = w.find('=');
            if (eq == std::string::npos || eq == 0)
                fail(e.line, "'" + w.substr(0, 60) + "' is not KEY=VALUE");
            const std::string key = lowered(w.substr(0, eq));
            const std::string value = w.substr(eq + 1);
            if (kind.empty()) {
                if (key != "switchname" && key != "blockname" && key != "blocksizes")
                    fail(e.line,
                        "a line starts with SwitchName=, BlockName= or BlockSizes=, not '"
                            + w.substr(0, eq) + "='");
                kind = key;
                if (key == "blocksizes") {
                    if (!conf.blockSizes.empty())
                        fail(e.line,
                            "BlockSizes is given twice (line " + std::to_string(conf.blockSizesLine)
                                + ")");
                    conf.blockSizesLine = e.line;
                    std::size_t k = 0;
                    while (k <= value.size()) {
                        std::size_t comma = value.find(',', k);
                        if (comma == std::string::npos)
                            comma = value.size();
                        const long long n = smallNumber(value.substr(k, comma - k));
                        if (n <= 0)
                            fail(e.line,
                                "BlockSizes=" + value.substr(0, 60)
                                    + ": each size is a positive node count");
                        conf.blockSizes.push_back(static_cast<int>(n));
                        k = comma + 1;
                    }
                    continue;
                }
                if (!slurmhostlist::plainName(value))
                    fail(e.line,
                        w.substr(0, eq) + "='" + value.substr(0, 80)
                            + "' is not a name Slurm keeps (1..64 letters, digits, '.', '-', "
                              "'_')");
                if (const auto seen = lineOfName.find(value); seen != lineOfName.end())
                    fail(e.line,
                        "'" + value + "' is defined twice (line " + std::to_string(seen->second)
                            + ")");
                lineOfName.emplace(value, e.line);
                e.name = value;
                // A comment is free text: a hardware name that is not printable UTF-8 (a
                // garbled or hand-edited comment) is not a name to carry; the Slurm name is.
                if (hardwareFor == value && isPrintableUtf8(hardwareName))
                    e.hardware = hardwareName;
                continue;
            }
            if (kind == "blocksizes")
                fail(e.line, "BlockSizes= stands on a line of its own");
            if (key == "nodes") {
                if (sawNodes)
                    fail(e.line, "Nodes= is given twice");
                sawNodes = true;
                e.nodes = expand(e.line, "Nodes", value);
                for (const std::string &n : e.nodes)
                    if (!slurmhostlist::plainName(n))
                        fail(e.line,
                            "node '" + n.substr(0, 80)
                                + "' is not a host name (1..64 letters, digits, '.', '-', '_')");
                totalNodes += e.nodes.size();
                if (totalNodes > static_cast<std::size_t>(limits::kMaxServers))
                    fail(e.line,
                        "more than " + std::to_string(limits::kMaxServers)
                            + " nodes in the file (the scenario limit)");
            } else if (key == "switches" && kind == "switchname") {
                if (sawSwitches)
                    fail(e.line, "Switches= is given twice");
                sawSwitches = true;
                e.switches = expand(e.line, "Switches", value);
            } else if (key == "linkspeed" && kind == "switchname") {
                if (smallNumber(value) < 0)
                    fail(e.line, "LinkSpeed=" + value.substr(0, 40) + " is not a number");
            } else {
                fail(e.line,
                    "'" + w.substr(0, eq) + "=' is not a "
                        + (kind == "switchname" ? "topology/tree" : "topology/block")
                        + " key (topology.conf(5))");
            }
        }
        hardwareFor.clear();
        if (kind == "blocksizes")
            continue;
        if (kind == "switchname") {
            sawTree = true;
            if (e.nodes.empty() && e.switches.empty())
                fail(e.line, "switch " + e.name + " has neither Nodes= nor Switches=");
            if (!e.nodes.empty() && !e.switches.empty())
                fail(e.line, "switch " + e.name + " has both child switches and nodes");
        } else {
            sawBlock = true;
            if (e.nodes.empty())
                fail(e.line, "block " + e.name + " has no Nodes=");
        }
        if (sawTree && sawBlock)
            fail(e.line,
                "SwitchName (topology/tree) and BlockName (topology/block) lines in one "
                "file");
        conf.topograph = conf.topograph || !e.hardware.empty();
        conf.entries.push_back(std::move(e));
    }
    if (!pending.empty())
        fail(lineNo, "the last line ends with '\\' (a continuation to nowhere)");
    if (conf.entries.empty())
        fail(lineNo, "no SwitchName= or BlockName= line");
    conf.block = sawBlock;
    if (!conf.blockSizes.empty() && !conf.block)
        fail(conf.blockSizesLine, "BlockSizes= belongs to topology/block, not to a switch tree");

    // Every node once, and never also a switch or block name.
    std::map<std::string, int> entryOfNode;
    for (std::size_t i = 0; i < conf.entries.size(); ++i)
        for (const std::string &n : conf.entries[i].nodes) {
            if (lineOfName.count(n))
                fail(conf.entries[i].line,
                    "node " + n + " has the name of a " + (conf.block ? "block" : "switch")
                        + " (line " + std::to_string(lineOfName.at(n)) + ")");
            const auto [it, added] = entryOfNode.emplace(n, static_cast<int>(i));
            if (!added)
                fail(conf.entries[i].line,
                    "node " + n + " is in " + conf.entries[i].name + " and in "
                        + conf.entries[static_cast<std::size_t>(it->second)].name + " (line "
                        + std::to_string(conf.entries[static_cast<std::size_t>(it->second)].line)
                        + "): a node sits under one leaf switch / in one block");
        }

    if (conf.block) {
        if (!conf.blockSizes.empty()) {
            const int base = conf.blockSizes.front();
            for (int size : conf.blockSizes) {
                const double level = std::log2(static_cast<double>(size) / base);
                if (size % base != 0 || level != std::floor(level) || level > 15)
                    fail(conf.blockSizesLine,
                        "BlockSizes: " + std::to_string(size) + " is not " + std::to_string(base)
                            + " times a power of two up to 2^15 (block_record.c)");
            }
            for (const SlurmTopologyConf::Entry &e : conf.entries)
                if (static_cast<int>(e.nodes.size()) < base)
                    fail(e.line,
                        "block " + e.name + " has " + std::to_string(e.nodes.size())
                            + " nodes, fewer than the planning base block size "
                            + std::to_string(base) + " (BlockSizes, line "
                            + std::to_string(conf.blockSizesLine) + ")");
        }
        return conf;
    }

    // The switches form a forest of at most three levels.
    std::map<std::string, int> index;
    for (std::size_t i = 0; i < conf.entries.size(); ++i)
        index.emplace(conf.entries[i].name, static_cast<int>(i));
    std::vector<int> parent(conf.entries.size(), -1);
    for (std::size_t i = 0; i < conf.entries.size(); ++i)
        for (const std::string &child : conf.entries[i].switches) {
            const auto it = index.find(child);
            if (it == index.end())
                fail(conf.entries[i].line, "switch " + child + " is not defined");
            if (it->second == static_cast<int>(i))
                fail(conf.entries[i].line, "switch " + child + " is its own child");
            int &p = parent[static_cast<std::size_t>(it->second)];
            if (p >= 0)
                fail(conf.entries[i].line,
                    "switch " + child + " is a child of "
                        + conf.entries[static_cast<std::size_t>(p)].name + " (line "
                        + std::to_string(conf.entries[static_cast<std::size_t>(p)].line)
                        + ") too: the configuration is not a tree");
            p = static_cast<int>(i);
        }
    for (std::size_t i = 0; i < conf.entries.size(); ++i) {
        if (conf.entries[i].nodes.empty())
            continue;
        int depth = 0;
        for (int p = parent[i]; p >= 0; p = parent[static_cast<std::size_t>(p)])
            if (++depth > 2)
                fail(conf.entries[static_cast<std::size_t>(p)].line,
                    "switch " + conf.entries[static_cast<std::size_t>(p)].name
                        + " is a fourth switch level (or a cycle) above leaf "
                        + conf.entries[i].name
                        + ": a fabric has leaves, spines and super-spines at most");
    }
    // A switch above no leaf (a cycle without nodes) is refused too.
    for (std::size_t i = 0; i < conf.entries.size(); ++i) {
        int depth = 0;
        for (int p = parent[i]; p >= 0; p = parent[static_cast<std::size_t>(p)])
            if (++depth > static_cast<int>(conf.entries.size()))
                fail(conf.entries[i].line, "switch " + conf.entries[i].name + " is in a cycle");
    }
    return conf;
}

SchedulerImportNotes applySlurmTopology(FabricSpec &spec, const SlurmTopologyConf &conf)
{
    if (conf.block) {
        std::vector<std::vector<std::string>> domains;
        std::vector<std::string> where;
        for (const SlurmTopologyConf::Entry &e : conf.entries) {
            domains.push_back(e.nodes);
            where.push_back(conf.file + ":" + std::to_string(e.line));
        }
        return applyNvlinkDomains(spec, conf.file, domains, where);
    }
    const int nics = spec.nicsPerServer > 0 ? spec.nicsPerServer : spec.gpusPerServer;
    const auto device = [&](int n) {
        return static_cast<int>(spec.nicDevices.size()) == nics
            ? spec.nicDevices[static_cast<std::size_t>(n)]
            : "mlx5_" + std::to_string(n);
    };
    // The name a cable gives a switch: its hardware name from topograph when it has one.
    std::set<std::string> nodes;
    for (const SlurmTopologyConf::Entry &e : conf.entries)
        nodes.insert(e.nodes.begin(), e.nodes.end());
    std::map<std::string, std::string> deviceOf;
    std::set<std::string> used(nodes);
    for (const SlurmTopologyConf::Entry &e : conf.entries) {
        std::string name = e.hardware.empty() || used.count(e.hardware) ? e.name : e.hardware;
        if (used.count(name))
            throw ScenarioError(conf.file + ":" + std::to_string(e.line),
                "switch " + name + " has the name of a node");
        used.insert(name);
        deviceOf[e.name] = name;
    }
    CablingCsv csv;
    csv.file = conf.file;
    std::map<std::string, int> nextPort;
    std::map<std::string, long long> uplinks; // per switch: ports towards its parent
    const double nicGbps = spec.nic.gbps, portGbps = spec.fabricPort.gbps;
    const auto cable = [&](const std::string &a, const std::string &aPort, const std::string &b,
                           double gbps, int line) {
        csv.cables.push_back({ a, aPort, b, "port" + std::to_string(++nextPort[b]), gbps, -1.0 });
        csv.lines.push_back(line);
    };
    std::map<std::string, std::size_t> entryOf;
    for (std::size_t i = 0; i < conf.entries.size(); ++i)
        entryOf.emplace(conf.entries[i].name, i);
    const auto leavesFirst = [&](auto &&self, std::size_t i) -> long long {
        const SlurmTopologyConf::Entry &e = conf.entries[i];
        if (const auto done = uplinks.find(e.name); done != uplinks.end())
            return done->second;
        long long up = 0;
        if (!e.nodes.empty()) {
            for (const std::string &n : e.nodes)
                for (int k = 0; k < nics; ++k)
                    cable(n, device(k), deviceOf[e.name], nicGbps, e.line);
            // Non-blocking: as much fabric bandwidth up as the NICs bring down.
            up = static_cast<long long>(
                std::ceil(static_cast<double>(e.nodes.size()) * nics * nicGbps / portGbps - 1e-9));
        }
        for (const std::string &child : e.switches) {
            const std::size_t c = entryOf.at(child);
            const long long ports = self(self, c);
            for (long long k = 0; k < ports; ++k)
                cable(deviceOf[child], "port" + std::to_string(++nextPort[deviceOf[child]]),
                    deviceOf[e.name], portGbps, conf.entries[c].line);
            up += ports;
        }
        uplinks[e.name] = up;
        return up;
    };
    for (std::size_t i = 0; i < conf.entries.size(); ++i)
        leavesFirst(leavesFirst, i);
    // A tree's leaves hold every NIC of their servers: each NIC index appears on each leaf, so
    // importCabling() reads it as top-of-rack.
    const CablingImport imported = importCabling(spec, csv, "");
    SchedulerImportNotes out;
    out.notes.push_back(conf.file + ": topology/tree" + (conf.topograph ? " (topograph)" : "")
        + ", " + std::to_string(imported.servers) + " nodes, " + std::to_string(conf.entries.size())
        + " switches; every switch cabled non-blocking to "
        + "its parent (topology.conf has no link counts)");
    for (const std::string &n : imported.notes)
        out.notes.push_back("  " + n);
    return out;
}

SchedulerImportNotes applyNvlinkDomains(FabricSpec &spec, const std::string &file,
    const std::vector<std::vector<std::string>> &domains, const std::vector<std::string> &where)
{
    const auto at = [&](std::size_t d) { return where[d]; };
    if (domains.empty())
        throw ScenarioError(file, "no NVLink domain");
    const std::size_t size = domains.front().size();
    std::vector<std::string> order;
    for (std::size_t d = 0; d < domains.size(); ++d) {
        if (domains[d].size() != size)
            throw ScenarioError(at(d),
                "this NVLink domain has " + std::to_string(domains[d].size())
                    + " servers, the first (" + where.front() + ") " + std::to_string(size)
                    + ": the fabric's domains are equal blocks of servers");
        order.insert(order.end(), domains[d].begin(), domains[d].end());
    }
    if (size > 1024)
        throw ScenarioError(at(0),
            std::to_string(size)
                + " servers in one NVLink domain: more than 1024 (the NVLink Switch System's "
                  "largest domain is 576 GPUs)");
    SchedulerImportNotes out;
    if (!spec.cabling.empty()) {
        const std::set<std::string> have(spec.serverNames.begin(), spec.serverNames.end());
        const std::set<std::string> want(order.begin(), order.end());
        for (std::size_t d = 0; d < domains.size(); ++d)
            for (const std::string &h : domains[d])
                if (!have.count(h))
                    throw ScenarioError(at(d), "server " + h + " is not in the fabric's cabling");
        for (const std::string &h : spec.serverNames)
            if (!want.count(h))
                throw ScenarioError(file, "server " + h + " of the fabric is in no NVLink domain");
    } else {
        spec.servers = static_cast<int>(order.size());
    }
    spec.serverNames = order;
    spec.scaleUpDomainServers = static_cast<int>(size);
    // Rail-optimised scalable units hold whole domains (fabricspec.h).
    if (spec.cabling.empty() && spec.kind == FabricKind::RailOptimised && size > 1
        && spec.serversPerSu % static_cast<int>(size) != 0) {
        const int su
            = std::max(1, spec.serversPerSu / static_cast<int>(size)) * static_cast<int>(size);
        out.notes.push_back("servers_per_su " + std::to_string(spec.serversPerSu) + " -> "
            + std::to_string(su) + " so that scalable units hold whole NVLink domains");
        spec.serversPerSu = su;
    }
    out.notes.push_back(file + ": " + std::to_string(domains.size()) + " NVLink domain(s) of "
        + std::to_string(size) + " server(s); servers ordered domain by domain");
    return out;
}

} // namespace railyard
