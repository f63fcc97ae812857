// "Use what NCCL did" in the engine (scenario nccl_observed, cost/trafficmodelplans.cpp): a DP
// group whose slots are a logged communicator's runs its ring plan over NCCL's rings. On 2 x 8
// GPUs with tp 4 x dp 4, DP group 0 holds slots 0, 4 (server 0) and 8, 12 (server 1); the
// predicted rings keep each hop between the servers on one rail (NIC 0 to 0, 4 to 4: no spine
// byte), NCCL's logged ring 0 -> 4 -> 8 -> 12 crosses from rail 4 to rail 0 twice (through a
// spine). Without the section the report is the one the engine always made.
//
// The NICs NCCL logged (section version 2): the engine's own rings for DP group 0 (0 -> 1 -> 3 ->
// 2 and 0 -> 2 -> 3 -> 1) with server 0's GPU 4 (slot 4) bound to NIC 5, rail 5's, instead of
// its own NIC 4. Its hop out (channel 0, to slot 12) and its hop in (channel 1, from slot 12) then
// run over NIC 5 and through a spine; server 0's NIC 4 carries nothing, NIC 5 twice what it did
// (DP group 1's own hop, slot 5 -> 13, and the mis-bound one), and the DP sync's bandwidth term
// doubles.
#include "cost/costengine.h"
#include "fabric/fabric.h"
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

/// DP group 0 on the engine's own two rings; with `nics`, server 0's GPU 4 (communicator rank 1)
/// on NIC 5 for its hop out on ring 0 and its hop in on ring 1, every other network hop on its
/// GPUs' own NICs as NCCL logged them.
NcclObservedSpec misBoundRings(bool nics)
{
    NcclObservedSpec o;
    NcclObservedComm c;
    c.group = "dp 0";
    c.slots = { 0, 4, 8, 12 };
    c.rings = { { 0, 1, 3, 2 }, { 0, 2, 3, 1 } };
    if (nics)
        c.nics = { { 0, 1, 5, 4, false }, { 0, 2, 0, 0, false }, { 1, 0, 0, 0, false },
            { 1, 3, 4, 5, false } };
    o.comms = { c };
    return o;
}

double dpBytes(const CostEngine &e, int link)
{
    return e.report().links.at(static_cast<std::size_t>(link)).dimBytes[index(Dim::Dp)];
}

/// NIC `nic` of `server` -> its leaf (`up`), or back.
int nicLink(const Fabric &f, int server, int nic, bool up)
{
    const int n = f.nicVertex(server, nic), leaf = f.leafVertex(f.leafOfNic(server, nic));
    return up ? f.linkBetween(n, leaf) : f.linkBetween(leaf, n);
}

/// The PCIe link of `slot`'s GPU to its NIC (`up`), or back.
int pcieLink(const Fabric &f, int slot, bool up)
{
    const int g = f.gpuVertex(slot);
    const int n = f.nicVertex(f.serverOfSlot(slot), f.nicOfGpu(f.gpuOfSlot(slot)));
    return up ? f.linkBetween(g, n) : f.linkBetween(n, g);
}

const PhaseResult &dpPhase(const CostEngine &e)
{
    for (const PhaseResult &p : e.report().phases)
        if (p.dim == Dim::Dp)
            return p;
    throw std::runtime_error("no DP phase");
}

} // namespace

class TestNcclObservedRings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void observedRingReachesTheSpine();
    void unmatchedSectionChangesNothing();
    void misBoundNicMovesItsTraffic();
    void misBoundNicUnderHashedEcmp();
    void moveOutOfTheLoggedGroupAndBack();
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

void TestNcclObservedRings::misBoundNicMovesItsTraffic()
{
    const Scenario plain = dpScenario();
    const CostEngine predicted(plain);
    const Fabric &f = predicted.fabric();
    // The logged rings are the predicted ones: with the GPUs' own NICs nothing moves.
    Scenario rings = plain;
    rings.ncclObserved = misBoundRings(false);
    const CostEngine same(rings);
    for (int l = 0; l < f.linkCount(); ++l)
        QCOMPARE(dpBytes(same, l), dpBytes(predicted, l));

    // Every ring hop carries S (n-1)/n / C per pass: 4 ranks, 2 channels, 3/8 S. Summed over the
    // DP sync's ops (passes x S x count), that is the bytes per iteration of one hop.
    double hop = 0.0;
    for (const PhaseResult &p : predicted.report().phases)
        if (p.dim == Dim::Dp)
            hop += (p.collective == Collective::AllReduce ? 2.0 : 1.0) * p.bytes * p.count * 3.0
                / 8.0;
    QVERIFY(hop > 0.0);
    QCOMPARE(dpBytes(predicted, nicLink(f, 0, 4, true)), hop); // slot 4 -> 12 (ring 0)
    QCOMPARE(dpBytes(predicted, nicLink(f, 0, 5, true)), hop); // slot 5 -> 13 (DP group 1)
    QCOMPARE(fixtures::tierDimBytes(predicted, Tier::Spine, Dim::Dp), 0.0);

    Scenario observed = plain;
    observed.ncclObserved = misBoundRings(true);
    const CostEngine used(observed);
    // Server 0's NIC 4 (its own rail's leaf port) carries no DP byte; NIC 5 carries DP group 1's
    // hop and slot 4's, each way.
    QCOMPARE(dpBytes(used, nicLink(f, 0, 4, true)), 0.0);
    QCOMPARE(dpBytes(used, nicLink(f, 0, 4, false)), 0.0);
    QCOMPARE(dpBytes(used, nicLink(f, 0, 5, true)), 2.0 * hop);
    QCOMPARE(dpBytes(used, nicLink(f, 0, 5, false)), 2.0 * hop);
    // Server 1's NIC 4, the far end of both hops, as before.
    QCOMPARE(dpBytes(used, nicLink(f, 1, 4, false)), hop);
    QCOMPARE(dpBytes(used, nicLink(f, 1, 4, true)), hop);
    // Rail 5's leaf to rail 4's goes through the spines: each of the 2 hops up and down once.
    QCOMPARE(fixtures::tierDimBytes(used, Tier::Spine, Dim::Dp), 4.0 * hop);
    // The host path: slot 4's own PCIe link still carries its hop out (it leaves the GPU there),
    // and the PCIe link of NIC 5 (slot 5's) carries both DP groups' hops, each way.
    QCOMPARE(dpBytes(used, pcieLink(f, 4, true)), hop);
    QCOMPARE(dpBytes(used, pcieLink(f, 4, false)), hop);
    QCOMPARE(dpBytes(used, pcieLink(f, 5, true)), 2.0 * hop);
    QCOMPARE(dpBytes(used, pcieLink(f, 5, false)), 2.0 * hop);
    QCOMPARE(used.report().links.size(), predicted.report().links.size());

    // The DP sync's bandwidth term (its most loaded link's bytes over that link's achievable
    // bandwidth) doubles: 3/4 S instead of 3/8 S on a NIC port at 400 Gb/s, now server 0's
    // NIC 5's. Its latency grows by the spine hop and the host path's second PCIe link.
    const PhaseResult &before = dpPhase(predicted), &after = dpPhase(used);
    QCOMPARE(after.protocol, std::string("Simple"));
    QCOMPARE(after.protocol, before.protocol);
    // Simple reaches 47 of a 400G path's 50 GB/s (nccltuning::linkEfficiency, nccl-tests #290).
    const double passes = before.collective == Collective::AllReduce ? 2.0 : 1.0;
    const double port = f.linkBandwidth(nicLink(f, 0, 5, true)) * 47.0 / 50.0;
    QCOMPARE(before.time - before.alphaTime, passes * before.bytes * 3.0 / 8.0 / port);
    QCOMPARE(after.time - after.alphaTime, passes * after.bytes * 3.0 / 4.0 / port);
    QCOMPARE(after.time - after.alphaTime, 2.0 * (before.time - before.alphaTime));
    QVERIFY(after.bottleneckLink == nicLink(f, 0, 5, true)
        || after.bottleneckLink == nicLink(f, 0, 5, false));
    QVERIFY(after.alphaTime > before.alphaTime);
    QVERIFY(used.report().iterationTime > predicted.report().iterationTime);
}

void TestNcclObservedRings::misBoundNicUnderHashedEcmp()
{
    // Hashed ECMP walks each flow's route node by node: the host path's jump from slot 4's own
    // PCIe link to NIC 5's must not end the walk, or ring 0's hop would never reach rail 5's
    // leaf and its spine uplinks (the only hops with a choice). Per seed each connection takes
    // one uplink: summed over the leaf's uplinks the hashed bytes are the ideal split's, one
    // hop's DP bytes (DP group 1 stays on that leaf; ring 1's hop comes down into it).
    Scenario observed = dpScenario();
    observed.fabric.spines = 4; // equal-cost uplinks to hash over (the default 2 servers get 1)
    observed.ncclObserved = misBoundRings(true);
    const CostEngine used(observed);
    const Fabric &f = used.fabric();
    QCOMPARE(f.spineCount(), 4);
    EcmpRouting hashed;
    hashed.mode = EcmpMode::Hashed;
    hashed.seeds = 4;
    const EcmpReport r = used.ecmp(hashed);
    const int leaf = f.leafVertex(f.leafOfNic(0, 5));
    double up = 0.0, idealUp = 0.0;
    int uplinks = 0;
    for (const EcmpLinkFigure &l : r.links)
        if (f.link(l.link).src == leaf) {
            up += l.worstBytes;
            idealUp += l.idealBytes;
            ++uplinks;
        }
    QCOMPARE(uplinks, 4);
    const double hop = fixtures::tierDimBytes(used, Tier::Spine, Dim::Dp) / 4.0;
    QVERIFY(hop > 0.0);
    QCOMPARE(idealUp, hop);
    QCOMPARE(up, hop);
}

void TestNcclObservedRings::moveOutOfTheLoggedGroupAndBack()
{
    // A swap that takes slot 4's rank out of DP group 0 leaves no group on the logged slots: the
    // incremental update drops the logged NICs' flows and matches a fresh evaluation of the new
    // mapping; swapping back restores them exactly.
    Scenario observed = dpScenario();
    observed.ncclObserved = misBoundRings(true);
    const CostEngine used(observed);
    CostEngine engine(observed);
    const Fabric &f = engine.fabric();
    const int a = engine.mapping().rankAt(4), b = engine.mapping().rankAt(5);
    engine.swapRanks(a, b);
    CostEngine fresh(observed);
    fresh.setMapping(engine.mapping());
    QCOMPARE(dpBytes(engine, nicLink(f, 0, 4, true)), dpBytes(fresh, nicLink(f, 0, 4, true)));
    QVERIFY(dpBytes(engine, nicLink(f, 0, 4, true)) > 0.0); // back on its own NIC
    for (int l = 0; l < f.linkCount(); ++l)
        QCOMPARE(dpBytes(engine, l) + 1.0, dpBytes(fresh, l) + 1.0);
    engine.swapRanks(a, b);
    for (int l = 0; l < f.linkCount(); ++l)
        QCOMPARE(dpBytes(engine, l) + 1.0, dpBytes(used, l) + 1.0);
    QCOMPARE(dpBytes(engine, nicLink(f, 0, 4, true)), 0.0);
    QCOMPARE(engine.report().iterationTime, used.report().iterationTime);
}

QTEST_GUILESS_MAIN(TestNcclObservedRings)
#include "tst_ncclobservedrings.moc"
