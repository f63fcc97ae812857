// "Use what NCCL did" in the engine (scenario nccl_observed, cost/trafficmodelplans.cpp): a DP
// group whose slots are a logged communicator's runs its ring plan over NCCL's rings. On 2 x 8
// GPUs with tp 4 x dp 4, DP group 0 holds slots 0, 4 (server 0) and 8, 12 (server 1); the
// predicted rings keep each hop between the servers on one rail (NIC 0 to 0, 4 to 4: no spine
// byte), NCCL's logged ring 0 -> 4 -> 8 -> 12 crosses from rail 4 to rail 0 twice (through a
// spine). Without the section the report is the one the engine always made.
#include "cost/costengine.h"
#include "fixtures.h"

#include <QTest>

using namespace railyard;

namespace {

Scenario dpScenario()
{
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(4, 1, 4));
    s.collectives.algorithm = CollectiveAlgorithm::Ring;
    return s;
}

NcclObservedSpec crossingRing()
{
    NcclObservedSpec o;
    NcclObservedComm c;
    c.group = "dp 0";
    c.slots = { 0, 4, 8, 12 };
    c.rings = { { 0, 1, 2, 3 } };
    o.comms = { c };
    return o;
}

} // namespace

class TestNcclObservedRings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void observedRingReachesTheSpine();
    void unmatchedSectionChangesNothing();
};

void TestNcclObservedRings::observedRingReachesTheSpine()
{
    const Scenario plain = dpScenario();
    const CostEngine predicted(plain);
    QCOMPARE(fixtures::tierDimBytes(predicted, Tier::Spine, Dim::Dp), 0.0);
    const double leafBefore = fixtures::tierDimBytes(predicted, Tier::Leaf, Dim::Dp);
    QVERIFY(leafBefore > 0.0);

    Scenario observed = plain;
    observed.ncclObserved = crossingRing();
    const CostEngine used(observed);
    // Per pass every ring hop carries S (n-1)/n over its channels: 4 DP groups, each with 2
    // hops between the servers per ring. Predicted: 2 channels (NICs 0 and 4) of S 3/8 per hop,
    // each hop on 2 leaf links (NIC -> leaf -> NIC): 4 x 2 x 2 x 2 x 3/8 S = 24 S on leaf links.
    // NCCL's one ring for group 0: its 2 hops carry S 3/4 each, up and down a leaf (2 links)
    // and through a spine (leaf -> spine -> leaf, 2 links): 6 S on leaf links as before, and
    // 2 x 2 x 3/4 S x 2 = 6 S on spine links, a quarter of the leaf bytes.
    const double spine = fixtures::tierDimBytes(used, Tier::Spine, Dim::Dp);
    const double leafAfter = fixtures::tierDimBytes(used, Tier::Leaf, Dim::Dp);
    QVERIFY(spine > 0.0);
    QVERIFY2(qFuzzyCompare(spine, leafBefore / 4.0),
        qPrintable(QStringLiteral("spine %1, leaf %2").arg(spine).arg(leafBefore)));
    QVERIFY(qFuzzyCompare(leafAfter, leafBefore));
    QCOMPARE(used.report().links.size(), predicted.report().links.size());
}

void TestNcclObservedRings::unmatchedSectionChangesNothing()
{
    // A communicator no group matches (slots 0 and 1 are in one TP group of 4 with 2 and 3)
    // leaves every link load as predicted.
    const Scenario plain = dpScenario();
    Scenario other = plain;
    NcclObservedSpec o;
    NcclObservedComm c;
    c.slots = { 0, 1 };
    c.rings = { { 0, 1 } };
    o.comms = { c };
    other.ncclObserved = o;
    const CostEngine a(plain), b(other);
    QCOMPARE(b.report().links.size(), a.report().links.size());
    for (std::size_t i = 0; i < a.report().links.size(); ++i)
        QCOMPARE(b.report().links[i].busyTime, a.report().links[i].busyTime);
    QCOMPARE(b.report().iterationTime, a.report().iterationTime);
}

QTEST_GUILESS_MAIN(TestNcclObservedRings)
#include "tst_ncclobservedrings.moc"
