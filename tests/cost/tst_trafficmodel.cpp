// The traffic model (model/cost/trafficmodel.cpp) on tiny fabrics: the load a ring, an all-to-all
// and a pipeline boundary put on each link, counted by hand from the routes, and incremental
// moves against a model built afresh for the moved mapping. Its bookkeeping (maxima, lumps,
// changed links, the link ranking) is tst_trafficbookkeeping's.
#include "cost/linkranking.h"
#include "cost/maxtree.h"
#include "cost/trafficmodel.h"
#include "fabric/fabric.h"
#include "fabric/routelumps.h"
#include "fabric/router.h"
#include "fixtures.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"
#include "trafficmodelsetup.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

using namespace railyard;

using namespace railyard::traffictest;

class TestTrafficModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ringInsideServer();
    void ringAcrossServersOnOneRail();
    void allToAllAcrossRails();
    void pipelineBoundary();
    void pipelineSendsBoundaryByBoundary_data();
    void pipelineSendsBoundaryByBoundary();
    void weightsGiveBytesPerIteration();
    void incrementalMoveEqualsRebuild_data();
    void incrementalMoveEqualsRebuild();
    void patPlansFollowTheirScale();
};

void TestTrafficModel::ringInsideServer()
{
    // tp 4 on a 4-GPU server: the ring 0 -> 1 -> 2 -> 3 -> 0 puts (n-1)/n = 3/4 of S on each
    // ring edge per pass (Patarasuk & Yuan 2009). Inside a server an edge is GPU a ->
    // scale-up switch -> GPU b, so every GPU's up and down link carries 3/4 and nothing else does.
    Setup s(fixtures::railFabric(2, 4), fixtures::degrees(4, 1, 2));
    const TrafficPattern &tp = s.traffic->pattern(s.traffic->tpPattern(0));
    for (int slot = 0; slot < 8; ++slot) { // both servers hold one TP group each
        QCOMPARE(loadOf(tp, s.gpuUp(slot)), 0.75);
        QCOMPARE(loadOf(tp, s.gpuDown(slot)), 0.75);
    }
    QCOMPARE(static_cast<int>(tp.load.size()), 16);
    // The busiest link's seconds per byte of S: 3/4 over one NVLink port (3600 Gbit/s = 450e9
    // B/s) at the 370 GB/s the Simple protocol achieves on it (nccl-tests issue #212).
    QVERIFY(near(tp.maxRatio, 0.75 / 370e9));
    // n - 1 = 3 steps per pass, one hop up and one down at 0.6 us each (the default scale-up
    // latency): LL, one pass, adds NCCL's ring base latency 6.6 us; Simple, two passes, 8.4 us
    // and 2.8 us per NVLink step (hwLatency 3.4 us over LL's 0.6; NCCL src/graph/tuning.cc).
    QVERIFY(near(tp.alpha(Protocol::LL, 1), 6.6e-6 + 3 * 1.2e-6));
    QVERIFY(near(tp.alpha(Protocol::Simple, 2), 8.4e-6 + 2 * 3 * (1.2e-6 + 2.8e-6)));
    QCOMPARE(tp.maxServers(), 1);
}

void TestTrafficModel::ringAcrossServersOnOneRail()
{
    // dp 2 of tp 4 on 2 x 4 GPUs, packed: DP group t = {rank t, rank t + 4} on GPU t of each
    // server, so both sit on rail t. A ring of two sends (n-1)/n = 1/2 of S each way over
    // GPU -> NIC (PCIe) -> rail leaf -> NIC -> GPU; no spine link carries anything.
    TrafficModel::Setup setup;
    setup.stageDpBytes = { 1.0 };
    Setup s(fixtures::railFabric(2, 4), fixtures::degrees(4, 1, 2), setup);
    const TrafficPattern &dp = s.traffic->pattern(s.traffic->dpPatterns().front());
    for (int t = 0; t < 4; ++t) {
        for (int slot : { t, 4 + t }) {
            QCOMPARE(loadOf(dp, s.pcieUp(slot)), 0.5);
            QCOMPARE(loadOf(dp, s.nicUp(slot)), 0.5);
            QCOMPARE(loadOf(dp, s.nicDown(slot)), 0.5);
            QCOMPARE(loadOf(dp, s.pcieDown(slot)), 0.5);
        }
    }
    QCOMPARE(static_cast<int>(dp.load.size()), 4 * 8);
    for (const auto &[link, load] : dp.load)
        QVERIFY(s.fabric.link(link).tier == Tier::Pcie || s.fabric.link(link).tier == Tier::Leaf);
    // A pass of a ring of two is one step: PCIe 0.5 us + NIC 1 us, twice, 3 us one way; with
    // Simple NCCL charges 11.3 us more per network step (hwLatency 14 us over LL's 2.7).
    QVERIFY(near(dp.alpha(Protocol::LL, 1), 6.6e-6 + 3e-6));
    QVERIFY(near(dp.alpha(Protocol::Simple, 2), 8.4e-6 + 2 * (3e-6 + 11.3e-6)));
    // The NIC is the busiest link: 1/2 over 47 of its 50 GB/s (nccl-tests issue #290).
    QVERIFY(near(dp.maxRatio, 0.5 / 47e9));
}

void TestTrafficModel::allToAllAcrossRails()
{
    // ep 4 over 2 servers x 2 GPUs (tp 1, dp 4): every ordered pair exchanges S/n = 1/4 of S.
    // Slot 0 (server 0, rail 0) sends to slot 1 over NVLink, to slot 2 on its own rail and to
    // slot 3 on rail 1 through the spines.
    Setup s(fixtures::railFabric(2, 2), fixtures::degrees(1, 1, 4, 1, 4));
    const TrafficPattern &ep = s.traffic->pattern(s.traffic->epPattern(0));
    QCOMPARE(toVector(s.layout.groups(GroupKind::Ep).front()), (std::vector<int> { 0, 1, 2, 3 }));
    for (int slot = 0; slot < 4; ++slot) {
        QCOMPARE(loadOf(ep, s.gpuUp(slot)), 0.25); // to its server neighbour
        QCOMPARE(loadOf(ep, s.gpuDown(slot)), 0.25);
        QCOMPARE(loadOf(ep, s.pcieUp(slot)), 0.5); // to both GPUs of the other server
        QCOMPARE(loadOf(ep, s.nicUp(slot)), 0.5);
        QCOMPARE(loadOf(ep, s.nicDown(slot)), 0.5); // from both GPUs of the other server
        QCOMPARE(loadOf(ep, s.pcieDown(slot)), 0.5);
    }
    // Cross-rail flows 0 -> 3, 2 -> 1 leave rail leaf 0 upwards (1/4 each), split over the
    // spines by ECMP: their up-links sum to 1/2, and so do the down-links into rail leaf 0
    // (flows 1 -> 2, 3 -> 0).
    const int leaf0 = s.leafOfSlot(0);
    double up = 0.0, down = 0.0;
    int upLinks = 0;
    for (const FabricLink &l : s.fabric.links()) {
        if (l.tier != Tier::Spine)
            continue;
        if (l.src == leaf0) {
            up += s.traffic->patternLoad(s.traffic->epPattern(0), l.id);
            upLinks += s.traffic->patternLoad(s.traffic->epPattern(0), l.id) > 0.0;
        }
        if (l.dst == leaf0) // one pod: the spines' down parts are lumped (patternLoad())
            down += s.traffic->patternLoad(s.traffic->epPattern(0), l.id);
    }
    QVERIFY(near(up, 0.5));
    QVERIFY(near(down, 0.5));
    QCOMPARE(upLinks, s.fabric.spineCount()); // every spine takes an equal share
    QCOMPARE(ep.stepCount(), 3); // ep - 1 steps
}

void TestTrafficModel::pipelineBoundary()
{
    // pp 2 on two single-GPU servers: stage 0 (slot 0) sends activations to stage 1 (slot 1),
    // one unit per byte; the gradients come back on the backward pattern over the reverse links.
    Setup s(fixtures::railFabric(2, 1), fixtures::degrees(1, 2, 1));
    const TrafficPattern &fwd = s.traffic->pattern(s.traffic->ppForwardPattern(0));
    const TrafficPattern &bwd = s.traffic->pattern(s.traffic->ppBackwardPattern(0));
    for (int link : { s.pcieUp(0), s.nicUp(0), s.nicDown(1), s.pcieDown(1) }) {
        QCOMPARE(loadOf(fwd, link), 1.0);
        QCOMPARE(loadOf(bwd, link), 0.0);
    }
    for (int link : { s.pcieUp(1), s.nicUp(1), s.nicDown(0), s.pcieDown(0) }) {
        QCOMPARE(loadOf(bwd, link), 1.0);
        QCOMPARE(loadOf(fwd, link), 0.0);
    }
    QCOMPARE(static_cast<int>(fwd.load.size()), 4);
    QCOMPARE(fwd.stepCount(), 1);
    QCOMPARE(fwd.stage, 0);
    QCOMPARE(bwd.stage, 1); // the backward send belongs to the stage that sends it
}

void TestTrafficModel::pipelineSendsBoundaryByBoundary_data()
{
    QTest::addColumn<double>("wrapWeight");
    QTest::newRow("one weight: boundary by boundary") << 2.0;
    QTest::newRow("the wrap weighs less: group by group") << 1.0;
}

void TestTrafficModel::pipelineSendsBoundaryByBoundary()
{
    // build() emits the pipeline sends boundary by boundary where every boundary pattern has
    // one weight, else group by group (TrafficModel::emitPipelineSends()). Either way each
    // boundary's load is the sum of its sends' routes hop by hop, and a link's pp bytes are the
    // loads times the weights: pp 4 with the interleaved wrap, across four pods.
    QFETCH(double, wrapWeight);
    TrafficModel::Setup setup;
    setup.ppWrap = true;
    Setup s(fixtures::railFabric(16, 2, 2, 8), fixtures::degrees(1, 4, 8), setup);
    TrafficModel &m = *s.traffic;
    QVERIFY(m.ppWrapForwardPattern() >= 0);
    std::map<int, double> weight;
    for (int b = 0; b < 3; ++b) {
        weight[m.ppForwardPattern(b)] = 2.0;
        weight[m.ppBackwardPattern(b)] = 2.0;
    }
    weight[m.ppWrapForwardPattern()] = wrapWeight;
    weight[m.ppWrapBackwardPattern()] = wrapWeight;
    for (const auto &[pattern, w] : weight)
        m.setWeight(pattern, w);
    m.build(s.mapping); // again, with the weights

    const int links = s.fabric.linkCount();
    std::map<int, std::vector<double>> expected; // per pattern, per link
    const auto send = [&](int pattern, int fromRank, int toRank) {
        std::vector<double> &load = expected[pattern];
        load.resize(static_cast<std::size_t>(links), 0.0);
        for (const RouteHop &h :
            s.router.route(s.mapping.slotOf(fromRank), s.mapping.slotOf(toRank)))
            load[static_cast<std::size_t>(h.link)] += h.share;
    };
    for (const std::span<const int> group : s.layout.groups(GroupKind::Pp)) {
        QCOMPARE(static_cast<int>(group.size()), 4);
        for (int b = 0; b < 3; ++b) {
            send(m.ppForwardPattern(b), group[static_cast<std::size_t>(b)],
                group[static_cast<std::size_t>(b) + 1]);
            send(m.ppBackwardPattern(b), group[static_cast<std::size_t>(b) + 1],
                group[static_cast<std::size_t>(b)]);
        }
        send(m.ppWrapForwardPattern(), group.back(), group.front());
        send(m.ppWrapBackwardPattern(), group.front(), group.back());
    }
    std::vector<double> ppBytes(static_cast<std::size_t>(links), 0.0);
    for (const auto &[pattern, load] : expected)
        for (int l = 0; l < links; ++l) {
            const double want = load[static_cast<std::size_t>(l)];
            QVERIFY2(near(m.patternLoad(pattern, l), want),
                qPrintable(QStringLiteral("%1 link %2: %3, hop by hop %4")
                               .arg(QString::fromStdString(m.pattern(pattern).name))
                               .arg(l)
                               .arg(m.patternLoad(pattern, l))
                               .arg(want)));
            ppBytes[static_cast<std::size_t>(l)] += weight[pattern] * want;
        }
    for (int l = 0; l < links; ++l)
        QVERIFY(near(m.linkDimBytes(l, Dim::Pp), ppBytes[static_cast<std::size_t>(l)]));
}

void TestTrafficModel::weightsGiveBytesPerIteration()
{
    // A pattern's weight turns its load into bytes per iteration on each link, per dimension
    // and per tier: 3/4 of w on each of the 16 scale-up links of the two TP rings.
    Setup s(fixtures::railFabric(2, 4), fixtures::degrees(4, 1, 2));
    const double w = 1e9;
    s.traffic->setWeight(s.traffic->tpPattern(0), w);
    s.traffic->build(s.mapping);
    const int link = s.gpuUp(0);
    QCOMPARE(s.traffic->linkDimBytes(link, Dim::Tp), 0.75 * w);
    QCOMPARE(s.traffic->linkDimBytes(link, Dim::Ep), 0.0); // no EP pattern: no column either
    QVERIFY(near(s.traffic->tierBytes()[index(Tier::ScaleUp)][index(Dim::Tp)], 16 * 0.75 * w));
    QCOMPARE(s.traffic->tierBytes()[index(Tier::Leaf)][index(Dim::Tp)], 0.0);
    QCOMPARE(s.traffic->nicUpBytes(), 0.0); // DP carries no weight here
    // Setting the DP weight: 8 NIC -> leaf links carry 1/2 of w each.
    s.traffic->setWeight(s.traffic->dpPatterns().front(), w);
    s.traffic->build(s.mapping);
    QVERIFY(near(s.traffic->nicUpBytes(), 8 * 0.5 * w));
    QCOMPARE(s.traffic->leafUpBytes(), 0.0); // same-rail DP never climbs to a spine
}

void TestTrafficModel::incrementalMoveEqualsRebuild_data()
{
    QTest::addColumn<bool>("hierarchical");
    QTest::addColumn<bool>("tor");
    QTest::addColumn<bool>("families");
    QTest::newRow("ring dp, rail") << false << false << false;
    QTest::newRow("hierarchical dp, rail") << true << false << true;
    QTest::newRow("ring dp, tor") << false << true << false;
    QTest::newRow("auto families, rail") << false << false << true;
    QTest::newRow("auto families, tor") << false << true << true;
}

void TestTrafficModel::incrementalMoveEqualsRebuild()
{
    // tp 2 x pp 2 x dp 2 on 3 servers x 4 GPUs (4 spare slots): swaps and moves to empty slots
    // re-route only the moved ranks' groups; the result must equal a model built afresh. With
    // families, every TP and DP op chooses among ring, NVLS, tree and PAT patterns, and a move
    // may change the choice (and so which pattern carries the bytes).
    QFETCH(bool, hierarchical);
    QFETCH(bool, tor);
    QFETCH(bool, families);
    TrafficModel::Setup setup;
    setup.hierarchicalDp = hierarchical;
    setup.stageDpBytes = { 2.0, 3.0 };
    if (families) {
        setup.device.nvlsEfficiency = 0.85;
        using C = Collective;
        for (int stage = 0; stage < 2; ++stage)
            setup.tpOps.push_back({ { C::AllGather, 4e6, 4e8 }, { C::ReduceScatter, 4e6, 4e8 },
                { C::AllReduce, 16384.0, 3e5 } });
        setup.dpOps = { { C::AllReduce, 1e6, 2e6 }, { C::ReduceScatter, 1e8, 1e8 },
            { C::AllGather, 4e2, 4e2 } };
    }
    const FabricSpec spec = tor ? fixtures::torFabric(3, 4, 1) : fixtures::railFabric(3, 4);
    Setup s(spec, fixtures::degrees(2, 2, 2), setup);
    for (int p = 0; p < s.traffic->patternCount(); ++p)
        s.traffic->setWeight(p, 1.0 + p);
    s.traffic->build(s.mapping);

    Mapping mapping = s.mapping;
    const auto check = [&](const char *what) {
        TrafficModel fresh(s.fabric, s.layout, s.router, setup);
        for (int p = 0; p < fresh.patternCount(); ++p)
            fresh.setWeight(p, 1.0 + p);
        fresh.build(mapping);
        compareModels(*s.traffic, fresh, s.fabric.linkCount());
        if (QTest::currentTestFailed())
            qWarning("after %s", what);
    };
    // Swap ranks of different groups across servers.
    s.traffic->beginMove(mapping, { 0, 5 });
    mapping.swapRanks(0, 5);
    s.traffic->endMove(mapping);
    check("swap 0 <-> 5");
    // Move a rank onto a spare slot of the third server (8..11 are empty).
    s.traffic->beginMove(mapping, { 3 });
    mapping.moveRank(3, 9);
    s.traffic->endMove(mapping);
    check("move 3 -> slot 9");
    // And back: the loads return to those of the packed mapping.
    s.traffic->beginMove(mapping, { 3 });
    mapping.moveRank(3, 3);
    s.traffic->endMove(mapping);
    s.traffic->beginMove(mapping, { 0, 5 });
    mapping.swapRanks(0, 5);
    s.traffic->endMove(mapping);
    QCOMPARE(mapping, s.mapping);
    check("back to packed");
}

void TestTrafficModel::patPlansFollowTheirScale()
{
    // PAT over one member per server (collectiveplanner.cpp): member i sends 1/4 of S to i+1 and
    // 2/4 to i+2 in a group of 4, so each member's PCIe link out carries 3/4 of its stage's S.
    // Every group of a size gives the planner the same flows, and the model takes the merged
    // list made for the first again (TrafficModel::IndexedFlows): a stage whose sync size
    // differs must still get its own, before and after moves.
    TrafficModel::Setup setup;
    setup.stageDpBytes = { 2.0, 3.0 };
    setup.dpOps = { { Collective::ReduceScatter, 1e8, 1e8 }, { Collective::AllGather, 1e8, 1e8 } };
    Setup s(fixtures::railFabric(8, 2), fixtures::degrees(2, 2, 4), setup);
    int pat = -1;
    for (const int p : s.traffic->dpPatterns())
        if (s.traffic->pattern(p).algorithm == PlanAlgorithm::Pat)
            pat = p;
    QVERIFY(pat >= 0);
    Mapping mapping = s.mapping;
    const auto check = [&](const char *what) {
        for (const std::span<const int> group : s.layout.groups(GroupKind::DpCp)) {
            QCOMPARE(group.size(), std::size_t { 4 });
            const double scale = setup.stageDpBytes[sz(s.layout.coord(group.front()).p)];
            for (const int rank : group) {
                const double load = s.traffic->patternLoad(pat, s.pcieUp(mapping.slotOf(rank)));
                QVERIFY2(near(load, 0.75 * scale),
                    qPrintable(QStringLiteral("%1: rank %2 sends %3, not %4")
                                   .arg(QLatin1String(what))
                                   .arg(rank)
                                   .arg(load)
                                   .arg(0.75 * scale)));
            }
        }
        TrafficModel fresh(s.fabric, s.layout, s.router, setup);
        fresh.build(mapping);
        compareModels(*s.traffic, fresh, s.fabric.linkCount());
    };
    check("packed");
    // Ranks of two DP groups trade places (of two stages on the packed layout): both re-planned.
    s.traffic->beginMove(mapping, { 0, 8 });
    mapping.swapRanks(0, 8);
    s.traffic->endMove(mapping);
    check("swap 0 <-> 8");
    s.traffic->beginMove(mapping, { 0, 8 }, true);
    mapping.swapRanks(0, 8);
    s.traffic->endMove(mapping);
    check("reverted");
}

QTEST_GUILESS_MAIN(TestTrafficModel)
#include "tst_trafficmodel.moc"
