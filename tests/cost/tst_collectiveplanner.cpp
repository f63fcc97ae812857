// The collective planner (model/cost/collectiveplanner.cpp) and its ring order
// (model/cost/ringorder.cpp) on small fabrics: NCCL-style rings that keep every hop between
// servers on one rail, the double binary tree, NVLS, the hierarchical algorithm and PAT, each
// plan's link loads counted by hand from its flows, and the chain's per-hop latency.
#include "cost/collectiveplanner.h"
#include "cost/ringorder.h"
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "fixtures.h"

#include <QTest>

#include <cmath>
#include <map>
#include <set>

using namespace railyard;

namespace {

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max({ 1.0, std::abs(a), std::abs(b) });
}

/// A plan's flows routed onto the fabric: per link, bytes per byte of S per pass.
std::map<int, double> loads(const CollectivePlan &plan, Router &router)
{
    std::map<int, double> out;
    for (const PlannedFlow &f : plan.flows)
        for (const RouteHop &h : router.route(f.src, f.dst))
            out[h.link] += f.unit * h.share;
    for (const PlannedLinkLoad &l : plan.links)
        out[l.link] += l.unit;
    return out;
}

double load(const std::map<int, double> &m, int link)
{
    const auto it = m.find(link);
    return it == m.end() ? 0.0 : it->second;
}

int nicUp(const Fabric &f, int slot)
{
    const int server = f.serverOfSlot(slot);
    const int nic = f.nicOfGpu(f.gpuOfSlot(slot));
    return f.linkBetween(f.nicVertex(server, nic), f.leafVertex(f.leafOfNic(server, nic)));
}

int gpuUp(const Fabric &f, int slot)
{
    return f.linkBetween(f.gpuVertex(slot), f.scaleUpVertex(f.serverOfSlot(slot)));
}

int gpuDown(const Fabric &f, int slot)
{
    return f.linkBetween(f.scaleUpVertex(f.serverOfSlot(slot)), f.gpuVertex(slot));
}

double tierLoad(const Fabric &f, const std::map<int, double> &m, Tier t)
{
    double sum = 0.0;
    for (const auto &[link, l] : m)
        if (f.link(link).tier == t)
            sum += l;
    return sum;
}

} // namespace

class TestCollectivePlanner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ringsEnterAndLeaveOnTheSameRails();
    void memberOrderCrossesRails();
    void ringChannelPerNic();
    void ringChainSumsTheHopsTaken();
    void doubleBinaryTree_data();
    void doubleBinaryTree();
    void treeLoads();
    void nvlsLoads();
    void nvlsTreeAndHierarchicalLoads();
    void patSendsEachBlockOnce();
    void fallbacks();
};

void TestCollectivePlanner::ringsEnterAndLeaveOnTheSameRails()
{
    // The dp-cp group of a TP4 x CP2 job packed on 8-GPU servers: GPU 0 and GPU 4 of each of
    // 4 servers, in Megatron's member order (0, 4, 8, 12, ...). Two NICs per server: two
    // channels. Channel 0 enters server 0 on rail 0 and leaves on rail 4, enters server 1 on
    // rail 4 and leaves on rail 0, and so on (NCCL connect.cc: "Alternate rings to avoid
    // crossing rails"); channel 1 the other way round.
    const Fabric fabric = Fabric::build(fixtures::railFabric(4, 8));
    const std::vector<int> slots { 0, 4, 8, 12, 16, 20, 24, 28 };
    const std::vector<std::vector<int>> rings = buildRings(ringMembers(fabric, slots));
    QCOMPARE(rings.size(), std::size_t { 2 });
    QCOMPARE(rings[0], (std::vector<int> { 0, 1, 3, 2, 4, 5, 7, 6 }));
    QCOMPARE(rings[1], (std::vector<int> { 1, 0, 2, 3, 5, 4, 6, 7 }));
    for (const std::vector<int> &ring : rings)
        for (std::size_t i = 0; i < ring.size(); ++i) {
            const int a = slots[ring[i]], b = slots[ring[(i + 1) % ring.size()]];
            if (fabric.serverOfSlot(a) != fabric.serverOfSlot(b))
                QCOMPARE(fabric.railOfSlot(a), fabric.railOfSlot(b));
        }

    // Routed: nothing reaches a spine, and both NICs of every server send half of the
    // ring's (n-1)/n = 7/8 per pass.
    Router router(fabric);
    const CollectivePlan plan
        = planCollective(PlanAlgorithm::Ring, Collective::AllReduce, slots, fabric, router, 0.0);
    QCOMPARE(plan.algorithm, PlanAlgorithm::Ring);
    QCOMPARE(plan.channels, 2);
    const std::map<int, double> m = loads(plan, router);
    QCOMPARE(tierLoad(fabric, m, Tier::Spine), 0.0);
    for (const int slot : slots)
        QVERIFY(near(load(m, nicUp(fabric, slot)), 7.0 / 8.0 / 2.0));
}

void TestCollectivePlanner::memberOrderCrossesRails()
{
    // The same group in member order: GPU 4 of server k sends to GPU 0 of server k+1, rail 4
    // to rail 0, through a spine, and only the rail-4 NICs send: 7/8 each per pass.
    const Fabric fabric = Fabric::build(fixtures::railFabric(4, 8));
    Router router(fabric);
    const std::vector<int> slots { 0, 4, 8, 12, 16, 20, 24, 28 };
    const CollectivePlan plan = planCollective(
        PlanAlgorithm::MemberOrder, Collective::AllReduce, slots, fabric, router, 0.0);
    const std::map<int, double> m = loads(plan, router);
    QVERIFY(near(tierLoad(fabric, m, Tier::Spine), 2.0 * 4 * 7.0 / 8.0)); // up and down per hop
    for (const int slot : slots)
        QVERIFY(near(load(m, nicUp(fabric, slot)), fabric.gpuOfSlot(slot) == 4 ? 7.0 / 8.0 : 0.0));
}

void TestCollectivePlanner::ringChannelPerNic()
{
    // All 16 GPUs of two 8-GPU servers: 8 channels, channel c entering server 0 on NIC c and
    // leaving on NIC c+1. Every NIC sends exactly one channel's (n-1)/n / 8 per pass; every
    // GPU sends over NVLink in the 7 channels in which it does not leave its server.
    const Fabric fabric = Fabric::build(fixtures::railFabric(2, 8));
    Router router(fabric);
    std::vector<int> slots(16);
    for (int i = 0; i < 16; ++i)
        slots[i] = i;
    const CollectivePlan plan
        = planCollective(PlanAlgorithm::Ring, Collective::AllGather, slots, fabric, router, 0.0);
    QCOMPARE(plan.channels, 8);
    const std::map<int, double> m = loads(plan, router);
    const double share = 15.0 / 16.0 / 8.0;
    for (int slot = 0; slot < 16; ++slot) {
        QVERIFY(near(load(m, nicUp(fabric, slot)), share));
        QVERIFY(near(load(m, gpuUp(fabric, slot)), 7.0 * share));
    }
    QCOMPARE(tierLoad(fabric, m, Tier::Spine), 0.0);
}

void TestCollectivePlanner::ringChainSumsTheHopsTaken()
{
    // Member order 0, 1 (server 0) -> 8, 9 (server 1): hops 0 -> 1 and 8 -> 9 over NVLink
    // (0.6 + 0.6 us), 1 -> 8 and 9 -> 0 across rails through a spine (PCIe 0.5, NIC 1, leaf ->
    // spine 0.6, spine -> leaf 0.6, NIC 1, PCIe 0.5 = 4.2 us). A pipelined pass crosses every
    // edge but the cheapest: 1.2 + 4.2 + 4.2 us, one NVLink and two network steps. (Charging
    // each of the n-1 steps the slowest hop, as before, gave 3 x 4.2 us.)
    const Fabric fabric = Fabric::build(fixtures::railFabric(2, 8));
    Router router(fabric);
    const CollectivePlan plan = planCollective(
        PlanAlgorithm::MemberOrder, Collective::AllReduce, { 0, 1, 8, 9 }, fabric, router, 0.0);
    QVERIFY(near(plan.chain.wire, (1.2 + 4.2 + 4.2) * 1e-6));
    QCOMPARE(plan.chain.scaleUpSteps, 1);
    QCOMPARE(plan.chain.networkSteps, 2);
    QCOMPARE(plan.chain.ranks, 4);
    QCOMPARE(plan.chain.servers, 2);
    // The topology-aware ring enters each server on the rail the other one left on: its two
    // network hops stay on their leaves (3 us each).
    const CollectivePlan rails = planCollective(
        PlanAlgorithm::Ring, Collective::AllReduce, { 0, 1, 8, 9 }, fabric, router, 0.0);
    QVERIFY(near(rails.chain.wire, (1.2 + 3.0 + 3.0) * 1e-6));
}

void TestCollectivePlanner::doubleBinaryTree_data()
{
    QTest::addColumn<int>("n");
    for (int n : { 2, 3, 4, 5, 7, 8, 13, 14, 64, 100 })
        QTest::newRow(qPrintable(QString::number(n))) << n;
}

void TestCollectivePlanner::doubleBinaryTree()
{
    // NCCL src/graph/trees.cc: tree 0 is a binary tree whose leaves are the odd ranks; tree 1
    // mirrors it (even n) or shifts it by one (odd n), so no rank is an inner node of both.
    QFETCH(int, n);
    int depthMax = 0;
    for (int tree = 0; tree < 2; ++tree) {
        int roots = 0;
        for (int r = 0; r < n; ++r) {
            int depth = 0;
            for (int x = r; doubleBinaryTreeParent(tree, x, n) >= 0;
                 x = doubleBinaryTreeParent(tree, x, n))
                QVERIFY(++depth <= n); // reaches the root
            depthMax = std::max(depthMax, depth);
            roots += doubleBinaryTreeParent(tree, r, n) < 0;
        }
        QCOMPARE(roots, 1);
    }
    QVERIFY(depthMax <= static_cast<int>(std::ceil(std::log2(n))) + 1);
    std::vector<int> children0(n, 0), children1(n, 0);
    for (int r = 0; r < n; ++r) {
        if (const int p = doubleBinaryTreeParent(0, r, n); p >= 0)
            ++children0[p];
        if (const int p = doubleBinaryTreeParent(1, r, n); p >= 0)
            ++children1[p];
    }
    for (int r = 0; r < n; ++r) {
        QVERIFY(children0[r] <= 2 && children1[r] <= 2);
        QVERIFY2(children0[r] == 0 || children1[r] == 0 || n % 2 == 1 || n == 2,
            qPrintable(QStringLiteral("rank %1 is inner in both trees").arg(r)));
    }
    if (n == 14) { // the illustration in trees.cc
        QCOMPARE(doubleBinaryTreeParent(0, 8, 14), 0);
        QCOMPARE(doubleBinaryTreeParent(0, 12, 14), 8);
        QCOMPARE(doubleBinaryTreeParent(0, 13, 14), 12);
        QCOMPARE(doubleBinaryTreeParent(0, 10, 14), 12);
        QCOMPARE(doubleBinaryTreeParent(1, 5, 14), 13 - doubleBinaryTreeParent(0, 8, 14));
    }
}

void TestCollectivePlanner::treeLoads()
{
    // One GPU on each of 4 servers, one channel, each tree half of S. Tree 0: 0 - 2, 2 - {1, 3};
    // tree 1 (mirror): 3 - 1, 1 - {0, 2}. Over the whole all-reduce every tree edge carries S/2
    // each way; per pass (of two) S/4. Rank 2 sends to 0, 1, 3 in tree 0 and to 1 in tree 1:
    // 4 x 1/4 = 1 per pass, i.e. 2S per all-reduce, "2*S, except for the root which is just
    // S" (NCCL team, NVIDIA/nccl issue #457).
    const Fabric fabric = Fabric::build(fixtures::railFabric(4, 1));
    Router router(fabric);
    const std::vector<int> slots { 0, 1, 2, 3 };
    const CollectivePlan plan
        = planCollective(PlanAlgorithm::Tree, Collective::AllReduce, slots, fabric, router, 0.0);
    QCOMPARE(plan.algorithm, PlanAlgorithm::Tree);
    const std::map<int, double> m = loads(plan, router);
    QVERIFY(near(load(m, nicUp(fabric, 2)), 1.0));
    QVERIFY(near(load(m, nicUp(fabric, 1)), 1.0));
    QVERIFY(near(load(m, nicUp(fabric, 0)), 0.5));
    QVERIFY(near(load(m, nicUp(fabric, 3)), 0.5));
    // The chain: up the deeper tree (2 hops to the root) per pass, 3 us each on one leaf.
    QCOMPARE(plan.chain.networkSteps, 2);
    QVERIFY(near(plan.chain.wire, 2 * 3e-6));
}

void TestCollectivePlanner::nvlsLoads()
{
    // NVLink SHARP on one 8-GPU server (NCCL team, NVIDIA/nccl issue #1083): a reduce-scatter
    // sends S into the NVSwitch and receives S/8, an all-gather sends S/8 and receives S, an
    // all-reduce both (per pass: half of (1 + 1/8)).
    const Fabric fabric = Fabric::build(fixtures::railFabric(1, 8));
    Router router(fabric);
    std::vector<int> slots(8);
    for (int i = 0; i < 8; ++i)
        slots[i] = i;
    const auto check = [&](Collective op, double up, double down) {
        const CollectivePlan plan
            = planCollective(PlanAlgorithm::Nvls, op, slots, fabric, router, 0.85);
        QCOMPARE(plan.algorithm, PlanAlgorithm::Nvls);
        const std::map<int, double> m = loads(plan, router);
        for (int slot = 0; slot < 8; ++slot) {
            QVERIFY(near(load(m, gpuUp(fabric, slot)), up));
            QVERIFY(near(load(m, gpuDown(fabric, slot)), down));
        }
        QCOMPARE(plan.chain.scaleUpSteps, 1);
    };
    check(Collective::ReduceScatter, 1.0, 1.0 / 8.0);
    check(Collective::AllGather, 1.0 / 8.0, 1.0);
    check(Collective::AllReduce, 0.5 * 9.0 / 8.0, 0.5 * 9.0 / 8.0);
}

void TestCollectivePlanner::nvlsTreeAndHierarchicalLoads()
{
    // 4 servers x 4 GPUs, all 16 ranks. NVLS-tree: NVLS inside (per pass half of 1 + 1/4 on
    // every GPU's NVSwitch links) and a tree of S/4 per rail: per pass S/16 per tree edge each
    // way, rank 2's NICs 4 x 1/16. Hierarchical: ring RS/AG inside ((4-1)/4 per NVLink edge),
    // rings of S/4 per rail across servers ((4-1)/4 / 4 per NIC).
    const Fabric fabric = Fabric::build(fixtures::railFabric(4, 4));
    Router router(fabric);
    std::vector<int> slots(16);
    for (int i = 0; i < 16; ++i)
        slots[i] = i;
    const CollectivePlan nvls
        = planCollective(PlanAlgorithm::Nvls, Collective::AllReduce, slots, fabric, router, 0.85);
    QCOMPARE(nvls.algorithm, PlanAlgorithm::NvlsTree);
    QCOMPARE(nvls.channels, 4);
    const std::map<int, double> a = loads(nvls, router);
    for (int slot = 0; slot < 16; ++slot) {
        QVERIFY(near(load(a, gpuUp(fabric, slot)), 0.5 * 5.0 / 4.0));
        const int server = fabric.serverOfSlot(slot);
        QVERIFY(near(load(a, nicUp(fabric, slot)), server == 1 || server == 2 ? 0.25 : 0.125));
    }
    QCOMPARE(tierLoad(fabric, a, Tier::Spine), 0.0);

    const CollectivePlan hier = planCollective(
        PlanAlgorithm::Hierarchical, Collective::AllReduce, slots, fabric, router, 0.0);
    QCOMPARE(hier.algorithm, PlanAlgorithm::Hierarchical);
    const std::map<int, double> b = loads(hier, router);
    for (int slot = 0; slot < 16; ++slot) {
        QVERIFY(near(load(b, gpuUp(fabric, slot)), 3.0 / 4.0));
        QVERIFY(near(load(b, nicUp(fabric, slot)), 3.0 / 4.0 / 4.0));
    }
    // The chain: a ring pass inside (3 NVLink hops) then one across (3 network hops).
    QCOMPARE(hier.chain.scaleUpSteps, 3);
    QCOMPARE(hier.chain.networkSteps, 3);
    QVERIFY(near(hier.chain.wire, 3 * 1.2e-6 + 3 * 3e-6));
}

void TestCollectivePlanner::patSendsEachBlockOnce()
{
    // PAT on 5 single-GPU servers (Bruck's pattern): steps at distance 1, 2, 4 send 1, 2 and
    // min(4, 1) = 1 blocks of S/5: every rank sends (n-1)/n = 4/5, in log2 steps.
    const Fabric fabric = Fabric::build(fixtures::railFabric(5, 1));
    Router router(fabric);
    const std::vector<int> slots { 0, 1, 2, 3, 4 };
    const CollectivePlan plan
        = planCollective(PlanAlgorithm::Pat, Collective::AllGather, slots, fabric, router, 0.0);
    QCOMPARE(plan.algorithm, PlanAlgorithm::Pat);
    const std::map<int, double> m = loads(plan, router);
    for (const int slot : slots)
        QVERIFY(near(load(m, nicUp(fabric, slot)), 4.0 / 5.0));
    QCOMPARE(plan.chain.networkSteps, 3);
}

void TestCollectivePlanner::fallbacks()
{
    const Fabric fabric = Fabric::build(fixtures::railFabric(2, 4));
    Router router(fabric);
    const auto algo
        = [&](PlanAlgorithm a, Collective op, const std::vector<int> &slots, double nvls) {
              return planCollective(a, op, slots, fabric, router, nvls).algorithm;
          };
    const std::vector<int> all { 0, 1, 2, 3, 4, 5, 6, 7 };
    // No NVLink SHARP (A100): NVLS is the ring.
    QCOMPARE(algo(PlanAlgorithm::Nvls, Collective::AllReduce, all, 0.0), PlanAlgorithm::Ring);
    // Across servers NVLS all-gather needs CollNet in NCCL: the ring.
    QCOMPARE(algo(PlanAlgorithm::Nvls, Collective::AllGather, all, 0.85), PlanAlgorithm::Ring);
    // One GPU per server leaves no NVSwitch to reduce in: the tree.
    QCOMPARE(algo(PlanAlgorithm::Nvls, Collective::AllReduce, { 0, 4 }, 0.85), PlanAlgorithm::Tree);
    // Unequal members per server: neither the NVLS tree nor the hierarchical algorithm.
    QCOMPARE(
        algo(PlanAlgorithm::Nvls, Collective::AllReduce, { 0, 1, 4 }, 0.85), PlanAlgorithm::Ring);
    QCOMPARE(algo(PlanAlgorithm::Hierarchical, Collective::AllReduce, { 0, 1, 4 }, 0.0),
        PlanAlgorithm::Ring);
    // PAT needs one member per server; trees and PAT are for their own ops only.
    QCOMPARE(algo(PlanAlgorithm::Pat, Collective::AllGather, all, 0.0), PlanAlgorithm::Ring);
    QCOMPARE(algo(PlanAlgorithm::Pat, Collective::AllReduce, { 0, 4 }, 0.0), PlanAlgorithm::Ring);
    QCOMPARE(algo(PlanAlgorithm::Tree, Collective::ReduceScatter, all, 0.0), PlanAlgorithm::Ring);
    QCOMPARE(algo(PlanAlgorithm::Ring, Collective::AllToAll, all, 0.0), PlanAlgorithm::Pairwise);
    QCOMPARE(algo(PlanAlgorithm::Ring, Collective::SendRecv, { 0, 4 }, 0.0),
        PlanAlgorithm::PointToPoint);
}

QTEST_GUILESS_MAIN(TestCollectivePlanner)
#include "tst_collectiveplanner.moc"
