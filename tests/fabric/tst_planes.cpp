// Multi-plane fabrics (fabric.planes: Alibaba HPN dual-plane, DeepSeek-V3 multi-plane fat tree)
// and rail-only fabrics (fabric.kind rail-only: Wang et al., arXiv 2307.12169): the switch
// planes and their cables, routes split evenly over the planes, a failed leaf costing a NIC one
// port instead of its server, rail-only's NVLink forwarding and its missing spine, file round
// trips, refusals, and one plane reproducing the single-network numbers.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fabric/fabric.h"
#include "fabric/failedcomponent.h"
#include "fabric/router.h"
#include "fixtures.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <cmath>
#include <map>
#include <string>

using namespace railyard;
using railyard::fixtures::tierDimBytes;

namespace {

/// 2 servers x `gpus` GPUs, one SU, rail-optimised, `planes` planes of 400G / planes ports.
FabricSpec twoServers(int gpus, int planes)
{
    FabricSpec s;
    s.servers = 2;
    s.gpusPerServer = gpus;
    s.planes = planes;
    return s;
}

bool nearlyEqual(double a, double b, double rel = 1e-12)
{
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

/// Share of the route's bytes on each link (a link can appear once per route).
std::map<int, double> sharesOf(std::span<const RouteHop> hops)
{
    std::map<int, double> out;
    for (const RouteHop &h : hops)
        out[h.link] += h.share;
    return out;
}

double linkBytes(const CostEngine &engine, int a, int b)
{
    const int id = engine.fabric().linkBetween(a, b);
    return id < 0 ? -1.0 : engine.report().links[static_cast<std::size_t>(id)].bytes;
}

/// TP 2 inside each server, DP 2 across the two servers: the DP rings are same-rail.
Scenario dpAcrossServers(int planes)
{
    Scenario s = fixtures::smallDense(2, 2, { 2, 1, 2, 1, 1 });
    s.fabric.planes = planes;
    s.collectives.algorithm = CollectiveAlgorithm::Ring;
    return s;
}

void expectRefusal(const FabricSpec &spec, const char *field, const char *words)
{
    try {
        Fabric::build(spec);
        QFAIL("the spec was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string(field));
        QVERIFY2(std::string(e.what()).find(words) != std::string::npos, e.what());
    }
}

} // namespace

class TestPlanes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eachPlaneIsItsOwnSwitchNetwork();
    void routeSplitsEvenlyOverThePlanes();
    void dualPlaneHalvesEachPortsBytes();
    void failedLeafCostsOnePortNotTheServer();
    void failedPlaneHalvesTheBandwidth();
    void railOnlyHasNoSpine();
    void railOnlyForwardsCrossRailOverNvlink();
    void railOnlyEngineLoadsNvlinkNotSpine();
    void refusals();
    void roundTrip();
    void onePlaneKeepsTheFileAndTheNumbers();
};

void TestPlanes::eachPlaneIsItsOwnSwitchNetwork()
{
    const Fabric f = Fabric::build(twoServers(4, 2));
    // One plane: 4 rail leaves and one spine (4 uplinks of 2 servers' leaves ... radix 64).
    const Fabric one = Fabric::build(twoServers(4, 1));
    QCOMPARE(f.planeCount(), 2);
    QCOMPARE(f.leafCount(), 2 * one.leafCount());
    QCOMPARE(f.spineCount(), 2 * one.spineCount());
    QCOMPARE(f.leavesPerPlane(), one.leafCount());
    QCOMPARE(f.node(f.leafVertex(0)).name, std::string("plane0/leaf-su0-rail0"));
    QCOMPARE(f.node(f.leafVertex(f.leavesPerPlane())).name, std::string("plane1/leaf-su0-rail0"));
    for (int server = 0; server < 2; ++server)
        for (int nic = 0; nic < 4; ++nic)
            for (int plane = 0; plane < 2; ++plane) {
                const int leaf = f.leafOfNicPort(server, nic, plane);
                QCOMPARE(f.planeOfLeaf(leaf), plane);
                QCOMPARE(f.node(f.leafVertex(leaf)).rail, nic);
                // NIC speed / planes per port: 400G / 2 = 200 Gbit/s = 25e9 bytes/s.
                const int up = f.linkBetween(f.nicVertex(server, nic), f.leafVertex(leaf));
                QVERIFY(up >= 0);
                QCOMPARE(f.link(up).bandwidth, 25e9);
            }
    // No cable joins two planes: every switch-to-switch link stays in its plane.
    for (const FabricLink &l : f.links()) {
        const FabricNode &a = f.node(l.src), &b = f.node(l.dst);
        if (a.netPlane >= 0 && b.netPlane >= 0)
            QCOMPARE(a.netPlane, b.netPlane);
    }
    // plane_port_gbps overrides the split.
    FabricSpec fast = twoServers(4, 2);
    fast.planePortGbps = 400.0;
    const Fabric g = Fabric::build(fast);
    QCOMPARE(
        g.link(g.linkBetween(g.nicVertex(0, 0), g.leafVertex(g.leafOfNicPort(0, 0, 1)))).bandwidth,
        50e9);
}

void TestPlanes::routeSplitsEvenlyOverThePlanes()
{
    const Fabric f = Fabric::build(twoServers(2, 2));
    Router router(f);
    // Same rail (server 0 GPU 0 -> server 1 GPU 0): PCIe, then half on each plane's leaf.
    {
        const std::map<int, double> got = sharesOf(router.route(0, 2));
        for (int plane = 0; plane < 2; ++plane) {
            const int leaf = f.leafVertex(f.leafOfNicPort(0, 0, plane));
            QCOMPARE(got.at(f.linkBetween(f.nicVertex(0, 0), leaf)), 0.5);
            QCOMPARE(got.at(f.linkBetween(leaf, f.nicVertex(1, 0))), 0.5);
        }
        QCOMPARE(got.at(f.linkBetween(f.gpuVertex(0), f.nicVertex(0, 0))), 1.0);
        QCOMPARE(got.at(f.linkBetween(f.nicVertex(1, 0), f.gpuVertex(2))), 1.0);
        QCOMPARE(got.size(), std::size_t { 6 });
    }
    // Cross rail (GPU 0 -> server 1 GPU 1): each plane's spines carry half of what one plane's
    // spines carry, and the shares into each tier still sum to 1.
    {
        const Fabric single = Fabric::build(twoServers(2, 1));
        Router one(single);
        double spineShare = 0.0;
        for (const auto &[link, share] : sharesOf(router.route(0, 3)))
            if (f.link(link).tier == Tier::Spine)
                spineShare += share;
        double oneShare = 0.0;
        for (const auto &[link, share] : sharesOf(one.route(0, 3)))
            if (single.link(link).tier == Tier::Spine)
                oneShare += share;
        QCOMPARE(oneShare, 2.0); // up and down, all of the flow
        QCOMPARE(spineShare, 2.0);
        // Latency: one plane's path (the planes are copies).
        QVERIFY(nearlyEqual(router.latency(0, 3), one.latency(0, 3)));
    }
    // routeParts() spreads to the same loads as route() (the NIC ports are a segment of half
    // the flow per port, Router::planesMerged()).
    Router::Parts parts;
    router.routeParts(0, 3, parts);
    QVERIFY(router.planesMerged());
    std::map<int, double> fromParts;
    for (int i = 0; i < parts.endCount; ++i)
        fromParts[parts.ends[static_cast<std::size_t>(i)]]
            += parts.endShares[static_cast<std::size_t>(i)];
    for (int i = 0; i < parts.segmentCount; ++i)
        for (const RouteHop &h : router.segmentHops(parts.segments[static_cast<std::size_t>(i)]))
            fromParts[h.link] += h.share;
    const std::map<int, double> direct = sharesOf(router.route(0, 3));
    QCOMPARE(fromParts.size(), direct.size());
    for (const auto &[link, share] : direct)
        QVERIFY(nearlyEqual(fromParts.at(link), share));
}

void TestPlanes::dualPlaneHalvesEachPortsBytes()
{
    const CostEngine one(dpAcrossServers(1));
    const CostEngine two(dpAcrossServers(2));
    const Fabric &f1 = one.fabric();
    const Fabric &f2 = two.fabric();
    double total = 0.0;
    for (int server = 0; server < 2; ++server)
        for (int nic = 0; nic < 2; ++nic) {
            const double bytes = linkBytes(
                one, f1.nicVertex(server, nic), f1.leafVertex(f1.leafOfNic(server, nic)));
            QVERIFY(bytes > 0.0);
            total += bytes;
            for (int plane = 0; plane < 2; ++plane) {
                const double port = linkBytes(two, f2.nicVertex(server, nic),
                    f2.leafVertex(f2.leafOfNicPort(server, nic, plane)));
                QVERIFY2(nearlyEqual(port, bytes / 2.0), qPrintable(QString::number(port)));
            }
        }
    // Same bytes in total on the leaf tier (each byte crosses one port up and one down).
    QVERIFY(nearlyEqual(
        tierDimBytes(two, Tier::Leaf, Dim::Dp), tierDimBytes(one, Tier::Leaf, Dim::Dp)));
    // Half the bytes on half-speed ports: the same utilisation, so the same iteration.
    QVERIFY(nearlyEqual(two.report().iterationTime, one.report().iterationTime));
}

void TestPlanes::failedLeafCostsOnePortNotTheServer()
{
    Scenario s = dpAcrossServers(2);
    const Fabric built = Fabric::build(s.fabric);
    const int dead = built.leafOfNicPort(0, 0, 1); // plane 1, rail 0
    s.failures = { { FailedComponent::Kind::Leaf, dead } };
    // Every slot stays usable: NIC 0 keeps its plane-0 port.
    for (char usable : usableSlots(built, s.failures))
        QVERIFY(usable);
    const CostEngine healthy(dpAcrossServers(2));
    const CostEngine engine(s);
    const Fabric &f = engine.fabric();
    for (int server = 0; server < 2; ++server) {
        const int nic = f.nicVertex(server, 0);
        const double alive = linkBytes(engine, nic, f.leafVertex(f.leafOfNicPort(server, 0, 0)));
        const double gone = linkBytes(engine, nic, f.leafVertex(dead));
        QCOMPARE(gone, 0.0);
        // The surviving port carries what both ports carried.
        const double before = linkBytes(healthy, nic, f.leafVertex(f.leafOfNicPort(server, 0, 0)));
        QVERIFY(nearlyEqual(alive, 2.0 * before));
    }
    // Rail 1 is untouched.
    for (int plane = 0; plane < 2; ++plane) {
        const int nic = f.nicVertex(0, 1);
        const int leaf = f.leafVertex(f.leafOfNicPort(0, 1, plane));
        QVERIFY(nearlyEqual(linkBytes(engine, nic, leaf), linkBytes(healthy, nic, leaf)));
    }
    // Two SUs, plane 0's rail-0 leaf failed in SU 0 and plane 1's in SU 1: rail 0's NICs of the
    // two SUs keep ports only in different planes, so a flow between them is refused, named.
    {
        Scenario two = fixtures::smallDense(4, 1, { 1, 1, 4, 1, 1 });
        two.fabric.serversPerSu = 2;
        two.fabric.planes = 2;
        const Fabric g = Fabric::build(two.fabric);
        two.failures = { { FailedComponent::Kind::Leaf, g.leafOfNicPort(0, 0, 0) },
            { FailedComponent::Kind::Leaf, g.leafOfNicPort(2, 0, 1) } };
        try {
            const CostEngine refused(two);
            QFAIL("a flow between disjoint planes was routed");
        } catch (const ScenarioError &e) {
            QCOMPARE(e.field(), std::string("failures"));
            QVERIFY2(std::string(e.what()).find("different network planes") != std::string::npos,
                e.what());
        }
    }
    // With one plane, the same failure takes the NIC's slots out.
    Scenario single = dpAcrossServers(1);
    const Fabric one = Fabric::build(single.fabric);
    const std::vector<char> usable
        = usableSlots(one, { { FailedComponent::Kind::Leaf, one.leafOfNic(0, 0) } });
    QVERIFY(!usable[0]);
    QVERIFY(!usable[2]);
    // Both of a NIC's leaves failed: now its slots are lost.
    const std::vector<char> both = usableSlots(built,
        { { FailedComponent::Kind::Leaf, built.leafOfNicPort(0, 0, 0) },
            { FailedComponent::Kind::Leaf, dead } });
    QVERIFY(!both[0]);
    QVERIFY(both[1]);
}

void TestPlanes::failedPlaneHalvesTheBandwidth()
{
    // Every leaf of plane 1 failed: each NIC is left one 200G port, exactly a one-plane fabric
    // of 200G NICs (same spines, same latencies). The iteration is that fabric's, to rounding.
    Scenario s = dpAcrossServers(2);
    const Fabric built = Fabric::build(s.fabric);
    for (int leaf = built.leavesPerPlane(); leaf < built.leafCount(); ++leaf)
        s.failures.push_back({ FailedComponent::Kind::Leaf, leaf });
    Scenario half = dpAcrossServers(1);
    half.fabric.nic.gbps = 200.0;
    const CostEngine degraded(s);
    const CostEngine reference(half);
    const CostEngine healthy(dpAcrossServers(2));
    QVERIFY(nearlyEqual(degraded.report().iterationTime, reference.report().iterationTime, 1e-9));
    QVERIFY(degraded.report().iterationTime > healthy.report().iterationTime);
    // "plane:1" says the same in one entry: every leaf of plane 1.
    Scenario byPlane = dpAcrossServers(2);
    byPlane.failures = { parseFailure("plane:1", "failures[0]") };
    QVERIFY(byPlane.failures[0].kind == FailedComponent::Kind::Plane);
    const CostEngine planeDown(byPlane);
    QCOMPARE(planeDown.report().iterationTime, degraded.report().iterationTime);
    QCOMPARE(describeFailure(built, byPlane.failures[0]),
        std::string("plane:1 (network plane 1, 2 leaves)"));
    for (char usable : usableSlots(built, byPlane.failures))
        QVERIFY(usable);
    // Both planes down: nothing is left.
    for (char usable :
        usableSlots(built, { parseFailure("plane:0", "f"), parseFailure("plane:1", "f") }))
        QVERIFY(!usable);
    try {
        checkFailureRange(parseFailure("plane:2", "failures[0]"), built.spec(), "failures[0]");
        QFAIL("plane:2 of a dual-plane fabric was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).find("2 network planes") != std::string::npos, e.what());
    }

    // A point-to-point send of S bytes between the servers: its bandwidth term is S over the
    // one surviving 200G port (25e9 B/s), twice the healthy dual-plane NIC's S / 50e9.
    const double bytes = 1e9;
    CostEngine d(s), h(dpAcrossServers(2));
    const CollectiveResult slow = d.collective(Collective::SendRecv, { 0, 2 }, bytes);
    const CollectiveResult fast = h.collective(Collective::SendRecv, { 0, 2 }, bytes);
    QVERIFY(nearlyEqual(fast.time - fast.alphaTime, bytes / 50e9, 1e-9));
    QVERIFY(nearlyEqual(slow.time - slow.alphaTime, bytes / 25e9, 1e-9));
}

void TestPlanes::railOnlyHasNoSpine()
{
    FabricSpec s = twoServers(4, 1);
    s.kind = FabricKind::RailOnly;
    s.servers = 16;
    const Fabric f = Fabric::build(s);
    QCOMPARE(f.leafCount(), 4); // one rail switch per rail for the whole cluster
    QCOMPARE(f.spineCount(), 0);
    QCOMPARE(f.superSpineCount(), 0);
    QCOMPARE(f.railCount(), 4);
    for (int server = 0; server < 16; ++server)
        for (int nic = 0; nic < 4; ++nic)
            QCOMPARE(f.leafOfNic(server, nic), nic);
    for (const FabricLink &l : f.links())
        QVERIFY(l.tier != Tier::Spine && l.tier != Tier::SuperSpine);
    QCOMPARE(f.node(f.leafVertex(2)).name, std::string("rail-switch-2"));
}

void TestPlanes::railOnlyForwardsCrossRailOverNvlink()
{
    FabricSpec s = twoServers(2, 1);
    s.kind = FabricKind::RailOnly;
    const Fabric f = Fabric::build(s);
    Router router(f);
    // Server 0 GPU 0 -> server 1 GPU 1 (slot 3): NVLink to server 0's GPU 1 (NIC 1, rail 1),
    // PCIe, rail switch 1, server 1's NIC 1, PCIe. Each hop carries the whole flow.
    const std::map<int, double> got = sharesOf(router.route(0, 3));
    const int nvswitch = f.scaleUpVertex(0);
    const std::vector<std::pair<int, int>> expected {
        { f.gpuVertex(0), nvswitch },
        { nvswitch, f.gpuVertex(1) },
        { f.gpuVertex(1), f.nicVertex(0, 1) },
        { f.nicVertex(0, 1), f.leafVertex(1) },
        { f.leafVertex(1), f.nicVertex(1, 1) },
        { f.nicVertex(1, 1), f.gpuVertex(3) },
    };
    QCOMPARE(got.size(), expected.size());
    for (const auto &[a, b] : expected)
        QCOMPARE(got.at(f.linkBetween(a, b)), 1.0);
    // Same rail: no NVLink hop.
    for (const auto &[link, share] : sharesOf(router.route(0, 2)))
        QVERIFY(f.link(link).tier != Tier::ScaleUp);
    // Latency: 2 NVLink hops + 2 PCIe + 2 NIC hops.
    QVERIFY(nearlyEqual(router.latency(0, 3), 2 * 0.6e-6 + 2 * 0.5e-6 + 2 * 1.0e-6));
}

void TestPlanes::railOnlyEngineLoadsNvlinkNotSpine()
{
    // TP 1, PP 2, DP 2 on 2 servers x 2 GPUs; ranks 2 and 3 swapped so that both pipeline
    // boundaries cross rails: rank 0 (server 0 GPU 0) -> rank 2 (server 1 GPU 1) and rank 1
    // (server 0 GPU 1) -> rank 3 (server 1 GPU 0). The DP pairs stay inside a server.
    const auto build = [](FabricKind kind) {
        Scenario s = fixtures::smallDense(2, 2, { 1, 2, 2, 1, 1 }, kind);
        s.slots = { 0, 1, 3, 2 };
        return s;
    };
    const CostEngine ro(build(FabricKind::RailOnly));
    const CostEngine clos(build(FabricKind::RailOptimised));
    const double leafPp = tierDimBytes(ro, Tier::Leaf, Dim::Pp);
    QVERIFY(leafPp > 0.0);
    // Every cross-rail send crosses 2 NVLink hops (to the proxy) and 2 leaf hops (NIC up, down).
    QVERIFY(nearlyEqual(tierDimBytes(ro, Tier::ScaleUp, Dim::Pp), leafPp));
    QCOMPARE(tierDimBytes(ro, Tier::Spine, Dim::Pp), 0.0);
    // The rail-optimised fabric sends the same bytes through its spine instead, none on NVLink.
    QCOMPARE(tierDimBytes(clos, Tier::ScaleUp, Dim::Pp), 0.0);
    QVERIFY(nearlyEqual(tierDimBytes(clos, Tier::Spine, Dim::Pp), leafPp));
    // Rank 0's activations: its NVLink uplink carries exactly the pipeline bytes server 0's
    // NIC 1 sends (rank 1 sends over NIC 0, forwarded by GPU 0: that is GPU 0's NVLink downlink).
    const Fabric &f = ro.fabric();
    const auto ppOn = [&](int a, int b) {
        return ro.report()
            .links[static_cast<std::size_t>(f.linkBetween(a, b))]
            .dimBytes[index(Dim::Pp)];
    };
    QVERIFY(ppOn(f.gpuVertex(0), f.scaleUpVertex(0)) > 0.0);
    QVERIFY(nearlyEqual(
        ppOn(f.gpuVertex(0), f.scaleUpVertex(0)), ppOn(f.nicVertex(0, 1), f.leafVertex(1))));
    QVERIFY(nearlyEqual(
        ppOn(f.scaleUpVertex(0), f.gpuVertex(0)), ppOn(f.nicVertex(0, 0), f.leafVertex(0))));
}

void TestPlanes::refusals()
{
    FabricSpec s = twoServers(2, 17);
    expectRefusal(s, "fabric.planes", "1..16");
    s = twoServers(2, 2);
    s.planePortGbps = -1.0;
    expectRefusal(s, "fabric.plane_port_gbps", "must be 0 (nic_gbps / planes) or 0.001 to 1e+06");
    s.planePortGbps = 1e-308; // below 1 Mbit/s (base/physicalranges.h)
    expectRefusal(s, "fabric.plane_port_gbps", "got 1e-308");
    s = twoServers(2, 1);
    s.kind = FabricKind::RailOnly;
    s.servers = 65;
    expectRefusal(s, "fabric.switch_radix", "one port per server");
    s = twoServers(4, 1);
    s.kind = FabricKind::RailOnly;
    s.nicsPerServer = 4;
    s.gpuToNic = { 0, 0, 1, 1 };
    expectRefusal(s, "fabric.gpu_to_nic", "no GPU with affinity");
}

void TestPlanes::roundTrip()
{
    Scenario s = dpAcrossServers(2);
    s.fabric.planePortGbps = 400.0;
    const Scenario back = scenarioFromJson(scenarioToJson(s));
    QCOMPARE(back.fabric.planes, 2);
    QCOMPARE(back.fabric.planePortGbps, 400.0);
    Scenario r = fixtures::smallDense(2, 2, { 2, 1, 2, 1, 1 }, FabricKind::RailOnly);
    const nlohmann::json j = scenarioToJson(r);
    QCOMPARE(j.at("fabric").at("kind").get<std::string>(), std::string("rail-only"));
    QVERIFY(scenarioFromJson(j).fabric.kind == FabricKind::RailOnly);
    // The samples load and evaluate; the rail-only one has no spine.
    const Scenario dual = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128-dual-plane.json");
    QCOMPARE(dual.fabric.planes, 2);
    const Scenario ro = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128-rail-only.json");
    const CostEngine engine(ro);
    QCOMPARE(engine.fabric().spineCount(), 0);
}

void TestPlanes::onePlaneKeepsTheFileAndTheNumbers()
{
    const Scenario seed = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    QCOMPARE(seed.fabric.planes, 1);
    // One plane writes no new key: the file (and its fabric hash) stays as it was.
    QVERIFY(!scenarioToJson(seed).at("fabric").contains("planes"));
    QVERIFY(!scenarioToJson(seed).at("fabric").contains("plane_port_gbps"));
    // The dual-plane sample is the seed job with 2 x 200G ports per NIC: half the bytes per port
    // on half the speed, so the same iteration as the one-plane seed.
    const CostEngine one(seed);
    const CostEngine two(loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128-dual-plane.json"));
    QVERIFY(nearlyEqual(two.report().iterationTime, one.report().iterationTime));
    QCOMPARE(two.fabric().leafCount(), 2 * one.fabric().leafCount());
}

QTEST_GUILESS_MAIN(TestPlanes)
#include "tst_planes.moc"
