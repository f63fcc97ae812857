#pragma once

/**
 * What fuzz_slurmtopo and fuzz_nvsmi do with one input, shared with tst_fuzzregressions: the
 * scheduler-topology readers (io/slurmtopologyconf.h: a Slurm or topograph topology.conf;
 * io/nvlinkdomains.h: nvidia-smi -q ClusterUUIDs) and what import-topology does with what they
 * accept: the tree becomes the fabric's cabling, blocks and ClusterUUIDs its NVLink domains,
 * and Fabric::build must then succeed. A small accepted fabric is exported as topology.conf
 * again (slurm-topology or slurm-topology-block), and the reader must take its own export back.
 * A ScenarioError is a refusal; anything else escaping, or a broken invariant, is a bug.
 */

#include "fuzzharness.h"
#include "io/nvlinkdomains.h"
#include "io/slurmtopologyconf.h"

#include <set>
#include <string>
#include <string_view>

namespace railyard::fuzz {

/// Fabrics above this many servers are imported but not exported again (a fuzz input stays fast).
inline constexpr int kMaxReexportedServers = 64;
/// Inputs naming more nodes are parsed but not imported: a few bytes of hostlist ("n[0-99999]")
/// expand to a fabric whose build costs seconds and finds nothing a small one would not. 1,024:
/// a 3,009-server tree (0.35 s of CPU in a Release build) took over the fuzz preset's 10 s
/// per-input timeout under ASan + UBSan + coverage; 1,024 servers take 0.08 s in Release. Larger
/// imports are timed by io_tst_loaderscaling.
inline constexpr std::size_t kMaxImportedNodes = 1024;

/// The fabric the import left: builds, and for a small one the export reads back.
inline Outcome checkSchedulerImport(Scenario &s, bool block)
{
    const Fabric fabric = Fabric::build(s.fabric); // the import's checks passed: must build
    require(fabric.servers() == static_cast<int>(s.fabric.serverNames.size()),
        "the imported server list and the fabric differ");
    if (fabric.servers() > kMaxReexportedServers)
        return Outcome::Loaded;
    s.degrees = ParallelDegrees {};
    s.degrees.tp = 1;
    s.degrees.pp = 1;
    s.degrees.dp = 1;
    const CostEngine engine(s);
    const ExportFormat format
        = block ? ExportFormat::SlurmTopologyBlock : ExportFormat::SlurmTopology;
    std::string text;
    try {
        text = exportText(engine, format);
    } catch (const ScenarioError &) {
        return Outcome::Loaded; // a host name a launcher cannot carry: refused by the export
    }
    const SlurmTopologyConf again = parseSlurmTopologyConf(text, "reexport.conf");
    std::set<std::string> nodes;
    for (const SlurmTopologyConf::Entry &e : again.entries)
        nodes.insert(e.nodes.begin(), e.nodes.end());
    require(static_cast<int>(nodes.size()) == fabric.servers(),
        "the re-exported topology.conf does not hold every server once");
    return Outcome::Evaluated;
}

inline Outcome fuzzSlurmTopology(std::string_view input)
{
    SlurmTopologyConf conf;
    try {
        conf = parseSlurmTopologyConf(std::string(input), "fuzz.conf");
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    require(!conf.entries.empty(), "an accepted topology.conf without entries");
    std::size_t nodes = 0;
    for (const SlurmTopologyConf::Entry &e : conf.entries) {
        require(!e.name.empty(), "an entry without a name");
        nodes += e.nodes.size();
    }
    if (nodes > kMaxImportedNodes)
        return Outcome::Loaded;
    Scenario s;
    s.fabric.gpusPerServer = 2;
    s.fabric.servers = 1;
    try {
        (void)applySlurmTopology(s.fabric, conf);
    } catch (const ScenarioError &) {
        return Outcome::Loaded;
    }
    return checkSchedulerImport(s, conf.block);
}

inline Outcome fuzzNvidiaSmi(std::string_view input)
{
    std::vector<NvlinkDomainRecord> records;
    try {
        records = parseNvidiaSmiFabric(std::string(input), "fuzz-host.txt");
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    require(!records.empty(), "accepted nvidia-smi output without a host");
    if (records.size() > kMaxImportedNodes)
        return Outcome::Loaded;
    Scenario s;
    s.fabric.gpusPerServer = 2;
    s.fabric.servers = 1;
    try {
        std::vector<std::vector<std::string>> domains;
        std::vector<std::string> where;
        groupNvlinkDomains(records, domains, where);
        require(domains.size() == where.size(), "domains and their lines differ");
        (void)applyNvlinkDomains(s.fabric, "fuzz-host.txt", domains, where);
    } catch (const ScenarioError &) {
        return Outcome::Loaded;
    }
    return checkSchedulerImport(s, true);
}

} // namespace railyard::fuzz
