// The rail audit (model/studies/railaudit.h) on hand-built jobs whose answers are known: a
// rail-aligned TP 8 x DP 2 on two servers (every DP hop on its rail's leaf, the eight DP groups
// on eight disjoint rails), the same after swapping rank 1 and rank 8 (two TP groups split
// across the servers: their hops leave their rails, and with PXN they cross NVLink instead),
// one server per scalable unit (same-rail DP hops through the spine), a top-of-rack fabric
// (no rails), a MoE's EP groups, NCCL_CROSS_NIC's three settings on rings with several NICs
// per server (an even and an odd number of servers), and a disaggregated inference scenario's
// prefill -> decode KV hand-off.
#include "cost/costengine.h"
#include "fixtures.h"
#include "scenario/scenariofile.h"
#include "studies/railaudit.h"
#include "workload/inferencespec.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

using namespace railyard;

namespace {

const RailAuditDim *dimOf(const RailAudit &a, GroupKind kind)
{
    for (const RailAuditDim &d : a.dims)
        if (d.kind == kind)
            return &d;
    return nullptr;
}

int networkHops(const RailAuditDim &d)
{
    return d.flows[index(RailPath::Leaf)] + d.flows[index(RailPath::Pxn)]
        + d.flows[index(RailPath::Spine)] + d.flows[index(RailPath::CrossRail)];
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

class TestRailAudit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void railAlignedJobNeedsNoSpine();
    void splitTensorGroupLeavesItsRail();
    void pxnKeepsTheNetworkOnOneRail();
    void scalableUnitsMeetAtTheSpine();
    void topOfRackHasNoRails();
    void expertGroupsAreAudited();
    void crossNicOneLetsRingsLeaveTheirRails();
    void oddServerCountClosesAcrossRails();
    void kvHandOffIsAudited();
};

void TestRailAudit::railAlignedJobNeedsNoSpine()
{
    // Ranks 0-7 on server 0 and 8-15 on server 1 (Megatron's tp-fastest order): TP inside
    // each server, DP group i = {i, i+8} joins GPU i of both servers, both on rail i.
    const Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(8, 1, 2));
    CostEngine engine(s);
    const RailAudit a = railAudit(engine);
    const RailAuditDim *tp = dimOf(a, GroupKind::Tp);
    const RailAuditDim *dp = dimOf(a, GroupKind::DpCp);
    QVERIFY(tp && dp);
    QCOMPARE(tp->groups, 2);
    QCOMPARE(networkHops(*tp), 0);
    QVERIFY(tp->flows[index(RailPath::ScaleUp)] > 0);
    QCOMPARE(dp->groups, 8);
    // A two-member ring: one flow each way per group, 8 groups, all through rail i's leaf.
    QCOMPARE(dp->flows[index(RailPath::Leaf)], 16);
    QCOMPARE(networkHops(*dp), 16);
    QCOMPARE(dp->groupsOnRail, 8);
    QCOMPARE(dp->groupsViaSpine, 0);
    QVERIFY(a.spineNeededFor.empty());
    QVERIFY(contains(a.verdict, "No traffic needs the spine"));
    QVERIFY(contains(dp->verdict, "16 hops over 8 groups"));
    // The corner case NCCL's maintainers point at: communicators on disjoint rails.
    QVERIFY(std::any_of(a.notes.begin(), a.notes.end(), [](const std::string &n) {
        return contains(n, "dp-cp: 8 groups each keep to one rail, on 8 different rails");
    }));
    for (const RailAuditGroup &g : a.groups)
        QVERIFY(g.railAligned && g.leavingCount == 0);
}

void TestRailAudit::splitTensorGroupLeavesItsRail()
{
    // After the swap, TP group 0 is ranks 0, 2-7 on server 0 and rank 1 on server 1 (slot 8,
    // rail 0); TP group 1 holds rank 8 on server 0 (slot 1, rail 1). Each TP ring enters and
    // leaves the other server, between GPUs of different rails: those hops leave their rails
    // through the spine. The DP pairs {0, 8} and {1, 9} now sit in one server each.
    const Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(8, 1, 2));
    CostEngine engine(s);
    engine.swapRanks(1, 8);
    const RailAudit a = railAudit(engine);
    const RailAuditDim *tp = dimOf(a, GroupKind::Tp);
    QVERIFY(tp);
    QCOMPARE(tp->groupsViaSpine, 2);
    QVERIFY(tp->flows[index(RailPath::CrossRail)] >= 4); // at least in and out, per group
    for (const RailAuditGroup &g : a.groups) {
        if (g.kind != GroupKind::Tp)
            continue;
        QVERIFY(!g.railAligned);
        QVERIFY(g.unevenServers); // 7 members on one server, 1 on the other
        for (const RailHop &h : g.leaving) {
            QVERIFY(h.srcServer != h.dstServer);
            QVERIFY(h.srcRail != h.dstRail);
            QVERIFY(h.srcRank == 1 || h.dstRank == 1 || h.srcRank == 8 || h.dstRank == 8);
        }
    }
    const RailAuditDim *dp = dimOf(a, GroupKind::DpCp);
    QVERIFY(dp);
    QCOMPARE(dp->flows[index(RailPath::ScaleUp)], 4); // {0, 8} and {1, 9}: one server each
    QCOMPARE(dp->flows[index(RailPath::Leaf)], 12);
    QCOMPARE(a.spineNeededFor.size(), std::size_t(1));
    QVERIFY(contains(a.verdict, "The spine is needed for tp ("));
    QVERIFY(contains(a.verdict, "hops between rails, without PXN"));
    QVERIFY(std::any_of(a.notes.begin(), a.notes.end(), [](const std::string &n) {
        return contains(n, "tp group 0 is not rail-aligned")
            && contains(n, "servers hold unequal member counts");
    }));
    // The same in JSON, every group that leaves its rail listed.
    const nlohmann::json j = railAuditJson(a);
    QCOMPARE(j["groups_off_rail"].size(), std::size_t(2));
    QCOMPARE(j["dims"][0]["hops"]["cross_rail"].get<int>(), tp->flows[index(RailPath::CrossRail)]);
}

void TestRailAudit::pxnKeepsTheNetworkOnOneRail()
{
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(8, 1, 2));
    CostEngine plain(s);
    plain.swapRanks(1, 8);
    const int cross = dimOf(railAudit(plain), GroupKind::Tp)->flows[index(RailPath::CrossRail)];
    s.fabric.pxn = true;
    CostEngine engine(s);
    engine.swapRanks(1, 8);
    const RailAudit a = railAudit(engine);
    const RailAuditDim *tp = dimOf(a, GroupKind::Tp);
    QVERIFY(a.pxn);
    QCOMPARE(tp->flows[index(RailPath::CrossRail)], 0);
    QCOMPARE(tp->flows[index(RailPath::Pxn)], cross); // the same hops, over NVLink first
    QCOMPARE(tp->groupsViaSpine, 0);
    QVERIFY(a.spineNeededFor.empty());
    QVERIFY(contains(tp->verdict, "moved onto the destination's rail over NVLink by PXN"));
}

void TestRailAudit::scalableUnitsMeetAtTheSpine()
{
    // One server per scalable unit: rail i of server 0 and rail i of server 1 are different
    // leaves, joined only through a spine. DP stays on its rail but needs the spine.
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(8, 1, 2));
    s.fabric = fixtures::railFabric(2, 8, 1);
    CostEngine engine(s);
    const RailAudit a = railAudit(engine);
    const RailAuditDim *dp = dimOf(a, GroupKind::DpCp);
    QCOMPARE(dp->flows[index(RailPath::Spine)], 16);
    QCOMPARE(dp->flows[index(RailPath::CrossRail)], 0);
    QCOMPARE(dp->groupsViaSpine, 8);
    QVERIFY(contains(a.verdict, "dp-cp (16 same-rail hops between scalable units)"));
    for (const RailAuditGroup &g : a.groups)
        if (g.kind == GroupKind::DpCp)
            QVERIFY(g.railAligned); // on its rail, yet through the spine
}

void TestRailAudit::topOfRackHasNoRails()
{
    // Two servers under one top-of-rack leaf: every inter-server hop stays on that leaf,
    // whichever GPUs it joins; there are no rails to leave.
    const Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(8, 1, 2), FabricKind::Tor);
    CostEngine engine(s);
    engine.swapRanks(1, 8);
    const RailAudit a = railAudit(engine);
    QVERIFY(!a.railOptimised);
    const RailAuditDim *tp = dimOf(a, GroupKind::Tp);
    QCOMPARE(tp->flows[index(RailPath::CrossRail)], 0);
    QVERIFY(tp->flows[index(RailPath::Leaf)] >= 4);
    QVERIFY(contains(railAuditText(a), "the fabric has no rails"));
}

void TestRailAudit::expertGroupsAreAudited()
{
    // EP 8 over two servers of 4: each EP group spans both servers; its all-to-all sends
    // every member to every other: 8 x 7 = 56 flows per group, 16 inside each server (4 x 3
    // twice = 24 scale-up) and 32 between them, of which the 4 x 1 pairs on the same rail stay
    // on the leaf (x2 directions = 8) and the other 24 cross rails.
    const Scenario s = fixtures::smallMoe(2, 4, fixtures::degrees(1, 1, 8, 1, 8));
    CostEngine engine(s);
    const RailAudit a = railAudit(engine);
    const RailAuditDim *ep = dimOf(a, GroupKind::Ep);
    QVERIFY(ep);
    QCOMPARE(ep->groups, 1);
    QCOMPARE(ep->flows[index(RailPath::ScaleUp)], 24);
    QCOMPARE(ep->flows[index(RailPath::Leaf)], 8);
    QCOMPARE(ep->flows[index(RailPath::CrossRail)], 24);
    QVERIFY(contains(a.verdict, "ep (24 hops between rails, without PXN)"));
}

namespace {

const RailAuditDim *dimNamed(const RailAudit &a, const std::string &name)
{
    for (const RailAuditDim &d : a.dims)
        if (d.name == name)
            return &d;
    return nullptr;
}

RailAudit auditWith(const CostEngine &engine, int crossNic)
{
    RailAuditOptions o;
    o.crossNic = crossNic;
    return railAudit(engine, o);
}

} // namespace

void TestRailAudit::crossNicOneLetsRingsLeaveTheirRails()
{
    // DP 16 over two servers of 8 (TP 1): the gradient sync's ring runs one channel per NIC.
    // NCCL_CROSS_NIC=2 (NCCL's alternating rings): channel c leaves server 0 on NIC c+1 and
    // enters server 1 on NIC c+1, leaves it on NIC c and re-enters server 0 on NIC c - the 8
    // channels' 16 hops between the servers are 16 distinct GPU pairs, each on one rail's leaf.
    // NCCL_CROSS_NIC=1: NCCL does not try to match NICs, so each of those hops may leave its
    // rail (through a spine); NCCL_CROSS_NIC=0 keeps them where 2 already does.
    const Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(1, 1, 16));
    CostEngine engine(s);
    const RailAudit two = auditWith(engine, 2);
    const RailAuditDim *dp2 = dimOf(two, GroupKind::DpCp);
    QVERIFY(dp2);
    QCOMPARE(two.crossNic, 2);
    QCOMPARE(networkHops(*dp2), dp2->flows[index(RailPath::Leaf)]);
    QVERIFY(dp2->flows[index(RailPath::Leaf)] >= 16);
    QCOMPARE(dp2->groupsViaSpine, 0);

    const RailAudit one = auditWith(engine, 1);
    const RailAuditDim *dp1 = dimOf(one, GroupKind::DpCp);
    QCOMPARE(dp1->flows[index(RailPath::CrossRail)], 16); // every ring hop between servers
    QCOMPARE(dp1->flows[index(RailPath::Leaf)], dp2->flows[index(RailPath::Leaf)] - 16);
    QCOMPARE(dp1->groupsViaSpine, 1);
    QVERIFY(contains(one.verdict, "The spine is needed for dp-cp (16 hops between rails"));
    QVERIFY(std::any_of(one.notes.begin(), one.notes.end(), [](const std::string &n) {
        return contains(n, "dp-cp group 0 uses 8 NICs per server and NCCL_CROSS_NIC=1");
    }));
    QCOMPARE(railAuditJson(one)["cross_nic"].get<int>(), 1);
    QVERIFY(contains(railAuditText(one), "NCCL_CROSS_NIC=1, PXN off"));

    const RailAudit zero = auditWith(engine, 0);
    const RailAuditDim *dp0 = dimOf(zero, GroupKind::DpCp);
    for (int p = 0; p < kRailPathCount; ++p)
        QCOMPARE(dp0->flows[p], dp2->flows[p]);

    // One GPU per server in each group (TP 8 x DP 2): a single NIC, nothing for NCCL to pair,
    // so NCCL_CROSS_NIC=1 changes nothing.
    CostEngine aligned(fixtures::smallDense(2, 8, fixtures::degrees(8, 1, 2)));
    QCOMPARE(dimOf(auditWith(aligned, 1), GroupKind::DpCp)->flows[index(RailPath::Leaf)], 16);
}

void TestRailAudit::oddServerCountClosesAcrossRails()
{
    // DP 24 over three servers of 8: under NCCL_CROSS_NIC=2 server 1 swaps its channel pair,
    // servers 0 and 2 do not, so channel c leaves server 2 on NIC c+1 and closes the ring into
    // server 0 on NIC c: one hop between rails per channel, 8 in all; the other 16 hops between
    // servers (0 -> 1 on NIC c+1, 1 -> 2 on NIC c) stay on their rails. NCCL_CROSS_NIC=0 sends
    // the closing hop out of server 2 through its NIC on rail c (reached inside the server), so
    // the network part of all 24 stays on one rail.
    const Scenario s = fixtures::smallDense(3, 8, fixtures::degrees(1, 1, 24));
    CostEngine engine(s);
    const RailAudit two = auditWith(engine, 2);
    const RailAuditDim *dp2 = dimOf(two, GroupKind::DpCp);
    QVERIFY(dp2);
    QCOMPARE(dp2->flows[index(RailPath::CrossRail)], 8);
    QVERIFY(std::any_of(two.notes.begin(), two.notes.end(), [](const std::string &n) {
        return contains(n, "its ring closes over an odd number of servers (3)");
    }));

    const RailAudit zero = auditWith(engine, 0);
    const RailAuditDim *dp0 = dimOf(zero, GroupKind::DpCp);
    QCOMPARE(dp0->flows[index(RailPath::CrossRail)], 0);
    QCOMPARE(dp0->flows[index(RailPath::Pxn)], 8);
    QCOMPARE(dp0->flows[index(RailPath::Leaf)], dp2->flows[index(RailPath::Leaf)]);
    QCOMPARE(dp0->groupsViaSpine, 0);
}

void TestRailAudit::kvHandOffIsAudited()
{
    // samples/inference-disaggregated.json: prefill TP 8 on servers 0-1 (two replicas), decode
    // TP 8 on servers 2-3 (two). Every prefill replica hands its KV to every decode replica:
    // 2 x 2 pairs, shard t to shard t (the same KV heads), GPU t to GPU t of another server:
    // 8 flows a pair on rail t's leaf, 32 in all.
    Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/inference-disaggregated.json");
    {
        CostEngine engine(s);
        const RailAudit a = railAudit(engine);
        const RailAuditDim *kv = dimNamed(a, "kv");
        QVERIFY(kv);
        QCOMPARE(kv->groups, 4);
        QCOMPARE(kv->flows[index(RailPath::Leaf)], 32);
        QCOMPARE(networkHops(*kv), 32);
        QCOMPARE(kv->groupsViaSpine, 0);
    }
    // Decode at TP 4 (four replicas of four GPUs): prefill shard t holds the KV heads decode
    // shard t / 2 needs. Decode replica k sits on GPUs 4 (k % 2) .. 4 (k % 2) + 3, so shard t
    // lands on GPU 4 (k % 2) + t / 2: the same rail as GPU t only for t = 0 (k even) and
    // t = 7 (k odd). 2 x 4 pairs x 8 flows: 8 on their rail's leaf, 56 between rails.
    for (PoolSpec &pool : s.inference->pools)
        if (pool.role == PoolRole::Decode)
            pool.tp = 4;
    CostEngine engine(s);
    const RailAudit a = railAudit(engine);
    const RailAuditDim *kv = dimNamed(a, "kv");
    QVERIFY(kv);
    QCOMPARE(kv->groups, 8);
    QCOMPARE(kv->flows[index(RailPath::Leaf)], 8);
    QCOMPARE(kv->flows[index(RailPath::CrossRail)], 56);
    QVERIFY(contains(a.verdict, "kv (56 hops between rails, without PXN)"));
    const nlohmann::json j = railAuditJson(a);
    bool named = false;
    for (const auto &g : j["groups_off_rail"])
        if (g["kind"] == "kv") {
            QCOMPARE(g["examples"][0]["src_rank"].get<int>(), -1); // GPUs, not training ranks
            QVERIFY(g["examples"][0]["src_gpu"].get<int>() >= 0);
            named = true;
        }
    QVERIFY(named);
    QVERIFY(contains(railAuditText(a), "e.g. GPU "));
}

QTEST_GUILESS_MAIN(TestRailAudit)
#include "tst_railaudit.moc"
