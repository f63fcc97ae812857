// The engine's second line of defence behind the readers' ranges (cost/reportfinite.h): every
// figure of a report is finite, or the evaluation is refused naming the figures and the inputs
// they come from (#40: a 1e-308 Gbit/s NIC printed "inf s" and a "-nan ns" window). And the
// ranges at their edges: the slowest and fastest links the readers accept evaluate to finite
// figures.
#include "base/physicalranges.h"
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/reportfinite.h"
#include "fabric/fabric.h"
#include "fixtures.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace railyard;

class TestReportFinite : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void realReportIsFinite();
    void everyKindOfFigureIsWalked();
    void nonFiniteReportIsRefused();
    void rangeEdgesEvaluateFinite_data();
    void rangeEdgesEvaluateFinite();
    void fabricRefusesOutOfRangeLinks();
};

void TestReportFinite::realReportIsFinite()
{
    const CostReport r = evaluate(fixtures::seed128());
    QVERIFY(r.iterationTime > 0.0);
    QVERIFY(nonFiniteFigures(r).empty());
    checkReportFinite(r); // does not throw
}

void TestReportFinite::everyKindOfFigureIsWalked()
{
    const CostReport good = evaluate(fixtures::seed128());
    QVERIFY(!good.links.empty() && !good.phases.empty() && !good.stages.empty()
        && !good.memory.empty() && !good.timeline.events.empty());
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // One figure of each part at a time: each is found under its path.
    const std::vector<std::pair<std::string, std::function<void(CostReport &)>>> cases {
        { "iteration_time_s = inf", [&](CostReport &r) { r.iterationTime = inf; } },
        { "bubble_fraction = nan", [&](CostReport &r) { r.bubbleFraction = nan; } },
        { "dim_exposed_s[2] = -inf", [&](CostReport &r) { r.dimExposed[2] = -inf; } },
        { "tier_bytes[1][0] = inf", [&](CostReport &r) { r.tierBytes[1][0] = inf; } },
        { "link_stats.p99 = nan", [&](CostReport &r) { r.linkStats.p99 = nan; } },
        { "links[3].busy_time_s = inf",
            [&](CostReport &r) {
                LinkLoad l = r.links[3];
                l.busyTime = inf;
                r.links.set(3, l);
            } },
        { "links[0].dim_bytes[1] = nan",
            [&](CostReport &r) {
                LinkLoad l = r.links[0];
                l.dimBytes[1] = nan;
                r.links.set(0, l);
            } },
        { "phases[0].time_s = inf", [&](CostReport &r) { r.phases[0].time = inf; } },
        { "timeline.events[1].end_s = nan",
            [&](CostReport &r) { r.timeline.events[1].end = nan; } },
        { "stage_forward_s[0] = inf", [&](CostReport &r) { r.stageForward[0] = inf; } },
        { "stages[0].dp_window_s = nan", [&](CostReport &r) { r.stages[0].dpWindow = nan; } },
        { "memory[0].activations = inf", [&](CostReport &r) { r.memory[0].activations = inf; } },
        { "dp_overlap_window_s = nan", [&](CostReport &r) { r.dpOverlapWindow = nan; } },
    };
    for (const auto &[expected, spoil] : cases) {
        CostReport r = good;
        spoil(r);
        const std::vector<std::string> found = nonFiniteFigures(r);
        QVERIFY2(std::find(found.begin(), found.end(), expected) != found.end(), expected.c_str());
    }
}

void TestReportFinite::nonFiniteReportIsRefused()
{
    CostReport r = evaluate(fixtures::seed128());
    r.iterationTime = std::numeric_limits<double>::infinity();
    r.phases[0].time = std::numeric_limits<double>::quiet_NaN();
    try {
        checkReportFinite(r);
        QFAIL("a report with inf and nan passed");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string("report"));
        const std::string what = e.what();
        QVERIFY2(what.find("iteration_time_s = inf, phases[0].time_s = nan") != std::string::npos,
            e.what());
        QVERIFY2(what.find("fabric.*_gbps") != std::string::npos, e.what()); // the inputs
    }
}

void TestReportFinite::rangeEdgesEvaluateFinite_data()
{
    QTest::addColumn<double>("gbps");
    QTest::addColumn<double>("latencyUs");
    QTest::newRow("slowest") << ranges::kMinLinkGbps << ranges::kMaxLatencyUs;
    QTest::newRow("fastest") << ranges::kMaxLinkGbps << 0.0;
}

void TestReportFinite::rangeEdgesEvaluateFinite()
{
    QFETCH(double, gbps);
    QFETCH(double, latencyUs);
    Scenario s = fixtures::seed128();
    for (LinkSpec *l : { &s.fabric.scaleUp, &s.fabric.pcie, &s.fabric.nic, &s.fabric.fabricPort }) {
        l->gbps = gbps;
        l->latencyUs = latencyUs;
    }
    const CostReport r = evaluate(s); // would throw if any figure were not finite
    QVERIFY(std::isfinite(r.iterationTime) && r.iterationTime > 0.0);
    QVERIFY(nonFiniteFigures(r).empty());
    // At 1 Mbit/s the seed job's gigabytes of gradients take hours, not inf.
    if (gbps == ranges::kMinLinkGbps)
        QVERIFY(r.iterationTime > 3600.0);
}

void TestReportFinite::fabricRefusesOutOfRangeLinks()
{
    // A spec built in code (the GUI, the importers) meets the same ranges as a file.
    for (const double gbps : { 1e-308, 0.0009, 1.1e6 }) {
        Scenario s = fixtures::seed128();
        s.fabric.nic.gbps = gbps;
        try {
            (void)Fabric::build(s.fabric);
            QFAIL("an out-of-range NIC speed built a fabric");
        } catch (const ScenarioError &e) {
            QCOMPARE(e.field(), std::string("fabric.nic_gbps"));
            QVERIFY2(e.reason().find("bandwidth must be 0.001 to 1e+06 Gbit/s") == 0, e.what());
        }
    }
}

QTEST_GUILESS_MAIN(TestReportFinite)
#include "tst_reportfinite.moc"
