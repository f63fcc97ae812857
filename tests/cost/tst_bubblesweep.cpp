/**
 * Tests of the bubble sweep: with equal stages and no sends it reproduces the hand-derived
 * fill/drain bubbles ((p-1)/(m+p-1) for GPipe and 1F1B, Narayanan et al. SC'21 §2.2.1;
 * (p-1)/(v*m+p-1) interleaved, §2.2.2); on a real scenario each point equals the engine's own
 * numbers for a scenario whose global batch gives that m; refused counts carry the message.
 */
#include "comparenear.h"
#include "cost/bubblesweep.h"
#include "cost/costengine.h"
#include "scenario/scenariofile.h"
#include "fixtures.h"

#include <QString>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace railyard;

Q_DECLARE_METATYPE(railyard::ScheduleKind)

namespace {

Scenario withMicrobatches(Scenario s, int m)
{
    s.training.globalBatch = m * s.training.microBatch * s.degrees.dp;
    return s;
}

} // namespace

class TestBubbleSweep : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void equalStagesMatchFormula_data();
    void equalStagesMatchFormula();
    void matchesEngineAtCurrentM();
    void matchesFreshEngineAtOtherM_data();
    void matchesFreshEngineAtOtherM();
    void refusedCountsCarryMessage();
    void countsIncludeCurrentAndRespectStep();
};

void TestBubbleSweep::equalStagesMatchFormula_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("v");
    QTest::newRow("1f1b p4") << ScheduleKind::OneFOneB << 4 << 1;
    QTest::newRow("gpipe p4") << ScheduleKind::GPipe << 4 << 1;
    QTest::newRow("1f1b p8") << ScheduleKind::OneFOneB << 8 << 1;
    QTest::newRow("interleaved p4 v2") << ScheduleKind::Interleaved << 4 << 2;
}

void TestBubbleSweep::equalStagesMatchFormula()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, p);
    QFETCH(int, v);
    const double tf = 1.0e-3, tb = 2.0e-3;
    PipelineInput base;
    base.kind = kind;
    base.stages = p;
    base.chunks = v;
    base.forward.assign(static_cast<std::size_t>(p), tf);
    base.backward.assign(static_cast<std::size_t>(p), tb);

    std::vector<int> counts;
    for (int k = 1; k <= 6; ++k)
        counts.push_back(k * p); // multiples of p: valid for every schedule
    const std::vector<BubbleSweepPoint> pts = bubbleSweep(base, counts);
    QCOMPARE(pts.size(), counts.size());
    for (const BubbleSweepPoint &pt : pts) {
        QVERIFY2(pt.valid, pt.error.c_str());
        const double m = pt.microbatches;
        // Fill/drain: (p-1)/v idle slots of (tf+tb) per stage around v*m busy chunk slots.
        const double bubble = (p - 1) / (v * m + p - 1);
        const double makespan = (m + (p - 1.0) / v) * (tf + tb);
        COMPARE_NEAR(pt.bubbleFraction, bubble);
        COMPARE_NEAR(pt.makespan, makespan);
        COMPARE_NEAR(pt.iterationTime, makespan);
    }
}

void TestBubbleSweep::matchesEngineAtCurrentM()
{
    const CostEngine engine(fixtures::seed128());
    const CostReport &r = engine.report();
    const int m = engine.plan().microbatches;
    QCOMPARE(m, 16); // global 64 / (micro 1 * dp 4)
    const BubbleSweepPoint pt = bubbleSweepPoint(engine, m);
    QVERIFY(pt.valid);
    COMPARE_NEAR(pt.bubbleFraction, r.bubbleFraction);
    COMPARE_NEAR(pt.makespan, r.pipelineMakespan);
    COMPARE_NEAR(pt.iterationTime, r.iterationTime);
    // The sample's stages are unequal (embedding, output layer) and its boundaries cost time,
    // so the bubble is not the ideal (p-1)/(m+p-1); the sweep must follow the engine, not it.
    QVERIFY(r.bubbleFraction > 0.0);
}

void TestBubbleSweep::matchesFreshEngineAtOtherM_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("m");
    QTest::newRow("1f1b m1") << ScheduleKind::OneFOneB << 1;
    QTest::newRow("1f1b m4") << ScheduleKind::OneFOneB << 4;
    QTest::newRow("1f1b m7") << ScheduleKind::OneFOneB << 7;
    QTest::newRow("1f1b m64") << ScheduleKind::OneFOneB << 64;
    QTest::newRow("gpipe m8") << ScheduleKind::GPipe << 8;
    QTest::newRow("interleaved m8") << ScheduleKind::Interleaved << 8;
    QTest::newRow("interleaved m32") << ScheduleKind::Interleaved << 32;
}

void TestBubbleSweep::matchesFreshEngineAtOtherM()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, m);
    Scenario s = fixtures::seed128();
    s.training.schedule = kind;
    s.training.interleave = kind == ScheduleKind::Interleaved ? 2 : 1;
    const CostEngine engine(s); // at the sample's m = 16
    const BubbleSweepPoint pt = bubbleSweepPoint(engine, m);
    QVERIFY2(pt.valid, pt.error.c_str());

    const CostEngine fresh(withMicrobatches(s, m));
    QCOMPARE(fresh.plan().microbatches, m);
    COMPARE_NEAR(pt.bubbleFraction, fresh.report().bubbleFraction);
    COMPARE_NEAR(pt.makespan, fresh.report().pipelineMakespan);
    COMPARE_NEAR(pt.iterationTime, fresh.report().iterationTime);
}

void TestBubbleSweep::refusedCountsCarryMessage()
{
    Scenario s = fixtures::seed128();
    s.training.schedule = ScheduleKind::Interleaved;
    s.training.interleave = 2;
    const CostEngine engine(s);
    const std::vector<BubbleSweepPoint> pts = bubbleSweep(engine, { 6, 8, 0 });
    QCOMPARE(pts.size(), std::size_t { 3 });
    QVERIFY(!pts[0].valid); // 6 % pp 4 != 0
    QVERIFY(QString::fromStdString(pts[0].error)
                .contains(QStringLiteral("multiple of the pipeline stages")));
    QVERIFY(pts[1].valid);
    QVERIFY(!pts[2].valid);
    QVERIFY(!pts[2].error.empty());
}

void TestBubbleSweep::countsIncludeCurrentAndRespectStep()
{
    Scenario s = fixtures::seed128();
    {
        const CostEngine engine(s);
        const std::vector<int> c = bubbleSweepCounts(engine);
        QVERIFY(std::is_sorted(c.begin(), c.end()));
        QCOMPARE(c.front(), 1);
        QVERIFY(std::find(c.begin(), c.end(), 16) != c.end());
        QVERIFY(c.back() >= 32);
    }
    s.training.schedule = ScheduleKind::Interleaved;
    s.training.interleave = 2;
    {
        const CostEngine engine(s);
        const std::vector<int> c = bubbleSweepCounts(engine);
        for (const int m : c)
            QCOMPARE(m % 4, 0);
        for (const BubbleSweepPoint &pt : bubbleSweep(engine, c))
            QVERIFY(pt.valid);
    }
    // Large m: thinned to about maxPoints, still containing the current count.
    const CostEngine big(withMicrobatches(fixtures::seed128(), 1000));
    const std::vector<int> c = bubbleSweepCounts(big, 20);
    QVERIFY(c.size() <= 22);
    QVERIFY(std::find(c.begin(), c.end(), 1000) != c.end());
    QCOMPARE(c.back(), 2000);
    QVERIFY(std::adjacent_find(c.begin(), c.end()) == c.end());
}

QTEST_GUILESS_MAIN(TestBubbleSweep)
#include "tst_bubblesweep.moc"
