// Tests for the packet-level simulator exports (model/export/astrasimexport.h, simaiexport.h,
// packettopology.h): golden files on a 2-server x 8-GPU job a reader can check by hand, the
// counts and properties on samples/seed-128.json, failed hardware, swaps, mappings the formats
// cannot express, the unit conversions and the all-or-nothing directory writer.
//
// The golden files live in tests/golden/astra-sim-2x8/ and tests/golden/simai-topo-2x8.txt.
// After an intended change of a format, regenerate them with
//   RAILYARD_UPDATE_GOLDEN=1 <build>/bin/export_tst_astrasimexport goldens
// and review the diff before committing it.
//
// The 2x8 job by hand: tp 8 x dp 2, packed, rail-optimised, 8 rail leaves and 2 spines.
// Nodes: 16 NPUs (ids 0-15 = ranks), 2 NVSwitches (16, 17), 16 NICs (18-33, server-major),
// 8 leaves (34-41), 2 spines (42, 43): 44 nodes, 28 switches. Cables: 16 GPU-NVSwitch,
// 16 GPU-NIC, 16 NIC-leaf, 8 x 2 leaf-spine = 64. Each leaf has 2 servers below it, so it has
// 2 uplinks (non-blocking), one per spine, at the 400 Gbit/s fabric port.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exporters.h"
#include "export/packettopology.h"
#include "fixtures.h"
#include "golden.h"
#include "scenario/scenariofile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <map>
#include <set>

using namespace railyard;
using namespace railyard::exportdetail;

namespace {

Scenario twoByEight()
{
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(8, 1, 2));
    s.name = "astra-2x8";
    s.fabric.spines = 2;
    return s;
}

std::map<std::string, std::string> filesOf(const CostEngine &engine)
{
    std::map<std::string, std::string> out;
    for (const ExportFile &f : exportFiles(engine, ExportFormat::AstraSim))
        out[f.name] = f.text;
    return out;
}

QStringList linesOf(const std::string &text)
{
    return QString::fromStdString(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

/// "400Gbps" -> 4e11, "512Mbps" -> 5.12e8, "7bps" -> 7: the units ns-3's DataRate reads.
double parseRate(const QString &rate)
{
    static const QRegularExpression re(QStringLiteral("^([0-9]+)(G|M|)bps$"));
    const auto m = re.match(rate);
    if (!m.hasMatch())
        return -1;
    const double unit = m.captured(2) == QLatin1String("G") ? 1e9
        : m.captured(2) == QLatin1String("M")               ? 1e6
                                                            : 1.0;
    return m.captured(1).toDouble() * unit;
}

} // namespace

class TestAstraSimExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void registered();
    void goldens_data();
    void goldens();
    void handCountsOfTwoByEight();
    void analyticalNetworkUnits();
    void seedProperties();
    void commGroupsAreTheLayoutsGroups();
    void ecnMapsCoverEveryRate();
    void failedServerIsLeftOut();
    void failedLeafAndNicAreLeftOut();
    void swapMovesTheNpu();
    void scatteredMapping();
    void simAiHeaderAndLinks();
    void unitStrings_data();
    void unitStrings();
    void directoryWriter();
    void directoryWriterRefuses();
};

void TestAstraSimExport::registered()
{
    ExportFormat f;
    QVERIFY(parseExportFormat("astra-sim", f));
    QCOMPARE(f, ExportFormat::AstraSim);
    QVERIFY(exportWritesDirectory(f));
    QVERIFY(parseExportFormat("simai-topo", f));
    QCOMPARE(f, ExportFormat::SimAiTopo);
    QVERIFY(!exportWritesDirectory(f));
    // The preview text of a directory format holds every file under its name.
    CostEngine engine(twoByEight());
    const std::string listing = exportText(engine, ExportFormat::AstraSim);
    for (const auto &[name, text] : filesOf(engine))
        QVERIFY2(listing.find("==> " + name + " <==\n" + text) != std::string::npos, name.c_str());
    QVERIFY_THROWS_EXCEPTION(ScenarioError, exportFiles(engine, ExportFormat::Csv));
}

void TestAstraSimExport::goldens_data()
{
    QTest::addColumn<QString>("file");
    for (const char *f :
        { "topology.txt", "ns3-config.txt", "ns3-trace.txt", "logical-topology.json", "network.yml",
            "system.json", "remote-memory.json", "comm-groups.json", "replay.txt" })
        QTest::newRow(f) << QString::fromLatin1(f);
    QTest::newRow("simai-topo") << QString();
}

void TestAstraSimExport::goldens()
{
    QFETCH(QString, file);
    CostEngine engine(twoByEight());
    if (file.isEmpty()) {
        fixtures::compareWithGolden(
            QStringLiteral("simai-topo-2x8.txt"), exportText(engine, ExportFormat::SimAiTopo));
        return;
    }
    const auto files = filesOf(engine);
    QCOMPARE(static_cast<int>(files.size()), 9);
    QVERIFY(files.count(file.toStdString()));
    fixtures::compareWithGolden(QStringLiteral("astra-sim-2x8/") + file, files.at(file.toStdString()));
}

void TestAstraSimExport::handCountsOfTwoByEight()
{
    CostEngine engine(twoByEight());
    const QStringList topo = linesOf(filesOf(engine).at("topology.txt"));
    QCOMPARE(topo[0], QStringLiteral("44 28 64"));
    QStringList switchIds;
    for (int id = 16; id < 44; ++id)
        switchIds << QString::number(id);
    QCOMPARE(topo[1], switchIds.join(QLatin1Char(' ')));
    QCOMPARE(topo.size(), 2 + 64);
    const QSet<QString> links(topo.begin() + 2, topo.end());
    // Rank 0 = node000/gpu0: NVLink port 3600 Gbit/s, 0.6 us; PCIe to NIC 0 (id 18) 512 Gbit/s,
    // 0.5 us; NIC 0 to the rail-0 leaf (34) 400 Gbit/s, 1 us; that leaf to both spines.
    for (const char *l : { "0 16 3600Gbps 0.0006ms 0", "0 18 512Gbps 0.0005ms 0",
             "18 34 400Gbps 0.001ms 0", "34 42 400Gbps 0.0006ms 0", "34 43 400Gbps 0.0006ms 0",
             // rank 15 = node001/gpu7: NVSwitch 17, NIC 33 on the rail-7 leaf 41
             "15 17 3600Gbps 0.0006ms 0", "15 33 512Gbps 0.0005ms 0", "33 41 400Gbps 0.001ms 0" })
        QVERIFY2(links.contains(QString::fromLatin1(l)), l);
    // The node list names every id.
    const std::string replay = filesOf(engine).at("replay.txt");
    QVERIFY(replay.find("      0 node000/gpu0\n") != std::string::npos);
    QVERIFY(replay.find("     17 node001/nvswitch\n") != std::string::npos);
    QVERIFY(replay.find("     43 spine-p0-1\n") != std::string::npos);
}

void TestAstraSimExport::analyticalNetworkUnits()
{
    CostEngine engine(twoByEight());
    const auto files = filesOf(engine);
    // Dimension 0: 8 GPUs behind the NVSwitch, 3600 Gbit/s = 450e9 B/s = 419.095 GB of 2^30 B,
    // 0.6 us per hop; dimension 1: 2 servers, min(PCIe 64e9, NIC 50e9 B/s) = 46.5661 GB/s,
    // 0.5 + 1 us = 1500 ns per GPU -> leaf hop.
    const QString yml = QString::fromStdString(files.at("network.yml"));
    QVERIFY2(yml.contains(QStringLiteral("topology: [ Switch, Switch ]\n")), qPrintable(yml));
    QVERIFY(yml.contains(QStringLiteral("npus_count: [ 8, 2 ]\n")));
    QVERIFY(yml.contains(QStringLiteral("bandwidth: [ 419.095, 46.5661 ]\n")));
    QVERIFY(yml.contains(QStringLiteral("latency: [ 600, 1500 ]\n")));
    const auto logical = nlohmann::json::parse(files.at("logical-topology.json"));
    QCOMPARE(logical["logical-dims"], nlohmann::json({ "8", "2" }));
    const auto sys = nlohmann::json::parse(files.at("system.json"));
    QCOMPARE(sys["all-reduce-implementation"], nlohmann::json({ "ring", "ring" }));
    QCOMPARE(sys["all-to-all-implementation"], nlohmann::json({ "direct", "direct" }));
    QCOMPARE(sys["local-mem-bw"].get<double>(), engine.scenario().device.hbmGBps);
    for (const char *key : { "scheduling-policy", "endpoint-delay", "active-chunks-per-dimension",
             "preferred-dataset-splits", "collective-optimization" })
        QVERIFY2(sys.contains(key), key);

    // A fixed tree becomes ASTRA-sim's double binary tree across servers only.
    Scenario tree = twoByEight();
    tree.collectives.algorithm = CollectiveAlgorithm::Tree;
    CostEngine treeEngine(tree);
    const auto treeSys = nlohmann::json::parse(filesOf(treeEngine).at("system.json"));
    QCOMPARE(treeSys["all-reduce-implementation"], nlohmann::json({ "ring", "doubleBinaryTree" }));
}

void TestAstraSimExport::seedProperties()
{
    CostEngine engine(fixtures::seed128());
    const Fabric &fabric = engine.fabric();
    const QStringList topo = linesOf(filesOf(engine).at("topology.txt"));
    const QStringList head = topo[0].split(QLatin1Char(' '));
    // No failures and every server used: every vertex is a node, every cable one line.
    const int vertices = static_cast<int>(boost::num_vertices(fabric.graph()));
    QCOMPARE(head[0].toInt(), vertices);
    QCOMPARE(head[1].toInt(), vertices - 128);
    QCOMPARE(head[2].toInt(), fabric.linkCount() / 2);
    QCOMPARE(topo.size(), 2 + fabric.linkCount() / 2);
    QCOMPARE(topo[1].split(QLatin1Char(' ')).size(), vertices - 128);

    std::set<int> npusSeen;
    std::set<std::pair<int, int>> pairs;
    for (int i = 2; i < topo.size(); ++i) {
        const QStringList w = topo[i].split(QLatin1Char(' '));
        QCOMPARE(w.size(), 5);
        const int a = w[0].toInt(), b = w[1].toInt();
        QVERIFY(a < b && b < vertices);
        QVERIFY2(pairs.insert({ a, b }).second, qPrintable(topo[i])); // ns-3 keeps one per pair
        QVERIFY(parseRate(w[2]) > 0);
        QVERIFY(w[3].endsWith(QLatin1String("ms")));
        QCOMPARE(w[4], QStringLiteral("0"));
        for (int id : { a, b })
            if (id < 128)
                npusSeen.insert(id);
        QVERIFY2(b >= 128, "NPUs link only to switches");
    }
    QCOMPARE(static_cast<int>(npusSeen.size()), 128);
    // Each NPU has exactly its NVLink port and its PCIe link.
    std::map<int, int> degree;
    for (const auto &[a, b] : pairs)
        ++degree[a];
    for (int r = 0; r < 128; ++r)
        QCOMPARE(degree[r], 2);
}

void TestAstraSimExport::commGroupsAreTheLayoutsGroups()
{
    Scenario s = fixtures::smallMoe(4, 8, fixtures::degrees(4, 2, 4, 1, 2));
    CostEngine engine(s);
    const ParallelLayout &layout = engine.layout();
    const auto groups = nlohmann::json::parse(filesOf(engine).at("comm-groups.json"));
    // tp 8 groups, pp 16, dp 8, ep 16 and edp (dp/ep = 2) 16; ids from 1 (0 = all ranks).
    int id = 1;
    for (const auto &[kind, degree] :
        std::vector<std::pair<GroupKind, int>> { { GroupKind::Tp, 4 }, { GroupKind::Pp, 2 },
            { GroupKind::Dp, 4 }, { GroupKind::Ep, 2 }, { GroupKind::ExpertDp, 2 } }) {
        std::vector<int> seen(32, 0);
        for (const std::span<const int> g : layout.groups(kind)) {
            const auto &members = groups.at(std::to_string(id++));
            QCOMPARE(static_cast<int>(members.size()), degree);
            QCOMPARE(members.get<std::vector<int>>(), toVector(g));
            for (int r : g)
                ++seen[static_cast<std::size_t>(r)];
        }
        QCOMPARE(std::count(seen.begin(), seen.end(), 1), 32L); // every rank once per kind
    }
    QCOMPARE(static_cast<int>(groups.size()), id - 1);
    QVERIFY(!groups.contains("0"));
}

void TestAstraSimExport::ecnMapsCoverEveryRate()
{
    // ns-3 asserts a KMIN/KMAX/PMAX entry per link rate (bit/s): the seed has NVLink, PCIe,
    // NIC and bundled leaf-spine rates.
    CostEngine engine(fixtures::seed128());
    const auto files = filesOf(engine);
    std::set<long long> rates;
    for (const QString &l : linesOf(files.at("topology.txt")).mid(2))
        rates.insert(static_cast<long long>(parseRate(l.split(QLatin1Char(' '))[2])));
    for (const char *map : { "KMAX_MAP ", "KMIN_MAP ", "PMAX_MAP " }) {
        const std::string &cfg = files.at("ns3-config.txt");
        const std::size_t at = cfg.find(map);
        QVERIFY(at != std::string::npos);
        const QStringList w = QString::fromStdString(cfg.substr(at, cfg.find('\n', at) - at))
                                  .split(QLatin1Char(' '));
        QCOMPARE(w[1].toInt(), static_cast<int>(rates.size()));
        std::set<long long> named;
        for (int i = 2; i + 1 < w.size(); i += 2)
            named.insert(w[i].toLongLong());
        QCOMPARE(named, rates);
    }
    QVERIFY(files.at("ns3-config.txt").find("TOPOLOGY_FILE topology.txt\n") != std::string::npos);
    QVERIFY(files.at("ns3-config.txt").find("TRACE_FILE ns3-trace.txt\n") != std::string::npos);
}

void TestAstraSimExport::failedServerIsLeftOut()
{
    // 96 ranks (dp 3) on 12 of the 15 healthy servers; server 3 failed.
    CostEngine engine(loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128-failed-server3.json"));
    const Fabric &fabric = engine.fabric();
    const auto files = filesOf(engine);
    const QStringList topo = linesOf(files.at("topology.txt"));
    const int nodes = 96 + 12 + 12 * 8 + fabric.leafCount() + fabric.spineCount();
    QCOMPARE(topo[0].split(QLatin1Char(' '))[0].toInt(), nodes);
    // Cables: per used server 8 NVLink + 8 PCIe + 8 NIC-leaf; every leaf-spine bundle.
    const int leafSpine = fabric.leafCount() * fabric.spineCount();
    QCOMPARE(topo[0].split(QLatin1Char(' '))[2].toInt(), 12 * 24 + leafSpine);
    QVERIFY(files.at("replay.txt").find("node003") == std::string::npos);
    for (int i = 2; i < topo.size(); ++i)
        QVERIFY(topo[i].split(QLatin1Char(' '))[1].toInt() < nodes);
}

void TestAstraSimExport::failedLeafAndNicAreLeftOut()
{
    // tp 4 x dp 2 on GPUs 0-3 of both servers; the rail-7 leaf (leaf:7) and node001's NIC 4
    // (nic:12, its GPU holds no rank) failed. Left: 8 NPUs, 2 NVSwitches, 15 NICs, 7 leaves,
    // 2 spines = 34 nodes. Cables: 8 NVLink + 8 PCIe (the NPUs'), NIC-leaf for 16 NICs less
    // the failed one and the two on leaf 7 = 13, leaf-spine 7 x 2 = 14: 43.
    Scenario s = twoByEight();
    s.degrees = fixtures::degrees(4, 1, 2);
    s.slots = { 0, 1, 2, 3, 8, 9, 10, 11 };
    s.failures = { { FailedComponent::Kind::Leaf, 7 }, { FailedComponent::Kind::Nic, 12 } };
    CostEngine engine(s);
    const auto files = filesOf(engine);
    const QStringList topo = linesOf(files.at("topology.txt"));
    QCOMPARE(topo[0], QStringLiteral("34 26 43"));
    const std::string &replay = files.at("replay.txt");
    QVERIFY(replay.find("leaf-su0-rail7") == std::string::npos);
    QVERIFY(replay.find("node001/nic4") == std::string::npos);
    QVERIFY(replay.find("node000/nic4") != std::string::npos); // healthy, on a used server
    QVERIFY(replay.find("node000/gpu4") == std::string::npos); // holds no rank
}

void TestAstraSimExport::swapMovesTheNpu()
{
    CostEngine engine(twoByEight());
    engine.swapRanks(0, 9); // rank 0 to node001/gpu1, rank 9 to node000/gpu0
    const QStringList topo = linesOf(filesOf(engine).at("topology.txt"));
    const QSet<QString> links(topo.begin() + 2, topo.end());
    // The servers are now ordered by lowest rank: node001 (rank 0) first, so its NVSwitch is 16
    // and its NICs 18-25; rank 0 sits on GPU 1 there (NIC 19).
    QVERIFY(links.contains(QStringLiteral("0 16 3600Gbps 0.0006ms 0")));
    QVERIFY(links.contains(QStringLiteral("0 19 512Gbps 0.0005ms 0")));
    QVERIFY(links.contains(QStringLiteral("9 17 3600Gbps 0.0006ms 0")));
    QVERIFY(links.contains(QStringLiteral("9 26 512Gbps 0.0005ms 0")));
    // node001 now holds ranks 0, 8 and 10-15, not a block: the analytical network cannot place
    // the ranks and says so, and SimAI (which needs blocks) refuses.
    QVERIFY(!exportWarnings(engine, ExportFormat::AstraSim).empty());
    QVERIFY_THROWS_EXCEPTION(ScenarioError, exportText(engine, ExportFormat::SimAiTopo));
}

void TestAstraSimExport::scatteredMapping()
{
    Scenario s = twoByEight();
    s.placement = Placement::Scattered;
    CostEngine engine(s);
    const auto files = filesOf(engine);
    QVERIFY(files.at("network.yml").find("npus_count: [ 16 ]\n") != std::string::npos);
    QCOMPARE(nlohmann::json::parse(files.at("logical-topology.json"))["logical-dims"],
        nlohmann::json({ "16" }));
    const auto warnings = exportWarnings(engine, ExportFormat::AstraSim);
    QCOMPARE(static_cast<int>(warnings.size()), 1);
    QVERIFY(warnings[0].find("node000 holds ranks 0, 2, 4") != std::string::npos);
    QVERIFY(files.at("replay.txt").find(warnings[0].substr(11)) != std::string::npos);
    try {
        exportText(engine, ExportFormat::SimAiTopo);
        QFAIL("a scattered mapping must be refused");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("mapping"));
        QVERIFY(e.reason().find("consecutive ranks") != std::string::npos);
    }
    // Half-used servers are refused too: SimAI's servers are full.
    Scenario half = fixtures::smallDense(2, 8, fixtures::degrees(4, 1, 2));
    half.slots = { 0, 1, 2, 3, 8, 9, 10, 11 };
    CostEngine halfEngine(half);
    QVERIFY_THROWS_EXCEPTION(ScenarioError, exportText(halfEngine, ExportFormat::SimAiTopo));
    // A world of one rank has nothing for ASTRA-sim to simulate.
    CostEngine one(fixtures::smallDense(1, 8, fixtures::degrees(1)));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, exportFiles(one, ExportFormat::AstraSim));
}

void TestAstraSimExport::simAiHeaderAndLinks()
{
    // SimAI: 16 GPUs, 2 NVSwitches (16, 17) then 8 leaves and 2 spines: 28 nodes; links 16
    // NVLink + 16 GPU-leaf (NIC folded in: min(512, 400) Gbit/s, 0.5 + 1 us) + 16 leaf-spine.
    CostEngine engine(twoByEight());
    const QStringList l = linesOf(exportText(engine, ExportFormat::SimAiTopo));
    QCOMPARE(l[0], QStringLiteral("28 8 2 10 48 H100"));
    QCOMPARE(l[1].split(QLatin1Char(' ')).size(), 12);
    QVERIFY(l[1].startsWith(QStringLiteral("16 17 18 ")));
    QCOMPARE(l.size(), 2 + 48);
    QCOMPARE(l[2], QStringLiteral("0 16 3600Gbps 0.0006ms 0"));
    QCOMPARE(l[3], QStringLiteral("0 18 400Gbps 0.0015ms 0"));
    // SimAI pairs GPU i with NVSwitch 16 + i / 8.
    for (int i = 2; i < l.size(); ++i) {
        const QStringList w = l[i].split(QLatin1Char(' '));
        if (w[1].toInt() == 16 || w[1].toInt() == 17)
            QCOMPARE(w[1].toInt(), 16 + w[0].toInt() / 8);
    }
    // Two GPUs per NIC: each gets half the port, and the export says so.
    Scenario shared = twoByEight();
    shared.fabric.nicsPerServer = 4;
    CostEngine sharedEngine(shared);
    QVERIFY(linesOf(exportText(sharedEngine, ExportFormat::SimAiTopo))
                .contains(QStringLiteral("0 18 200Gbps 0.0015ms 0")));
    QCOMPARE(static_cast<int>(exportWarnings(sharedEngine, ExportFormat::SimAiTopo).size()), 1);
}

void TestAstraSimExport::unitStrings_data()
{
    QTest::addColumn<double>("bits");
    QTest::addColumn<QString>("rate");
    QTest::newRow("400G") << 400e9 << QStringLiteral("400Gbps");
    QTest::newRow("3600G") << 3600e9 << QStringLiteral("3600Gbps");
    QTest::newRow("2.5G") << 2.5e9 << QStringLiteral("2500Mbps");
    QTest::newRow("400G/3") << 400e9 / 3 << QStringLiteral("133333333333bps");
}

void TestAstraSimExport::unitStrings()
{
    QFETCH(double, bits);
    QFETCH(QString, rate);
    QCOMPARE(QString::fromStdString(ns3Rate(bits)), rate);
    QCOMPARE(parseRate(rate), static_cast<double>(rateBits(bits)));
    // Delays in ms to the picosecond, as the upstream files write 0.5 us.
    QCOMPARE(QString::fromStdString(ns3Delay(0.5e-6)), QStringLiteral("0.0005ms"));
    QCOMPARE(QString::fromStdString(ns3Delay(0.6e-6)), QStringLiteral("0.0006ms"));
    QCOMPARE(QString::fromStdString(ns3Delay(25e-9)), QStringLiteral("0.000025ms"));
    QCOMPARE(QString::fromStdString(ns3Delay(1.5e-3)), QStringLiteral("1.5ms"));
    QCOMPARE(QString::fromStdString(ns3Delay(0.0)), QStringLiteral("0ms"));
}

void TestAstraSimExport::directoryWriter()
{
    QTemporaryDir tmp;
    const QString dir = tmp.filePath(QStringLiteral("new"));
    writeExportDirectory(dir.toStdString(), { { "a.txt", "one\n" }, { "b.json", "{}\n" } });
    QCOMPARE(QDir(dir).entryList(QDir::Files | QDir::Hidden), QStringList({ "a.txt", "b.json" }));
    QFile a(dir + QStringLiteral("/a.txt"));
    QVERIFY(a.open(QIODevice::ReadOnly));
    QCOMPARE(a.readAll(), QByteArray("one\n"));
    a.close();
    // Into an existing directory: the named files are replaced, others stay, no staging left.
    QFile other(dir + QStringLiteral("/keep.txt"));
    QVERIFY(other.open(QIODevice::WriteOnly));
    other.write("mine");
    other.close();
    writeExportDirectory((dir + QStringLiteral("/")).toStdString(), { { "a.txt", "two\n" } });
    QVERIFY(a.open(QIODevice::ReadOnly));
    QCOMPARE(a.readAll(), QByteArray("two\n"));
    QCOMPARE(QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
        QStringList({ "a.txt", "b.json", "keep.txt" }));
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
        QStringList({ "new" }));
}

void TestAstraSimExport::directoryWriterRefuses()
{
    QTemporaryDir tmp;
    const std::vector<ExportFile> files { { "a.txt", "x\n" } };
    // A regular file where the directory should go: refused, the file untouched.
    const QString file = tmp.filePath(QStringLiteral("plain"));
    QFile f(file);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("keep");
    f.close();
    try {
        writeExportDirectory(file.toStdString(), files);
        QFAIL("a file is not a directory");
    } catch (const ScenarioError &e) {
        QVERIFY(e.reason().find("not a directory") != std::string::npos);
    }
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(f.readAll(), QByteArray("keep"));
    // A missing parent: refused, nothing created.
    QVERIFY_THROWS_EXCEPTION(ScenarioError,
        writeExportDirectory(tmp.filePath(QStringLiteral("no/such/dir")).toStdString(), files));
    // A file name with a directory part: refused before anything is written.
    QVERIFY_THROWS_EXCEPTION(ScenarioError,
        writeExportDirectory(
            tmp.filePath(QStringLiteral("d")).toStdString(), { { "x/../../evil", "x" } }));
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot),
        QStringList({ "plain" }));
}

QTEST_GUILESS_MAIN(TestAstraSimExport)
#include "tst_astrasimexport.moc"
