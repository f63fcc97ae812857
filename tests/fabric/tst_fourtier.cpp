// Tests of four-tier Clos fabrics (model/fabric/fabric.cpp: zones of pods under their own
// super-spines, a core tier above) and of routing over them (router.cpp, routerclos.cpp): switch
// counts against the k-ary fat tree's closed form, routes that climb only as high as a pair
// needs (hop counts and shares derived by hand), the independent ECMP reference, merged network
// planes, and the bill of materials' core tier.

#include "fabric/bom.h"
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "routerspecs.h"

#include "base/scenarioerror.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

using namespace railyard;
using namespace railyard::routertest;

namespace {

/// ToR fabric of `servers` single-GPU servers with radix-k switches: each leaf takes k/2 servers
/// (fabric.cpp's derived servers_per_leaf, (k/2) / NICs), so every tier is a k-ary fat tree's.
FabricSpec fatTree(int servers, int radix)
{
    FabricSpec s = torSpec(servers, 1, radix);
    s.nicsPerServer = 1;
    return s;
}

int rankOf(NodeKind k)
{
    switch (k) {
    case NodeKind::Gpu:
        return 0;
    case NodeKind::Nic:
    case NodeKind::ScaleUpSwitch:
        return 1;
    case NodeKind::Leaf:
        return 2;
    case NodeKind::Spine:
        return 3;
    case NodeKind::SuperSpine:
        return 4;
    case NodeKind::Core:
        return 5;
    }
    return -1;
}

/// The highest switch kind a route touches, as a rank (rankOf()).
int highest(const Fabric &f, std::span<const RouteHop> hops)
{
    int top = 0;
    for (const RouteHop &h : hops)
        top = std::max({ top, rankOf(f.node(f.link(h.link).src).kind),
            rankOf(f.node(f.link(h.link).dst).kind) });
    return top;
}

/// Shares summed per (upper node kind, upward?): every tier crossed carries the whole unit.
std::map<std::pair<int, bool>, double> levelSums(const Fabric &f, std::span<const RouteHop> hops)
{
    std::map<std::pair<int, bool>, double> sums;
    for (const RouteHop &h : hops) {
        const int a = rankOf(f.node(f.link(h.link).src).kind);
        const int b = rankOf(f.node(f.link(h.link).dst).kind);
        sums[{ std::max(a, b), b > a }] += h.share;
    }
    return sums;
}

/// An independent ECMP reference over the whole graph (as tst_router's, cores included): BFS
/// over the switches from the destination leaf, every switch splitting evenly over its
/// neighbours one hop closer.
std::map<int, double> referenceEcmp(const Fabric &f, int srcLeafVertex, int dstLeafVertex)
{
    const auto isSwitch = [&f](int v) { return rankOf(f.node(v).kind) >= 2; };
    std::vector<int> dist(boost::num_vertices(f.graph()), -1);
    std::vector<int> queue { dstLeafVertex };
    dist[static_cast<std::size_t>(dstLeafVertex)] = 0;
    for (std::size_t i = 0; i < queue.size(); ++i) {
        const int u = queue[i];
        for (auto [it, end] = boost::out_edges(static_cast<FabricVertex>(u), f.graph()); it != end;
             ++it) {
            const int v = static_cast<int>(boost::target(*it, f.graph()));
            if (isSwitch(v) && dist[static_cast<std::size_t>(v)] < 0) {
                dist[static_cast<std::size_t>(v)] = dist[static_cast<std::size_t>(u)] + 1;
                queue.push_back(v);
            }
        }
    }
    std::map<int, double> shares;
    std::map<int, double> flow { { srcLeafVertex, 1.0 } };
    while (!(flow.size() == 1 && flow.begin()->first == dstLeafVertex)) {
        std::map<int, double> next;
        for (const auto &[u, x] : flow) {
            std::vector<int> closer;
            for (auto [it, end] = boost::out_edges(static_cast<FabricVertex>(u), f.graph());
                 it != end; ++it) {
                const int v = static_cast<int>(boost::target(*it, f.graph()));
                if (isSwitch(v)
                    && dist[static_cast<std::size_t>(v)] == dist[static_cast<std::size_t>(u)] - 1)
                    closer.push_back(v);
            }
            for (const int v : closer) {
                shares[f.linkBetween(u, v)] += x / static_cast<double>(closer.size());
                next[v] += x / static_cast<double>(closer.size());
            }
        }
        flow.swap(next);
    }
    return shares;
}

/// The route's switch-to-switch hops of plane `plane` against the reference between the two
/// NICs' plane-`plane` leaves, at `scale` of its shares; empty string when equal.
QString checkReference(const Fabric &f, int src, int dst, std::span<const RouteHop> hops,
    int plane = 0, double scale = 1.0)
{
    std::map<int, double> got;
    for (const RouteHop &h : hops) {
        const FabricLink &l = f.link(h.link);
        if ((l.tier == Tier::Spine || l.tier == Tier::SuperSpine)
            && f.node(l.src).netPlane == plane)
            got[h.link] += h.share;
    }
    const int a
        = f.leafVertex(f.leafOfNicPort(f.serverOfSlot(src), f.nicOfGpu(f.gpuOfSlot(src)), plane));
    const int b
        = f.leafVertex(f.leafOfNicPort(f.serverOfSlot(dst), f.nicOfGpu(f.gpuOfSlot(dst)), plane));
    const std::map<int, double> want = a == b ? std::map<int, double> {} : referenceEcmp(f, a, b);
    if (want.size() != got.size())
        return QStringLiteral("%1 switch hops, reference has %2").arg(got.size()).arg(want.size());
    for (const auto &[link, share] : want)
        if (std::abs(got[link] - share * scale) > 1e-12)
            return QStringLiteral("%1 share %2, reference %3")
                .arg(QString::fromStdString(f.linkName(link)))
                .arg(got[link])
                .arg(share * scale);
    return {};
}

} // namespace

class TestFourTier : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void switchCountsClosedForm_data();
    void switchCountsClosedForm();
    void threeTiersStayThreeTiers();
    void beyondFourTiersRefused();
    void routesClimbOnlyAsHighAsNeeded();
    void routesMatchReference();
    void mergedPlanesMatchReferencePerPlane();
    void bomCountsTheCores();
};

void TestFourTier::switchCountsClosedForm_data()
{
    QTest::addColumn<int>("radix");
    QTest::addColumn<int>("zones");
    // Zones of k/2 pods: more than k pods (two zones) need the fourth tier; k zones is the full
    // 4-level k-ary fat tree (k^4/8 hosts).
    QTest::newRow("k8, 3 zones") << 8 << 3;
    QTest::newRow("k8, full (8 zones)") << 8 << 8;
    QTest::newRow("k16, full (16 zones)") << 16 << 16;
}

void TestFourTier::switchCountsClosedForm()
{
    QFETCH(int, radix);
    QFETCH(int, zones);
    // The k-ary fat tree (Al-Fares et al., SIGCOMM 2008, extended by one level): h = k/2 hosts
    // per leaf, h leaves and h spines per pod, h pods per zone; per zone h spine planes of h
    // super-spines (each with one port to each pod's spine and h up); super-spine k of plane j
    // of every zone reaches the cores of group (j, k), ceil(zones * h / k) of them.
    const int h = radix / 2;
    const int servers = zones * h * h * h;
    const Fabric f = Fabric::build(fatTree(servers, radix));
    QCOMPARE(f.slotCount(), servers);
    QCOMPARE(f.zoneCount(), zones);
    QCOMPARE(f.podCount(), zones * h);
    QCOMPARE(f.leafCount(), zones * h * h);
    QCOMPARE(f.spineCount(), zones * h * h);
    QCOMPARE(f.superSpineCount(), zones * h * h);
    const int coresPerGroup = (zones * h + radix - 1) / radix;
    QCOMPARE(f.coreCount(), h * h * coresPerGroup);
    if (zones == radix) // the full tree: k^4/8 hosts, k^3/8 cores
        QCOMPARE(f.coreCount(), radix * radix * radix / 8);
    // No switch uses more ports than its radix; a core has one port per zone.
    for (int c = 0; c < f.coreCount(); ++c) {
        int ports = 0;
        for (auto [it, end]
             = boost::out_edges(static_cast<FabricVertex>(f.coreVertex(c)), f.graph());
             it != end; ++it)
            ports += f.link(f.graph()[*it].id).ports;
        QCOMPARE(ports, zones * h / coresPerGroup);
        QVERIFY(ports <= radix);
        QCOMPARE(f.node(f.coreVertex(c)).kind, NodeKind::Core);
    }
    for (int s = 0; s < f.superSpineCount(); ++s) {
        int ports = 0;
        for (auto [it, end]
             = boost::out_edges(static_cast<FabricVertex>(f.superSpineVertex(s)), f.graph());
             it != end; ++it)
            ports += f.link(f.graph()[*it].id).ports;
        QCOMPARE(ports, radix); // h down (one per pod of its zone) + h up
    }
}

void TestFourTier::threeTiersStayThreeTiers()
{
    // k = 8: k pods of h^2 servers are the largest three-tier fabric (k^3/4 hosts, Al-Fares);
    // its counts and names are unchanged, no zone and no core.
    const Fabric f = Fabric::build(fatTree(128, 8));
    QCOMPARE(f.podCount(), 8);
    QCOMPARE(f.zoneCount(), 1);
    QCOMPARE(f.coreCount(), 0);
    QCOMPARE(f.superSpineCount(), 16);
    QCOMPARE(f.node(f.superSpineVertex(5)).name, std::string("superspine-5"));
    QCOMPARE(f.node(f.superSpineVertex(5)).zone, 0);
    // One more pod's worth of servers takes the fourth tier, with zone-qualified names.
    const Fabric g = Fabric::build(fatTree(128 + 16, 8));
    QCOMPARE(g.zoneCount(), 3);
    QVERIFY(g.coreCount() > 0);
    QCOMPARE(g.node(g.superSpineVertex(16)).name, std::string("superspine-z1-0"));
    QCOMPARE(g.node(g.coreVertex(0)).name, std::string("core-0"));
}

void TestFourTier::beyondFourTiersRefused()
{
    // k = 8 holds at most k zones of h pods (k^4/8 = 512 hosts): one more leaf's servers would
    // need a fifth tier.
    try {
        Fabric::build(fatTree(512 + 4, 8));
        QFAIL("a five-tier fabric was built");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("fabric.servers"));
        QVERIFY2(
            QString::fromUtf8(e.what()).contains(QStringLiteral("more than four switch tiers")),
            e.what());
    }
    // An explicit super-spine count cannot be split over zones.
    FabricSpec s = fatTree(256, 8);
    s.superSpines = 16;
    QVERIFY_THROWS_EXCEPTION(ScenarioError, Fabric::build(s));
}

void TestFourTier::routesClimbOnlyAsHighAsNeeded()
{
    // k = 8, full: 8 zones x 4 pods x 4 leaves x 4 servers (one GPU, one NIC each). Server s
    // sits on leaf s/4, pod s/16, zone s/64. Latencies (routerspecs.h): PCIe 0.5, NIC 1,
    // switch-to-switch 2 microseconds.
    const Fabric f = Fabric::build(fatTree(512, 8));
    Router r(f);
    QVERIFY(r.foldedClos());
    struct Case
    {
        int dst;
        std::size_t hops; ///< links, ends included
        int top; ///< rankOf() of the highest switch
        double latencyUs;
    };
    // Same leaf: PCIe, NIC up, NIC down, PCIe.
    // Same pod: + 4 uplinks (1/4 each) and 4 downlinks to the leaf.
    // Same zone, other pod: + 4 spines x 4 super-spines up (1/16) and as many down.
    // Other zone: + 16 super-spines x 4 cores up (1/64) and 64 core -> super-spine links down.
    const Case cases[] = {
        { 1, 4, rankOf(NodeKind::Leaf), 0.5 + 1 + 1 + 0.5 },
        { 5, 4 + 4 + 4, rankOf(NodeKind::Spine), 3.0 + 2 * 2.0 },
        { 20, 4 + 8 + 16 + 16, rankOf(NodeKind::SuperSpine), 3.0 + 4 * 2.0 },
        { 100, 4 + 8 + 32 + 64 + 64, rankOf(NodeKind::Core), 3.0 + 6 * 2.0 },
    };
    for (const Case &c : cases) {
        const auto route = r.route(0, c.dst);
        QCOMPARE(route.size(), c.hops);
        QCOMPARE(highest(f, route), c.top);
        for (const auto &[level, sum] : levelSums(f, route))
            QVERIFY2(std::abs(sum - 1.0) < 1e-12, qPrintable(QString::number(level.first)));
        Tier reach = Tier::ScaleUp;
        QVERIFY(std::abs(r.latency(0, c.dst, reach) - c.latencyUs * 1e-6) < 1e-15);
        // Core links count in the super-spine tier (fabric.cpp).
        const Tier want = c.top == rankOf(NodeKind::Leaf) ? Tier::Leaf
            : c.top == rankOf(NodeKind::Spine)            ? Tier::Spine
                                                          : Tier::SuperSpine;
        QCOMPARE(reach, want);
        // The parts the cost engine reads carry the same hops.
        Router::Parts parts;
        r.routeParts(0, c.dst, parts);
        std::size_t partHops = static_cast<std::size_t>(parts.endCount);
        for (int i = 0; i < parts.segmentCount; ++i)
            partHops += r.segmentHops(parts.segments[static_cast<std::size_t>(i)]).size();
        QCOMPARE(partHops, c.hops);
        QVERIFY(std::abs(parts.latency - c.latencyUs * 1e-6) < 1e-15);
    }
    // The cross-zone shares: 1/4 per spine, 1/16 per super-spine link, 1/64 per core link.
    for (const RouteHop &h : r.route(0, 100)) {
        const int top = std::max(
            rankOf(f.node(f.link(h.link).src).kind), rankOf(f.node(f.link(h.link).dst).kind));
        const double want = top == rankOf(NodeKind::Core) ? 1.0 / 64
            : top == rankOf(NodeKind::SuperSpine)         ? 1.0 / 16
            : top == rankOf(NodeKind::Spine)              ? 1.0 / 4
                                                          : 1.0;
        QCOMPARE(h.share, want);
    }
}

void TestFourTier::routesMatchReference()
{
    // A rail-optimised four-tier fabric with a partial zone: 36 servers of 2 GPUs, SUs of 2
    // servers, radix 8 (2 rail leaves per SU, pods of 2 SUs, zones of 4 pods: 9 pods in 3
    // zones, the last holding one pod).
    const Fabric f = Fabric::build(railSpec(36, 2, 2, 8));
    QVERIFY(f.coreCount() > 0);
    QCOMPARE(f.zoneCount(), 3);
    Router r(f);
    QVERIFY(r.foldedClos());
    const int last = f.slotCount() - 1;
    for (const auto &[a, b] :
        { std::pair { 0, 3 }, std::pair { 0, 9 }, std::pair { 1, 40 }, std::pair { 0, 66 },
            std::pair { 5, last }, std::pair { last, 2 }, std::pair { 50, 17 } }) {
        const auto route = r.route(a, b);
        QCOMPARE(checkReference(f, a, b, route), QString());
        for (const auto &[level, sum] : levelSums(f, route))
            QVERIFY(std::abs(sum - 1.0) < 1e-12);
    }
}

void TestFourTier::mergedPlanesMatchReferencePerPlane()
{
    // The four-tier k = 8 fabric in 2 planes: every plane carries half of each flow, along the
    // reference ECMP between the NICs' leaves of that plane; the router builds the parts once
    // (planes merged), not per NIC pair.
    FabricSpec spec = fatTree(256, 8);
    spec.planes = 2;
    const Fabric f = Fabric::build(spec);
    QCOMPARE(f.coreCount(), 2 * Fabric::build(fatTree(256, 8)).coreCount());
    Router r(f);
    QVERIFY(r.planesMerged());
    QVERIFY(r.foldedClos());
    for (const auto &[a, b] : { std::pair { 0, 1 }, std::pair { 0, 7 }, std::pair { 3, 40 },
             std::pair { 0, 200 }, std::pair { 255, 64 } }) {
        const auto route = r.route(a, b);
        for (int plane = 0; plane < 2; ++plane)
            QCOMPARE(checkReference(f, a, b, route, plane, 0.5), QString());
        for (const auto &[level, sum] : levelSums(f, route))
            QVERIFY(std::abs(sum - 1.0) < 1e-12);
    }
    // A failed leaf: the NICs on it split over the plane left (the per NIC pair path).
    std::vector<char> failed(static_cast<std::size_t>(f.leafCount()), 0);
    failed[static_cast<std::size_t>(f.leavesPerPlane())] = 1; // plane 1's leaf 0
    Router degraded(f, failed);
    QVERIFY(!degraded.planesMerged());
    const auto route = degraded.route(0, 200);
    QCOMPARE(checkReference(f, 0, 200, route, 0, 1.0), QString());
}

void TestFourTier::bomCountsTheCores()
{
    // k = 8, full: 128 leaves, 128 spines, 128 super-spines, 64 cores; each super-spine has
    // one cable to each of the 4 cores of its group (ceil(8 zones x 4 / 8) = 4): 512 cables.
    const Fabric f = Fabric::build(fatTree(512, 8));
    const BillOfMaterials bom = billOfMaterials(f, BomRules {});
    std::map<std::string, std::int64_t> switches, used, cables;
    for (const BomSwitchLine &l : bom.switches) {
        switches[l.tier] += l.count;
        used[l.tier] += l.portsUsed;
    }
    for (const BomCableLine &l : bom.cables)
        cables[l.link] += l.cables;
    QCOMPARE(switches["leaf"], std::int64_t { 128 });
    QCOMPARE(switches["spine"], std::int64_t { 128 });
    QCOMPARE(switches["super-spine"], std::int64_t { 128 });
    QCOMPARE(switches["core"], std::int64_t { 64 });
    QCOMPARE(used["core"], std::int64_t { 64 * 8 }); // every core port used: one per zone
    QCOMPARE(cables["nic-leaf"], std::int64_t { 512 });
    QCOMPARE(cables["leaf-spine"], std::int64_t { 512 });
    QCOMPARE(cables["spine-super-spine"], std::int64_t { 512 });
    QCOMPARE(cables["super-spine-core"], std::int64_t { 512 });
    QCOMPARE(bom.cables.back().link, std::string("super-spine-core")); // listed last, top tier
}

QTEST_GUILESS_MAIN(TestFourTier)
#include "tst_fourtier.moc"
