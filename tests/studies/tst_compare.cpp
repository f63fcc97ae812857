// A/B comparison of two placements: figures, changed links and moved ranks, against hand counts.
#include "studies/compare.h"
#include "scenario/scenariofile.h"
#include "fixtures.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace railyard;

namespace {

double spineTierBytes(const CostReport &r)
{
    double sum = 0.0;
    for (double v : r.tierBytes[index(Tier::Spine)])
        sum += v;
    return sum;
}

} // namespace

class TestCompare : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void identicalPlacementsDifferInNothing();
    void swapShowsTwoMovedRanksAndSpineLinks();
    void droppedReplicasAreCountedByCoordinates();
    void differentFabricsSkipLinks();
    void figureArithmetic();
    void jsonCarriesTheFigures();
};

void TestCompare::identicalPlacementsDifferInNothing()
{
    const Scenario s = fixtures::seed128();
    const CostEngine a(s), b(s);
    const Comparison c = compareEngines(a, b);
    QVERIFY(c.sameTopology);
    QCOMPARE(c.changedLinkCount, 0);
    QVERIFY(c.links.empty());
    QVERIFY(c.moved.empty());
    QCOMPARE(c.ranksCompared, 128);
    for (const ComparedFigure &f : c.figures) {
        QCOMPARE(f.delta(), 0.0);
        QCOMPARE(f.verdict(), 0);
    }
    // Throughput = global batch x sequence length / iteration time: 64 x 4096 tokens.
    const ComparedFigure *tput = c.figure("tokens_per_s");
    QVERIFY(tput);
    QCOMPARE(tput->a, 64.0 * 4096.0 / a.report().iterationTime);
}

void TestCompare::swapShowsTwoMovedRanksAndSpineLinks()
{
    // Ranks 0 (node000/gpu0, t=0) and 9 (node001/gpu1, t=1): both DP groups leave their rail
    // (the same-rail property of the packed layout), so B puts DP bytes on the spine and A has none.
    const Scenario s = fixtures::seed128();
    const CostEngine a(s);
    CostEngine b(s);
    b.swapRanks(0, 9);
    const Comparison c = compareEngines(a, b, 1000);

    QCOMPARE(c.moved.size(), std::size_t { 2 });
    for (const RankMove &m : c.moved) {
        QCOMPARE(m.rankA, m.rankB);
        QVERIFY(m.rankA == 0 || m.rankA == 9);
        QCOMPARE(m.slotA, m.rankA); // packed: rank r on slot r
        QCOMPARE(m.slotB, m.rankA == 0 ? 9 : 0); // swapped
    }
    const ComparedFigure *spine = c.figure("spine_bytes");
    QVERIFY(spine);
    QCOMPARE(spine->a, 0.0);
    QVERIFY(spine->b > 0.0);
    QCOMPARE(spine->b, spineTierBytes(b.report()));
    QCOMPARE(spine->verdict(), -1);
    QCOMPARE(c.figure("dp_groups_off_rail")->b, 2.0);
    QCOMPARE(c.figure("tp_groups_across_servers")->b, 2.0); // both ranks left their server

    // Every listed link really differs, they come largest change first, and the list holds
    // every changed link when the cap allows.
    QVERIFY(c.changedLinkCount > 0);
    QVERIFY(static_cast<int>(c.links.size()) >= c.changedLinkCount);
    for (std::size_t i = 0; i < c.links.size(); ++i) {
        const LinkChange &l = c.links[i];
        QCOMPARE(l.bytesA, a.report().links[l.link].bytes);
        QCOMPARE(l.bytesB, b.report().links[l.link].bytes);
        if (i > 0)
            QVERIFY(std::abs(c.links[i - 1].delta()) >= std::abs(l.delta()));
    }
    // A cap keeps exactly the head of the full list (the selection runs while the links are
    // read, dropping the lower half whenever it holds twice the cap).
    QVERIFY(c.links.size() < 1000 && c.links.size() > 2 * 7);
    for (const int cap : { 1, 3, 7 }) {
        const Comparison capped = compareEngines(a, b, cap);
        QCOMPARE(capped.links.size(), std::size_t(cap));
        for (std::size_t i = 0; i < capped.links.size(); ++i)
            QCOMPARE(capped.links[i].link, c.links[i].link);
        QCOMPARE(capped.changedLinkCount, c.changedLinkCount);
    }
    QVERIFY(compareEngines(a, b, 0).links.empty());
}

void TestCompare::droppedReplicasAreCountedByCoordinates()
{
    // B drops replica d=3 (dp 4 -> 3, packed on the first 96 slots). Global rank
    // r = t + 8(d + dp*p) (order tp-cp-ep-dp-pp), so a shard keeps its slot only when p = 0:
    // 3*8 = 24 stay, 3*3*8 = 72 move, 4*8 = 32 (d = 3) are dropped, none added.
    const Scenario s = fixtures::seed128();
    Scenario t = s;
    t.degrees.dp = 3;
    t.training.globalBatch = 48; // 16 micro-batches per replica, as in A
    t.slots.clear();
    t.placement = Placement::Packed;
    const CostEngine a(s), b(t);
    const Comparison c = compareEngines(a, b);
    int dropped = 0, added = 0, moved = 0;
    for (const RankMove &m : c.moved) {
        dropped += m.rankB < 0;
        added += m.rankA < 0;
        moved += m.rankA >= 0 && m.rankB >= 0;
        if (m.rankB < 0)
            QCOMPARE(m.coord.d, 3);
        if (m.rankA >= 0 && m.rankB >= 0)
            QVERIFY(m.coord.p >= 1);
    }
    QCOMPARE(c.ranksCompared, 96);
    QCOMPARE(dropped, 32);
    QCOMPARE(added, 0);
    QCOMPARE(moved, 72);
    QCOMPARE(c.figure("ranks")->delta(), -32.0);
    QCOMPARE(c.figure("ranks")->verdict(), 0);
}

void TestCompare::differentFabricsSkipLinks()
{
    const Scenario rail = fixtures::seed128();
    const Scenario tor = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128-tor.json");
    const CostEngine a(rail), b(tor);
    const Comparison c = compareEngines(a, b);
    QVERIFY(!c.sameTopology);
    QVERIFY(c.links.empty());
    // Rail wiring against ToR: no spine bytes on rails, some on ToR leaves.
    QCOMPARE(c.figure("spine_bytes_share")->a, 0.0);
    QVERIFY(c.figure("spine_bytes_share")->b > 0.0);
}

void TestCompare::figureArithmetic()
{
    ComparedFigure f { "x", "x", ComparedFigure::Unit::Seconds, ComparedFigure::Better::Lower, 2.0,
        1.5 };
    QCOMPARE(f.delta(), -0.5);
    QCOMPARE(f.relative(), -0.25);
    QCOMPARE(f.verdict(), 1);
    QCOMPARE(QString::fromStdString(formatFigureDelta(f)), QStringLiteral("-500 ms (-25.0 %)"));
    f.better = ComparedFigure::Better::Higher;
    QCOMPARE(f.verdict(), -1);
    ComparedFigure u { "u", "u", ComparedFigure::Unit::Fraction, ComparedFigure::Better::Lower, 0.4,
        0.5 };
    QCOMPARE(QString::fromStdString(formatFigureDelta(u)), QStringLiteral("+10.0 pp"));
    ComparedFigure z { "z", "z", ComparedFigure::Unit::Bytes, ComparedFigure::Better::Lower, 0.0,
        5.0 };
    QVERIFY(std::isinf(z.relative()));
}

void TestCompare::jsonCarriesTheFigures()
{
    const Scenario s = fixtures::seed128();
    const CostEngine a(s);
    CostEngine b(s);
    b.swapRanks(0, 9);
    const nlohmann::json j = comparisonToJson(compareEngines(a, b), b.fabric());
    QCOMPARE(j["figures"]["iteration_time_s"]["a"].get<double>(), a.report().iterationTime);
    QCOMPARE(j["figures"]["iteration_time_s"]["b"].get<double>(), b.report().iterationTime);
    QCOMPARE(j["figures"]["spine_bytes"]["verdict"].get<std::string>(), std::string("worse"));
    QCOMPARE(j["moved_ranks"].size(), std::size_t { 2 });
    QVERIFY(j["same_topology"].get<bool>());
}

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
