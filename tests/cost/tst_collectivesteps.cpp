// The step decomposition of collectives (model/cost/collectivesteps.cpp) and what the watch
// plays (model/cost/collectivewatch.cpp): every algorithm's steps summed over the steps give,
// link by link, the collective planner's routed flows times the op's passes and S; hand-derived
// per-step bytes for a ring over 8 GPUs, a ring over one DP group across servers, a tree, a
// pairwise all-to-all and the pipeline sends; and a whole dimension played against the
// engine's own per-link, per-dimension bytes of the seed's 128-GPU job.
#include "base/scenarioerror.h"
#include "cost/collectiveplanner.h"
#include "cost/collectivesteps.h"
#include "cost/collectivewatch.h"
#include "cost/costengine.h"
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "fixtures.h"
#include "workload/workload.h"

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

/// The planner's flows routed: per link, bytes of one op of `bytes` with `passes` passes.
std::map<int, double> plannedBytes(
    const CollectivePlan &plan, Router &router, double passes, double bytes)
{
    std::map<int, double> out;
    for (const PlannedFlow &f : plan.flows)
        for (const RouteHop &h : router.route(f.src, f.dst))
            out[h.link] += f.unit * h.share * passes * bytes;
    for (const PlannedLinkLoad &l : plan.links)
        out[l.link] += l.unit * passes * bytes;
    return out;
}

/// Fails with the first link where the two per-link maps differ (zeros count as absent).
void compareLinks(const std::map<int, double> &expected, const std::vector<StepLink> &got)
{
    std::map<int, double> g;
    for (const StepLink &l : got)
        g[l.link] += l.bytes;
    std::set<int> links;
    for (const auto &[link, b] : expected)
        if (b > 1e-6)
            links.insert(link);
    for (const auto &[link, b] : g)
        if (b > 1e-6)
            links.insert(link);
    for (const int link : links) {
        const double e = expected.count(link) ? expected.at(link) : 0.0;
        const double s = g.count(link) ? g.at(link) : 0.0;
        if (!near(e, s))
            QFAIL(qPrintable(QStringLiteral("link %1: steps sum to %2 bytes, the engine has %3")
                                 .arg(link)
                                 .arg(s, 0, 'g', 12)
                                 .arg(e, 0, 'g', 12)));
    }
}

std::vector<int> slotsOf(const CostEngine &engine, const std::vector<int> &ranks)
{
    std::vector<int> out;
    for (const int r : ranks)
        out.push_back(engine.mapping().slotOf(r));
    return out;
}

int gpuUp(const Fabric &f, int slot)
{
    return f.linkBetween(f.gpuVertex(slot), f.scaleUpVertex(f.serverOfSlot(slot)));
}

int gpuDown(const Fabric &f, int slot)
{
    return f.linkBetween(f.scaleUpVertex(f.serverOfSlot(slot)), f.gpuVertex(slot));
}

int nicUp(const Fabric &f, int slot)
{
    const int server = f.serverOfSlot(slot);
    const int nic = f.nicOfGpu(f.gpuOfSlot(slot));
    return f.linkBetween(f.nicVertex(server, nic), f.leafVertex(f.leafOfNic(server, nic)));
}

double bytesOn(const std::vector<StepLink> &links, int link)
{
    for (const StepLink &l : links)
        if (l.link == link)
            return l.bytes;
    return 0.0;
}

} // namespace

class TestCollectiveSteps : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ringOverEightGpus();
    void ringOverOneDpGroupAcrossServers();
    void treeLevelsAcrossServers();
    void allToAllOverEight();
    void pipelineSendsOneMicroBatch();
    void everyAlgorithmSumsToThePlanner_data();
    void everyAlgorithmSumsToThePlanner();
    void wholeDimensionEqualsTheEngine_data();
    void wholeDimensionEqualsTheEngine();
    void sendPathFollowsTheRoute();
    void badTargetsAreNamed();
};

void TestCollectiveSteps::ringOverEightGpus()
{
    // The seed's TP group of rank 0: GPUs 0-7 of server 0, one ring by GPU index through the
    // NVSwitch. A ring all-reduce of S: 2(n-1) = 14 steps, each rank sends S/8 in each, so
    // every GPU's up and down NVLink carries S/8 a step and 2(n-1)/n S = 1.75 S in all.
    CostEngine engine(fixtures::seed128());
    Router router(engine.fabric());
    const Fabric &f = engine.fabric();
    const std::vector<int> slots = slotsOf(engine, { 0, 1, 2, 3, 4, 5, 6, 7 });
    const double S = 1e9;
    const CollectiveSteps steps
        = collectiveSteps(PlanAlgorithm::Ring, Collective::AllReduce, slots, S, f, router, 0.0);
    QCOMPARE(steps.algorithm, PlanAlgorithm::Ring);
    QCOMPARE(steps.stepCount(), 14);
    QCOMPARE(steps.label(2), std::string("ring step 3/14: reduce-scatter"));
    QCOMPARE(steps.label(7), std::string("ring step 8/14: all-gather"));
    for (int step = 0; step < steps.stepCount(); ++step) {
        const std::vector<StepLink> &links = steps.stepLinks(step);
        QCOMPARE(links.size(), std::size_t(16)); // 8 GPUs up and down
        for (const int slot : slots) {
            QVERIFY(near(bytesOn(links, gpuUp(f, slot)), S / 8));
            QVERIFY(near(bytesOn(links, gpuDown(f, slot)), S / 8));
        }
    }
    for (const StepLink &l : steps.totals())
        QVERIFY(near(l.bytes, 2.0 * 7.0 / 8.0 * S));
    // Chunks: rank r sends chunk (r - k) mod 8 in reduce-scatter step k and, after the reduce-
    // scatter, forwards the chunk it finished: (r + 1 - k) mod 8 in all-gather step k.
    QCOMPARE(steps.chunkOf(0, 3), 3);
    QCOMPARE(steps.chunkOf(2, 3), 1);
    QCOMPARE(steps.chunkOf(7, 3), 4);
    QCOMPARE(steps.chunkOf(9, 3), 2);
    const CollectivePlan plan
        = planCollective(PlanAlgorithm::Ring, Collective::AllReduce, slots, f, router, 0.0);
    compareLinks(plannedBytes(plan, router, 2, S), steps.totals());
}

void TestCollectiveSteps::ringOverOneDpGroupAcrossServers()
{
    // Rank 0's DP group in the seed (tp-cp-ep-dp-pp order: ranks 0, 8, 16, 24) is GPU 0 of
    // servers 0-3, all on rail 0: the ring stays on the rail, every NIC -> leaf link carries
    // S/4 a step over 6 steps, 2(4-1)/4 S = 1.5 S in all, and no spine link is touched.
    CostEngine engine(fixtures::seed128());
    Router router(engine.fabric());
    const Fabric &f = engine.fabric();
    const std::vector<int> group = toVector(engine.layout().groups(
        GroupKind::DpCp)[static_cast<std::size_t>(engine.layout().groupOf(GroupKind::DpCp, 0))]);
    QCOMPARE(group, (std::vector<int> { 0, 8, 16, 24 }));
    const std::vector<int> slots = slotsOf(engine, group);
    const double S = 3e8;
    const CollectiveSteps steps
        = collectiveSteps(PlanAlgorithm::Ring, Collective::AllReduce, slots, S, f, router, 0.0);
    QCOMPARE(steps.stepCount(), 6);
    for (int step = 0; step < 6; ++step)
        for (const int slot : slots)
            QVERIFY(near(bytesOn(steps.stepLinks(step), nicUp(f, slot)), S / 4));
    for (const StepLink &l : steps.totals()) {
        QVERIFY(f.link(l.link).tier != Tier::Spine);
        QVERIFY(near(l.bytes, 1.5 * S));
    }
    compareLinks(plannedBytes(planCollective(PlanAlgorithm::Ring, Collective::AllReduce, slots, f,
                                  router, 0.0),
                     router, 2, S),
        steps.totals());
}

void TestCollectiveSteps::treeLevelsAcrossServers()
{
    // Four servers, one member each: no chain inside, NCCL's double binary tree over 4 nodes
    // has depth 2 (tree 0: 0 <- 2 <- {1, 3}), so 2 levels up and 2 down. Every tree edge
    // carries S/2 each way per tree; each up step moves only towards the roots.
    CostEngine engine(fixtures::seed128());
    Router router(engine.fabric());
    const Fabric &f = engine.fabric();
    const std::vector<int> slots = slotsOf(engine, { 0, 8, 16, 24 });
    const double S = 1e9;
    const CollectiveSteps steps
        = collectiveSteps(PlanAlgorithm::Tree, Collective::AllReduce, slots, S, f, router, 0.0);
    QCOMPARE(steps.algorithm, PlanAlgorithm::Tree);
    QCOMPARE(steps.stepCount(), 4);
    QCOMPARE(steps.label(0), std::string("tree step 1/4: up: reduce across servers (both trees)"));
    QCOMPARE(
        steps.label(3), std::string("tree step 4/4: down: broadcast across servers (both trees)"));
    // Level 1 up: the leaves of both trees send S/2 each to their parents.
    for (const StepSend &s : steps.phases[0].sends)
        QVERIFY(near(s.bytes, S / 2));
    QVERIFY(!steps.phases[0].sends.empty());
    compareLinks(plannedBytes(planCollective(PlanAlgorithm::Tree, Collective::AllReduce, slots, f,
                                  router, 0.0),
                     router, 2, S),
        steps.totals());
}

void TestCollectiveSteps::allToAllOverEight()
{
    // Pairwise all-to-all over one server's 8 GPUs: 7 steps, in step k every GPU sends S/8 to
    // the GPU k ahead, so every NVLink carries S/8 a step and 7/8 S in all.
    CostEngine engine(fixtures::seed128());
    Router router(engine.fabric());
    const Fabric &f = engine.fabric();
    const std::vector<int> slots = slotsOf(engine, { 0, 1, 2, 3, 4, 5, 6, 7 });
    const double S = 8e6;
    const CollectiveSteps steps
        = collectiveSteps(PlanAlgorithm::Pairwise, Collective::AllToAll, slots, S, f, router, 0.0);
    QCOMPARE(steps.stepCount(), 7);
    QCOMPARE(
        steps.label(2), std::string("pairwise step 3/7: every member sends to the member 3 ahead"));
    for (int step = 0; step < 7; ++step)
        QVERIFY(near(bytesOn(steps.stepLinks(step), gpuUp(f, slots[0])), S / 8));
    for (const StepLink &l : steps.totals())
        QVERIFY(near(l.bytes, 7.0 / 8.0 * S));
}

void TestCollectiveSteps::pipelineSendsOneMicroBatch()
{
    // Rank 0's pipeline group in the seed: stages on servers 0, 4, 8 and 12 (ranks 0, 32, 64,
    // 96): three forward sends of the boundary activation, then three gradient sends back,
    // each S on the links of its route.
    CostEngine engine(fixtures::seed128());
    Router router(engine.fabric());
    const WatchedCollective w = watchCollective(engine, router, { Dim::Pp, 0, false, 0 });
    QCOMPARE(w.groups.front(), (std::vector<int> { 0, 32, 64, 96 }));
    QCOMPARE(w.steps.stepCount(), 6);
    QCOMPARE(w.steps.label(0), std::string("pipeline step 1/6: stage 0 -> 1 (activations)"));
    QCOMPARE(w.steps.label(5), std::string("pipeline step 6/6: stage 1 -> 0 (gradients)"));
    const double S = engine.plan().boundaryActivationBytes;
    QVERIFY(S > 0.0);
    const Fabric &f = engine.fabric();
    QVERIFY(near(bytesOn(w.steps.stepLinks(0), nicUp(f, engine.mapping().slotOf(0))), S));
    QCOMPARE(bytesOn(w.steps.stepLinks(1), nicUp(f, engine.mapping().slotOf(0))), 0.0);
}

void TestCollectiveSteps::everyAlgorithmSumsToThePlanner_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<int>("op");
    QTest::addColumn<std::vector<int>>("ranks");
    const std::vector<int> server { 0, 1, 2, 3, 4, 5, 6, 7 };
    const std::vector<int> twoPerServer { 0, 1, 8, 9, 16, 17, 24, 25 }; // 4 servers x 2
    const std::vector<int> onePerServer { 0, 8, 16, 24, 32, 40, 48, 56 }; // 8 servers
    const auto row = [](const char *name, PlanAlgorithm a, Collective c, std::vector<int> r) {
        QTest::newRow(name) << static_cast<int>(a) << static_cast<int>(c) << std::move(r);
    };
    row("ring ar, 4 servers x 2", PlanAlgorithm::Ring, Collective::AllReduce, twoPerServer);
    row("ring rs, one server", PlanAlgorithm::Ring, Collective::ReduceScatter, server);
    row("ring ag, 8 servers", PlanAlgorithm::Ring, Collective::AllGather, onePerServer);
    row("member order ar", PlanAlgorithm::MemberOrder, Collective::AllReduce, twoPerServer);
    row("tree, 4 servers x 2", PlanAlgorithm::Tree, Collective::AllReduce, twoPerServer);
    row("tree, 8 servers", PlanAlgorithm::Tree, Collective::AllReduce, onePerServer);
    row("nvls ar, one server", PlanAlgorithm::Nvls, Collective::AllReduce, server);
    row("nvls rs, one server", PlanAlgorithm::Nvls, Collective::ReduceScatter, server);
    row("nvls ag, one server", PlanAlgorithm::Nvls, Collective::AllGather, server);
    row("nvls tree", PlanAlgorithm::NvlsTree, Collective::AllReduce, twoPerServer);
    row("hierarchical", PlanAlgorithm::Hierarchical, Collective::AllReduce, twoPerServer);
    row("pat ag", PlanAlgorithm::Pat, Collective::AllGather, onePerServer);
    row("pat rs", PlanAlgorithm::Pat, Collective::ReduceScatter, onePerServer);
    row("pairwise", PlanAlgorithm::Pairwise, Collective::AllToAll, twoPerServer);
    row("send-recv ring", PlanAlgorithm::PointToPoint, Collective::SendRecv, twoPerServer);
    row("send-recv pair", PlanAlgorithm::PointToPoint, Collective::SendRecv, { 0, 40 });
}

void TestCollectiveSteps::everyAlgorithmSumsToThePlanner()
{
    QFETCH(int, algorithm);
    QFETCH(int, op);
    QFETCH(std::vector<int>, ranks);
    const auto a = static_cast<PlanAlgorithm>(algorithm);
    const auto c = static_cast<Collective>(op);
    CostEngine engine(fixtures::seed128());
    Router router(engine.fabric());
    const std::vector<int> slots = slotsOf(engine, ranks);
    const double S = 2.5e8;
    const double nvls = 1.0; // NVLink SHARP available, so NVLS is not replaced by the ring
    const CollectiveSteps steps = collectiveSteps(a, c, slots, S, engine.fabric(), router, nvls);
    const CollectivePlan plan = planCollective(a, c, slots, engine.fabric(), router, nvls);
    QCOMPARE(steps.algorithm, plan.algorithm);
    QCOMPARE(steps.algorithm, a); // no fallback on these groups
    QVERIFY(steps.stepCount() > 0);
    const int passes = c == Collective::AllReduce ? 2 : 1;
    compareLinks(plannedBytes(plan, router, passes, S), steps.totals());
}

void TestCollectiveSteps::wholeDimensionEqualsTheEngine_data()
{
    QTest::addColumn<int>("dim");
    QTest::newRow("dp") << static_cast<int>(Dim::Dp);
    QTest::newRow("pp") << static_cast<int>(Dim::Pp);
}

void TestCollectiveSteps::wholeDimensionEqualsTheEngine()
{
    // Every group of the dimension at once, every op of it once: per link, the steps' bytes
    // times the op's runs per iteration are the report's bytes of that dimension on that link.
    // DP syncs once per iteration; a pipeline boundary is crossed by every micro-batch once per
    // model chunk each way (trafficplan.cpp patternWeights()).
    QFETCH(int, dim);
    const Dim d = static_cast<Dim>(dim);
    CostEngine engine(fixtures::seed128());
    Router router(engine.fabric());
    const std::vector<WatchableOp> ops = watchableOps(engine, d, 0);
    QVERIFY(!ops.empty());
    const double runs = d == Dim::Pp
        ? engine.plan().microbatches * chunksPerRank(engine.scenario().training)
        : 1.0;
    std::map<int, double> played;
    for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
        const WatchedCollective w = watchCollective(engine, router, { d, 0, true, i });
        QCOMPARE(static_cast<int>(w.groups.size()),
            static_cast<int>(
                engine.layout().groups(d == Dim::Dp ? GroupKind::DpCp : GroupKind::Pp).size()));
        for (const StepLink &l : w.steps.totals())
            played[l.link] += l.bytes * runs;
    }
    const CostReport &report = engine.report();
    std::map<int, double> engineBytes;
    for (std::size_t l = 0; l < report.links.size(); ++l)
        if (report.links[l].dimBytes[index(d)] > 0.0)
            engineBytes[static_cast<int>(l)] = report.links[l].dimBytes[index(d)];
    QVERIFY(engineBytes.size() > 8);
    std::vector<StepLink> got;
    for (const auto &[link, b] : played)
        got.push_back({ link, b });
    compareLinks(engineBytes, got);
}

void TestCollectiveSteps::sendPathFollowsTheRoute()
{
    // A send from server 0 GPU 0 to server 13 GPU 3 (another rail): every path runs link to
    // link from the source GPU to the destination GPU over links of the route, and where the
    // route splits (ECMP shares below 1) different picks take different branches.
    CostEngine engine(fixtures::seed128());
    Router router(engine.fabric());
    const Fabric &f = engine.fabric();
    const int src = engine.mapping().slotOf(0);
    const int dst = engine.mapping().slotOf(8 * 13 + 3);
    std::set<int> routeLinks;
    bool splits = false;
    for (const RouteHop &h : router.route(src, dst)) {
        routeLinks.insert(h.link);
        splits = splits || h.share < 1.0;
    }
    std::set<std::vector<int>> paths;
    for (int pick = 0; pick < 8; ++pick) {
        const std::vector<int> path = sendPath(f, router, src, dst, pick);
        QVERIFY(path.size() >= 4); // GPU -> NIC -> leaf ... leaf -> NIC -> GPU at least
        QCOMPARE(f.link(path.front()).src, f.gpuVertex(src));
        QCOMPARE(f.link(path.back()).dst, f.gpuVertex(dst));
        for (std::size_t i = 1; i < path.size(); ++i)
            QCOMPARE(f.link(path[i]).src, f.link(path[i - 1]).dst);
        for (const int link : path)
            QVERIFY(routeLinks.count(link) == 1);
        paths.insert(path);
    }
    QCOMPARE(paths.size() > 1, splits);
    // A cross-server send of the seed's DP ring: one path, no split, on rail 0.
    const std::vector<int> same = sendPath(f, router, src, engine.mapping().slotOf(8), 5);
    QCOMPARE(same.size(), std::size_t(4)); // PCIe up, NIC -> leaf, leaf -> NIC, PCIe down
}

void TestCollectiveSteps::badTargetsAreNamed()
{
    CostEngine engine(fixtures::seed128());
    Router router(engine.fabric());
    try {
        watchCollective(engine, router, { Dim::Dp, 128, false, 0 });
        QFAIL("a rank outside the layout was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).find("rank 128 is outside 0..127") != std::string::npos,
            e.what());
    }
    try {
        watchCollective(engine, router, { Dim::Ep, 0, false, 0 });
        QFAIL("a dimension of degree 1 was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).find("degree 1") != std::string::npos, e.what());
    }
    try {
        watchCollective(engine, router, { Dim::Tp, 0, false, 999 });
        QFAIL("an op index out of range was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).find("op 999") != std::string::npos, e.what());
    }
}

QTEST_GUILESS_MAIN(TestCollectiveSteps)
#include "tst_collectivesteps.moc"
