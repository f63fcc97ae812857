// Cost engine: collective formulas, the 128-GPU sample's rail locality, incremental swaps.
#include "cost/costengine.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "fixtures.h"
#include "workload/presets.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace railyard;

namespace {

double spineBytes(const CostReport &r, Dim d)
{
    return r.tierBytes[index(Tier::Spine)][index(d)] + r.tierBytes[index(Tier::SuperSpine)][index(d)];
}

} // namespace

class TestCostEngine : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ringAllReduceFormula_data();
    void ringAllReduceFormula();
    void busBandwidthFactors_data();
    void busBandwidthFactors();
    void interServerRingUsesNicBandwidth();
    void seedDefaultKeepsDpOnRails();
    void seedSwapPutsDpOnSpineAndBack();
    void railVersusTorSpineContrast();
    void contextParallelRingsStayOnRails();
    void incrementalSwapsMatchFullEvaluation();
    void moveToAnEmptySlotMatchesFullEvaluation();
    void revertedMovesMatchFullEvaluation();
    void tpTimesFollowEveryMove();
    void busySquaresFollowTheLinks();
    void sendsOfMovedRanksMatchFullEvaluation();
    void pxnKeepsCrossRailTrafficOffSpines();
    void sendRecvRingIsItsSlowestSend();
    void tpBytesMatchWorkloadOps();
    void dpOverlapHidesGradientSync();
    void bubbleComesFromTheTimeline();
    void badSwapIsRefused();
};

void TestCostEngine::ringAllReduceFormula_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<double>("bytes");
    QTest::newRow("p4 1KiB (alpha-bound)") << 4 << 1024.0;
    QTest::newRow("p8 1KiB (alpha-bound)") << 8 << 1024.0;
    QTest::newRow("p8 256MiB (bandwidth-bound)") << 8 << 268435456.0;
    QTest::newRow("p2 64MiB") << 2 << 67108864.0;
}

namespace {

// NCCL's tuner (src/graph/tuning.cc, NCCL 2.30.7), ring, per protocol LL / LL128 / Simple:
// base latency once per operation, the extra per step over LL's (hwLatency 0.6 / 1.9 / 3.4 us
// over NVLink, 2.7 / 4.0 / 14 us over the network) and the bandwidth relative to Simple.
constexpr double kRingBase[3] = {6.6e-6, 14.0e-6, 8.4e-6};
constexpr double kRingExtraNvlink[3] = {0.0, 1.3e-6, 2.8e-6};
constexpr double kRingExtraNet[3] = {0.0, 1.3e-6, 11.3e-6};
constexpr double kRingFactor[3] = {0.5, 0.92, 1.0};
// Simple's achievable share of the line rate: 370 of 450 GB/s on NVLink (nccl-tests issue
// #212), 47 of 50 GB/s on a 400G NIC (nccl-tests issue #290).
constexpr double kNvlinkEff = 370.0 / 450.0;
constexpr double kNetEff = 47.0 / 50.0;

/// An engine's report after incremental updates equals a fresh engine's on its mapping: the
/// iteration to 1e-9, bytes per dimension to 1e-6, every link's bytes to 1e-3 (the residue of
/// loads added and subtracted), the busiest link exactly.
/// Llama-3.1-70B (the llama3-70b preset) at 8,192 tokens with context parallelism, packed on
/// `servers` x 8 GPUs of a rail-optimised fabric.
Scenario llamaContextParallel(int servers, ParallelDegrees degrees, int globalBatch)
{
    Scenario s;
    s.fabric = fixtures::railFabric(servers, 8);
    s.degrees = degrees;
    s.model = *modelPreset("llama3-70b");
    s.model.seq = 8192;
    s.training.globalBatch = globalBatch;
    return s;
}

void verifyEqualsFreshEngine(const Scenario &s, const CostEngine &incremental)
{
    Scenario full = s;
    full.slots = incremental.mapping().slots();
    CostEngine fresh(full);
    const CostReport &a = incremental.report();
    const CostReport &b = fresh.report();
    QVERIFY(std::abs(a.iterationTime - b.iterationTime) <= 1e-9 * b.iterationTime);
    for (int d = 0; d < kDimCount; ++d)
        QVERIFY(std::abs(a.dimBytes[d] - b.dimBytes[d]) <= 1e-6 * std::max(1.0, b.dimBytes[d]));
    for (std::size_t i = 0; i < b.links.size(); ++i)
        QVERIFY2(std::abs(a.links[i].bytes - b.links[i].bytes) <= 1e-3 * std::max(1.0, b.links[i].bytes),
                 qPrintable(QString::fromStdString(fresh.fabric().linkName(int(i)))));
    QCOMPARE(a.linkStats.max, b.linkStats.max);
    // The phase table too (refresh() after refreshFigures() builds it again).
    QCOMPARE(a.phases.size(), b.phases.size());
    for (std::size_t i = 0; i < b.phases.size(); ++i) {
        QCOMPARE(a.phases[i].name, b.phases[i].name);
        QVERIFY2(std::abs(a.phases[i].time - b.phases[i].time) <= 1e-9 * b.phases[i].time,
            b.phases[i].name.c_str());
        QCOMPARE(a.phases[i].algorithm, b.phases[i].algorithm);
    }
}

} // namespace

void TestCostEngine::ringAllReduceFormula()
{
    // One 8-GPU server: a ring inside the scale-up domain. Ring all-reduce (Thakur et al. 2005)
    // with NCCL's protocols: T = base + 2(p-1)(a + x) + 2(p-1)/p * S / (B * eff * f), a = one
    // step's fabric latency (GPU -> NVSwitch -> GPU), B = one GPU's NVLink port; the engine
    // runs the fastest protocol.
    QFETCH(int, p);
    QFETCH(double, bytes);
    Scenario s = fixtures::smallDense(1, 8, {8, 1, 1, 1, 1});
    CostEngine engine(s);
    std::vector<int> ranks(p);
    for (int i = 0; i < p; ++i)
        ranks[i] = i;
    const CollectiveResult r =
        engine.collective(Collective::AllReduce, ranks, bytes, CollectiveAlgorithm::Ring);

    const double alpha = 2.0 * s.fabric.scaleUp.latencyUs * 1e-6;
    const double bw = s.fabric.scaleUp.gbps * 1e9 / 8.0 * kNvlinkEff;
    double expected = 0.0, expectedAlpha = 0.0;
    int best = -1;
    for (int proto = 0; proto < 3; ++proto) {
        const double a = kRingBase[proto] + 2.0 * (p - 1) * (alpha + kRingExtraNvlink[proto]);
        const double t = a + 2.0 * (p - 1) / p * bytes / (bw * kRingFactor[proto]);
        if (best < 0 || t < expected) {
            best = proto;
            expected = t;
            expectedAlpha = a;
        }
    }
    QCOMPARE(r.time, expected);
    QCOMPARE(r.alphaTime, expectedAlpha);
    QCOMPARE(static_cast<int>(r.protocol), best);
    QCOMPARE(r.algorithm, PlanAlgorithm::Ring);
    // Small messages take LL, large ones Simple.
    QCOMPARE(r.protocol, bytes < 1e5 ? Protocol::LL : Protocol::Simple);
    QVERIFY(r.bottleneckLink >= 0);
    QCOMPARE(engine.fabric().link(r.bottleneckLink).tier, Tier::ScaleUp);
}

void TestCostEngine::busBandwidthFactors_data()
{
    QTest::addColumn<int>("op");
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("factor");
    // nccl-tests doc/PERFORMANCE.md: bytes each rank sends / S.
    QTest::newRow("all-reduce 8") << int(Collective::AllReduce) << 8 << 2.0 * 7 / 8;
    QTest::newRow("all-reduce 4") << int(Collective::AllReduce) << 4 << 2.0 * 3 / 4;
    QTest::newRow("all-gather 8") << int(Collective::AllGather) << 8 << 7.0 / 8;
    QTest::newRow("reduce-scatter 4") << int(Collective::ReduceScatter) << 4 << 3.0 / 4;
    QTest::newRow("all-to-all 8") << int(Collective::AllToAll) << 8 << 7.0 / 8;
    QTest::newRow("send-recv 2") << int(Collective::SendRecv) << 2 << 1.0;
}

void TestCostEngine::busBandwidthFactors()
{
    QFETCH(int, op);
    QFETCH(int, n);
    QFETCH(double, factor);
    CostEngine engine(fixtures::smallDense(2, 8, {8, 1, 2, 1, 1}));
    std::vector<int> ranks(n);
    for (int i = 0; i < n; ++i)
        ranks[i] = i;
    const double S = 8.0 * 1024 * 1024;
    // The ring (pairwise all-to-all, one send-recv): bytes sent per rank equal the bus factor.
    const CollectiveResult r =
        engine.collective(static_cast<Collective>(op), ranks, S, CollectiveAlgorithm::Ring);
    QCOMPARE(r.busFactor, factor);
    QCOMPARE(r.bytesSentPerRank, factor * S);
    QCOMPARE(r.busBandwidth, r.algBandwidth * factor);
    QCOMPARE(r.algBandwidth, S / r.time);
}

void TestCostEngine::interServerRingUsesNicBandwidth()
{
    // Ranks 0 and 8 are GPU 0 of servers 0 and 1: same rail, same leaf. The ring's two edges
    // each carry 2(n-1)/n * S = S over PCIe and the 400G NIC; the NIC is the bottleneck, at the
    // 47 GB/s Simple achieves on it. Each pass is one network step (the cheaper of the two
    // equal hops is not on the chain): T = base + 2 (a + x) + S / (B * eff).
    Scenario s = fixtures::smallDense(2, 8, {8, 1, 2, 1, 1});
    CostEngine engine(s);
    const double S = 1e9;
    const CollectiveResult r =
        engine.collective(Collective::AllReduce, {0, 8}, S, CollectiveAlgorithm::Ring);
    const double alpha = (2 * s.fabric.pcie.latencyUs + 2 * s.fabric.nic.latencyUs) * 1e-6;
    const double bw = std::min(s.fabric.nic.gbps, s.fabric.pcie.gbps) * 1e9 / 8.0 * kNetEff;
    QCOMPARE(r.protocol, Protocol::Simple);
    QCOMPARE(r.time, kRingBase[2] + 2.0 * (alpha + kRingExtraNet[2]) + S / bw);
    QCOMPARE(engine.fabric().link(r.bottleneckLink).tier, Tier::Leaf);
}

void TestCostEngine::seedDefaultKeepsDpOnRails()
{
    // With GPU i <-> NIC i and the same t on the same NIC index every DP group is
    // same-rail and never touches a spine.
    CostEngine engine(fixtures::seed128());
    const CostReport &r = engine.report();
    QCOMPARE(r.ranks, 128);
    QVERIFY(r.dimBytes[index(Dim::Dp)] > 0.0);
    QCOMPARE(spineBytes(r, Dim::Dp), 0.0);
    // TP stays inside the server: all of its bytes are on the scale-up tier.
    QCOMPARE(r.tierBytes[index(Tier::ScaleUp)][index(Dim::Tp)], r.dimBytes[index(Dim::Tp)]);
    QVERIFY(r.iterationTime > r.pipelineMakespan);
    QVERIFY(r.bubbleFraction > 0.0 && r.bubbleFraction < 1.0);
}

void TestCostEngine::seedSwapPutsDpOnSpineAndBack()
{
    CostEngine engine(fixtures::seed128());
    const CostReport before = engine.report();
    // Rank 0 = (d0,p0,t0) on node000/gpu0; rank 9 = (d1,p0,t1) on node001/gpu1.
    QCOMPARE(engine.layout().coord(9).t, 1);
    QVERIFY(engine.fabric().serverOfSlot(engine.mapping().slotOf(9)) != 0);
    engine.swapRanks(0, 9);
    QVERIFY(spineBytes(engine.report(), Dim::Dp) > 0.0);
    QVERIFY(engine.report().spineBytesShare > 0.0);
    QVERIFY(!engine.mappingWarnings().empty()); // TP groups now span two servers
    engine.swapRanks(0, 9);
    const CostReport &after = engine.report();
    QCOMPARE(spineBytes(after, Dim::Dp), 0.0);
    QCOMPARE(after.spineBytesShare, before.spineBytesShare);
    QVERIFY(std::abs(after.iterationTime - before.iterationTime) <= 1e-12 * before.iterationTime);
    for (std::size_t i = 0; i < before.links.size(); ++i)
        QVERIFY(std::abs(after.links[i].bytes - before.links[i].bytes)
                <= 1e-6 * std::max(1.0, before.links[i].bytes));
}

void TestCostEngine::railVersusTorSpineContrast()
{
    // The same 16x8 job: rail-optimised keeps every boundary and DP ring under its rail leaf;
    // on ToR leaves (4 servers each) the pipeline boundaries cross spines.
    Scenario rail = fixtures::seed128();
    Scenario tor = rail;
    tor.fabric.kind = FabricKind::Tor;
    const CostReport r = evaluate(rail);
    const CostReport t = evaluate(tor);
    QCOMPARE(r.spineBytesShare, 0.0);
    QVERIFY(t.spineBytesShare > 0.0);
    QVERIFY(spineBytes(t, Dim::Pp) > 0.0);
    QCOMPARE(spineBytes(r, Dim::Pp), 0.0);
}

void TestCostEngine::contextParallelRingsStayOnRails()
{
    // Llama-3.1-70B (the llama3-70b preset) with TP4 x CP2, PP4, DP8, packed on 32 x 8 GPUs:
    // a server holds t = 0..3 of c = 0 on GPUs 0-3 and of c = 1 on GPUs 4-7. The dp-cp group of
    // shard t lists GPU t and GPU t+4 of every server in turn, so a ring in member order goes
    // from GPU t+4 to the next server's GPU t, rail t+4 to rail t, and every DP byte that leaves
    // a server climbs to a spine. NCCL's rings enter a server on one of its rails and leave on
    // the other, and the next server enters on that one: no DP byte reaches a spine.
    Scenario s = llamaContextParallel(32, fixtures::degrees(4, 4, 8, 2), 256);
    const CostReport rings = evaluate(s);
    s.collectives.algorithm = CollectiveAlgorithm::MemberOrder;
    const CostReport memberOrder = evaluate(s);

    const auto tier = [](const CostReport &r, Tier t, Dim d) { return r.tierBytes[index(t)][index(d)]; };
    QVERIFY(tier(rings, Tier::Leaf, Dim::Dp) > 0.0);
    QCOMPARE(spineBytes(rings, Dim::Dp), 0.0);
    QCOMPARE(rings.spineBytesShare, 0.0);
    // The same DP bytes leave the servers either way; in member order all of them cross a
    // spine (one leaf -> spine and one spine -> leaf link for each NIC -> leaf and leaf -> NIC).
    QVERIFY(std::abs(tier(memberOrder, Tier::Leaf, Dim::Dp) - tier(rings, Tier::Leaf, Dim::Dp))
            <= 1e-9 * tier(rings, Tier::Leaf, Dim::Dp));
    QVERIFY(std::abs(spineBytes(memberOrder, Dim::Dp) - tier(memberOrder, Tier::Leaf, Dim::Dp))
            <= 1e-9 * tier(memberOrder, Tier::Leaf, Dim::Dp));
    // Pipeline boundaries stay on their rail: the spine share is the DP part of NIC traffic.
    QCOMPARE(spineBytes(memberOrder, Dim::Pp), 0.0);
    const double share = tier(memberOrder, Tier::Leaf, Dim::Dp)
                         / (tier(memberOrder, Tier::Leaf, Dim::Dp) + tier(memberOrder, Tier::Leaf, Dim::Pp));
    QVERIFY(std::abs(memberOrder.spineBytesShare - share) <= 1e-9);
    QVERIFY(memberOrder.spineBytesShare > 0.9);
    // The bottleneck moves off the spine-loaded rings: DP sync is faster on the rails.
    QVERIFY(rings.dpSyncTime < memberOrder.dpSyncTime);
}

void TestCostEngine::incrementalSwapsMatchFullEvaluation()
{
    Scenario s = fixtures::seed128();
    CostEngine incremental(s);
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> pick(0, 127);
    for (int i = 0; i < 40; ++i)
        incremental.swapRanks(pick(rng), pick(rng));

    verifyEqualsFreshEngine(s, incremental);
}

void TestCostEngine::tpTimesFollowEveryMove()
{
    // The engine keeps each TP op's time until a refresh touches its stage's TP patterns
    // (CostEngine::Impl::tpOpTime()): after every move and every revert the per-stage compute
    // and exposed TP time (the scheduler input) equals a fresh engine's on the same mapping.
    // The moves split TP groups over servers (their time rises) and bring them back.
    Scenario s = fixtures::seed128();
    CostEngine engine(s);
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> pick(0, 127);
    std::vector<double> forward; // the engine's per-stage forward times, as last checked
    const auto check = [&](const char *when) {
        Scenario full = s;
        full.slots = engine.mapping().slots();
        const CostEngine fresh(full);
        const PipelineInput a = engine.pipelineInput();
        const PipelineInput b = fresh.pipelineInput();
        forward = a.forward;
        QCOMPARE(a.forward.size(), b.forward.size());
        for (std::size_t st = 0; st < b.forward.size(); ++st) {
            QVERIFY2(std::abs(a.forward[st] - b.forward[st]) <= 1e-9 * b.forward[st], when);
            QVERIFY2(std::abs(a.backward[st] - b.backward[st]) <= 1e-9 * b.backward[st], when);
        }
    };
    check("start");
    const std::vector<double> start = forward;
    int changed = 0;
    for (int i = 0; i < 30 && !QTest::currentTestFailed(); ++i) {
        const int a = pick(rng);
        const int b = pick(rng);
        if (engine.mapping().slotOf(a) / 8 == engine.mapping().slotOf(b) / 8)
            continue;
        engine.moveRanks(
            { { a, engine.mapping().slotOf(b) }, { b, engine.mapping().slotOf(a) } }, false);
        engine.refreshFigures();
        check("after a move");
        changed += forward != start;
        if (i % 3 != 0) {
            engine.revertMove(false);
            engine.refreshFigures();
            check("after a revert");
        }
    }
    QVERIFY(changed > 0); // the moves did change TP times
}

void TestCostEngine::revertedMovesMatchFullEvaluation()
{
    // A search's loop: batches of moves (swaps, a server's ranks onto another server), each
    // read with refreshFigures() and most put back with revertMove(), which reuses the
    // groups' plans from before the move. After it the report equals a fresh engine's on the
    // final mapping, figure for figure; the figures refreshFigures() gives equal those of a
    // full refresh(); a swap is such a move too, and after setMapping() there is nothing to
    // revert.
    Scenario s = fixtures::seed128();
    CostEngine engine(s);
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> pick(0, 127);
    std::uniform_int_distribution<int> server(0, 15);
    for (int i = 0; i < 60; ++i) {
        std::vector<std::pair<int, int>> move;
        if (i % 3 == 0) { // every rank of one server onto another server's slots, and back
            const int a = server(rng);
            const int b = (a + 1 + server(rng) % 15) % 16;
            for (int g = 0; g < 8; ++g) {
                move.emplace_back(engine.mapping().rankAt(a * 8 + g), b * 8 + g);
                move.emplace_back(engine.mapping().rankAt(b * 8 + g), a * 8 + g);
            }
        } else {
            const int a = pick(rng);
            int b = pick(rng);
            if (b == a)
                b = (a + 1) % 128;
            move = { { a, engine.mapping().slotOf(b) }, { b, engine.mapping().slotOf(a) } };
        }
        const std::vector<int> before = engine.mapping().slots();
        engine.moveRanks(move, false);
        engine.refreshFigures();
        const double figuresIteration = engine.report().iterationTime;
        const double figuresMax = engine.report().linkStats.max;
        engine.refresh();
        QCOMPARE(engine.report().iterationTime, figuresIteration);
        QCOMPARE(engine.report().linkStats.max, figuresMax);
        if (i % 8 == 0)
            verifyEqualsFreshEngine(s, engine);
        if (i % 4 != 0) {
            engine.revertMove(false);
            QCOMPARE(engine.mapping().slots(), before);
            engine.revertMove(false); // a second revert has nothing to put back
            QCOMPARE(engine.mapping().slots(), before);
        }
    }
    // Moves read with refreshFigures() alone and kept, then one refresh(): the link maxima of
    // the exposure variants (the iteration without one dimension's traffic), which the moves
    // left behind, are caught up before dimExposed reads them.
    for (int i = 0; i < 24; ++i) {
        const int a = pick(rng);
        const int b = (a + 1 + pick(rng) % 127) % 128;
        engine.moveRanks({ { a, engine.mapping().slotOf(b) }, { b, engine.mapping().slotOf(a) } },
            false);
        engine.refreshFigures();
    }
    engine.refresh();
    {
        Scenario moved = s;
        moved.slots = engine.mapping().slots();
        const CostEngine fresh(moved);
        for (int d = 0; d < kDimCount; ++d)
            QCOMPARE(engine.report().dimExposed[d], fresh.report().dimExposed[d]);
    }
    const std::vector<int> unswapped = engine.mapping().slots();
    engine.swapRanks(0, 100);
    QCOMPARE(engine.mapping().slotOf(0), unswapped[100]);
    engine.revertMove(false); // a swap is a moveRanks() of the two: put back
    QCOMPARE(engine.mapping().slots(), unswapped);
    engine.swapRanks(0, 100);
    const std::vector<int> swapped = engine.mapping().slots();
    engine.setMapping(engine.mapping());
    engine.revertMove(); // the last change was no move: nothing to revert
    QCOMPARE(engine.mapping().slots(), swapped);
    engine.refresh();

    verifyEqualsFreshEngine(s, engine);
    Scenario full = s;
    full.slots = engine.mapping().slots();
    CostEngine fresh(full);
    for (int d = 0; d < kDimCount; ++d)
        QVERIFY(std::abs(engine.report().dimExposed[d] - fresh.report().dimExposed[d])
            <= 1e-9 * fresh.report().iterationTime);
    QCOMPARE(engine.report().warnings, fresh.report().warnings);
}

void TestCostEngine::sendsOfMovedRanksMatchFullEvaluation()
{
    // A move re-emits only the point-to-point sends next to the ranks it places: the pipeline
    // boundaries and interleaved wrap-arounds, the context-parallel ring edges and the expert
    // all-to-all pairs of moved members; the rest keep their loads. Swaps, whole-server moves
    // and reverts on a TP2 CP2 PP4 DP4 job (interleaved, 2 chunks) and on a PP2 EP8 MoE job must
    // leave the report a fresh engine gives.
    Scenario cp = llamaContextParallel(8, fixtures::degrees(2, 4, 4, 2), 64);
    cp.training.schedule = ScheduleKind::Interleaved;
    cp.training.interleave = 2;
    Scenario moe = fixtures::smallMoe(2, 8, { 1, 2, 8, 1, 8 });
    for (const Scenario &s : { cp, moe }) {
        CostEngine engine(s);
        const int world = engine.layout().worldSize();
        const int servers = s.fabric.servers;
        const int gpus = s.fabric.gpusPerServer;
        std::mt19937 rng(5);
        std::uniform_int_distribution<int> pick(0, world - 1);
        for (int i = 0; i < 30; ++i) {
            std::vector<std::pair<int, int>> move;
            if (i % 5 == 0) { // a server's ranks onto another server's slots, and back
                const int a = pick(rng) % servers;
                const int b = (a + 1 + pick(rng) % (servers - 1)) % servers;
                for (int g = 0; g < gpus; ++g) {
                    move.emplace_back(engine.mapping().rankAt(a * gpus + g), b * gpus + g);
                    move.emplace_back(engine.mapping().rankAt(b * gpus + g), a * gpus + g);
                }
            } else {
                const int a = pick(rng);
                const int b = (a + 1 + pick(rng) % (world - 1)) % world;
                move = { { a, engine.mapping().slotOf(b) }, { b, engine.mapping().slotOf(a) } };
            }
            engine.moveRanks(move, false);
            engine.refreshFigures();
            if (i % 3 == 1)
                engine.revertMove(false);
        }
        engine.refresh();
        verifyEqualsFreshEngine(s, engine);
        Scenario moved = s;
        moved.slots = engine.mapping().slots();
        const CostEngine fresh(moved);
        for (int d = 0; d < kDimCount; ++d)
            QVERIFY(std::abs(engine.report().dimBytes[d] - fresh.report().dimBytes[d])
                <= 1e-9 * std::max(1.0, fresh.report().dimBytes[d]));
    }
}

void TestCostEngine::moveToAnEmptySlotMatchesFullEvaluation()
{
    // 16 ranks (TP8 DP2) on 4 servers: servers 2 and 3 are spare. Moving rank 3 to node002/gpu3
    // splits its TP group across servers; the incremental update must equal a fresh engine.
    Scenario s = fixtures::smallDense(4, 8, {8, 1, 2, 1, 1});
    CostEngine engine(s);
    const CostReport before = engine.report();
    const int target = 2 * 8 + 3;
    QCOMPARE(engine.mapping().rankAt(target), -1);
    engine.moveRank(3, target);
    QCOMPARE(engine.mapping().slotOf(3), target);
    QCOMPARE(engine.mapping().rankAt(3), -1);

    Scenario moved = s;
    moved.slots = engine.mapping().slots();
    CostEngine fresh(moved);
    QVERIFY(std::abs(engine.report().iterationTime - fresh.report().iterationTime)
            <= 1e-12 * fresh.report().iterationTime);
    for (std::size_t i = 0; i < fresh.report().links.size(); ++i)
        QVERIFY(std::abs(engine.report().links[i].bytes - fresh.report().links[i].bytes)
                <= 1e-6 * std::max(1.0, fresh.report().links[i].bytes));
    QVERIFY(engine.report().tierBytes[index(Tier::Leaf)][index(Dim::Tp)] > 0.0);

    engine.moveRank(3, 3); // back home
    QCOMPARE(engine.report().tierBytes[index(Tier::Leaf)][index(Dim::Tp)], 0.0);
    QVERIFY(std::abs(engine.report().iterationTime - before.iterationTime)
            <= 1e-12 * before.iterationTime);
    QVERIFY_THROWS_EXCEPTION(ScenarioError, engine.moveRank(3, 32));
}

void TestCostEngine::pxnKeepsCrossRailTrafficOffSpines()
{
    // GPU 0 of server 0 to GPU 1 of server 1: different rails. Without PXN the transfer goes
    // up to a spine; with PXN it crosses NVLink on server 0 first and stays on rail 1.
    Scenario s = fixtures::smallDense(2, 8, {8, 1, 2, 1, 1});
    CostEngine plain(s);
    const CollectiveResult a = plain.collective(Collective::SendRecv, {0, 9}, 1e6);
    s.fabric.pxn = true;
    CostEngine pxn(s);
    const CollectiveResult b = pxn.collective(Collective::SendRecv, {0, 9}, 1e6);
    QCOMPARE(plain.fabric().link(a.bottleneckLink).tier == Tier::Spine
                 || plain.fabric().link(a.bottleneckLink).tier == Tier::Leaf
                 || plain.fabric().link(a.bottleneckLink).tier == Tier::Pcie,
             true);
    Router plainRouter(plain.fabric());
    Router pxnRouter(pxn.fabric());
    auto touchesSpine = [](Router &router, int src, int dst) {
        for (const RouteHop &h : router.route(src, dst))
            if (router.fabric().link(h.link).tier == Tier::Spine)
                return true;
        return false;
    };
    QVERIFY(touchesSpine(plainRouter, 0, 9));
    QVERIFY(!touchesSpine(pxnRouter, 0, 9));
    QVERIFY(b.time > 0.0);
}

void TestCostEngine::sendRecvRingIsItsSlowestSend()
{
    // nccl-tests' sendrecv_perf on n ranks: every rank sends its buffer to the next at once
    // (src/sendrecv.cu). On 2 servers x 8 GPUs the sends 7->8 and 15->0 leave their servers
    // on separate NICs and every other send stays on its NVSwitch, so the ring takes as long as
    // the slower of those two sends alone; the bus factor is 1 (doc/PERFORMANCE.md).
    Scenario s = fixtures::smallDense(2, 8, {8, 1, 2, 1, 1});
    CostEngine engine(s);
    std::vector<int> ring(16);
    for (int i = 0; i < 16; ++i)
        ring[i] = i;
    const CollectiveResult all = engine.collective(Collective::SendRecv, ring, 1e8);
    const double across = std::max(engine.collective(Collective::SendRecv, {7, 8}, 1e8).time,
                                   engine.collective(Collective::SendRecv, {15, 0}, 1e8).time);
    QCOMPARE(all.busFactor, 1.0);
    QVERIFY(all.time > 0.0);
    QVERIFY(std::abs(all.time - across) <= 1e-9 * across);
    // One server: each send crosses the NVSwitch once, as one send alone does.
    const CollectiveResult eight =
        engine.collective(Collective::SendRecv, {0, 1, 2, 3, 4, 5, 6, 7}, 1e8);
    const CollectiveResult one = engine.collective(Collective::SendRecv, {0, 1}, 1e8);
    QVERIFY(std::abs(eight.time - one.time) <= 1e-9 * one.time);
    QVERIFY(eight.time < all.time);
}

void TestCostEngine::tpBytesMatchWorkloadOps()
{
    // Link bytes are the workload's op sizes times the ring factor: per TP group of 8, each
    // GPU's scale-up uplink carries passes * (7/8) * S per op, for every op and micro-batch.
    Scenario s = fixtures::smallDense(1, 8, {8, 1, 1, 1, 1});
    s.collectives.algorithm = CollectiveAlgorithm::Ring;
    CostEngine engine(s);
    double expectedPerUplink = 0.0;
    for (const CommOp &op : engine.plan().ops)
        if (op.dim == Dim::Tp)
            expectedPerUplink += (op.collective == Collective::AllReduce ? 2.0 : 1.0) * 7.0 / 8.0
                                 * op.bytes * op.count * engine.plan().microbatches;
    QVERIFY(expectedPerUplink > 0.0);
    const Fabric &f = engine.fabric();
    const int up = f.linkBetween(f.gpuVertex(3), f.scaleUpVertex(0));
    QVERIFY(up >= 0);
    QVERIFY(std::abs(engine.report().links[up].bytes - expectedPerUplink) <= 1e-9 * expectedPerUplink);
    // 8 uplinks + 8 downlinks carry it: the scale-up tier total is 16x one link.
    QVERIFY(std::abs(engine.report().tierBytes[index(Tier::ScaleUp)][index(Dim::Tp)]
                     - 16.0 * expectedPerUplink)
            <= 1e-9 * expectedPerUplink * 16.0);
}

void TestCostEngine::dpOverlapHidesGradientSync()
{
    Scenario s = fixtures::seed128();
    s.training.dpOverlap = false;
    const CostReport noOverlap = evaluate(s);
    s.training.dpOverlap = true;
    const CostReport overlap = evaluate(s);
    QVERIFY(noOverlap.dpSyncTime > 0.0);
    QCOMPARE(overlap.dpSyncTime, noOverlap.dpSyncTime);
    // Without overlap all of the sync is exposed (up to the optimizer step, identical in both).
    QVERIFY(std::abs(noOverlap.dimExposed[index(Dim::Dp)] - noOverlap.dpSyncTime)
            <= 1e-9 * noOverlap.dpSyncTime);
    QVERIFY(overlap.dimExposed[index(Dim::Dp)] < noOverlap.dimExposed[index(Dim::Dp)]);
    QVERIFY(overlap.iterationTime < noOverlap.iterationTime);
}

void TestCostEngine::bubbleComesFromTheTimeline()
{
    CostEngine engine(fixtures::seed128());
    const CostReport &r = engine.report();
    double busy = 0.0;
    for (double b : r.timeline.busy)
        busy += b;
    const double stages = engine.scenario().degrees.pp;
    QCOMPARE(r.bubbleFraction, 1.0 - busy / (stages * r.timeline.makespan));
}

void TestCostEngine::badSwapIsRefused()
{
    CostEngine engine(fixtures::seed128());
    QVERIFY_THROWS_EXCEPTION(ScenarioError, engine.swapRanks(0, 128));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, engine.collective(Collective::SendRecv, {0}, 1e6));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, engine.collective(Collective::AllReduce, {0, 0}, 1e6));
}

void TestCostEngine::busySquaresFollowTheLinks()
{
    // The search's shape term: the sum of squared busy times, kept link by link through moves,
    // reverts and refreshFigures(), equals the sum over the report's links (their busy times
    // rounded to picoseconds, as the ranking keys) and a fresh engine's on the final mapping.
    const auto sumOver = [](const CostReport &r) {
        long double sum = 0.0L;
        for (const LinkLoad &l : r.links) {
            const auto key = static_cast<long double>(std::llround(l.busyTime * 1e12));
            sum += key * key;
        }
        return static_cast<double>(sum * 1e-24L);
    };
    Scenario s = fixtures::seed128();
    CostEngine engine(s);
    QVERIFY(engine.linkBusySquares() > 0.0);
    QVERIFY(std::abs(engine.linkBusySquares() - sumOver(engine.report()))
        <= 1e-12 * engine.linkBusySquares());
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> pick(0, 127);
    for (int i = 0; i < 40; ++i) {
        const int a = pick(rng);
        const int b = (a + 1 + pick(rng) % 127) % 128;
        engine.moveRanks({ { a, engine.mapping().slotOf(b) }, { b, engine.mapping().slotOf(a) } },
            false);
        engine.refreshFigures();
        QVERIFY(std::abs(engine.linkBusySquares() - sumOver(engine.report()))
            <= 1e-12 * engine.linkBusySquares());
        if (i % 3 != 0)
            engine.revertMove(false);
    }
    engine.refresh();
    Scenario full = s;
    full.slots = engine.mapping().slots();
    const CostEngine fresh(full);
    QVERIFY(std::abs(engine.linkBusySquares() - fresh.linkBusySquares())
        <= 1e-9 * fresh.linkBusySquares());
}

QTEST_GUILESS_MAIN(TestCostEngine)
#include "tst_costengine.moc"
