// Tests of fabrics built from a cabling inventory (model/fabric/cablingbuilder.cpp): a generated
// fabric written out cable by cable must come back with the same switches, links and costs;
// the sample inventory's miswirings are each named; irregular cablings route by ECMP over the
// cables that exist (hand-derived shares); an uncabled NIC's GPU holds no rank; and a cabling
// that cannot be a fabric is refused with the cable named.

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fabric/cablingbuilder.h"
#include "fabric/fabricassembly.h"
#include "fabric/failedcomponent.h"
#include "fabric/router.h"
#include "fixtures.h"
#include "io/cablingcsv.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <cmath>
#include <map>
#include <string>

using namespace railyard;

namespace {

/// The cables of a generated fabric, one line per physical cable (bundles expanded), with the
/// generator's node names as device names and made-up port names.
std::vector<Cable> cablesOf(const Fabric &f)
{
    std::vector<Cable> out;
    std::map<int, int> nextPort;
    const auto port = [&nextPort](int vertex) { return "p" + std::to_string(++nextPort[vertex]); };
    for (int id = 0; id < f.linkCount(); id += 2) {
        const FabricLink &l = f.link(id);
        if (l.tier == Tier::ScaleUp || l.tier == Tier::Pcie)
            continue;
        const FabricNode &a = f.node(l.src);
        const FabricNode &b = f.node(l.dst);
        for (int k = 0; k < l.ports; ++k) {
            Cable c;
            if (a.kind == NodeKind::Nic) {
                c.aDevice = f.serverName(a.server);
                c.aPort = "nic" + std::to_string(a.local);
            } else {
                c.aDevice = a.name;
                c.aPort = port(l.src);
            }
            c.bDevice = b.name;
            c.bPort = port(l.dst);
            c.gbps = bytesPerSecondToGbps(l.bandwidth) / l.ports;
            c.latencyUs = l.latency * 1e6;
            out.push_back(c);
        }
    }
    return out;
}

/// Bandwidth summed per tier (bytes/s, both directions).
std::map<Tier, double> tierBandwidth(const Fabric &f)
{
    std::map<Tier, double> sum;
    for (const FabricLink &l : f.links())
        sum[l.tier] += l.bandwidth;
    return sum;
}

void compareFabrics(const Fabric &generated, const Fabric &cabled)
{
    QCOMPARE(cabled.leafCount(), generated.leafCount());
    QCOMPARE(cabled.spineCount(), generated.spineCount());
    QCOMPARE(cabled.superSpineCount(), generated.superSpineCount());
    QCOMPARE(cabled.podCount(), generated.podCount());
    QCOMPARE(cabled.railCount(), generated.railCount());
    QCOMPARE(cabled.linkCount(), generated.linkCount());
    const auto a = tierBandwidth(generated), b = tierBandwidth(cabled);
    for (const auto &[tier, bw] : a)
        QVERIFY2(std::abs(b.at(tier) - bw) <= 1e-9 * bw,
            qPrintable(QString::fromStdString(std::string(tierName(tier)))));
    for (int s = 0; s < generated.servers(); ++s)
        for (int n = 0; n < generated.nicsPerServer(); ++n) {
            const FabricNode &g = generated.node(generated.leafVertex(generated.leafOfNic(s, n)));
            const FabricNode &c = cabled.node(cabled.leafVertex(cabled.leafOfNic(s, n)));
            QCOMPARE(c.name, g.name);
            QCOMPARE(c.rail, g.rail);
            QCOMPARE(c.su, g.su);
            QCOMPARE(c.pod, g.pod);
        }
    QVERIFY(cabled.regularClos());
    QVERIFY(cabled.cablingFindings().empty());
}

Scenario withCabling(Scenario s)
{
    const Fabric generated = Fabric::build(s.fabric);
    s.fabric.cabling = cablesOf(generated);
    return s;
}

const std::string kSample = RAILYARD_SOURCE_DIR "/samples/cabling-2su.csv";

bool anyContains(const std::vector<std::string> &lines, const std::string &text)
{
    for (const std::string &l : lines)
        if (l.find(text) != std::string::npos)
            return true;
    return false;
}

/// A two-tier rail cabling: `servers` servers of 2 GPUs / 2 NICs, one SU, leaves r0 and r1,
/// spines s0..s{spines-1}, one cable per leaf-spine pair except those in `missing`.
FabricSpec smallCabled(int servers, int spines, const std::vector<std::pair<int, int>> &missing)
{
    FabricSpec spec = fixtures::railFabric(servers, 2);
    for (int s = 0; s < servers; ++s)
        for (int n = 0; n < 2; ++n)
            spec.cabling.push_back({ defaultServerName(s), "nic" + std::to_string(n),
                "r" + std::to_string(n), "p" + std::to_string(s), 400.0, -1.0 });
    for (int leaf = 0; leaf < 2; ++leaf)
        for (int sp = 0; sp < spines; ++sp) {
            if (std::find(missing.begin(), missing.end(), std::pair(leaf, sp)) != missing.end())
                continue;
            spec.cabling.push_back({ "r" + std::to_string(leaf), "u" + std::to_string(sp),
                "s" + std::to_string(sp), "d" + std::to_string(leaf), 400.0, -1.0 });
        }
    return spec;
}

std::string refusal(const FabricSpec &spec)
{
    try {
        (void)Fabric::build(spec);
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return "(built)";
}

} // namespace

class TestCablingBuilder : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void generatedTwoTierRoundTrips();
    void generatedThreeTierRoundTrips();
    void torRoundTrips();
    void sampleMiswiringsAreNamed();
    void missingSpineCableRoutesOverTheOthers();
    void uncabledNicHoldsNoRank();
    void impossibleCablingsAreRefused_data();
    void impossibleCablingsAreRefused();
    void scenarioFileKeepsTheCabling();
};

void TestCablingBuilder::generatedTwoTierRoundTrips()
{
    // 2 SUs of 4 servers, 8 rails, 2 spines: every leaf has 4 uplinks, 2 cables per spine.
    Scenario s = fixtures::smallDense(8, 8, fixtures::degrees(8, 2, 4));
    s.fabric.serversPerSu = 4;
    s.fabric.spines = 2;
    const Scenario c = withCabling(s);
    compareFabrics(Fabric::build(s.fabric), Fabric::build(c.fabric));
    // The same cables give the same costs, to rounding.
    const CostEngine a(s), b(c);
    QVERIFY(std::abs(a.report().iterationTime - b.report().iterationTime)
        <= 1e-12 * a.report().iterationTime);
    QVERIFY(std::abs(a.report().spineBytesShare - b.report().spineBytesShare) <= 1e-12);
}

void TestCablingBuilder::generatedThreeTierRoundTrips()
{
    // Radix 8: 16 servers x 2 rails in SUs of 2 make 16 leaves > 8, so three tiers and pods.
    Scenario s = fixtures::smallDense(16, 2, fixtures::degrees(2, 2, 8));
    s.fabric.serversPerSu = 2;
    s.fabric.switchRadix = 8;
    const Fabric generated = Fabric::build(s.fabric);
    QVERIFY(generated.superSpineCount() > 0);
    QVERIFY(generated.podCount() > 1);
    const Scenario c = withCabling(s);
    compareFabrics(generated, Fabric::build(c.fabric));
    const CostEngine a(s), b(c);
    QVERIFY(std::abs(a.report().iterationTime - b.report().iterationTime)
        <= 1e-12 * a.report().iterationTime);
}

void TestCablingBuilder::torRoundTrips()
{
    Scenario s = fixtures::smallDense(8, 4, fixtures::degrees(4, 1, 8));
    s.fabric = fixtures::torFabric(8, 4, 2);
    const Scenario c = withCabling(s);
    compareFabrics(Fabric::build(s.fabric), Fabric::build(c.fabric));
    const CostEngine a(s), b(c);
    QVERIFY(std::abs(a.report().iterationTime - b.report().iterationTime)
        <= 1e-12 * a.report().iterationTime);
}

void TestCablingBuilder::sampleMiswiringsAreNamed()
{
    // samples/cabling-2su.csv: 2 SUs x 32 DGX H100, 16 rail leaves, 8 spines, 4 cables per
    // leaf-spine pair; n07's mlx5_2/mlx5_3 crossed, su2-n20 mlx5_5 in leaf-su2-r4's uplink port.
    FabricSpec spec = fixtures::railFabric(32, 8);
    const CablingCsv csv = loadCablingCsv(kSample);
    QCOMPARE(csv.cables.size(), std::size_t(64 * 8 + 16 * 32 - 1));
    const CablingImport result = importCabling(spec, csv, {});
    QCOMPARE(result.servers, 64);
    QCOMPARE(result.kind, FabricKind::RailOptimised);
    const Fabric f = Fabric::build(spec);
    QCOMPARE(f.leafCount(), 16);
    QCOMPARE(f.spineCount(), 8);
    QCOMPARE(f.superSpineCount(), 0);
    QCOMPARE(f.serverName(0), std::string("dgx-su1-n01"));
    QCOMPARE(f.serverName(32), std::string("dgx-su2-n01"));
    const std::vector<std::string> &findings = f.cablingFindings();
    QVERIFY(anyContains(findings, "dgx-su1-n07 NIC 2 is on leaf-su1-r3, a rail-3 leaf"));
    QVERIFY(anyContains(findings, "dgx-su1-n07 NIC 3 is on leaf-su1-r2, a rail-2 leaf"));
    QVERIFY(anyContains(findings, "dgx-su2-n20 NIC 5 is on leaf-su2-r4"));
    QVERIFY(anyContains(findings, "dgx-su2-n20 NICs 4 and 5 on leaf-su2-r4"));
    QVERIFY(anyContains(findings, "leaf-su2-r4 has 31"));
    QCOMPARE(findings.size(), std::size_t(3));
    // The short bundle: 3 cables of 400 Gb/s = 150 GB/s from leaf-su2-r4 to spine-08.
    int r4 = -1, spine8 = -1;
    for (int i = 0; i < f.leafCount(); ++i)
        if (f.node(f.leafVertex(i)).name == "leaf-su2-r4")
            r4 = f.leafVertex(i);
    for (int i = 0; i < f.spineCount(); ++i)
        if (f.node(f.spineVertex(i)).name == "spine-08")
            spine8 = f.spineVertex(i);
    const int bundle = f.linkBetween(r4, spine8);
    QVERIFY(bundle >= 0);
    QCOMPARE(f.link(bundle).ports, 3);
    QCOMPARE(f.link(bundle).bandwidth, 3 * 400e9 / 8);
    // Every leaf still reaches every spine, so the Clos route cache stays valid.
    QVERIFY(f.regularClos());
}

void TestCablingBuilder::missingSpineCableRoutesOverTheOthers()
{
    // Leaf r1 has no cable to spine s2. From r0 (3 spines) to r1 only s0 and s1 are shortest,
    // so ECMP gives each 1/2 - the factorised cache would have sent 1/3 up to s2.
    const FabricSpec spec = smallCabled(2, 3, { { 1, 2 } });
    const Fabric f = Fabric::build(spec);
    QVERIFY(!f.regularClos());
    QVERIFY(anyContains(f.cablingFindings(), "r1 reaches 2 of 3 spines (none to s2)"));
    Router router(f);
    // Slot 0 = node000/gpu0 (NIC 0 -> r0); slot 3 = node001/gpu1 (NIC 1 -> r1).
    std::map<std::string, double> up;
    for (const RouteHop &h : router.route(0, 3)) {
        const FabricLink &l = f.link(h.link);
        if (l.tier == Tier::Spine && f.node(l.src).kind == NodeKind::Leaf)
            up[f.node(l.dst).name] += h.share;
    }
    QCOMPARE(up.size(), std::size_t(2));
    QCOMPARE(up.at("s0"), 0.5);
    QCOMPARE(up.at("s1"), 0.5);
    // The other direction: r1 reaches only s0 and s1 anyway.
    double total = 0.0;
    for (const RouteHop &h : router.route(3, 0))
        if (f.link(h.link).tier == Tier::Spine && f.node(f.link(h.link).src).kind == NodeKind::Leaf)
            total += h.share;
    QCOMPARE(total, 1.0);
    // routeParts() agrees with route() (the engine's incremental path uses it).
    Router::Parts parts;
    router.routeParts(0, 3, parts);
    QCOMPARE(parts.segmentCount, 1);
    double viaSegment = 0.0;
    for (const RouteHop &h : router.segmentHops(parts.segments[0]))
        if (f.node(f.link(h.link).src).kind == NodeKind::Leaf)
            viaSegment += h.share;
    QCOMPARE(viaSegment, 1.0);
    QCOMPARE(parts.latency, router.latency(0, 3));
}

void TestCablingBuilder::uncabledNicHoldsNoRank()
{
    FabricSpec spec = smallCabled(2, 2, {});
    // node001 nic1 loses its cable.
    spec.cabling.erase(
        std::remove_if(spec.cabling.begin(), spec.cabling.end(),
            [](const Cable &c) { return c.aDevice == "node001" && c.aPort == "nic1"; }),
        spec.cabling.end());
    const Fabric f = Fabric::build(spec);
    QVERIFY(!f.nicCabled(1, 1));
    QVERIFY(anyContains(f.cablingFindings(), "node001 NIC 1"));
    const std::vector<char> usable = usableSlots(f, {});
    QCOMPARE(usable, std::vector<char>({ 1, 1, 1, 0 }));
    Scenario s = fixtures::smallDense(2, 2, fixtures::degrees(1, 1, 4));
    s.fabric = spec;
    s.slots = { 0, 1, 2, 3 };
    try {
        const CostEngine engine(s);
        QFAIL("a rank on the uncabled NIC's GPU was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(
            std::string(e.what()).find("node001/nic1 has no cable") != std::string::npos, e.what());
    }
    // Three ranks on the three cabled slots evaluate.
    Scenario three = fixtures::smallDense(2, 2, fixtures::degrees(1, 1, 3));
    three.fabric = spec;
    three.slots = { 0, 1, 2 };
    const CostEngine engine(three);
    QVERIFY(engine.report().iterationTime > 0.0);
}

void TestCablingBuilder::impossibleCablingsAreRefused_data()
{
    QTest::addColumn<int>("change");
    QTest::addColumn<QString>("message");
    QTest::newRow("port used twice") << 0 << "r0 port p0 is already cabled by fabric.cabling[0]";
    QTest::newRow("NIC cabled twice") << 1 << "node000 NIC 0 is cabled twice";
    QTest::newRow("server to server") << 2 << "joins two servers";
    QTest::newRow("no NIC index") << 3 << "port \"bmc\" names no NIC";
    QTest::newRow("NIC out of range") << 4 << "is NIC 7, but the servers have 2 NICs";
    QTest::newRow("four tiers") << 5 << "is 3 switch hops above the servers";
    QTest::newRow("split fabric") << 6 << "cannot reach leaf";
    QTest::newRow("zero speed") << 7 << "speed must be 0.001 to 1000000 Gbit/s";
}

void TestCablingBuilder::impossibleCablingsAreRefused()
{
    QFETCH(int, change);
    QFETCH(QString, message);
    FabricSpec spec = smallCabled(2, 2, {});
    switch (change) {
    case 0:
        spec.cabling.push_back({ "node001", "nic5x", "r0", "p0", 400.0, -1.0 });
        break;
    case 1:
        spec.cabling.push_back({ "node000", "mlx5_0", "r1", "p9", 400.0, -1.0 });
        break;
    case 2:
        spec.cabling.push_back({ "node000", "nic8", "node001", "nic9", 400.0, -1.0 });
        break;
    case 3:
        spec.cabling.push_back({ "node000", "bmc", "mgmt", "p1", 1.0, -1.0 });
        break;
    case 4:
        spec.cabling.push_back({ "node000", "nic7", "r0", "p7", 400.0, -1.0 });
        break;
    case 5:
        spec.cabling.push_back({ "s0", "x", "core", "y", 400.0, -1.0 });
        spec.cabling.push_back({ "core", "z", "top", "w", 400.0, -1.0 });
        break;
    case 6:
        spec.cabling.erase(
            std::remove_if(spec.cabling.begin(), spec.cabling.end(),
                [](const Cable &c) { return c.aDevice == "r1" && c.bDevice[0] == 's'; }),
            spec.cabling.end());
        break;
    case 7:
        spec.cabling[1].gbps = 0.0;
        break;
    }
    const std::string what = refusal(spec);
    QVERIFY2(what.find(message.toStdString()) != std::string::npos, what.c_str());
    QVERIFY2(what.rfind("fabric.cabling", 0) == 0, what.c_str());
}

void TestCablingBuilder::scenarioFileKeepsTheCabling()
{
    Scenario s = fixtures::smallDense(2, 2, fixtures::degrees(2, 1, 2));
    s.fabric = smallCabled(2, 2, { { 1, 1 } });
    s.fabric.cabling[0].latencyUs = 1.5;
    const Scenario back = parseScenario(scenarioToText(s));
    QVERIFY(back.fabric.cabling == s.fabric.cabling);
    QVERIFY(back == s);
    // A malformed cable names its element.
    std::string text = scenarioToText(s);
    const std::size_t at = text.find("\"node000\"");
    text.replace(at, 9, "17");
    try {
        (void)parseScenario(text);
        QFAIL("a number as device name was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).find("fabric.cabling[0][0]") != std::string::npos, e.what());
    }
}

QTEST_GUILESS_MAIN(TestCablingBuilder)
#include "tst_cablingbuilder.moc"
