/**
 * The scheduler's view of the fabric (schedulertopology.h) and the two Slurm topology.conf
 * exports. Sources:
 *  - topology.conf(5), Slurm 22.05 (SchedMD/slurm tag slurm-22-05-8-1, doc/man/man5), section
 *    topology/tree: "each line defining a switch name and its children, either node names or
 *    switch names", SwitchName "cannot be longer than 64 characters", Nodes= and Switches= as
 *    hostlist expressions; the plugin (src/plugins/topology/tree/topology_tree.c) refuses a
 *    configuration that "is not a tree" (a switch under two parents) and warns when "Multiple
 *    leaf switches contain nodes".
 *  - topology.conf(5), Slurm 24.11 (tag slurm-24-11-0-1), section topology/block: BlockName=
 *    and Nodes= per block, BlockSizes= "the planning base block size, alongside any
 *    higher-level block sizes", each block "must have at least the planning base block size
 *    count of nodes", successive sizes "a power of two larger than the prior values" (BlockSizes
 *    replaced 23.11's BlockLevels in 24.05); sbatch(1) of 24.11, --segment: "the size of the
 *    segments that will be used to create the job allocation", which "must always be evenly
 *    divisible by the requested node count" and at most the planning base block size.
 */
#include "export/schedulertopology.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exportcommon.h"
#include "export/slurmhostlist.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace railyard::exportdetail {

namespace {

std::string uniqueSwitchName(
    std::string wanted, const std::string &fallback, std::set<std::string> &taken)
{
    if (!slurmhostlist::plainName(wanted) || taken.count(wanted))
        wanted = fallback;
    while (taken.count(wanted))
        wanted += "x";
    taken.insert(wanted);
    return wanted;
}

std::vector<std::string> hostsOf(const SchedulerTopology &t, const std::vector<int> &servers)
{
    std::vector<std::string> names;
    for (int s : servers)
        names.push_back(t.hosts[static_cast<std::size_t>(s)]);
    return names;
}

/// The sbatch lines both topology exports end their header with: node count, the job's node
/// order (node k is the k-th host of the slurm export's SLURM_HOSTFILE) and `extra` options.
std::string sbatchComment(const SchedulerTopology &t, const std::string &extra)
{
    std::string out = "#\n# Job hand-off: the mapping's " + std::to_string(t.jobServers.size())
        + " nodes in the order of their first rank (the order of the slurm\n"
          "# export's SLURM_HOSTFILE; railyard-node-order below, one line for scripts):\n";
    out += "#   sbatch --nodes=" + std::to_string(t.jobServers.size()) + extra
        + " --nodelist=" + slurmhostlist::compress(hostsOf(t, t.jobServers)) + " JOB.slurm.sh\n";
    out += "# railyard-node-order:";
    for (int s : t.jobServers)
        out += " " + t.hosts[static_cast<std::size_t>(s)];
    out += "\n";
    for (const std::string &n : t.notes)
        out += "# note: " + n + "\n";
    return out;
}

} // namespace

std::vector<int> SchedulerTopology::jobServersPerBlock() const
{
    std::vector<int> count(blocks.size(), 0);
    for (int s : jobServers)
        if (const int b = blockOfServer[static_cast<std::size_t>(s)]; b >= 0)
            ++count[static_cast<std::size_t>(b)];
    return count;
}

int SchedulerTopology::segmentSize() const
{
    int g = 0;
    for (int c : jobServersPerBlock())
        if (c > 0)
            g = std::gcd(g, c);
    return std::max(g, 1);
}

SchedulerTopology schedulerTopology(const CostEngine &engine, const std::vector<std::string> &hosts)
{
    const Fabric &f = engine.fabric();
    SchedulerTopology t;
    t.hosts = hosts;
    std::set<std::string> taken(hosts.begin(), hosts.end());
    const auto S = static_cast<std::size_t>(f.servers());
    t.leafGroupOfServer.assign(S, -1);

    // Leaf-level groups: servers reaching the same set of plane-0 leaves.
    std::map<std::vector<int>, int> groupOfLeafSet;
    std::vector<int> zoneOfGroup; ///< per leaf group: its leaves' zone (four tiers), else -1
    int uncabled = 0;
    for (int s = 0; s < f.servers(); ++s) {
        std::set<int> leaves;
        for (int n = 0; n < f.nicsPerServer(); ++n)
            if (const int leaf = f.leafOfNic(s, n); leaf >= 0)
                leaves.insert(leaf);
        if (leaves.empty()) {
            ++uncabled;
            continue;
        }
        const std::vector<int> key(leaves.begin(), leaves.end());
        auto [it, added] = groupOfLeafSet.try_emplace(key, static_cast<int>(t.leafGroups.size()));
        if (added) {
            SchedulerTopology::Group g;
            const FabricNode &first = f.node(f.leafVertex(key.front()));
            const int index = static_cast<int>(t.leafGroups.size());
            bool oneSu = first.su >= 0;
            for (int leaf : key)
                oneSu = oneSu && f.node(f.leafVertex(leaf)).su == first.su;
            if (key.size() == 1) {
                g.name = uniqueSwitchName(first.name, "leaf" + std::to_string(index), taken);
                g.what = "leaf " + first.name;
            } else if (oneSu && !f.railOnly()) {
                g.name = uniqueSwitchName(
                    "su" + std::to_string(first.su), "leafgroup" + std::to_string(index), taken);
                g.what = "the " + std::to_string(key.size()) + " rail leaves of scalable unit "
                    + std::to_string(first.su);
            } else {
                g.name = uniqueSwitchName("leafgroup" + std::to_string(index),
                    "leafgroup" + std::to_string(index), taken);
                g.what
                    = "leaves " + first.name + " and " + std::to_string(key.size() - 1) + " more";
            }
            g.parent = f.spineCount() > 0 ? first.pod : -1;
            zoneOfGroup.push_back(f.zoneCount() > 1 ? first.zone : -1);
            t.leafGroups.push_back(std::move(g));
        }
        t.leafGroupOfServer[static_cast<std::size_t>(s)] = it->second;
        t.leafGroups[static_cast<std::size_t>(it->second)].servers.push_back(s);
    }
    if (uncabled > 0)
        t.notes.push_back(
            std::to_string(uncabled) + " server(s) have no cabled NIC and sit under no switch");

    // Pods: the spines above the leaf groups (pod index -> dense index).
    std::map<int, int> podIndex;
    for (std::size_t gi = 0; gi < t.leafGroups.size(); ++gi) {
        SchedulerTopology::Group &g = t.leafGroups[gi];
        if (g.parent < 0)
            continue;
        auto [it, added] = podIndex.try_emplace(g.parent, static_cast<int>(t.pods.size()));
        if (added) {
            SchedulerTopology::Group pod;
            pod.name = uniqueSwitchName("pod" + std::to_string(g.parent) + "-spines",
                "spines" + std::to_string(t.pods.size()), taken);
            pod.what = "the spines of pod " + std::to_string(g.parent);
            pod.parent = zoneOfGroup[gi]; // the zone's own number; made dense below
            t.pods.push_back(std::move(pod));
        }
        g.parent = it->second;
        t.pods[static_cast<std::size_t>(it->second)].servers.insert(
            t.pods[static_cast<std::size_t>(it->second)].servers.end(), g.servers.begin(),
            g.servers.end());
    }
    for (SchedulerTopology::Group &pod : t.pods)
        std::sort(pod.servers.begin(), pod.servers.end());

    // Zones (four tiers): the super-spines above a zone's pods; the cores above the zones. A
    // job kept inside one zone never reaches a core, so the scheduler should see the level.
    std::map<int, int> zoneIndex;
    for (SchedulerTopology::Group &pod : t.pods) {
        if (pod.parent < 0)
            continue;
        auto [it, added] = zoneIndex.try_emplace(pod.parent, static_cast<int>(t.zones.size()));
        if (added) {
            SchedulerTopology::Group zone;
            zone.name = uniqueSwitchName("zone" + std::to_string(pod.parent) + "-superspines",
                "zone" + std::to_string(t.zones.size()), taken);
            zone.what = "the super-spines of zone " + std::to_string(pod.parent);
            t.zones.push_back(std::move(zone));
        }
        pod.parent = it->second;
        SchedulerTopology::Group &zone = t.zones[static_cast<std::size_t>(it->second)];
        zone.servers.insert(zone.servers.end(), pod.servers.begin(), pod.servers.end());
    }
    for (SchedulerTopology::Group &zone : t.zones)
        std::sort(zone.servers.begin(), zone.servers.end());
    if (t.zones.size() == 1) { // one zone cabled: its super-spines are the top, as in three tiers
        t.zones.clear();
        for (SchedulerTopology::Group &pod : t.pods)
            pod.parent = -1;
    }
    if (t.zones.size() > 1)
        t.top = uniqueSwitchName("cores", "top", taken);
    else if (t.pods.size() > 1)
        t.top = uniqueSwitchName("super-spines", "top", taken);
    if (t.pods.empty() && t.leafGroups.size() > 1)
        t.notes.push_back("the leaf groups have no spine above them: a job cannot span two");

    // Blocks: NVLink domains that span servers, else the leaf groups.
    t.blockOfServer.assign(S, -1);
    if (f.scaleUpDomainServers() > 1) {
        t.blockKind = "NVLink domain";
        for (int d = 0; d < f.scaleUpDomainCount(); ++d) {
            SchedulerTopology::Group b;
            b.name = uniqueSwitchName(f.scaleUpDomainName(d), "nvl" + std::to_string(d), taken);
            b.what = "NVLink domain " + f.scaleUpDomainName(d);
            for (int s = d * f.scaleUpDomainServers(); s < (d + 1) * f.scaleUpDomainServers();
                 ++s) {
                b.servers.push_back(s);
                t.blockOfServer[static_cast<std::size_t>(s)] = d;
            }
            t.blocks.push_back(std::move(b));
        }
    } else {
        t.blockKind = "leaf group";
        t.blocks = t.leafGroups;
        t.blockOfServer = t.leafGroupOfServer;
    }

    // The job's servers in node order: the order their first rank appears in.
    std::vector<char> seen(S, 0);
    const Mapping &m = engine.mapping();
    for (int r = 0; r < m.rankCount(); ++r) {
        const int s = f.serverOfSlot(m.slotOf(r));
        if (!seen[static_cast<std::size_t>(s)]) {
            seen[static_cast<std::size_t>(s)] = 1;
            t.jobServers.push_back(s);
        }
    }
    return t;
}

std::vector<std::string> schedulerTopologyWarnings(const CostEngine &engine, bool block)
{
    std::vector<std::string> hosts;
    for (int s = 0; s < engine.fabric().servers(); ++s)
        hosts.push_back(engine.fabric().serverName(s));
    const SchedulerTopology t = schedulerTopology(engine, hosts);
    std::vector<std::string> out = t.notes;
    if (block) {
        std::vector<int> used;
        for (int c : t.jobServersPerBlock())
            if (c > 0)
                used.push_back(c);
        if (!used.empty()
            && std::any_of(used.begin(), used.end(), [&](int c) { return c != used.front(); }))
            out.push_back("the job uses " + std::to_string(used.size()) + " blocks unevenly (" +
                [&] {
                    std::string list;
                    for (int c : used)
                        list += (list.empty() ? "" : ", ") + std::to_string(c);
                    return list;
                }()
                + " nodes): --segment=" + std::to_string(t.segmentSize())
                + " keeps less together than the mapping does");
    }
    return out;
}

std::string exportSlurmTopologyTree(const CostEngine &engine, const ExportOptions &options)
{
    const SchedulerTopology t = schedulerTopology(engine, hostNames(engine, options, true));
    std::string out = headerComment(engine,
        "Slurm topology.conf for TopologyPlugin=topology/tree (topology.conf(5), Slurm 22.05+)");
    out += "# Leaf switches: one per group of servers that reach the same leaves (a "
           "rail-optimised\n"
           "# scalable unit's rail leaves count as one); above them one switch per pod for its\n"
           "# spines"
        + std::string(t.zones.size() > 1
                ? ", one per zone for its super-spines, and one for the cores"
                : t.top.empty() ? ""
                                : ", and one for the super-spines")
        + ".\n";
    std::set<int> jobGroups;
    for (int s : t.jobServers)
        if (const int g = t.leafGroupOfServer[static_cast<std::size_t>(s)]; g >= 0)
            jobGroups.insert(g);
    out += sbatchComment(
        t, " --switches=" + std::to_string(std::max<std::size_t>(1, jobGroups.size())));
    for (const SchedulerTopology::Group &g : t.leafGroups)
        out += "# " + g.what + "\nSwitchName=" + g.name
            + " Nodes=" + slurmhostlist::compress(hostsOf(t, g.servers)) + "\n";
    for (std::size_t p = 0; p < t.pods.size(); ++p) {
        std::vector<std::string> children;
        for (const SchedulerTopology::Group &g : t.leafGroups)
            if (g.parent == static_cast<int>(p))
                children.push_back(g.name);
        out += "# " + t.pods[p].what + "\nSwitchName=" + t.pods[p].name
            + " Switches=" + slurmhostlist::compress(children) + "\n";
    }
    for (std::size_t z = 0; z < t.zones.size(); ++z) {
        std::vector<std::string> children;
        for (const SchedulerTopology::Group &p : t.pods)
            if (p.parent == static_cast<int>(z))
                children.push_back(p.name);
        out += "# " + t.zones[z].what + "\nSwitchName=" + t.zones[z].name
            + " Switches=" + slurmhostlist::compress(children) + "\n";
    }
    if (!t.top.empty()) {
        std::vector<std::string> children;
        for (const SchedulerTopology::Group &g : t.zones.size() > 1 ? t.zones : t.pods)
            children.push_back(g.name);
        out += std::string(t.zones.size() > 1 ? "# the cores" : "# the super-spines")
            + "\nSwitchName=" + t.top + " Switches=" + slurmhostlist::compress(children) + "\n";
    }
    return out;
}

std::string exportSlurmTopologyBlock(const CostEngine &engine, const ExportOptions &options)
{
    const SchedulerTopology t = schedulerTopology(engine, hostNames(engine, options, true));
    if (t.blocks.empty())
        throw ScenarioError("fabric", "no server has a cabled NIC: there is no block to write");
    std::size_t base = t.blocks.front().servers.size();
    for (const SchedulerTopology::Group &b : t.blocks)
        base = std::min(base, b.servers.size());
    // BlockSizes: the base, then doublings while a block of that size exists (at most 16
    // levels: block_record.c refuses a level above 15).
    std::string sizes = std::to_string(base);
    for (std::size_t blocks = 2, level = 1; blocks <= t.blocks.size() && level <= 15;
         blocks *= 2, ++level)
        sizes += "," + std::to_string(base * blocks);
    const int segment = t.segmentSize();
    std::string out = headerComment(engine,
        "Slurm topology.conf for TopologyPlugin=topology/block (topology.conf(5), Slurm 24.05+ "
        "for BlockSizes)");
    out += "# Blocks: " + std::to_string(t.blocks.size()) + " " + t.blockKind
        + "s; the planning base block size is the smallest block (" + std::to_string(base)
        + " nodes).\n";
    const std::vector<int> perBlock = t.jobServersPerBlock();
    int blocksUsed = 0;
    for (int c : perBlock)
        blocksUsed += c > 0 ? 1 : 0;
    out += "# The mapping uses " + std::to_string(blocksUsed)
        + " block(s); --segment=" + std::to_string(segment) + " keeps each segment of "
        + std::to_string(segment) + " nodes inside one block (sbatch(1), Slurm 24.11+).\n";
    std::vector<int> used;
    for (int c : perBlock)
        if (c > 0)
            used.push_back(c);
    if (std::any_of(used.begin(), used.end(), [&](int c) { return c != used.front(); }))
        out += "# warning: the job's nodes per block differ, so --segment is their greatest "
               "common\n"
               "# divisor: a looser constraint than the mapping.\n";
    out += sbatchComment(t, " --segment=" + std::to_string(segment));
    for (const SchedulerTopology::Group &b : t.blocks)
        out += "# " + b.what + "\nBlockName=" + b.name
            + " Nodes=" + slurmhostlist::compress(hostsOf(t, b.servers)) + "\n";
    out += "BlockSizes=" + sizes + "\n";
    return out;
}

} // namespace railyard::exportdetail
