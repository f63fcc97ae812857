// The scheduler hand-off (model/export/schedulertopology.h, kueueexport.h) and its inverse
// (model/io/slurmtopologyconf.h, nvlinkdomains.h): Slurm hostlists fold and expand as
// topology.conf(5) writes them; the topology/tree file puts each server under the leaf group
// its NICs reach and those under their pod's spines; the topology/block file makes each NVLink
// domain a block, obeys the BlockSizes grammar of Slurm 24.11's topology.conf(5) and gives the
// sbatch --segment that keeps each block's share of the job together; the kueue export names
// the level that holds the job. The readers take the exports back (tree -> the same fabric,
// block / ClusterUUIDs -> the same NVLink domains) and refuse bad input at FILE:LINE.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exporters.h"
#include "export/slurmhostlist.h"
#include "fixtures.h"
#include "io/nvlinkdomains.h"
#include "io/slurmtopologyconf.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <set>
#include <stdexcept>

using namespace railyard;

namespace {

Scenario sample(const char *name)
{
    return loadScenario(std::string(RAILYARD_SOURCE_DIR "/samples/") + name + ".json");
}

/// The value of KEY= on the line that starts with `head` ("" when absent).
std::string valueOn(const std::string &text, const std::string &head, const std::string &key)
{
    const std::size_t line = text.find("\n" + head);
    if (line == std::string::npos)
        return {};
    const std::size_t end = text.find('\n', line + 1);
    const std::string l = text.substr(line + 1, end - line - 1);
    const std::size_t k = l.find(" " + key + "=");
    if (k == std::string::npos)
        return {};
    const std::size_t v = k + key.size() + 2;
    return l.substr(v, l.find(' ', v) - v);
}

/// 8 GB200-style trays of 4 GPUs in two NVLink domains of 4 trays; the job (dp 16) on trays
/// 0, 1, 4 and 5: two nodes in each domain.
Scenario twoDomainsHalfUsed()
{
    Scenario s = fixtures::smallDense(8, 4, fixtures::degrees(1, 1, 16));
    s.fabric.scaleUpDomainServers = 4;
    s.fabric.serversPerSu = 8;
    s.slots.clear();
    for (int server : { 0, 1, 4, 5 })
        for (int g = 0; g < 4; ++g)
            s.slots.push_back(server * 4 + g);
    return s;
}

std::string errorOf(const std::string &text)
{
    try {
        (void)parseSlurmTopologyConf(text, "t.conf");
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return "accepted";
}

} // namespace

class TestSlurmTopology : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void hostlistFolds_data();
    void hostlistFolds();
    void hostlistRefuses();
    void treeOfATopOfRackFabric();
    void treeOfARailFabricGroupsTheScalableUnit();
    void treeOfAFourTierFabricKeepsItsZones();
    void blockIsTheNvlinkDomainWithItsSegment();
    void blockFilesFollowTheDocumentedGrammar();
    void kueueNamesTheLevelThatHoldsTheJob();
    void treeImportRebuildsTheFabric();
    void blockImportSetsTheNvlinkDomains();
    void topographNamesAreKept();
    void badTopologyConfIsRefusedAtItsLine_data();
    void badTopologyConfIsRefusedAtItsLine();
    void nvidiaSmiClusterUuidsBecomeDomains();
    void nvidiaSmiRefusesAtItsLine();
};

void TestSlurmTopology::hostlistFolds_data()
{
    QTest::addColumn<QStringList>("names");
    QTest::addColumn<QString>("folded");
    QTest::newRow("range") << QStringList { "node000", "node001", "node002", "node003" }
                           << "node[000-003]";
    QTest::newRow("gap") << QStringList { "tux0", "tux1", "tux2", "tux3", "tux12", "tux18", "tux19",
        "tux20" } << "tux[0-3,12,18-20]"; // topology.conf(5)'s own example
    QTest::newRow("unpadded widths") << QStringList { "n9", "n10" } << "n[9-10]";
    QTest::newRow("padded then wider") << QStringList { "n099", "n100" } << "n[099-100]";
    QTest::newRow("padded widths differ") << QStringList { "n09", "n010" } << "n09,n010";
    QTest::newRow("no number") << QStringList { "alpha", "beta" } << "alpha,beta";
    QTest::newRow("single") << QStringList { "rack7" } << "rack7";
}

void TestSlurmTopology::hostlistFolds()
{
    QFETCH(QStringList, names);
    QFETCH(QString, folded);
    std::vector<std::string> v;
    for (const QString &n : names)
        v.push_back(n.toStdString());
    QCOMPARE(QString::fromStdString(slurmhostlist::compress(v)), folded);
    QCOMPARE(slurmhostlist::expand(folded.toStdString(), 1000), v); // and back
}

void TestSlurmTopology::hostlistRefuses()
{
    for (const char *bad : { "node[1-", "node[3-1]", "node[a-b]", "a,,b", "a,", "n[1[2]]", "x]" })
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, slurmhostlist::expand(bad, 1000));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, slurmhostlist::expand("n[0-999999]", 1000));
}

void TestSlurmTopology::treeOfATopOfRackFabric()
{
    // seed-128-tor: 16 servers of 8 NICs, radix 64: a ToR leaf takes 64/2 / 8 = 4 servers,
    // so 4 leaves tor-0..tor-3 under one pod of spines.
    const CostEngine engine(sample("seed-128-tor"));
    QCOMPARE(engine.fabric().leafCount(), 4);
    const std::string text = exportText(engine, ExportFormat::SlurmTopology);
    QCOMPARE(valueOn(text, "SwitchName=tor-0", "Nodes"), std::string("node[000-003]"));
    QCOMPARE(valueOn(text, "SwitchName=tor-3", "Nodes"), std::string("node[012-015]"));
    QCOMPARE(valueOn(text, "SwitchName=pod0-spines", "Switches"), std::string("tor-[0-3]"));
    // The job (tp8 pp4 dp4 packed) uses all 16 servers on all 4 leaves, in rank order.
    QVERIFY(text.find("#   sbatch --nodes=16 --switches=4 --nodelist=node[000-015]")
        != std::string::npos);
    const SlurmTopologyConf back = parseSlurmTopologyConf(text, "tor.conf");
    QCOMPARE(back.entries.size(), std::size_t(5));
    QVERIFY(!back.block);
}

void TestSlurmTopology::treeOfARailFabricGroupsTheScalableUnit()
{
    // A rail-optimised server reaches a leaf per rail: the SU's 8 rail leaves are one switch.
    const CostEngine engine(fixtures::seed128());
    const std::string text = exportText(engine, ExportFormat::SlurmTopology);
    QCOMPARE(valueOn(text, "SwitchName=su0", "Nodes"), std::string("node[000-015]"));
    QVERIFY(text.find("# the 8 rail leaves of scalable unit 0") != std::string::npos);
    // Swapping two servers' ranks changes the node order, not the switches.
    CostEngine swapped(fixtures::seed128());
    swapped.swapRanks(0, 8); // rank 0 (node000) <-> rank 8 (node001)
    const std::string after = exportText(swapped, ExportFormat::SlurmTopology);
    QVERIFY(after.find("# railyard-node-order: node001 node000 node002") != std::string::npos);
}

void TestSlurmTopology::treeOfAFourTierFabricKeepsItsZones()
{
    // 192 single-NIC servers, radix 8 (docs/scenario-format.md, four-tier Clos): a leaf takes
    // k/2 = 4 servers, a pod k/2 = 4 leaves (16 servers), a zone k/2 = 4 pods (64 servers),
    // so 3 zones of 4 pods of 4 leaves, the zones joined by the cores.
    Scenario s = fixtures::smallDense(192, 1, fixtures::degrees(1, 1, 192), FabricKind::Tor);
    s.fabric.switchRadix = 8;
    const CostEngine engine(s);
    QCOMPARE(engine.fabric().zoneCount(), 3);
    const std::string text = exportText(engine, ExportFormat::SlurmTopology);
    // Each zone's super-spines hold its own 4 pods, and only the cores hold the zones: a job in
    // one zone never needs a core, which Slurm can see only with this level.
    QCOMPARE(valueOn(text, "SwitchName=zone0-superspines", "Switches"),
        std::string("pod0-spines,pod1-spines,pod2-spines,pod3-spines"));
    QCOMPARE(valueOn(text, "SwitchName=zone2-superspines", "Switches"),
        std::string("pod8-spines,pod9-spines,pod10-spines,pod11-spines"));
    QCOMPARE(valueOn(text, "SwitchName=cores", "Switches"),
        std::string("zone0-superspines,zone1-superspines,zone2-superspines"));
    QCOMPARE(valueOn(text, "SwitchName=pod5-spines", "Switches"), std::string("tor-[20-23]"));
    QVERIFY(text.find("SwitchName=super-spines") == std::string::npos);
    // Every switch has one parent: 48 leaves, 12 pods, 3 zones, 1 core switch.
    std::size_t switches = 0;
    for (std::size_t at = text.find("\nSwitchName="); at != std::string::npos;
         at = text.find("\nSwitchName=", at + 1))
        ++switches;
    QCOMPARE(switches, std::size_t(48 + 12 + 3 + 1));
    // Kueue gets the zone as its highest level.
    const std::string kueue = exportText(engine, ExportFormat::Kueue);
    QVERIFY(kueue.find("topology.railyard.io/zone=zone1-superspines") != std::string::npos);
}

void TestSlurmTopology::blockIsTheNvlinkDomainWithItsSegment()
{
    const CostEngine engine(twoDomainsHalfUsed());
    const std::string text = exportText(engine, ExportFormat::SlurmTopologyBlock);
    QCOMPARE(valueOn(text, "BlockName=rack0", "Nodes"), std::string("node[000-003]"));
    QCOMPARE(valueOn(text, "BlockName=rack1", "Nodes"), std::string("node[004-007]"));
    // Base block 4 nodes; 2 blocks, so one doubling: 4,8.
    QVERIFY(text.find("\nBlockSizes=4,8\n") != std::string::npos);
    // 2 nodes of the job in each of the 2 domains: segments of 2, in rank order.
    QVERIFY(text.find("#   sbatch --nodes=4 --segment=2 --nodelist=node[000-001,004-005]")
        != std::string::npos);
    QVERIFY(exportWarnings(engine, ExportFormat::SlurmTopologyBlock).empty());
    // Three nodes in one domain and one in the other: segments of gcd(3, 1) = 1, with a warning.
    Scenario uneven = twoDomainsHalfUsed();
    for (int g = 0; g < 4; ++g)
        uneven.slots[static_cast<std::size_t>(12 + g)] = 2 * 4 + g; // server 5 -> server 2
    const CostEngine unevenEngine(uneven);
    QVERIFY(exportText(unevenEngine, ExportFormat::SlurmTopologyBlock).find("--segment=1 ")
        != std::string::npos);
    const std::vector<std::string> w
        = exportWarnings(unevenEngine, ExportFormat::SlurmTopologyBlock);
    QCOMPARE(w.size(), std::size_t(1));
    QCOMPARE(w.front(),
        std::string("slurm-topology-block: the job uses 2 blocks unevenly (3, 1 nodes): "
                    "--segment=1 keeps less together than the mapping does"));
    // The NVL72 sample: 8 racks of 18 trays, the job on all of them: segment 18.
    const std::string nvl
        = exportText(CostEngine(sample("gb200-nvl72-moe")), ExportFormat::SlurmTopologyBlock);
    QVERIFY(nvl.find("\nBlockSizes=18,36,72,144\n") != std::string::npos);
    QVERIFY(nvl.find("--segment=18 ") != std::string::npos);
}

void TestSlurmTopology::blockFilesFollowTheDocumentedGrammar()
{
    // Debian 12's Slurm (22.05) predates topology/block: the exports are checked against the
    // grammar of topology.conf(5) of Slurm 24.11 as the reader implements it (BlockName /
    // Nodes lines, one BlockSizes line of power-of-two multiples of the base, no block below it).
    for (const char *name : { "gb200-nvl72-moe", "seed-128", "seed-128-tor", "dgx-h100-4su" }) {
        const std::string text
            = exportText(CostEngine(sample(name)), ExportFormat::SlurmTopologyBlock);
        const SlurmTopologyConf conf = parseSlurmTopologyConf(text, name);
        QVERIFY2(conf.block, name);
        QVERIFY2(!conf.blockSizes.empty(), name);
        std::size_t nodes = 0;
        for (const auto &e : conf.entries)
            nodes += e.nodes.size();
        QCOMPARE(static_cast<int>(nodes), CostEngine(sample(name)).fabric().servers());
    }
    // The grammar check can fail: a size that is no power-of-two multiple, a block too small.
    QVERIFY(errorOf("BlockName=b0 Nodes=n[0-3]\nBlockName=b1 Nodes=n[4-7]\nBlockSizes=4,12\n")
                .find("t.conf:3: BlockSizes: 12 is not 4 times a power of two")
        == 0);
    QVERIFY(errorOf("BlockName=b0 Nodes=n[0-3]\nBlockName=b1 Nodes=n[4-5]\nBlockSizes=4\n")
                .find("t.conf:2: block b1 has 2 nodes, fewer than the planning base block size 4")
        == 0);
}

void TestSlurmTopology::kueueNamesTheLevelThatHoldsTheJob()
{
    using nlohmann::json;
    const auto docs = [](const std::string &text) {
        std::vector<json> out;
        std::size_t pos = 0;
        while ((pos = text.find("---\n", pos)) != std::string::npos) {
            pos += 4;
            const std::size_t end = text.find("\n---\n", pos);
            out.push_back(
                json::parse(text.substr(pos, end == std::string::npos ? end : end - pos)));
        }
        return out;
    };
    // seed-128: one SU holds the whole job: required at the leaf-group level.
    auto d = docs(exportText(CostEngine(fixtures::seed128()), ExportFormat::Kueue));
    QCOMPARE(d.size(), std::size_t(4));
    QCOMPARE(d[0].at("kind").get<std::string>(), std::string("Topology"));
    QCOMPARE(d[0]["spec"]["levels"].back()["nodeLabel"].get<std::string>(),
        std::string("kubernetes.io/hostname"));
    QCOMPARE(d[1]["spec"]["topologyName"], d[0]["metadata"]["name"]);
    const json &job = d[3];
    QCOMPARE(job["spec"]["completions"].get<int>(), 16);
    QCOMPARE(job["spec"]["completionMode"].get<std::string>(), std::string("Indexed"));
    QCOMPARE(job["spec"]["template"]["metadata"]["annotations"]
                ["kueue.x-k8s.io/podset-required-topology"]
                    .get<std::string>(),
        std::string("topology.railyard.io/leaf-group"));
    // Two NVLink domains, two nodes in each: the slice keeps each pair in one domain.
    d = docs(exportText(CostEngine(twoDomainsHalfUsed()), ExportFormat::Kueue));
    const json &ann = d[3]["spec"]["template"]["metadata"]["annotations"];
    QCOMPARE(ann["kueue.x-k8s.io/podset-required-topology"].get<std::string>(),
        std::string("topology.railyard.io/leaf-group"));
    QCOMPARE(ann["kueue.x-k8s.io/podset-slice-required-topology"].get<std::string>(),
        std::string("topology.railyard.io/nvlink-domain"));
    QCOMPARE(ann["kueue.x-k8s.io/podset-slice-size"].get<std::string>(), std::string("2"));
}

void TestSlurmTopology::treeImportRebuildsTheFabric()
{
    const CostEngine tor(sample("seed-128-tor"));
    const SlurmTopologyConf conf
        = parseSlurmTopologyConf(exportText(tor, ExportFormat::SlurmTopology), "tor.conf");
    FabricSpec spec = fixtures::railFabric(2, 8);
    (void)applySlurmTopology(spec, conf);
    const Fabric f = Fabric::build(spec);
    QCOMPARE(f.servers(), 16);
    QCOMPARE(f.leafCount(), 4);
    QVERIFY(f.spineCount() >= 1);
    QCOMPARE(spec.kind, FabricKind::Tor);
    for (int s = 0; s < 16; ++s) // node00k under tor-(k/4), every NIC on it
        for (int n = 0; n < 8; ++n)
            QCOMPARE(f.node(f.leafVertex(f.leafOfNic(s, n))).name, "tor-" + std::to_string(s / 4));
    // The tree keeps what the engine sees of this fabric: the same iteration time.
    Scenario imported = sample("seed-128-tor");
    imported.fabric = spec;
    QCOMPARE(CostEngine(imported).report().iterationTime, tor.report().iterationTime);
}

void TestSlurmTopology::blockImportSetsTheNvlinkDomains()
{
    const SlurmTopologyConf conf = parseSlurmTopologyConf(
        exportText(CostEngine(sample("gb200-nvl72-moe")), ExportFormat::SlurmTopologyBlock),
        "nvl.conf");
    FabricSpec spec = fixtures::railFabric(2, 4);
    (void)applySlurmTopology(spec, conf);
    QCOMPARE(spec.servers, 144);
    QCOMPARE(spec.scaleUpDomainServers, 18);
    QCOMPARE(spec.serversPerSu % 18, 0); // SUs hold whole domains
    QCOMPARE(Fabric::build(spec).scaleUpDomainCount(), 8);
}

void TestSlurmTopology::topographNamesAreKept()
{
    // NVIDIA topograph's slurm engine output (tests/ci/expected.slinky-oci-sim-tree.conf form).
    const std::string text = "# switch.2.1=spine-1\nSwitchName=switch.2.1 Switches=switch.1.[1-2]\n"
                             "# switch.1.1=leaf-1-1\nSwitchName=switch.1.1 Nodes=srv[1101-1102]\n"
                             "# switch.1.2=leaf-1-2\nSwitchName=switch.1.2 Nodes=srv[1201-1202]\n";
    const SlurmTopologyConf conf = parseSlurmTopologyConf(text, "topograph.conf");
    QVERIFY(conf.topograph);
    QCOMPARE(conf.entries[1].hardware, std::string("leaf-1-1"));
    FabricSpec spec = fixtures::railFabric(2, 8);
    (void)applySlurmTopology(spec, conf);
    const Fabric f = Fabric::build(spec);
    QCOMPARE(f.servers(), 4);
    std::set<std::string> leaves;
    for (int l = 0; l < f.leafCount(); ++l)
        leaves.insert(f.node(f.leafVertex(l)).name);
    QCOMPARE(leaves, (std::set<std::string> { "leaf-1-1", "leaf-1-2" }));
    QCOMPARE(f.node(f.spineVertex(0)).name, std::string("spine-1"));
}

void TestSlurmTopology::badTopologyConfIsRefusedAtItsLine_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("error");
    QTest::newRow("unknown key") << "SwitchName=s0 Nodes=n1 Speed=3\n"
                                 << "t.conf:1: 'Speed=' is not a topology/tree key";
    QTest::newRow("twice") << "SwitchName=s0 Nodes=n1\nSwitchName=s0 Nodes=n2\n"
                           << "t.conf:2: 's0' is defined twice (line 1)";
    QTest::newRow("two leaves") << "SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=n2\n"
                                << "t.conf:2: node n2 is in s1 and in s0 (line 1)";
    QTest::newRow("both") << "SwitchName=s0 Nodes=n1 Switches=s1\n"
                          << "t.conf:1: switch s0 has both child switches and nodes";
    QTest::newRow("unknown child") << "SwitchName=s0 Nodes=n1\nSwitchName=top Switches=s[0-1]\n"
                                   << "t.conf:2: switch s1 is not defined";
    QTest::newRow("not a tree")
        << "SwitchName=s0 Nodes=n1\nSwitchName=a Switches=s0\nSwitchName=b Switches=s0\n"
        << "t.conf:3: switch s0 is a child of a (line 2) too: the configuration is not a tree";
    QTest::newRow("four levels") << "SwitchName=l Nodes=n1\nSwitchName=a Switches=l\n"
                                    "SwitchName=b Switches=a\nSwitchName=c Switches=b\n"
                                 << "t.conf:4: switch c is a fourth switch level";
    QTest::newRow("mixed") << "SwitchName=s0 Nodes=n1\nBlockName=b0 Nodes=n2\n"
                           << "t.conf:2: SwitchName (topology/tree) and BlockName";
    QTest::newRow("bad hostlist") << "\n\nBlockName=b0 Nodes=n[4-1]\n"
                                  << "t.conf:3: Nodes=n[4-1]: the range 4-1 runs backwards";
    QTest::newRow("long name") << "SwitchName=" + QString(65, QLatin1Char('s')) + " Nodes=n1\n"
                               << "t.conf:1: SwitchName='sss";
    QTest::newRow("bad node") << "SwitchName=s0 Nodes=a=b\n"
                              << "t.conf:1: node 'a=b' is not a host name";
    QTest::newRow("no entries") << "# nothing\n"
                                << "t.conf:1: no SwitchName= or BlockName= line";
}

void TestSlurmTopology::badTopologyConfIsRefusedAtItsLine()
{
    QFETCH(QString, text);
    QFETCH(QString, error);
    const std::string got = errorOf(text.toStdString());
    QVERIFY2(got.find(error.toStdString()) == 0, got.c_str());
}

void TestSlurmTopology::nvidiaSmiClusterUuidsBecomeDomains()
{
    // pdsh -w nvl-[a01-a02,b01-b02] nvidia-smi -q: two domains of two trays, two GPUs each.
    std::string text;
    for (const char *host : { "nvl-a01", "nvl-b01", "nvl-a02", "nvl-b02" })
        for (int gpu = 0; gpu < 2; ++gpu) {
            const bool a = host[4] == 'a';
            text += std::string(host) + ": GPU 0000000" + std::to_string(8 + gpu) + ":01:00.0\n";
            text += std::string(host) + ":         CliqueId      : 32766\n";
            text += std::string(host) + ":         ClusterUUID   : "
                + (a ? "5c4f6b8a-1d2e-4f30-9a1b-2c3d4e5f6a7b"
                     : "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d")
                + "\n";
        }
    const std::vector<NvlinkDomainRecord> records = parseNvidiaSmiFabric(text, "fabric.txt");
    QCOMPARE(records.size(), std::size_t(4));
    std::vector<std::vector<std::string>> domains;
    std::vector<std::string> where;
    groupNvlinkDomains(records, domains, where);
    QCOMPARE(domains,
        (std::vector<std::vector<std::string>> {
            { "nvl-a01", "nvl-a02" }, { "nvl-b01", "nvl-b02" } }));
    QCOMPARE(where.front(), std::string("fabric.txt:3"));
    FabricSpec spec = fixtures::railFabric(2, 2);
    (void)applyNvlinkDomains(spec, "fabric.txt", domains, where);
    QCOMPARE(spec.serverNames,
        (std::vector<std::string> { "nvl-a01", "nvl-a02", "nvl-b01", "nvl-b02" }));
    QCOMPARE(spec.scaleUpDomainServers, 2);
    QCOMPARE(Fabric::build(spec).scaleUpDomainCount(), 2);
}

void TestSlurmTopology::nvidiaSmiRefusesAtItsLine()
{
    const auto error = [](const std::string &text) -> std::string {
        try {
            std::vector<std::vector<std::string>> d;
            std::vector<std::string> w;
            groupNvlinkDomains(parseNvidiaSmiFabric(text, "f.txt"), d, w);
        } catch (const ScenarioError &e) {
            return e.what();
        }
        return "accepted";
    };
    QCOMPARE(error("h1: ClusterUUID : not-a-uuid\n"),
        std::string(
            "f.txt:1: ClusterUUID 'not-a-uuid' is not a UUID (8-4-4-4-12 hex digits) or N/A"));
    const std::string two
        = "h1: GPU 00000008:01:00.0\nh1: ClusterUUID : 5c4f6b8a-1d2e-4f30-9a1b-2c3d4e5f6a7b\n"
          "h1: GPU 00000009:01:00.0\nh1: ClusterUUID : 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d\n"
          "h1: GPU 0000000a:01:00.0\n";
    QVERIFY(error(two).find("f.txt:5: host h1 has GPUs in two NVLink domains") == 0);
    QVERIFY(error("h1: ClusterUUID : 5c4f6b8a-1d2e-4f30-9a1b-2c3d4e5f6a7b\nh2: ClusterUUID : N/A\n")
                .find("f.txt:2: host h2 is in no NVLink domain")
        == 0);
    QVERIFY(error("nothing here\n").find("f.txt:1: no ClusterUUID line") == 0);
}

QTEST_GUILESS_MAIN(TestSlurmTopology)
#include "tst_slurmtopology.moc"
