// Router latencies (per tier, summed along a route) and the route ends and parts the traffic
// model reads (Router::ends, routeParts, the per-slot record), against route() and
// hand-derived sums.
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "routerspecs.h"

#include <QTest>

#include <cmath>
#include <random>
#include <vector>

using namespace railyard;
using namespace railyard::routertest;

class TestRouteLatency : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void latency_data();
    void latency();
    void repeatedRoutesAreIdentical();
    void partsAndLatencyFollowTheRoute_data();
    void partsAndLatencyFollowTheRoute();
};

void TestRouteLatency::latency_data()
{
    // Latencies (µs): NVLink 0.25, PCIe 0.5, NIC 1, switch port 2 (see railSpec()).
    QTest::addColumn<int>("servers");
    QTest::addColumn<int>("serversPerSu");
    QTest::addColumn<int>("radix");
    QTest::addColumn<bool>("pxn");
    QTest::addColumn<int>("src");
    QTest::addColumn<int>("dst");
    QTest::addColumn<double>("us");
    QTest::newRow("same GPU") << 32 << 32 << 64 << false << 9 << 9 << 0.0;
    QTest::newRow("same server") << 32 << 32 << 64 << false << 0 << 7 << 0.5;
    QTest::newRow("same leaf") << 32 << 32 << 64 << false << 3 << 8 * 20 + 3 << 3.0;
    QTest::newRow("via spine") << 32 << 32 << 64 << false << 3 << 8 * 20 + 4 << 7.0;
    QTest::newRow("pxn") << 32 << 32 << 64 << true << 3 << 8 * 20 + 4 << 3.5;
    QTest::newRow("3-tier same pod") << 2048 << 32 << 64 << false << 0 << 8 * 100 << 7.0;
    QTest::newRow("3-tier cross pod") << 2048 << 32 << 64 << false << 0 << 8 * 2047 << 11.0;
}

void TestRouteLatency::latency()
{
    QFETCH(int, servers);
    QFETCH(int, serversPerSu);
    QFETCH(int, radix);
    QFETCH(bool, pxn);
    QFETCH(int, src);
    QFETCH(int, dst);
    QFETCH(double, us);
    FabricSpec s = railSpec(servers, 8, serversPerSu, radix);
    s.pxn = pxn;
    const Fabric f = Fabric::build(s);
    Router r(f);
    QCOMPARE(r.latency(src, dst) * 1e6 + 1.0, us + 1.0); // +1: fuzzy compare near 0
    // One shortest path: one hop per tier crossing, so the latency is also the sum over the
    // route's hops weighted by their shares.
    double weighted = 0.0;
    for (const RouteHop &h : r.route(src, dst))
        weighted += h.share * f.link(h.link).latency;
    QCOMPARE(weighted * 1e6 + 1.0, us + 1.0);
}

void TestRouteLatency::repeatedRoutesAreIdentical()
{
    const Fabric f = Fabric::build(railSpec(64, 8, 32, 64));
    Router r(f);
    const auto first = expand(f, r.route(3, 8 * 50 + 5));
    (void)r.route(8 * 40 + 1, 8 * 2 + 6); // fill the cache with another pair in between
    const auto second = expand(f, r.route(3, 8 * 50 + 5));
    QCOMPARE(second.size(), first.size());
    for (std::size_t i = 0; i < first.size(); ++i) {
        QCOMPARE(second[i].src, first[i].src);
        QCOMPARE(second[i].dst, first[i].dst);
        QCOMPARE(second[i].share, first[i].share);
    }
    // A second router on the same fabric gives the same routes.
    Router other(f);
    QCOMPARE(other.route(3, 8 * 50 + 5).size(), first.size());
    QCOMPARE(other.latency(3, 8 * 50 + 5), r.latency(3, 8 * 50 + 5));
}

void TestRouteLatency::partsAndLatencyFollowTheRoute_data()
{
    QTest::addColumn<int>("kind"); // 0 rail-optimised, 1 ToR, 2 two-server scale-up domains
    QTest::addColumn<int>("servers");
    QTest::addColumn<bool>("pxn");
    QTest::newRow("rail, one SU") << 0 << 16 << false;
    QTest::newRow("rail, two SUs") << 0 << 48 << false;
    QTest::newRow("rail, pxn") << 0 << 48 << true;
    QTest::newRow("tor") << 1 << 24 << false;
    QTest::newRow("3-tier") << 0 << 2048 << false;
    QTest::newRow("scale-up domains") << 2 << 8 << false;
}

void TestRouteLatency::partsAndLatencyFollowTheRoute()
{
    // routeParts() and latency() read a route's ends from per-slot records (SlotPlace) where
    // route() lists them hop by hop: both must give route()'s links and shares, and the latency
    // of one shortest path summed in their own orders (latency(): the ends out, the switch
    // parts, the ends in; routeParts(): the ends out, the ends in, the parts), a switch part
    // (hops of one tier and direction) counting one hop. Compared exactly, with latencies whose
    // sums depend on their order.
    QFETCH(int, kind);
    QFETCH(int, servers);
    QFETCH(bool, pxn);
    FabricSpec s = kind == 1 ? torSpec(servers, 8, 64) : railSpec(servers, 8, 32, 64);
    s.pxn = pxn;
    if (kind == 2)
        s.scaleUpDomainServers = 2;
    s.scaleUp.latencyUs = 1.922;
    s.pcie.latencyUs = 0.3652;
    s.nic.latencyUs = 1.1995;
    s.fabricPort.latencyUs = 2.066;
    const Fabric f = Fabric::build(s);
    Router r(f);
    const auto isSwitch = [&](int vertex) {
        const NodeKind k = f.node(vertex).kind;
        return k == NodeKind::Leaf || k == NodeKind::Spine || k == NodeKind::SuperSpine;
    };
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> pick(0, f.slotCount() - 1);
    for (int trial = 0; trial < 800; ++trial) {
        const int a = pick(rng);
        const int b = trial % 8 == 0 ? a : pick(rng);
        const std::span<const RouteHop> route = r.route(a, b);
        const std::vector<RouteHop> hops(route.begin(), route.end());
        std::vector<double> head, parts, tail;
        Tier reach = Tier::ScaleUp;
        std::pair<int, NodeKind> part { -1, NodeKind::Gpu };
        std::map<int, double> want;
        for (const RouteHop &h : hops) {
            const FabricLink &l = f.link(h.link);
            want[h.link] += h.share;
            reach = std::max(reach, l.tier);
            if (isSwitch(l.src) && isSwitch(l.dst)) {
                const std::pair<int, NodeKind> p { index(l.tier), f.node(l.src).kind };
                if (p != part)
                    parts.push_back(l.latency);
                part = p;
            } else if (isSwitch(l.src) || !tail.empty()) {
                tail.push_back(l.latency);
            } else {
                head.push_back(l.latency);
            }
        }
        const auto sum = [](std::initializer_list<const std::vector<double> *> runs) {
            double total = 0.0;
            for (const std::vector<double> *run : runs)
                for (const double x : *run)
                    total += x;
            return total;
        };
        // Exactly (QCOMPARE would compare doubles fuzzily).
        const auto same = [](double x, double y) {
            return x == y ? QString()
                          : QStringLiteral("%1 != %2").arg(x, 0, 'g', 17).arg(y, 0, 'g', 17);
        };
        Tier gotReach = Tier::SuperSpine;
        const QString latency = same(r.latency(a, b, gotReach), sum({ &head, &parts, &tail }));
        QVERIFY2(latency.isEmpty(), qPrintable(latency));
        QCOMPARE(int(gotReach), int(reach));
        Router::Parts got;
        r.routeParts(a, b, got);
        const QString viaParts = same(got.latency, sum({ &head, &tail, &parts }));
        QVERIFY2(viaParts.isEmpty(), qPrintable(viaParts));
        std::map<int, double> have;
        for (int i = 0; i < got.endCount; ++i)
            have[got.ends[static_cast<std::size_t>(i)]] += 1.0;
        for (int i = 0; i < got.segmentCount; ++i)
            for (const RouteHop &h : r.segmentHops(got.segments[static_cast<std::size_t>(i)]))
                have[h.link] += h.share;
        QCOMPARE(have, want);
    }
}

QTEST_GUILESS_MAIN(TestRouteLatency)
#include "tst_routelatency.moc"
