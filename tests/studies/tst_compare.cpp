// A/B comparison of two placements: figures, changed links and moved ranks, against hand counts.
#include "studies/compare.h"
#include "scenario/scenariofile.h"
#include "fixtures.h"

#include <QDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <utility>

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
    void tinyDifferencesAreNoChange();
    void attributionOfASwapAcrossServers();
    void attributionOfDpAloneOffItsRail();
    void attributionOfMoreMicrobatches();
    void samplesFitOrSayTheyDoNot();
    void whiteboardArrowsJoinTheirGroup();
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

void TestCompare::tinyDifferencesAreNoChange()
{
    // Compare A/B showed "-8.6e-05 pp" and a red "+0.0 %": a change below the precision a
    // figure is written with is "=" and takes no verdict colour.
    ComparedFigure share { "s", "s", ComparedFigure::Unit::Fraction, ComparedFigure::Better::Lower,
        0.25, 0.25 - 8.6e-7 };
    QVERIFY(!share.changed());
    QCOMPARE(share.verdict(), 0);
    QCOMPARE(QString::fromStdString(formatFigureDelta(share)), QStringLiteral("="));
    ComparedFigure time { "t", "t", ComparedFigure::Unit::Seconds, ComparedFigure::Better::Lower,
        2.775, 2.775 * (1.0 + 2e-4) };
    QVERIFY(!time.changed());
    QCOMPARE(time.verdict(), 0);
    QCOMPARE(QString::fromStdString(formatFigureDelta(time)), QStringLiteral("="));
    // What shows at one decimal is a change.
    ComparedFigure real { "r", "r", ComparedFigure::Unit::Fraction, ComparedFigure::Better::Lower,
        0.25, 0.2506 };
    QCOMPARE(real.verdict(), -1);
    QCOMPARE(QString::fromStdString(formatFigureDelta(real)), QStringLiteral("+0.1 pp"));
    ComparedFigure count { "c", "c", ComparedFigure::Unit::Count, ComparedFigure::Better::Lower,
        0.0, 1.0 };
    QCOMPARE(count.verdict(), -1);
}

void TestCompare::attributionOfASwapAcrossServers()
{
    // railyard-cli evaluate seed-128.json --swap 1:8: rank 1 (node000/gpu1) and rank 8
    // (node001/gpu0) split TP groups 0 and 1 across servers; 1.03 TB of TP and 39.1 GB of DP
    // reach the spine, exposed TP 453 ms -> 3.14 s, DP 123 ms -> 84 ms. TP dominates.
    const Scenario s = fixtures::seed128();
    const CostEngine a(s);
    CostEngine b(s);
    b.swapRanks(1, 8);
    const ChangeAttribution c = compareEngines(a, b).attribution;
    QCOMPARE(c.dominant, ChangeAttribution::Cause::Dimension);
    QCOMPARE(c.dominantDim, Dim::Tp);
    QVERIFY(c.byTime);
    const DimAttribution &tp = c.dim(Dim::Tp);
    QCOMPARE(tp.bytesA[index(Tier::Spine)], 0.0);
    QCOMPARE(
        tp.bytesB[index(Tier::Spine)], b.report().tierBytes[index(Tier::Spine)][index(Dim::Tp)]);
    QVERIFY(tp.bytesB[index(Tier::Spine)] > 1e12);
    QCOMPARE(tp.exposedB, b.report().dimExposed[index(Dim::Tp)]);
    QVERIFY(tp.exposedDelta() > 2.0);
    const DimAttribution &dp = c.dim(Dim::Dp);
    QVERIFY(dp.bytesB[index(Tier::Spine)] > 0.0);
    QVERIFY(tp.bytesB[index(Tier::Spine)] > 10.0 * dp.bytesB[index(Tier::Spine)]);
    QCOMPARE(c.iterationB - c.iterationA, b.report().iterationTime - a.report().iterationTime);
    const std::string text = describeChange(c);
    QVERIFY2(text.find("most of the change on TP") != std::string::npos, text.c_str());
    QVERIFY2(text.find("spine tier from 0 B to 1.03 TB") != std::string::npos, text.c_str());
    QVERIFY2(text.find("Smaller: DP") != std::string::npos, text.c_str());
}

void TestCompare::attributionOfDpAloneOffItsRail()
{
    // GPU 0 <-> GPU 1 on the four servers of pipeline d = 0 (node000, 004, 008, 012): TP groups
    // stay whole and each pipeline stays on one rail, so only DP reaches the spine (310 GB); the
    // iteration does not change (railyard-cli evaluate --swap 0:1 --swap 32:33 --swap 64:65
    // --swap 96:97). No time changed: the dimension whose bytes moved dominates.
    const Scenario s = fixtures::seed128();
    const CostEngine a(s);
    CostEngine b(s);
    for (const auto &[x, y] :
        { std::pair { 0, 1 }, std::pair { 32, 33 }, std::pair { 64, 65 }, std::pair { 96, 97 } })
        b.swapRanks(x, y);
    const ChangeAttribution c = attributeChange(a.report(), b.report());
    QVERIFY(!c.byTime);
    QCOMPARE(c.dominant, ChangeAttribution::Cause::Dimension);
    QCOMPARE(c.dominantDim, Dim::Dp);
    for (Dim d : { Dim::Tp, Dim::Pp, Dim::Ep, Dim::Cp })
        QCOMPARE(c.dim(d).bytesB[index(Tier::Spine)], 0.0);
    QVERIFY(c.dim(Dim::Dp).bytesB[index(Tier::Spine)] > 3e11);
    const std::string text = describeChange(c);
    QVERIFY2(text.find("where DP's bytes go") != std::string::npos, text.c_str());
    // Nothing changed: nothing to say.
    QCOMPARE(attributeChange(a.report(), a.report()).dominant, ChangeAttribution::Cause::None);
    QVERIFY(describeChange(attributeChange(a.report(), a.report())).empty());
}

void TestCompare::attributionOfMoreMicrobatches()
{
    // 4 -> 16 micro-batches (global batch 16 -> 64): the compute grows with the batch and the
    // bubble shrinks; no dimension's exposed time changes as much.
    Scenario s = fixtures::seed128();
    s.training.globalBatch = 16;
    const CostEngine a(s);
    s.training.globalBatch = 64;
    const CostEngine b(s);
    const ChangeAttribution c = attributeChange(a.report(), b.report());
    QCOMPARE(c.dominant, ChangeAttribution::Cause::Schedule);
    QVERIFY(c.bubbleB < c.bubbleA);
    QVERIFY(describeChange(c).find("compute and the pipeline bubble") != std::string::npos);
}

void TestCompare::samplesFitOrSayTheyDoNot()
{
    // A shipped sample fits in its device's memory unless it exists to show one that does not,
    // and then its description says so.
    const QDir dir(QStringLiteral(RAILYARD_SOURCE_DIR "/samples"));
    int checked = 0;
    for (const QString &name : dir.entryList({ QStringLiteral("*.json") }, QDir::Files)) {
        const Scenario s = loadScenario(dir.filePath(name).toStdString());
        const CostEngine e(s);
        ++checked;
        if (!e.report().memoryFits)
            QVERIFY2(s.description.find("does not fit") != std::string::npos, qPrintable(name));
    }
    QVERIFY(checked >= 10);
}

void TestCompare::whiteboardArrowsJoinTheirGroup()
{
    // The whiteboard sample's "DP ring" arrow ended on rank 32, rank 0's next pipeline stage:
    // an arrow labelled with a dimension joins two ranks of one group of that dimension.
    const Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128-whiteboard.json");
    const CostEngine e(s);
    int checked = 0;
    for (const Annotation &a : s.annotations) {
        if (a.kind != Annotation::Kind::Arrow || a.anchor.kind != AnnotationAnchor::Kind::Rank
            || a.target.kind != AnnotationAnchor::Kind::Rank)
            continue;
        for (const auto &[prefix, kind] : { std::pair { "DP", GroupKind::Dp },
                 std::pair { "TP", GroupKind::Tp }, std::pair { "PP", GroupKind::Pp } })
            if (a.text.rfind(prefix, 0) == 0) {
                QVERIFY2(e.layout().groupOf(kind, a.anchor.index)
                        == e.layout().groupOf(kind, a.target.index),
                    a.text.c_str());
                ++checked;
            }
    }
    QCOMPARE(checked, 1);
}

QTEST_GUILESS_MAIN(TestCompare)
#include "tst_compare.moc"
