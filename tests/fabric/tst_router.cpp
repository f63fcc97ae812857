// Tests of the router (model/fabric/router.cpp): route shapes for rail-optimised and ToR fabrics,
// ECMP shares, three-tier routes and PXN, all against hand-derived values (latencies and the
// per-slot route ends: tst_routelatency).

#include "fabric/fabric.h"
#include "fabric/router.h"
#include "fixtures.h"
#include "routerspecs.h"

#include <QElapsedTimer>
#include <QTest>

#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

using namespace railyard;
using namespace railyard::routertest;

namespace {

/// Shares summed per (tier, upward?) — upward = towards the higher switch tier.
std::map<std::pair<int, bool>, double> tierSums(const Fabric &f, std::span<const RouteHop> hops)
{
    const auto rank = [](NodeKind k) {
        switch (k) {
        case NodeKind::Gpu:
            return 0;
        case NodeKind::Nic:
            return 1;
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
    };
    std::map<std::pair<int, bool>, double> sums;
    for (const RouteHop &h : hops) {
        const FabricLink &l = f.link(h.link);
        const bool up = rank(f.node(l.dst).kind) > rank(f.node(l.src).kind);
        sums[{ index(l.tier), up }] += h.share;
    }
    return sums;
}

int countTier(const std::vector<Hop> &hops, Tier t)
{
    int n = 0;
    for (const Hop &h : hops)
        n += h.tier == t;
    return n;
}

int slotOf(const Fabric &f, int server, int gpu)
{
    return server * f.gpusPerServer() + gpu;
}

/// Checks a route is a unit flow from the source GPU to the destination GPU: every link once,
/// shares in (0, 1], flow conserved at every intermediate vertex, and per tier and direction the
/// shares sum to 1 (or the tier is not crossed). Returns an empty string or the first problem.
QString checkUnitFlow(const Fabric &f, int srcSlot, int dstSlot, std::span<const RouteHop> hops)
{
    std::map<int, double> net; // outflow - inflow
    std::set<int> links;
    for (const RouteHop &h : hops) {
        if (!links.insert(h.link).second)
            return QStringLiteral("link %1 twice").arg(h.link);
        if (!(h.share > 0.0 && h.share <= 1.0 + 1e-12))
            return QStringLiteral("share %1").arg(h.share);
        net[f.link(h.link).src] += h.share;
        net[f.link(h.link).dst] -= h.share;
    }
    for (const auto &[v, x] : net) {
        const double want = v == f.gpuVertex(srcSlot) ? 1.0
            : v == f.gpuVertex(dstSlot)               ? -1.0
                                                      : 0.0;
        if (std::abs(x - want) > 1e-9)
            return QStringLiteral("vertex %1 net flow %2")
                .arg(QString::fromStdString(f.node(v).name))
                .arg(x);
    }
    for (const auto &[key, sum] : tierSums(f, hops)) {
        if (std::abs(sum - 1.0) > 1e-9)
            return QStringLiteral("tier %1 up=%2 sums to %3")
                .arg(key.first)
                .arg(key.second)
                .arg(sum);
    }
    return {};
}

/// An independent ECMP reference over the full graph: BFS over the switches from the destination
/// leaf, then every switch splits its flow evenly over its neighbours one hop closer.
std::map<int, double> referenceEcmp(const Fabric &f, int srcLeafVertex, int dstLeafVertex)
{
    const auto isSwitch = [&f](int v) {
        const NodeKind k = f.node(v).kind;
        return k == NodeKind::Leaf || k == NodeKind::Spine || k == NodeKind::SuperSpine;
    };
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

/// Compares the switch-to-switch hops of a route with referenceEcmp(); empty string when equal.
QString checkAgainstReference(const Fabric &f, std::span<const RouteHop> hops)
{
    int srcLeaf = -1, dstLeaf = -1;
    std::map<int, double> got;
    for (const RouteHop &h : hops) {
        const FabricLink &l = f.link(h.link);
        if (l.tier == Tier::Leaf && f.node(l.src).kind == NodeKind::Nic)
            srcLeaf = l.dst;
        else if (l.tier == Tier::Leaf)
            dstLeaf = l.src;
        else if (l.tier == Tier::Spine || l.tier == Tier::SuperSpine)
            got[h.link] += h.share;
    }
    if (srcLeaf < 0 || srcLeaf == dstLeaf)
        return got.empty() ? QString() : QStringLiteral("switch hops without a leaf pair");
    const std::map<int, double> want = referenceEcmp(f, srcLeaf, dstLeaf);
    if (want.size() != got.size())
        return QStringLiteral("%1 switch hops, reference has %2").arg(got.size()).arg(want.size());
    for (const auto &[link, share] : want) {
        const auto it = got.find(link);
        if (it == got.end())
            return QStringLiteral("missing %1").arg(QString::fromStdString(f.linkName(link)));
        if (std::abs(it->second - share) > 1e-12)
            return QStringLiteral("%1 share %2, reference %3")
                .arg(QString::fromStdString(f.linkName(link)))
                .arg(it->second)
                .arg(share);
    }
    return {};
}

} // namespace

class TestRouter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameServer();
    void sameRailStaysUnderOneLeaf();
    void crossRailGoesThroughSpines();
    void pxn();
    void pxnAcrossSus();
    void pxnWithSharedNics();
    void tor();
    void threeTier();
    void multiPlaneMatchesReferencePerPlane();
    void sixteenThousandGpus();
    void unitFlow_data();
    void unitFlow();
};

void TestRouter::sameServer()
{
    const Fabric f = Fabric::build(railSpec(2, 8, 32, 64));
    Router r(f);
    const auto hops = expand(f, r.route(slotOf(f, 1, 0), slotOf(f, 1, 5)));
    QCOMPARE(hops.size(), std::size_t { 2 });
    QCOMPARE(hops[0].src, f.gpuVertex(slotOf(f, 1, 0)));
    QCOMPARE(hops[0].dst, f.scaleUpVertex(1));
    QCOMPARE(hops[1].src, f.scaleUpVertex(1));
    QCOMPARE(hops[1].dst, f.gpuVertex(slotOf(f, 1, 5)));
    for (const Hop &h : hops) {
        QCOMPARE(h.tier, Tier::ScaleUp);
        QCOMPARE(h.share, 1.0);
    }
    QVERIFY(r.route(3, 3).empty());
    QCOMPARE(r.latency(3, 3), 0.0);
}

void TestRouter::sameRailStaysUnderOneLeaf()
{
    // 1 SU of 32 DGX: GPU 3 of node000 to GPU 3 of node017 share rail 3's leaf.
    const Fabric f = Fabric::build(railSpec(32, 8, 32, 64));
    Router r(f);
    const auto hops = expand(f, r.route(slotOf(f, 0, 3), slotOf(f, 17, 3)));
    QCOMPARE(hops.size(), std::size_t { 4 });
    QCOMPARE(hops[0].tier, Tier::Pcie);
    QCOMPARE(hops[0].dst, f.nicVertex(0, 3));
    QCOMPARE(hops[1].tier, Tier::Leaf);
    QCOMPARE(hops[1].dst, f.leafVertex(3));
    QCOMPARE(hops[2].src, f.leafVertex(3));
    QCOMPARE(hops[2].dst, f.nicVertex(17, 3));
    QCOMPARE(hops[3].tier, Tier::Pcie);
    QCOMPARE(hops[3].dst, f.gpuVertex(slotOf(f, 17, 3)));
    QCOMPARE(countTier(hops, Tier::Spine), 0);
    for (const Hop &h : hops)
        QCOMPARE(h.share, 1.0);
}

void TestRouter::crossRailGoesThroughSpines()
{
    // 1 SU: rail 2 -> rail 6 crosses the 4 spines, a quarter of the bytes on each.
    const Fabric f = Fabric::build(railSpec(32, 8, 32, 64));
    Router r(f);
    const auto hops = expand(f, r.route(slotOf(f, 0, 2), slotOf(f, 5, 6)));
    QCOMPARE(hops.size(), std::size_t { 2 + 4 + 4 + 2 });
    std::set<int> upSpines, downSpines;
    for (const Hop &h : hops) {
        if (h.tier != Tier::Spine)
            continue;
        QCOMPARE(h.share, 0.25);
        if (h.src == f.leafVertex(2))
            upSpines.insert(h.dst);
        else if (h.dst == f.leafVertex(6))
            downSpines.insert(h.src);
        else
            QFAIL("spine hop that is neither leaf 2 up nor leaf 6 down");
    }
    QCOMPARE(upSpines,
        (std::set<int> { f.spineVertex(0), f.spineVertex(1), f.spineVertex(2), f.spineVertex(3) }));
    QCOMPARE(downSpines, upSpines);
    const auto sums = tierSums(f, r.route(slotOf(f, 0, 2), slotOf(f, 5, 6)));
    QCOMPARE(sums.at({ index(Tier::Spine), true }), 1.0);
    QCOMPARE(sums.at({ index(Tier::Spine), false }), 1.0);
}

void TestRouter::pxn()
{
    // Same pair with PXN: GPU 2 hands over NVLink to GPU 6, whose NIC is on rail 6: no spine.
    FabricSpec s = railSpec(32, 8, 32, 64);
    s.pxn = true;
    const Fabric f = Fabric::build(s);
    Router r(f);
    const auto hops = expand(f, r.route(slotOf(f, 0, 2), slotOf(f, 5, 6)));
    QCOMPARE(hops.size(), std::size_t { 6 });
    QCOMPARE(hops[0].src, f.gpuVertex(slotOf(f, 0, 2)));
    QCOMPARE(hops[0].dst, f.scaleUpVertex(0));
    QCOMPARE(hops[1].dst, f.gpuVertex(slotOf(f, 0, 6)));
    QCOMPARE(hops[2].tier, Tier::Pcie);
    QCOMPARE(hops[2].dst, f.nicVertex(0, 6));
    QCOMPARE(hops[3].dst, f.leafVertex(6));
    QCOMPARE(hops[4].dst, f.nicVertex(5, 6));
    QCOMPARE(hops[5].dst, f.gpuVertex(slotOf(f, 5, 6)));
    QCOMPARE(countTier(hops, Tier::Spine), 0);
    QCOMPARE(countTier(hops, Tier::ScaleUp), 2);
    // Same rail: PXN changes nothing.
    QCOMPARE(r.route(slotOf(f, 0, 6), slotOf(f, 5, 6)).size(), std::size_t { 4 });
    // Same server: still NVLink only.
    QCOMPARE(r.route(slotOf(f, 0, 2), slotOf(f, 0, 6)).size(), std::size_t { 2 });
}

void TestRouter::pxnAcrossSus()
{
    // 2 SUs: PXN moves to rail 6 in node000, then rail 6's leaf of SU 0 -> 8 spines -> SU 1.
    FabricSpec s = railSpec(64, 8, 32, 64);
    s.pxn = true;
    const Fabric f = Fabric::build(s);
    Router r(f);
    const auto route = r.route(slotOf(f, 0, 2), slotOf(f, 40, 6));
    const auto hops = expand(f, route);
    QCOMPARE(hops.size(), std::size_t { 2 + 2 + 8 + 8 + 2 });
    QCOMPARE(countTier(hops, Tier::Spine), 16);
    for (const Hop &h : hops) {
        if (h.tier == Tier::Spine) {
            QCOMPARE(h.share, 1.0 / 8.0);
            QVERIFY(h.src == f.leafVertex(6) || h.dst == f.leafVertex(8 + 6));
        }
    }
    QCOMPARE(checkUnitFlow(f, slotOf(f, 0, 2), slotOf(f, 40, 6), route), QString());
}

void TestRouter::pxnWithSharedNics()
{
    // 8 GPUs on 4 NICs (GPU i -> NIC i mod 4): the proxy for rail 1 is GPU 1 (lowest index).
    FabricSpec s = railSpec(4, 8, 32, 64);
    s.nicsPerServer = 4;
    s.pxn = true;
    const Fabric f = Fabric::build(s);
    Router r(f);
    const auto hops = expand(f, r.route(slotOf(f, 0, 6), slotOf(f, 3, 5)));
    QCOMPARE(hops.size(), std::size_t { 6 });
    QCOMPARE(hops[1].dst, f.gpuVertex(slotOf(f, 0, 1)));
    QCOMPARE(hops[2].dst, f.nicVertex(0, 1));
    QCOMPARE(hops[4].dst, f.nicVertex(3, 1));
    // GPU 5 and GPU 1 share rail 1: no PXN detour.
    QCOMPARE(r.route(slotOf(f, 0, 5), slotOf(f, 3, 1)).size(), std::size_t { 4 });
}

void TestRouter::tor()
{
    // ToR, radix 64, 8 NICs: 4 servers per leaf. node000 and node003 share tor-0 whatever the
    // GPUs (cross "rail" included); node000 -> node004 crosses the spine.
    FabricSpec s = torSpec(8, 8, 64);
    s.pxn = true; // no rails: PXN never applies
    const Fabric f = Fabric::build(s);
    Router r(f);
    for (int nic = 1; nic < 8; ++nic)
        QCOMPARE(f.leafOfNic(2, nic), f.leafOfNic(2, 0));
    const auto local = expand(f, r.route(slotOf(f, 0, 2), slotOf(f, 3, 6)));
    QCOMPARE(local.size(), std::size_t { 4 });
    QCOMPARE(local[1].dst, f.leafVertex(0));
    QCOMPARE(local[2].dst, f.nicVertex(3, 6));
    QCOMPARE(countTier(local, Tier::Spine), 0);
    QCOMPARE(countTier(local, Tier::ScaleUp), 0);
    const auto remote = expand(f, r.route(slotOf(f, 0, 2), slotOf(f, 4, 2)));
    QCOMPARE(f.spineCount(), 1);
    QCOMPARE(remote.size(), std::size_t { 6 });
    QCOMPARE(remote[2].dst, f.spineVertex(0));
    QCOMPARE(remote[3].dst, f.leafVertex(1));
    QCOMPARE(remote[2].share, 1.0);
    // Rail-optimised counterpart: node000 GPU 2 -> node003 GPU 6 is cross-rail, via the spine.
    const Fabric rail = Fabric::build(railSpec(8, 8, 32, 64));
    Router rr(rail);
    QVERIFY(
        countTier(expand(rail, rr.route(slotOf(rail, 0, 2), slotOf(rail, 3, 6))), Tier::Spine) > 0);
}

void TestRouter::threeTier()
{
    // railSpec(16, 2, 2, 8): pods of 2 SUs (4 leaves) with 2 spines; 2 planes x 2 super-spines.
    const Fabric f = Fabric::build(railSpec(16, 2, 2, 8));
    QCOMPARE(f.podCount(), 4);
    Router r(f);
    // node000 GPU 0 (SU 0, pod 0, leaf 0) -> node015 GPU 0 (SU 7, pod 3, leaf 14).
    const int src = slotOf(f, 0, 0), dst = slotOf(f, 15, 0);
    const auto route = r.route(src, dst);
    const auto hops = expand(f, route);
    QCOMPARE(hops.size(), std::size_t { 2 + 2 + 4 + 4 + 2 + 2 });
    QCOMPARE(countTier(hops, Tier::SuperSpine), 8);
    std::set<int> supers;
    for (const Hop &h : hops) {
        if (h.tier == Tier::SuperSpine) {
            QCOMPARE(h.share, 0.25);
            supers.insert(f.node(h.src).kind == NodeKind::SuperSpine ? h.src : h.dst);
        } else if (h.tier == Tier::Spine) {
            QCOMPARE(h.share, 0.5);
        } else {
            QCOMPARE(h.share, 1.0);
        }
    }
    QCOMPARE(static_cast<int>(supers.size()), 4); // both planes, both super-spines each
    QCOMPARE(hops[2].src, f.leafVertex(0));
    QCOMPARE(hops.back().dst, f.gpuVertex(dst));
    QCOMPARE(checkUnitFlow(f, src, dst, route), QString());
    // Same pod, other SU, same rail: leaf 0 -> leaf 2 through the pod's 2 spines only.
    const auto inPod = expand(f, r.route(src, slotOf(f, 2, 0)));
    QCOMPARE(inPod.size(), std::size_t { 2 + 2 + 2 + 2 });
    QCOMPARE(countTier(inPod, Tier::SuperSpine), 0);
    QCOMPARE(countTier(inPod, Tier::Spine), 4);
}

void TestRouter::multiPlaneMatchesReferencePerPlane()
{
    // The three-tier fabric above in 2 planes (fabric.planes): a route puts half of its flow on
    // each plane, and inside plane p it is the reference ECMP between the two NICs' plane-p
    // leaves, at half the share.
    FabricSpec spec = railSpec(16, 2, 2, 8);
    spec.planes = 2;
    const Fabric f = Fabric::build(spec);
    QCOMPARE(f.superSpineCount(), 2 * Fabric::build(railSpec(16, 2, 2, 8)).superSpineCount());
    Router r(f);
    const std::vector<std::pair<int, int>> pairs { { slotOf(f, 0, 0), slotOf(f, 15, 0) },
        { slotOf(f, 0, 0), slotOf(f, 15, 1) }, { slotOf(f, 3, 1), slotOf(f, 2, 0) } };
    for (const auto &[src, dst] : pairs) {
        std::map<int, double> got[2];
        for (const RouteHop &h : r.route(src, dst)) {
            const FabricLink &l = f.link(h.link);
            if (l.tier == Tier::Spine || l.tier == Tier::SuperSpine)
                got[f.node(l.src).netPlane][h.link] += h.share;
        }
        for (int plane = 0; plane < 2; ++plane) {
            const int a = f.leafVertex(
                f.leafOfNicPort(f.serverOfSlot(src), f.nicOfGpu(f.gpuOfSlot(src)), plane));
            const int b = f.leafVertex(
                f.leafOfNicPort(f.serverOfSlot(dst), f.nicOfGpu(f.gpuOfSlot(dst)), plane));
            const std::map<int, double> want = referenceEcmp(f, a, b);
            QCOMPARE(got[plane].size(), want.size());
            for (const auto &[link, share] : want)
                QVERIFY2(std::abs(got[plane][link] - share / 2.0) <= 1e-12,
                    qPrintable(QString::fromStdString(f.linkName(link))));
        }
        QCOMPARE(checkUnitFlow(f, src, dst, r.route(src, dst)), QString());
    }
}

void TestRouter::sixteenThousandGpus()
{
    // 2048 x 8 rail-optimised: 16 pods of 32 leaves and 32 spines, 32 planes of 8 super-spines.
    const Fabric f = Fabric::build(railSpec(2048, 8, 32, 64));
    Router r(f);
    // node0000 GPU 0 -> node2047 GPU 0: pod 0 -> pod 15, same rail.
    const int src = 0, dst = slotOf(f, 2047, 0);
    const auto route = r.route(src, dst);
    const auto hops = expand(f, route);
    QCOMPARE(hops.size(), std::size_t { 2 + 32 + 256 + 256 + 32 + 2 });
    QCOMPARE(checkUnitFlow(f, src, dst, route), QString());
    QCOMPARE(checkAgainstReference(f, route), QString());
    for (const Hop &h : hops) {
        if (h.tier == Tier::Spine)
            QCOMPARE(h.share, 1.0 / 32.0);
        else if (h.tier == Tier::SuperSpine)
            QCOMPARE(h.share, 1.0 / 256.0);
    }
    // Within one SU on one rail: no spine.
    QCOMPARE(r.route(src, slotOf(f, 31, 0)).size(), std::size_t { 4 });
    // Another SU of the same pod: 32 spines up and down, no super-spine.
    const auto inPod = expand(f, r.route(src, slotOf(f, 100, 0)));
    QCOMPARE(inPod.size(), std::size_t { 2 + 32 + 32 + 2 });
    QCOMPARE(countTier(inPod, Tier::SuperSpine), 0);
    // Cross-rail, cross-pod, after the caches hold other pairs: still the reference ECMP.
    for (const auto &[a, b] : { std::pair { 8 * 5 + 3, 8 * 1500 + 6 },
             std::pair { 8 * 1999 + 7, 8 * 64 + 7 }, std::pair { 8 * 700 + 1, 8 * 40 + 2 } }) {
        const auto rt = r.route(a, b);
        QCOMPARE(checkUnitFlow(f, a, b, rt), QString());
        QCOMPARE(checkAgainstReference(f, rt), QString());
    }

    // Routing many flows (informational; the timing goal lives in the benchmark).
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> slot(0, f.slotCount() - 1);
    std::vector<std::pair<int, int>> flows(100000);
    for (auto &fl : flows)
        fl = { slot(rng), slot(rng) / 8 * 8 + 0 }; // ring-like: to GPU 0 of random servers
    QElapsedTimer timer;
    timer.start();
    double total = 0.0;
    for (const auto &[a, b] : flows)
        for (const RouteHop &h : r.route(a, b))
            total += h.share;
    const qint64 first = timer.restart();
    double again = 0.0;
    for (const auto &[a, b] : flows)
        for (const RouteHop &h : r.route(a, b))
            again += h.share;
    qInfo("100k random flows on 16k GPUs: %lld ms (cold cache), %lld ms (warm)",
        static_cast<long long>(first), static_cast<long long>(timer.elapsed()));
    QCOMPARE(again, total);
    QVERIFY(total > 100000.0 * 4.0); // every cross-server route has >= 4 unit-share hops
}

void TestRouter::unitFlow_data()
{
    QTest::addColumn<int>("which");
    QTest::newRow("1 SU") << 0;
    QTest::newRow("2 SU") << 1;
    QTest::newRow("3-tier radix 8") << 2;
    QTest::newRow("3-tier radix 4") << 3;
    QTest::newRow("tor") << 4;
    QTest::newRow("1 SU pxn") << 5;
    QTest::newRow("partial SU, uneven bundles") << 6;
    QTest::newRow("tor 3-tier") << 7;
    QTest::newRow("3-tier partial pod") << 8;
    QTest::newRow("3-tier explicit spines") << 9;
    QTest::newRow("oversubscribed leaves") << 10;
}

void TestRouter::unitFlow()
{
    QFETCH(int, which);
    FabricSpec s;
    switch (which) {
    case 0:
        s = railSpec(32, 8, 32, 64);
        break;
    case 1:
        s = railSpec(64, 8, 32, 64);
        break;
    case 2:
        s = railSpec(16, 2, 2, 8);
        break;
    case 3:
        s = railSpec(4, 2, 1, 4);
        break;
    case 4:
        s = torSpec(40, 8, 64);
        break;
    case 5:
        s = railSpec(32, 8, 32, 64);
        s.pxn = true;
        break;
    case 6:
        s = railSpec(40, 8, 32, 64);
        break; // 5 spines: 32/5 and 8/5 ports per leaf bundle
    case 7:
        s = torSpec(24, 2, 8);
        break; // 12 ToRs > radix 8: 3 tiers
    case 8:
        s = railSpec(26, 2, 2, 8);
        break; // 3 tiers, 7 pods, the last with 2 of 4 leaves
    case 9:
        s = railSpec(16, 2, 2, 8);
        s.spines = 3;
        s.superSpines = 6;
        break; // explicit counts
    case 10:
        s = railSpec(256, 8, 32, 64);
        s.leafOversubscription = 3.0;
        break; // 11 uplinks
    default:
        QFAIL("no such case");
    }
    const Fabric f = Fabric::build(s);
    Router r(f);
    // Every generated fabric is a folded Clos: its segments are built up front (routerclos.cpp),
    // which the reference below checks share by share.
    QVERIFY(r.foldedClos());
    std::mt19937 rng(static_cast<unsigned>(which) + 1);
    std::uniform_int_distribution<int> slot(0, f.slotCount() - 1);
    for (int i = 0; i < 300; ++i) {
        const int a = slot(rng), b = slot(rng);
        if (a == b)
            continue;
        QString problem = checkUnitFlow(f, a, b, r.route(a, b));
        if (problem.isEmpty())
            problem = checkAgainstReference(f, r.route(a, b));
        if (!problem.isEmpty())
            QFAIL(qPrintable(QStringLiteral("%1 -> %2: %3").arg(a).arg(b).arg(problem)));
    }
    if (which == 7) {
        QVERIFY(f.superSpineCount() > 0);
        QCOMPARE(f.railCount(), 0);
    }
}

QTEST_GUILESS_MAIN(TestRouter)
#include "tst_router.moc"
