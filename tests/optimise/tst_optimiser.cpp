/**
 * The placement optimiser on the repository's samples: from the Scattered preset of the 128-GPU
 * job it reaches Rail-aligned's iteration time; on the skewed-MoE sample and on the degraded-link
 * sample it beats every preset; on the ToR and failed-server samples the presets sit on a lower
 * bound of every objective (checked here) and the search reaches them; on the ToR job with
 * Megatron's tp-pp-dp rank order it cuts the launcher's (Packed) spine bytes 48-fold, down to
 * the bound Rail-aligned sits on; on the ToR job after a server failed (dp 3) it beats every
 * preset on spine bytes 14.9-fold, reaching the one-stage-per-leaf bound derived by hand; the
 * same seed gives the same mapping; TP groups stay on their servers and no rank lands on failed
 * hardware; the result is never worse than the start; the stage-by-stage explanation adds up to
 * the engine's change. Every run is bounded by a move limit, never by wall time.
 */
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fabric/failedcomponent.h"
#include "layout/parallellayout.h"
#include "optimise/groupplacement.h"
#include "optimise/optimiser.h"
#include "optimise/optimisetext.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace railyard;

// Search quality on thousands of moves is run by the release suite; under the sanitizers it takes
// minutes and reaches no code the smaller cases miss.
#ifdef RAILYARD_SANITIZED
#define SKIP_SEARCH_QUALITY_WHEN_SANITIZED() QSKIP("search quality: run by the release suite")
#else
#define SKIP_SEARCH_QUALITY_WHEN_SANITIZED() (void)0
#endif

namespace {

Scenario sample(const char *name)
{
    return loadScenario(std::string(RAILYARD_SOURCE_DIR "/samples/") + name);
}

OptimiseOptions budget(Objective objective, long long moves, StartFrom from = StartFrom::Current,
    std::uint64_t seed = 1)
{
    OptimiseOptions o;
    o.objective = objective;
    o.maxMoves = moves;
    o.seconds = 0.0; // no clock: the run is the same on every machine
    o.from = from;
    o.seed = seed;
    return o;
}

/// The objective of every preset as the optimiser would start from it (healthy slots only).
double bestPreset(const Scenario &s, Objective objective)
{
    double best = std::numeric_limits<double>::infinity();
    for (StartFrom from : { StartFrom::Packed, StartFrom::RailAligned, StartFrom::Scattered }) {
        const OptimiseResult r = optimise(s, budget(objective, 1, from));
        best = std::min(best, r.start.value(objective));
    }
    return best;
}

int ranksOnFailedSlots(const Scenario &s, const std::vector<int> &slots)
{
    const Fabric fabric = Fabric::build(s.fabric);
    const std::vector<char> usable = usableSlots(fabric, s.failures);
    return static_cast<int>(std::count_if(slots.begin(), slots.end(),
        [&](int slot) { return !usable[static_cast<std::size_t>(slot)]; }));
}

} // namespace

class TestOptimiser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void batchMoveEqualsAFullEvaluation();
    void badBatchMovesChangeNothing();
    void fromScatteredReachesRailAligned();
    void beatsEveryPresetOnSkewedMoe_data();
    void beatsEveryPresetOnSkewedMoe();
    void fromScatteredMatchesTheBestPreset_data();
    void fromScatteredMatchesTheBestPreset();
    void beatsEveryPresetOnDegradedLink_data();
    void beatsEveryPresetOnDegradedLink();
    void presetsSitOnTheLinkBound_data();
    void presetsSitOnTheLinkBound();
    void torPresetsSitOnTheSpineBound();
    void beatsPackedOnTorPpDpOrder_data();
    void beatsPackedOnTorPpDpOrder();
    void beatsEveryPresetOnTorFailedServer_data();
    void beatsEveryPresetOnTorFailedServer();
    void sameSeedSameMapping();
    void tpGroupsStayOnTheirServers();
    void noRankOnFailedHardware();
    void impossibleConstraintIsRefused();
    void neverWorseThanTheStart_data();
    void neverWorseThanTheStart();
    void explanationAddsUp();
};

void TestOptimiser::batchMoveEqualsAFullEvaluation()
{
    // Two TP groups trade servers in one batch (ranks 0..7 on server 0 and 8..15 on server 1
    // in the packed seed job): the incremental update must equal evaluating that mapping anew.
    const Scenario s = sample("seed-128.json");
    CostEngine engine(s);
    std::vector<std::pair<int, int>> move;
    for (int t = 0; t < 8; ++t) {
        move.emplace_back(t, 8 + t);
        move.emplace_back(8 + t, t);
    }
    engine.moveRanks(move, false);
    engine.refresh();
    Scenario moved = s;
    moved.slots = engine.mapping().slots();
    const CostReport fresh = evaluate(moved);
    QCOMPARE(engine.mapping().slotOf(0), 8);
    QVERIFY(std::abs(engine.report().iterationTime - fresh.iterationTime)
        <= 1e-9 * fresh.iterationTime);
    QVERIFY(std::abs(engine.report().linkStats.max - fresh.linkStats.max) <= 1e-9);
    // A deferred move followed by its undo: the report after refresh() is the start's.
    const double start = engine.report().iterationTime;
    engine.moveRanks({ { 0, 20 }, { 20, 8 } }, false);
    engine.moveRanks({ { 0, 8 }, { 20, 20 } }, false);
    engine.refresh();
    QVERIFY(std::abs(engine.report().iterationTime - start) <= 1e-9 * start);
}

void TestOptimiser::badBatchMovesChangeNothing()
{
    CostEngine engine(sample("seed-128-failed-server3.json"));
    const std::vector<int> before = engine.mapping().slots();
    // Slot 24 is on failed server 3; slot 1 holds rank 1, which is not listed; a slot twice.
    QVERIFY_THROWS_EXCEPTION(ScenarioError, engine.moveRanks({ { 0, 24 } }));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, engine.moveRanks({ { 0, 1 } }));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, engine.moveRanks({ { 0, 2 }, { 1, 2 }, { 2, 0 } }));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, engine.moveRanks({ { 9999, 0 } }));
    QCOMPARE(engine.mapping().slots(), before);
}

void TestOptimiser::fromScatteredReachesRailAligned()
{
    // Scattered splits all 16 TP groups over 8 servers each (6.65 s); Rail-aligned keeps each
    // on one server with its DP peers on one rail (2.775 s, the known optimum: TP on NVLink,
    // no byte on a spine).
    Scenario s = sample("seed-128.json");
    s.placement = Placement::RailAligned;
    const double railAligned = evaluate(s).iterationTime;
    const OptimiseResult r = optimise(s, budget(Objective::Iteration, 1500, StartFrom::Scattered));
    QCOMPARE(r.start.tpGroupsSplit, 16);
    QVERIFY2(r.result.iteration <= railAligned * 1.005,
        qPrintable(QString::number(r.result.iteration) + " vs " + QString::number(railAligned)));
    QCOMPARE(r.result.tpGroupsSplit, 0);
    QCOMPARE(r.evaluated, 1500LL);
}

void TestOptimiser::beatsEveryPresetOnSkewedMoe_data()
{
    QTest::addColumn<int>("objective");
    QTest::newRow("iteration") << int(Objective::Iteration);
    QTest::newRow("spine") << int(Objective::Spine);
}

void TestOptimiser::beatsEveryPresetOnSkewedMoe()
{
    SKIP_SEARCH_QUALITY_WHEN_SANITIZED();
    // Zipf-skewed Mixtral, EP 8 spread over 8 servers by its order string: every preset leaves
    // the expert all-to-all on the spine. Gathering EP groups onto servers trades it for DP
    // bytes (the seed's EP-versus-DP locality tension); the search must find a better balance
    // than any preset by at least 5 %. At 5,000 moves seeds 1-6 all reach 0.905 of the start's
    // iteration time; at 2,500 the result still depends on the seed (0.90-1.00), and on the
    // last bits of the loads that decide an annealing step.
    QFETCH(int, objective);
    const Objective o = static_cast<Objective>(objective);
    const Scenario s = sample("mixtral-ep8-zipf.json");
    const double preset = bestPreset(s, o);
    const OptimiseResult r = optimise(s, budget(o, 5000));
    QVERIFY2(r.result.value(o) < 0.95 * preset,
        qPrintable(QString::number(r.result.value(o)) + " vs " + QString::number(preset)));
    QVERIFY(r.improved);
}

void TestOptimiser::fromScatteredMatchesTheBestPreset_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("objective");
    // On these two the presets sit on a lower bound of every objective (presetsSitOnTheLinkBound,
    // torPresetsSitOnTheSpineBound): ToR keeps each stage's DP groups under one top-of-rack
    // switch and only the (small) pipeline sends cross it; the failed-server job keeps TP in
    // servers and DP and the pipeline on rails on the 15 healthy servers. Nothing beats them;
    // reaching them from the worst preset (within 0.5 %, as for the seed job) is the check. The
    // spine rows need the stage-alignment move: without it the search stopped at 29-35 GB of
    // pipeline sends across rails on the failed-server job (each stage on rails of its own).
    QTest::newRow("tor iteration") << "seed-128-tor.json" << int(Objective::Iteration);
    QTest::newRow("tor spine") << "seed-128-tor.json" << int(Objective::Spine);
    QTest::newRow("failed iteration")
        << "seed-128-failed-server3.json" << int(Objective::Iteration);
    QTest::newRow("failed spine") << "seed-128-failed-server3.json" << int(Objective::Spine);
    QTest::newRow("failed max-link") << "seed-128-failed-server3.json" << int(Objective::MaxLink);
}

void TestOptimiser::fromScatteredMatchesTheBestPreset()
{
    SKIP_SEARCH_QUALITY_WHEN_SANITIZED();
    QFETCH(QString, file);
    QFETCH(int, objective);
    const Objective o = static_cast<Objective>(objective);
    const Scenario s = sample(file.toUtf8().constData());
    const double preset = bestPreset(s, o);
    // 5,000 moves: from Scattered on the ToR spine objective, seeds 1-10 all reach the bound at
    // 5,000 moves but only 6 of 10 at 1,500 and 8-9 of 10 at 3,000 (`railyard-cli optimise
    // samples/seed-128-tor.json --objective spine --from scattered --moves M --seed N`), so a
    // shorter budget tests the seed's luck rather than the search.
    const OptimiseResult r = optimise(s, budget(o, 5000, StartFrom::Scattered));
    QVERIFY(r.start.value(o) > 2.0 * preset); // scattered really is far off
    QVERIFY2(r.result.value(o) <= preset * 1.005,
        qPrintable(QString::number(r.result.value(o)) + " vs " + QString::number(preset)));
}

void TestOptimiser::beatsEveryPresetOnDegradedLink_data()
{
    QTest::addColumn<int>("objective");
    QTest::newRow("iteration") << int(Objective::Iteration);
    QTest::newRow("max-link") << int(Objective::MaxLink);
}

void TestOptimiser::beatsEveryPresetOnDegradedLink()
{
    SKIP_SEARCH_QUALITY_WHEN_SANITIZED();
    // seed-128-degraded: the failed-server job on a cabled fabric whose node005 mlx5_2 link
    // runs at 100 Gb/s. The slow link is no failure, so every preset puts a rank on slot 42
    // (node005 GPU 2) and that rank's DP ring runs at a quarter of the NIC rate. A slower link
    // never makes a mapping faster, so the failed-server job on the healthy fabric bounds the
    // result from below; the search must reach that bound within 10^-6 (by leaving slot 42
    // empty) and beat every preset by at least 10 %.
    QFETCH(int, objective);
    const Objective o = static_cast<Objective>(objective);
    const Scenario s = sample("seed-128-degraded.json");
    constexpr int kSlowSlot = 5 * 8 + 2;
    for (StartFrom from : { StartFrom::Packed, StartFrom::RailAligned, StartFrom::Scattered }) {
        const std::vector<int> start = optimise(s, budget(o, 1, from)).startSlots;
        QVERIFY(std::find(start.begin(), start.end(), kSlowSlot) != start.end());
    }
    const double preset = bestPreset(s, o);
    const double bound = bestPreset(sample("seed-128-failed-server3.json"), o);
    const OptimiseResult r = optimise(s, budget(o, 1500));
    QVERIFY2(r.result.value(o) < 0.9 * preset,
        qPrintable(QString::number(r.result.value(o)) + " vs " + QString::number(preset)));
    QVERIFY(r.result.value(o) >= bound * (1.0 - 1e-9));
    QVERIFY2(r.result.value(o) <= bound * (1.0 + 1e-6),
        qPrintable(QString::number(r.result.value(o)) + " vs " + QString::number(bound)));
    QVERIFY(r.improved);
    QVERIFY(std::find(r.scenario.slots.begin(), r.scenario.slots.end(), kSlowSlot)
        == r.scenario.slots.end());
    QCOMPARE(r.result.tpGroupsSplit, 0);
    QCOMPARE(ranksOnFailedSlots(s, r.scenario.slots), 0);
}

void TestOptimiser::presetsSitOnTheLinkBound_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("maxOnBound"); // the slow link of the degraded sample is busier
    QTest::newRow("tor") << "seed-128-tor.json" << true;
    QTest::newRow("failed") << "seed-128-failed-server3.json" << true;
    QTest::newRow("tor failed") << "seed-128-tor-failed-server3.json" << true;
    QTest::newRow("degraded") << "seed-128-degraded.json" << false;
}

void TestOptimiser::presetsSitOnTheLinkBound()
{
    // tp 8 on 8-GPU servers under tp-in-server: every server that holds a rank holds one whole
    // TP group and nothing else, so each GPU's scale-up port carries exactly its TP group's
    // traffic whatever the mapping. The busiest of those ports bounds max-link from below, and
    // p99 too: the TP groups of the last stage (LM head) load 8 ports each at that maximum, more
    // than the 8 links of the top 1 % of the ~800 (nearest rank). The presets sit on it: p99
    // equals it, and max-link too (their bottleneck is a scale-up port) except on the degraded
    // sample, whose slow link is busier. Another mapping that keeps the constraint (whole
    // servers permuted over the healthy ones, GPUs shuffled inside each) leaves the scale-up
    // maximum where it is.
    QFETCH(QString, file);
    QFETCH(bool, maxOnBound);
    const Scenario s = sample(file.toUtf8().constData());
    const Fabric fabric = Fabric::build(s.fabric);
    const auto scaleUpMax = [&](const CostReport &rep) {
        double m = 0.0;
        for (const FabricLink &l : fabric.links())
            if (l.tier == Tier::ScaleUp)
                m = std::max(m, rep.links[static_cast<std::size_t>(l.id)].busyTime);
        return m;
    };
    for (StartFrom from : { StartFrom::Packed, StartFrom::RailAligned }) {
        Scenario preset = s;
        preset.slots = optimise(s, budget(Objective::MaxLink, 1, from)).startSlots;
        const CostReport rep = evaluate(preset);
        const double floor = scaleUpMax(rep);
        QVERIFY(floor > 0.0);
        const double tol = 1e-9 * floor;
        QVERIFY(std::abs(objectiveValue(rep, Objective::P99) - floor) <= tol);
        QCOMPARE(fabric.link(rep.bottleneckLink).tier == Tier::ScaleUp, maxOnBound);
        if (maxOnBound)
            QVERIFY(std::abs(objectiveValue(rep, Objective::MaxLink) - floor) <= tol);
        else
            QVERIFY(objectiveValue(rep, Objective::MaxLink) > 1.5 * floor);

        // The invariance: servers and GPUs permuted, TP groups kept whole.
        const std::vector<char> usable = usableSlots(fabric, s.failures);
        std::vector<int> healthy;
        for (int server = 0; server < fabric.servers(); ++server)
            if (usable[static_cast<std::size_t>(server * 8)])
                healthy.push_back(server);
        std::vector<int> shuffled = healthy;
        std::rotate(shuffled.begin(), shuffled.begin() + 5, shuffled.end());
        Scenario other = preset;
        for (int &slot : other.slots) {
            const auto at = std::find(healthy.begin(), healthy.end(), fabric.serverOfSlot(slot));
            slot = shuffled[static_cast<std::size_t>(at - healthy.begin())] * 8
                + (fabric.gpuOfSlot(slot) * 3 + 1) % 8;
        }
        QVERIFY(other.slots != preset.slots);
        const CostReport moved = evaluate(other);
        QVERIFY(std::abs(scaleUpMax(moved) - floor) <= tol);
        QVERIFY(objectiveValue(moved, Objective::MaxLink) >= floor - tol);
        QVERIFY(objectiveValue(moved, Objective::P99) >= floor - tol);
    }
    // Spine bytes: the failed-server and degraded jobs' presets send none, the least possible.
    if (!file.contains("tor"))
        QCOMPARE(bestPreset(s, Objective::Spine), 0.0);
}

void TestOptimiser::torPresetsSitOnTheSpineBound()
{
    // ToR, 4 servers per top-of-rack leaf, tp 8 filling a server: a leaf holds 4 TP groups, a
    // stage has 4 (dp 4) and its 8 DP groups each have a member in every one of them.
    //  - Every stage under one leaf: each of the 3 boundaries x 4 pipelines crosses leaves, each
    //    way, 16 micro-batches of 4096 x 8192 bf16 activations (64 MiB), each byte over a
    //    leaf->spine and a spine->leaf link: 3 x 4 x 2 x 16 x 64 MiB x 2 = 48 GiB, the presets'.
    //  - A stage over two leaves or more: each of its 8 DP groups is cut. Whatever the algorithm,
    //    an all-gather must bring every shard owned across the cut over it, and a reduce-scatter
    //    every contribution to a shard owned across it: at least the all-gather's and the
    //    reduce-scatter's buffers (S_ag + S_rs = what the group sends / (dp - 1)) over the cut,
    //    twice in spine-tier links. Eight such groups already outweigh the 48 GiB.
    const Scenario s = sample("seed-128-tor.json");
    const double preset = bestPreset(s, Objective::Spine);
    const double activation = 4096.0 * 8192.0 * 2.0;
    QCOMPARE(preset, 3.0 * 4.0 * 2.0 * 16.0 * activation * 2.0);
    Scenario packed = s;
    packed.placement = Placement::Packed;
    const CostReport rep = evaluate(packed);
    QCOMPARE(rep.tierBytes[index(Tier::Spine)][index(Dim::Pp)], preset);
    const int dpGroups = s.degrees.tp * s.degrees.pp;
    const double perGroupBuffers = rep.dimBytesSent[index(Dim::Dp)] / dpGroups / (s.degrees.dp - 1);
    const double cutBound = 8.0 * 2.0 * perGroupBuffers;
    QVERIFY2(cutBound > 3.0 * preset,
        qPrintable(QString::number(cutBound) + " vs " + QString::number(preset)));
    // The search never goes below it, from any start.
    for (StartFrom from : { StartFrom::Current, StartFrom::Scattered })
        for (std::uint64_t seed : { 1u, 2u }) {
            const OptimiseResult r = optimise(s, budget(Objective::Spine, 400, from, seed));
            QVERIFY(r.result.spineBytes >= preset * (1.0 - 1e-9));
        }
}

void TestOptimiser::beatsPackedOnTorPpDpOrder_data()
{
    QTest::addColumn<int>("from");
    QTest::newRow("from packed") << int(StartFrom::Packed);
    QTest::newRow("from scattered") << int(StartFrom::Scattered);
}

void TestOptimiser::beatsPackedOnTorPpDpOrder()
{
    // seed-128-tor-ppdp: the ToR job with Megatron-LM's --use-tp-pp-dp-mapping (order
    // tp-cp-ep-pp-dp), packed: rank t + 8 (p + 4 d) on server p + 4 d, so leaf d holds pipeline
    // d and each DP group (t, p) has one member under every leaf. Whatever the algorithm every DP
    // byte then crosses leaves, over a leaf->spine and a spine->leaf link, and no pipeline byte
    // does. DP sends (dp - 1) x (4 B fp32 gradient reduce-scatter + 2 B bf16 parameter
    // all-gather) per parameter of the model (the workload plan's distributed optimizer):
    // Llama-2-70B with its vocabulary padded to 128 tp = 32768, 68,989,231,104 parameters.
    // One stage per leaf (Rail-aligned, which places by coordinates and ignores the order)
    // keeps DP under the ToR and sends only the pipeline boundaries over the spine: the 48 GiB
    // of torPresetsSitOnTheSpineBound, whose bound holds for any numbering of the same job. The
    // search must reach it from Packed (what a launcher does with the flag) and from Scattered.
    // It cannot beat Rail-aligned there, and on iteration, p99 and max-link every preset of this
    // non-blocking fabric already sits on the bounds of presetsSitOnTheLinkBound. At 5,000 moves
    // seeds 1-10 from Packed and 8 of 10 from Scattered reach 48 GiB; at 1,500-4,000 some stop
    // at 0.65-1.28 TB (a stage over two leaves).
    QFETCH(int, from);
    const Scenario s = sample("seed-128-tor-ppdp.json");
    const double h = 8192.0, kv = 1024.0, ffn = 28672.0, vocab = 32768.0;
    const double layer = h * (h + 2.0 * kv) + h * h + 3.0 * h * ffn + 2.0 * h;
    const double params = 80.0 * layer + 2.0 * vocab * h + h;
    QCOMPARE(params, 68989231104.0);
    const double dpSent = (s.degrees.dp - 1) * (4.0 + 2.0) * params;
    const double stagePerLeaf = 3.0 * 4.0 * 2.0 * 16.0 * (4096.0 * 8192.0 * 2.0) * 2.0;

    const CostReport packed = evaluate(s); // the file's mapping is the packed placement
    QCOMPARE(packed.dimBytesSent[index(Dim::Dp)], dpSent);
    QCOMPARE(packed.tierBytes[index(Tier::Spine)][index(Dim::Dp)], 2.0 * dpSent);
    QCOMPARE(packed.tierBytes[index(Tier::Spine)][index(Dim::Pp)], 0.0);
    QCOMPARE(
        optimise(s, budget(Objective::Spine, 1, StartFrom::Packed)).start.spineBytes, 2.0 * dpSent);
    const ObjectiveFigures railAligned
        = optimise(s, budget(Objective::Spine, 1, StartFrom::RailAligned)).start;
    QCOMPARE(railAligned.spineBytes, stagePerLeaf);
    QCOMPARE(bestPreset(s, Objective::Spine), stagePerLeaf);

    SKIP_SEARCH_QUALITY_WHEN_SANITIZED(); // the figures above are cheap; the search is not
    const OptimiseResult r
        = optimise(s, budget(Objective::Spine, 5000, static_cast<StartFrom>(from)));
    QVERIFY2(r.result.spineBytes <= stagePerLeaf * (1.0 + 1e-9),
        qPrintable(QString::number(r.result.spineBytes) + " vs " + QString::number(stagePerLeaf)));
    QVERIFY(r.result.spineBytes >= stagePerLeaf * (1.0 - 1e-9));
    QVERIFY(r.result.spineBytes < 2.0 * dpSent / 40.0); // 48x fewer than Packed
    QVERIFY(r.improved);
    QCOMPARE(r.result.tpGroupsSplit, 0);
    // Fewer spine bytes at no cost in time: Rail-aligned's (and Packed's) iteration time.
    QVERIFY2(r.result.iteration <= railAligned.iteration * (1.0 + 1e-6),
        qPrintable(QString::number(r.result.iteration, 'g', 10) + " vs "
            + QString::number(railAligned.iteration, 'g', 10)));
    // How: every stage under one leaf, a leaf to each.
    const Fabric fabric = Fabric::build(s.fabric);
    const ParallelLayout layout(s.degrees, s.order);
    std::vector<int> leafOfStage(static_cast<std::size_t>(s.degrees.pp), -1);
    for (int rank = 0; rank < layout.worldSize(); ++rank) {
        const int slot = r.scenario.slots[static_cast<std::size_t>(rank)];
        const int leaf = fabric.leafOfNic(fabric.serverOfSlot(slot), 0);
        int &stageLeaf = leafOfStage[static_cast<std::size_t>(layout.coord(rank).p)];
        if (stageLeaf < 0)
            stageLeaf = leaf;
        QCOMPARE(leaf, stageLeaf);
    }
    std::sort(leafOfStage.begin(), leafOfStage.end());
    QVERIFY(std::adjacent_find(leafOfStage.begin(), leafOfStage.end()) == leafOfStage.end());
}

void TestOptimiser::beatsEveryPresetOnTorFailedServer_data()
{
    // At each start: the stages over two leaves (1 server | 2) and how many of the 3 pipelines'
    // 3 boundaries each cross leaves, read off the mapping by hand (leaf = server / 4; node003
    // failed). The file: the launcher's order on the healthy hosts, stage p on the 3p-th to
    // (3p + 2)-th of node000-002, node004-012. Packed and Rail-aligned: their healthy-fabric
    // slots, node003's TP group (d 0, p 1) moved to the first free server, node012. Scattered
    // is not derived, only far off.
    QTest::addColumn<int>("from");
    QTest::addColumn<QList<int>>("splitStages");
    QTest::addColumn<int>("crossings");
    // stage 2 on node007 | node008-009, stage 3 on node010-011 | node012; pipelines 2 + 2 + 3
    QTest::newRow("from current") << int(StartFrom::Current) << QList<int> { 2, 3 } << 7;
    // stage 1 on node012 | node004-005, stage 2 on node006-007 | node008; pipelines 3 + 2 + 2
    QTest::newRow("from packed") << int(StartFrom::Packed) << QList<int> { 1, 2 } << 7;
    QTest::newRow("from rail-aligned") << int(StartFrom::RailAligned) << QList<int> { 1, 2 } << 7;
    QTest::newRow("from scattered") << int(StartFrom::Scattered) << QList<int> {} << -1;
}

void TestOptimiser::beatsEveryPresetOnTorFailedServer()
{
    // seed-128-tor-failed-server3: the ToR job after server 3 failed, dp 3 (drop-dp) on 15
    // healthy servers, leaves of 4 servers, the first with 3 healthy. A stage needs 3 servers,
    // so a leaf holds at most one stage, and Packed and Rail-aligned (and the launcher's order
    // the file carries) put two stages over two leaves. A DP group so cut (1 member | 2) is a
    // ring of 3 with 2 edges across the cut; each edge carries (dp - 1) / dp of both buffers,
    // 4 B fp32 gradients (reduce-scatter) + 2 B bf16 parameters (all-gather) per parameter g of
    // the group: 2 x 2/3 x 6 g = 8 g over the cut, each byte on a leaf->spine and a spine->leaf
    // link, 16 g; a stage's 8 groups hold its parameters. A pipeline boundary across leaves sends
    // 16 micro-batches of 64 MiB (4096 x 8192 bf16) each way, twice in spine-tier links: 4 GiB.
    // One stage per leaf: no DP byte on a spine, all 3 x 3 boundaries across: 36 GiB, the bound.
    // A cut group must move at least both buffers over the cut (6 g, each shard owned across it:
    // torPresetsSitOnTheSpineBound), so a cut stage costs at least 12 x its parameters, more than
    // the 36 GiB, and with no cut stage every boundary crosses. Search (5,000 moves, seed 1):
    // from every start it reaches the bound, 14.9 times fewer spine bytes than the best preset.
    // Iteration, p99 and max-link cannot show it (README: the NVLink floor; a non-blocking
    // fabric runs a ring across leaves at the NIC rate, only two hops' latency slower).
    QFETCH(int, from);
    QFETCH(QList<int>, splitStages);
    QFETCH(int, crossings);
    const Scenario s = sample("seed-128-tor-failed-server3.json");
    QCOMPARE(s.degrees.dp, 3);
    const double h = 8192.0, kv = 1024.0, ffn = 28672.0, vocab = 32768.0;
    const double layer = h * (h + 2.0 * kv) + h * h + 3.0 * h * ffn + 2.0 * h;
    // 20 layers a stage; stage 0 adds the embedding, stage 3 the output layer and final norm.
    const double stageParams[]
        = { 20.0 * layer + vocab * h, 20.0 * layer, 20.0 * layer, 20.0 * layer + vocab * h + h };
    const double params = stageParams[0] + stageParams[1] + stageParams[2] + stageParams[3];
    QCOMPARE(params, 68989231104.0);
    const double boundary = 2.0 * 16.0 * (4096.0 * 8192.0 * 2.0) * 2.0; // 4 GiB
    const double stagePerLeaf = 9.0 * boundary; // 36 GiB = 38,654,705,664 B
    const double presets = 16.0 * (stageParams[1] + stageParams[2]) + 7.0 * boundary;
    QCOMPARE(presets, 577683587072.0);
    QVERIFY(12.0 * stageParams[1] > stagePerLeaf); // a cut stage costs more than the bound

    const Fabric fabric = Fabric::build(s.fabric);
    const ParallelLayout layout(s.degrees, s.order);
    const auto leafOfRank = [&](const std::vector<int> &slots, int rank) {
        return fabric.leafOfNic(fabric.serverOfSlot(slots[static_cast<std::size_t>(rank)]), 0);
    };
    // The stages over more than one leaf and the pipeline boundaries across leaves.
    const auto split = [&](const std::vector<int> &slots) {
        QList<int> stages;
        int across = 0;
        for (int p = 0; p < s.degrees.pp; ++p) {
            bool cut = false;
            for (int d = 0; d < s.degrees.dp; ++d)
                for (int t = 0; t < s.degrees.tp; ++t) {
                    const int leaf = leafOfRank(slots, layout.rankOf(t, p, d, 0));
                    cut = cut || leaf != leafOfRank(slots, layout.rankOf(0, p, 0, 0));
                    if (t == 0 && p + 1 < s.degrees.pp)
                        across += leaf != leafOfRank(slots, layout.rankOf(0, p + 1, d, 0));
                }
            if (cut)
                stages.append(p);
        }
        return std::make_pair(stages, across);
    };

    const StartFrom start = static_cast<StartFrom>(from);
    const OptimiseResult atStart = optimise(s, budget(Objective::Spine, 1, start));
    const ObjectiveFigures &startFigures = atStart.start;
    if (crossings >= 0) {
        Scenario at = s;
        at.slots = atStart.startSlots;
        const auto [stages, across] = split(at.slots);
        QCOMPARE(stages, splitStages);
        QCOMPARE(across, crossings);
        double dpSpine = 0.0;
        for (int p : splitStages)
            dpSpine += 16.0 * stageParams[p];
        const CostReport rep = evaluate(at);
        QCOMPARE(rep.dimBytesSent[index(Dim::Dp)], (s.degrees.dp - 1) * 6.0 * params);
        QCOMPARE(rep.tierBytes[index(Tier::Spine)][index(Dim::Dp)], dpSpine);
        QCOMPARE(rep.tierBytes[index(Tier::Spine)][index(Dim::Pp)], crossings * boundary);
        QCOMPARE(startFigures.spineBytes, dpSpine + crossings * boundary);
    }
    const double best = bestPreset(s, Objective::Spine);
    QCOMPARE(best, presets);
    QVERIFY(startFigures.spineBytes >= best);

    SKIP_SEARCH_QUALITY_WHEN_SANITIZED(); // the figures above are cheap; the search is not
    const OptimiseResult r = optimise(s, budget(Objective::Spine, 5000, start));
    QVERIFY2(r.result.spineBytes < best,
        qPrintable(QString::number(r.result.spineBytes) + " vs " + QString::number(best)));
    QCOMPARE(r.result.spineBytes, stagePerLeaf);
    QVERIFY(r.improved);
    QCOMPARE(r.result.tpGroupsSplit, 0);
    QCOMPARE(ranksOnFailedSlots(s, r.scenario.slots), 0);
    const auto [stages, across] = split(r.scenario.slots); // one stage per leaf
    QVERIFY(stages.isEmpty());
    QCOMPARE(across, 9);
    // Fewer spine bytes at no cost in time (the result is 4.8 us faster: no spine hops in DP).
    const double presetIteration
        = optimise(s, budget(Objective::Spine, 1, StartFrom::RailAligned)).start.iteration;
    QVERIFY2(r.result.iteration <= presetIteration * (1.0 + 1e-9),
        qPrintable(QString::number(r.result.iteration, 'g', 10) + " vs "
            + QString::number(presetIteration, 'g', 10)));
}

void TestOptimiser::sameSeedSameMapping()
{
    const Scenario s = sample("seed-128.json");
    const OptimiseResult a
        = optimise(s, budget(Objective::Iteration, 300, StartFrom::Scattered, 7));
    const OptimiseResult b
        = optimise(s, budget(Objective::Iteration, 300, StartFrom::Scattered, 7));
    const OptimiseResult c
        = optimise(s, budget(Objective::Iteration, 300, StartFrom::Scattered, 8));
    QCOMPARE(a.scenario.slots, b.scenario.slots);
    QCOMPARE(a.accepted, b.accepted);
    QCOMPARE(a.proposed, b.proposed);
    // Another seed draws other moves (its mapping may or may not end the same).
    QVERIFY(a.scenario.slots != c.scenario.slots || a.proposed != c.proposed
        || a.accepted != c.accepted);
}

void TestOptimiser::tpGroupsStayOnTheirServers()
{
    // From a start that keeps every TP group on one server, no best-so-far mapping the
    // monitor sees, and not the result, ever splits one, whatever the objective prefers.
    const Scenario s = sample("seed-128.json");
    for (Objective o : { Objective::Spine, Objective::MaxLink }) {
        int checks = 0;
        const Fabric fabric = Fabric::build(s.fabric);
        const ParallelLayout layout(s.degrees, s.order);
        const OptimiseResult r = optimise(s, budget(o, 600), [&](const SearchProgress &p) {
            ++checks;
            return tpGroupsSplit(fabric, layout, *p.bestSlots) == 0;
        });
        QVERIFY(!r.cancelled);
        QVERIFY(checks >= 2);
        QCOMPARE(r.result.tpGroupsSplit, 0);
        QVERIFY(r.constraints.front().name == "tp-in-server");
        QVERIFY(r.constraints.front().rejected > 0);
        QCOMPARE(r.binding, std::string("tp-in-server"));
    }
}

void TestOptimiser::noRankOnFailedHardware()
{
    // Server 3 failed: 24 usable slots are free, so moves onto free slots and server swaps
    // are drawn onto the failed server too; the search must refuse every one.
    const Scenario s = sample("seed-128-failed-server3.json");
    const OptimiseResult r = optimise(s, budget(Objective::Iteration, 400, StartFrom::Scattered));
    QCOMPARE(ranksOnFailedSlots(s, r.scenario.slots), 0);
    long long failed = 0;
    for (const ConstraintCount &c : r.constraints)
        if (c.name == "failed hardware")
            failed = c.rejected;
    QVERIFY(failed > 0);
    // The written scenario passes the engine's own checks.
    QVERIFY(evaluate(r.scenario).iterationTime > 0.0);
}

void TestOptimiser::impossibleConstraintIsRefused()
{
    Scenario s = sample("seed-128.json");
    s.fabric.gpusPerServer = 4; // tp 8 on 4-GPU servers: no scale-up domain holds a TP group
    s.fabric.servers = 32;
    OptimiseOptions o = budget(Objective::Iteration, 10);
    o.keep = KeepConstraint::TpInScaleUp;
    QVERIFY_THROWS_EXCEPTION(ScenarioError, optimise(s, o));
    o.keep = KeepConstraint::TpInServer; // two servers per group is allowed
    QVERIFY(optimise(s, o).evaluated <= 10);
    OptimiseOptions none = budget(Objective::Iteration, 0);
    QVERIFY_THROWS_EXCEPTION(ScenarioError, optimise(s, none)); // neither limit
}

void TestOptimiser::neverWorseThanTheStart_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("objective");
    for (const char *f : { "seed-128.json", "mixtral-ep8-zipf.json", "seed-128-tor.json" })
        for (Objective o : allObjectives())
            QTest::newRow((std::string(f) + " " + std::string(objectiveName(o))).c_str())
                << QString(f) << int(o);
}

void TestOptimiser::neverWorseThanTheStart()
{
    QFETCH(QString, file);
    QFETCH(int, objective);
    const Objective o = static_cast<Objective>(objective);
    const Scenario s = sample(file.toUtf8().constData());
    const OptimiseResult r = optimise(s, budget(o, 60));
    QVERIFY(r.result.value(o) <= r.start.value(o) * (1.0 + 1e-9));
    // The written scenario evaluates to the reported result.
    const double fresh = objectiveValue(evaluate(r.scenario), o);
    QVERIFY(std::abs(fresh - r.result.value(o)) <= 1e-9 * std::max(1.0, std::abs(fresh)));
    QVERIFY(r.evaluated <= 60);
}

void TestOptimiser::explanationAddsUp()
{
    // The replay moves each stage's ranks in turn: the first step starts at the start's
    // objective, each step starts where the last ended, and the last ends at the result's.
    const Scenario s = sample("mixtral-ep8-zipf.json");
    const OptimiseResult r = optimise(s, budget(Objective::Spine, 1000));
    QVERIFY(!r.steps.empty());
    const auto near
        = [](double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(b)); };
    QVERIFY(near(r.steps.front().before, r.start.spineBytes));
    for (std::size_t i = 1; i < r.steps.size(); ++i)
        QVERIFY(near(r.steps[i].before, r.steps[i - 1].after));
    QVERIFY(near(r.steps.back().after, r.result.spineBytes));
    int moved = 0;
    for (const StageStep &st : r.steps)
        moved += st.ranksMoved;
    // Each step counts its own stage's ranks; a rank an earlier step displaced straight onto
    // its final slot is not counted again.
    QVERIFY(moved > 0 && moved <= r.ranksMoved);
    // The EP dimension's spine bytes fall, and the text says so per stage.
    const auto ep = std::find_if(
        r.dims.begin(), r.dims.end(), [](const DimensionChange &d) { return d.dim == Dim::Ep; });
    QVERIFY(ep != r.dims.end());
    QVERIFY(ep->spineAfter < ep->spineBefore);
    const std::string text = optimiseText(r);
    QVERIFY(text.find("EP groups in one server") != std::string::npos);
    QVERIFY(text.find("ep: spine bytes") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestOptimiser)
#include "tst_optimiser.moc"
