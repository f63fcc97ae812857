/**
 * The placement optimiser on the repository's samples: from the Scattered preset of the 128-GPU
 * job it reaches Rail-aligned's iteration time; on the skewed-MoE sample it beats every preset;
 * on the ToR and failed-server samples it is never worse than the best preset; the same seed
 * gives the same mapping; TP groups stay on their servers and no rank lands on failed hardware;
 * the result is never worse than the start; the stage-by-stage explanation adds up to the
 * engine's change. Every run is bounded by a move limit, never by wall time.
 */
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fabric/failedcomponent.h"
#include "optimise/groupplacement.h"
#include "optimise/optimiser.h"
#include "optimise/optimisetext.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace railyard;

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
#ifdef RAILYARD_SANITIZED
    QSKIP("search quality on thousands of moves: run by the release suite; under the sanitizers "
          "it takes minutes and reaches no code the smaller cases miss");
#endif
    // Zipf-skewed Mixtral, EP 8 spread over 8 servers by its order string: every preset leaves
    // the expert all-to-all on the spine. Gathering EP groups onto servers trades it for DP
    // bytes (the seed's EP-versus-DP locality tension); the search must find a better balance
    // than any preset by at least 5 %.
    QFETCH(int, objective);
    const Objective o = static_cast<Objective>(objective);
    const Scenario s = sample("mixtral-ep8-zipf.json");
    const double preset = bestPreset(s, o);
    const OptimiseResult r = optimise(s, budget(o, 2500));
    QVERIFY2(r.result.value(o) < 0.95 * preset,
        qPrintable(QString::number(r.result.value(o)) + " vs " + QString::number(preset)));
    QVERIFY(r.improved);
}

void TestOptimiser::fromScatteredMatchesTheBestPreset_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("objective");
    // On these two the presets already sit where the search ends: ToR keeps each stage's DP
    // groups under one top-of-rack switch and only the (small) pipeline sends cross it; the
    // degraded job keeps TP in servers and DP on rails on the 15 healthy servers. Beating them
    // is not possible for this search; reaching them from the worst preset (within 0.5 %, as
    // for the seed job) is the check.
    QTest::newRow("tor iteration") << "seed-128-tor.json" << int(Objective::Iteration);
    QTest::newRow("tor spine") << "seed-128-tor.json" << int(Objective::Spine);
    QTest::newRow("failed iteration")
        << "seed-128-failed-server3.json" << int(Objective::Iteration);
    QTest::newRow("failed max-link") << "seed-128-failed-server3.json" << int(Objective::MaxLink);
}

void TestOptimiser::fromScatteredMatchesTheBestPreset()
{
#ifdef RAILYARD_SANITIZED
    QSKIP("search quality on thousands of moves: run by the release suite; under the sanitizers "
          "it takes minutes and reaches no code the smaller cases miss");
#endif
    QFETCH(QString, file);
    QFETCH(int, objective);
    const Objective o = static_cast<Objective>(objective);
    const Scenario s = sample(file.toUtf8().constData());
    const double preset = bestPreset(s, o);
    const OptimiseResult r = optimise(s, budget(o, 1500, StartFrom::Scattered));
    QVERIFY(r.start.value(o) > 2.0 * preset); // scattered really is far off
    QVERIFY2(r.result.value(o) <= preset * 1.005,
        qPrintable(QString::number(r.result.value(o)) + " vs " + QString::number(preset)));
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
