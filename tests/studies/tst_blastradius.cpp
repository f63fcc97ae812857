// The blast radius of degraded parts (model/studies/blastradius.cpp): which TP/DP/PP groups and
// which stages wait on a slow NIC or GPU of the 128-GPU sample, and for how long.
#include "studies/blastradius.h"
#include "studies/blastradiusreport.h"

#include "cost/costengine.h"
#include "fixtures.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>

using namespace railyard;

namespace {

Degradation part(Degradation::Kind kind, int index)
{
    Degradation d;
    d.kind = kind;
    d.index = index;
    if (d.slowsCompute())
        d.computeSpeed = 0.5;
    else
        d.bandwidthFactor = 0.5;
    return d;
}

bool has(const std::vector<WaitingGroup> &groups, GroupKind kind, int index)
{
    return std::any_of(groups.begin(), groups.end(),
        [&](const WaitingGroup &g) { return g.kind == kind && g.index == index; });
}

} // namespace

class TestBlastRadius : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void healthyHasNone();
    void slowNicHoldsItsRailsGroups();
    void slowGpuHoldsEveryGroupOfItsRank();
    void jsonNamesEveryField();
};

void TestBlastRadius::healthyHasNone()
{
    CostEngine engine(fixtures::seed128());
    const BlastRadius r = blastRadius(engine);
    QVERIFY(r.parts.empty());
    QCOMPARE(blastRadiusText(r), std::string());
}

void TestBlastRadius::slowNicHoldsItsRailsGroups()
{
    // nic:10 is node001's NIC 2 (rail 2). Its GPU holds rank 10 = (d 1, p 0, t 2): its DP group
    // (p 0, t 2) rings over node000..node003's GPU 2 through it, and its pipeline (d 1, t 2)
    // sends from node001 to node005 through it. TP stays on NVLink and waits on nothing.
    Scenario s = fixtures::seed128();
    s.degradations.parts = { part(Degradation::Kind::Nic, 10) };
    CostEngine engine(s);
    const BlastRadius r = blastRadius(engine);
    QCOMPARE(r.parts.size(), std::size_t { 1 });
    const PartImpact &p = r.parts[0];
    QCOMPARE(p.name, std::string("nic:10 (node001/nic2)"));
    const ParallelLayout &layout = engine.layout();
    QCOMPARE(p.groups.size(), std::size_t { 2 });
    QVERIFY(has(p.groups, GroupKind::Dp, layout.groupOf(GroupKind::Dp, 10)));
    QVERIFY(has(p.groups, GroupKind::Pp, layout.groupOf(GroupKind::Pp, 10)));
    for (const WaitingGroup &g : p.groups)
        QVERIFY(std::find(g.ranks.begin(), g.ranks.end(), 10) != g.ranks.end());
    // The delay is the part alone against healthy, and here the only part: the whole slowdown.
    CostEngine healthy(fixtures::seed128());
    QVERIFY(p.delay > 0.0);
    QCOMPARE(r.healthyIterationTime, healthy.report().iterationTime);
    QCOMPARE(r.degradedIterationTime, engine.report().iterationTime);
    QCOMPARE(p.delay, r.degradedIterationTime - r.healthyIterationTime);
    QVERIFY(!p.stages.empty());
    for (const WaitingStage &st : p.stages)
        QVERIFY(st.delay > 0.0 && st.delay <= p.delay * (1.0 + 1e-9));
}

void TestBlastRadius::slowGpuHoldsEveryGroupOfItsRank()
{
    // Slot 32 (node004/gpu0) holds rank 32 = (d 0, p 1, t 0): its TP group, its DP group and its
    // pipeline wait on it; stage 1, the slow one, ends later, and so does every stage after the
    // pipeline's drain passes through it.
    Scenario s = fixtures::seed128();
    s.degradations.parts = { part(Degradation::Kind::Gpu, 32), part(Degradation::Kind::Nic, 127) };
    CostEngine engine(s);
    const BlastRadius r = blastRadius(engine);
    QCOMPARE(r.parts.size(), std::size_t { 2 });
    const PartImpact &p = r.parts[0];
    const ParallelLayout &layout = engine.layout();
    QCOMPARE(p.groups.size(), std::size_t { 3 });
    QVERIFY(has(p.groups, GroupKind::Tp, layout.groupOf(GroupKind::Tp, 32)));
    QVERIFY(has(p.groups, GroupKind::Dp, layout.groupOf(GroupKind::Dp, 32)));
    QVERIFY(has(p.groups, GroupKind::Pp, layout.groupOf(GroupKind::Pp, 32)));
    QVERIFY(std::any_of(
        p.stages.begin(), p.stages.end(), [](const WaitingStage &w) { return w.stage == 1; }));
    QCOMPARE(p.stages.size(), std::size_t { 4 });
    // Two parts: each part's delay is its own, the iteration carries both.
    QVERIFY(r.degradedIterationTime >= r.healthyIterationTime + p.delay * (1.0 - 1e-9));
    const std::string text = blastRadiusText(r);
    QVERIFY2(text.find("gpu:32 (node004/gpu0): compute 50 %") != std::string::npos, text.c_str());
    // tp group 4 = (d 0, p 1), dp group 8 = (p 1, t 0), pp group 0 = (d 0, t 0).
    QVERIFY2(
        text.find("    groups waiting: tp 4, dp 8, pp 0\n") != std::string::npos, text.c_str());
}

void TestBlastRadius::jsonNamesEveryField()
{
    Scenario s = fixtures::seed128();
    s.degradations.parts = { part(Degradation::Kind::Nic, 10) };
    CostEngine engine(s);
    const nlohmann::json j = blastRadiusJson(blastRadius(engine));
    QVERIFY(j.is_array());
    QCOMPARE(j.size(), std::size_t { 1 });
    QCOMPARE(j[0].at("id").get<std::string>(), std::string("nic:10"));
    QCOMPARE(j[0].at("effect").get<std::string>(), std::string("50 % bandwidth"));
    QVERIFY(j[0].at("delay_s").get<double>() > 0.0);
    QCOMPARE(j[0].at("groups_waiting").size(), std::size_t { 2 });
    QCOMPARE(j[0].at("groups_waiting")[0].at("ranks").size(), std::size_t { 4 });
    QVERIFY(!j[0].at("stages_waiting").empty());
    QVERIFY(j[0].at("stages_waiting")[0].contains("delay_s"));
}

QTEST_GUILESS_MAIN(TestBlastRadius)
#include "tst_blastradius.moc"
