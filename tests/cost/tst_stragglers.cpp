// Stragglers and degraded hardware (docs/stragglers.md): a slow NIC's DP step and a slow GPU's
// stage against hand derivations, the healthy path untouched, and the invariants of any mix.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fixtures.h"

#include <QTest>

#include <cmath>
#include <random>

using namespace railyard;

namespace {

/// NCCL's Simple protocol reaches 47 of a 400G NIC's 50 GB/s (NVIDIA/nccl-tests issue #290, the
/// NCCL team's figure; cost/nccltuning.cpp's kNetworkSimple): every network link runs at this
/// share of its line rate under a ring.
constexpr double kNetworkEfficiency = 47.0 / 50.0;

Degradation nicPart(int nic, double factor)
{
    Degradation d;
    d.kind = Degradation::Kind::Nic;
    d.index = nic;
    d.bandwidthFactor = factor;
    return d;
}

Degradation gpuPart(int slot, double speed)
{
    Degradation d;
    d.kind = Degradation::Kind::Gpu;
    d.index = slot;
    d.computeSpeed = speed;
    return d;
}

/// The DP sync phase (one all-reduce here); an empty phase when there is none (the checks on
/// its bytes then fail).
PhaseResult dpPhase(const CostReport &r)
{
    for (const PhaseResult &p : r.phases)
        if (p.dim == Dim::Dp)
            return p;
    return {};
}

/// tp 8 x pp 1 x dp 16 on 16 servers: every DP group is the 16 GPUs of one index, one rail, a
/// ring all-reduce (no overlap, no distributed optimizer) after the last backward.
Scenario dpOnlyJob()
{
    Scenario s = fixtures::smallDense(16, 8, fixtures::degrees(8, 1, 16));
    // Hidden 4096 (ffn 16384, 32 heads): gradients of about 0.8 GB per rank, large enough that
    // NCCL's model runs the all-reduce with the Simple protocol, at the full link rate.
    s.model.hidden = 4096;
    s.model.ffn = 16384;
    s.model.heads = 32;
    s.training.dpOverlap = false;
    s.training.distributedOptimizer = false;
    s.collectives.algorithm = CollectiveAlgorithm::Ring;
    return s;
}

void compareReports(const CostReport &a, const CostReport &b)
{
    QCOMPARE(a.iterationTime, b.iterationTime);
    QCOMPARE(a.pipelineMakespan, b.pipelineMakespan);
    QCOMPARE(a.dpSyncTime, b.dpSyncTime);
    QCOMPARE(a.links.size(), b.links.size());
    for (std::size_t l = 0; l < a.links.size(); ++l)
        QCOMPARE(a.links[l].busyTime, b.links[l].busyTime);
    QCOMPARE(a.phases.size(), b.phases.size());
    for (std::size_t p = 0; p < a.phases.size(); ++p)
        QCOMPARE(a.phases[p].time, b.phases[p].time);
    QCOMPARE(a.stageForward, b.stageForward);
    QCOMPARE(a.stageBackward, b.stageBackward);
}

} // namespace

class TestStragglers : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void neutralPartsChangeNothing();
    void halfNicOnOneRailSlowsItsDpStep();
    void addedLatencyJoinsEveryStep();
    void slowGpuPacesItsTpGroupAndThePipeline();
    void slowHostIsItsGpusSlowed();
    void movesCarryTheSlowGpuAlong();
    void degradedNeverFasterNorOverfull_data();
    void degradedNeverFasterNorOverfull();
    void fasterThanNominalIsRefused();
    void unknownLinkIsRefused();
};

void TestStragglers::neutralPartsChangeNothing()
{
    // A part at full speed goes through every degraded code path (a copied fabric, a stretched
    // plan) and must leave every figure exactly as the healthy evaluation has it.
    const Scenario healthy = fixtures::seed128();
    Scenario neutral = healthy;
    Degradation host;
    host.kind = Degradation::Kind::Server;
    host.index = 2;
    host.computeSpeed = 1.0;
    neutral.degradations.parts = { gpuPart(17, 1.0), host, nicPart(5, 1.0) };
    compareReports(evaluate(healthy), evaluate(neutral));
}

void TestStragglers::halfNicOnOneRailSlowsItsDpStep()
{
    // Hand derivation. A ring all-reduce of S bytes over p members runs 2(p-1) steps of S/p
    // bytes (reduce-scatter, then all-gather; Thakur, Rabenseifner, Gropp, IJHPCA 2005). Each
    // step waits for its slowest member, so its bandwidth part is S/p over the slowest link of
    // the ring: beta = 2(p-1)/p * S / (B * eff). Every DP ring here crosses its members' NICs
    // at B = 400 Gb/s; the ring through node005's NIC 3 (rail 3) meets it at B/2, so its steps
    // take twice as long and the DP step, which ends when its slowest group ends, grows by
    //   delta = 2(p-1)/p * S / (B/2 * eff) - 2(p-1)/p * S / (B * eff) = 2(p-1)/p * S / (B * eff).
    // The sync runs after the last backward without overlap, so the iteration grows by as much.
    const Scenario healthy = dpOnlyJob();
    Scenario slow = healthy;
    const int server = 5, nic = 3;
    slow.degradations.parts = { nicPart(server * 8 + nic, 0.5) };
    const CostReport h = evaluate(healthy);
    const CostReport d = evaluate(slow);

    const int p = healthy.degrees.dp;
    const double S = dpPhase(h).bytes; // the gradient bytes of one DP all-reduce
    QVERIFY(S > 1e6);
    QCOMPARE(dpPhase(h).protocol, std::string("Simple"));
    QCOMPARE(dpPhase(d).protocol, std::string("Simple"));
    const double B = healthy.fabric.nic.gbps * 1e9 / 8.0;
    const double beta = 2.0 * (p - 1) / p * S / (B * kNetworkEfficiency);
    // The healthy step's bandwidth part is the formula's (its latency part aside).
    QVERIFY2(std::abs((dpPhase(h).time - dpPhase(h).alphaTime) - beta) <= 0.01 * beta,
        qPrintable(QString::number(dpPhase(h).time - dpPhase(h).alphaTime) + " vs "
            + QString::number(beta)));
    const double delta = beta; // 1/(B/2) - 1/B = 1/B
    const double dpDelta = dpPhase(d).time - dpPhase(h).time;
    QVERIFY2(std::abs(dpDelta - delta) <= 0.01 * delta,
        qPrintable(QString::number(dpDelta) + " vs " + QString::number(delta)));
    const double iterationDelta = d.iterationTime - h.iterationTime;
    QVERIFY2(std::abs(iterationDelta - delta) <= 0.01 * delta,
        qPrintable(QString::number(iterationDelta) + " vs " + QString::number(delta)));
    // Routing and loads are unchanged: the NIC's uplink carries the same bytes at half speed.
    CostEngine engine(slow);
    const Fabric &f = engine.fabric();
    const int up = f.linkBetween(f.nicVertex(server, nic), f.leafVertex(f.leafOfNic(server, nic)));
    QCOMPARE(
        d.links[static_cast<std::size_t>(up)].bytes, h.links[static_cast<std::size_t>(up)].bytes);
    QCOMPARE(f.linkBandwidth(up), B / 2.0);
    QCOMPARE(d.links[static_cast<std::size_t>(up)].busyTime,
        2.0 * h.links[static_cast<std::size_t>(up)].busyTime);
}

void TestStragglers::addedLatencyJoinsEveryStep()
{
    // NCCL's latency model (and the engine's, cost/nccltuning.h) counts one trip around the ring
    // per pass: the steps pipeline behind each other, so a hop's latency is paid once a pass,
    // not once a step. The DP ring on rail 3 enters node005 through its NIC 3's downlink and
    // leaves through its uplink, each 10 us slower: 20 us a pass, 40 us over the all-reduce's
    // two passes (reduce-scatter, all-gather).
    const Scenario healthy = dpOnlyJob();
    Scenario slow = healthy;
    Degradation part;
    part.kind = Degradation::Kind::Nic;
    part.index = 5 * 8 + 3;
    part.addedLatencyUs = 10.0;
    slow.degradations.parts = { part };
    const double alphaDelta
        = dpPhase(evaluate(slow)).alphaTime - dpPhase(evaluate(healthy)).alphaTime;
    const double expected = 2 /* passes */ * 2 /* hops */ * 10e-6;
    QVERIFY2(std::abs(alphaDelta - expected) <= 0.01 * expected,
        qPrintable(QString::number(alphaDelta)));
}

void TestStragglers::slowGpuPacesItsTpGroupAndThePipeline()
{
    // Rank (d 0, p 1, t 0) sits on node004/gpu0 (slot 32). At half speed its TP group's GEMMs
    // take twice as long and the group's all-reduces wait for it: stage 1 computes at half
    // speed for every replica (the DP sync waits for the slowest), its TP all-reduces stay as
    // they were.
    const Scenario healthy = fixtures::seed128();
    Scenario slow = healthy;
    slow.degradations.parts = { gpuPart(32, 0.5) };
    const CostReport h = evaluate(healthy);
    const CostReport d = evaluate(slow);
    QCOMPARE(d.stages.size(), h.stages.size());
    for (std::size_t s = 0; s < h.stages.size(); ++s) {
        const double k = s == 1 ? 2.0 : 1.0;
        QCOMPARE(d.stages[s].computeForward, k * h.stages[s].computeForward);
        QCOMPARE(d.stages[s].computeBackward, k * h.stages[s].computeBackward);
        QCOMPARE(d.stages[s].commForward, h.stages[s].commForward);
    }
    // Hand derivation of the 1F1B pipeline (Narayanan et al. SC'21: stage s runs pp - s - 1
    // warm-up forwards, then one forward and one backward in turn). With F_s, B_s the stages'
    // per-micro-batch times and sigma a boundary send, the slow stage 1 is the bottleneck: it
    // starts after stage 0's first forward and a send, runs its m forwards and m backwards back
    // to back except for one wait, and stage 0's last backward follows it. The wait: after its
    // two warm-up forwards and the first steady forward (3 F_1 from its start), its first
    // backward needs micro-batch 0 to pass stages 2 and 3 and come back:
    //   F_1 + F_2 + F_3 + B_3 + B_2 + 4 sigma after the start, so it idles
    //   max(0, F_2 + F_3 + B_3 + B_2 + 4 sigma - 2 F_1),
    // and after it the downstream stages, each faster than stage 1, keep up. So
    //   makespan = F_0 + B_0 + 2 sigma + m (F_1 + B_1) + that wait.
    CostEngine engine(healthy);
    const int m = engine.plan().microbatches;
    const std::vector<double> &F = d.stageForward, &B = d.stageBackward;
    const double sigma = d.boundaryForward[0];
    QCOMPARE(d.boundaryBackward[0], sigma); // activations and gradients are the same size
    const double wait = std::max(0.0, F[2] + F[3] + B[3] + B[2] + 4 * sigma - 2 * F[1]);
    const double makespan = F[0] + B[0] + 2 * sigma + m * (F[1] + B[1]) + wait;
    QVERIFY2(std::abs(d.pipelineMakespan - makespan) <= 0.01 * makespan,
        qPrintable(QString::number(d.pipelineMakespan) + " vs " + QString::number(makespan)));
    // The healthy pipeline, stages alike: (m + pp - 1) slots of F + B, so the slow stage costs
    // far more than its own extra work once: about m times it.
    QVERIFY(d.pipelineMakespan - h.pipelineMakespan > 0.8 * m
            * (d.stageForward[1] + d.stageBackward[1] - h.stageForward[1] - h.stageBackward[1]));
    QVERIFY(d.iterationTime - h.iterationTime >= 0.99 * (d.pipelineMakespan - h.pipelineMakespan));
}

void TestStragglers::slowHostIsItsGpusSlowed()
{
    // server:4 at 0.8 is each of its eight GPUs at 0.8; with a gpu part on one of them too the
    // factors multiply.
    Scenario host = fixtures::seed128();
    Degradation part;
    part.kind = Degradation::Kind::Server;
    part.index = 4;
    part.computeSpeed = 0.8;
    host.degradations.parts = { part };
    Scenario gpus = fixtures::seed128();
    for (int g = 0; g < 8; ++g)
        gpus.degradations.parts.push_back(gpuPart(32 + g, 0.8));
    compareReports(evaluate(host), evaluate(gpus));
    host.degradations.parts.push_back(gpuPart(33, 0.5));
    const CostReport both = evaluate(host);
    const CostReport h = evaluate(fixtures::seed128());
    const double expected = h.stages[1].computeForward / (0.8 * 0.5);
    QVERIFY(std::abs(both.stages[1].computeForward - expected) <= 1e-12 * expected);
}

void TestStragglers::movesCarryTheSlowGpuAlong()
{
    // Swapping the slow GPU's rank into another stage moves the slowdown with it: the
    // incremental report equals a fresh evaluation of the swapped mapping.
    Scenario s = fixtures::seed128();
    s.degradations.parts = { gpuPart(32, 0.5) };
    CostEngine engine(s);
    engine.swapRanks(32, 64); // (d0,p1,t0) on slot 32 <-> (d0,p2,t0) on slot 64
    Scenario swapped = s;
    swapped.slots = engine.mapping().slots();
    const CostReport fresh = evaluate(swapped);
    compareReports(engine.report(), fresh);
    QVERIFY(engine.report().stages[2].computeForward > engine.report().stages[1].computeForward);
}

void TestStragglers::degradedNeverFasterNorOverfull_data()
{
    QTest::addColumn<unsigned>("seed");
    for (unsigned seed = 1; seed <= 6; ++seed)
        QTest::newRow(qPrintable("seed " + QString::number(seed))) << seed;
}

void TestStragglers::degradedNeverFasterNorOverfull()
{
    // Any mix of slow GPUs, hosts, NICs and cables: no link busier than the iteration, no
    // negative time, never faster than healthy.
    QFETCH(unsigned, seed);
    std::mt19937 rng(seed);
    const Scenario healthy = fixtures::seed128();
    const CostReport h = evaluate(healthy);
    CostEngine probe(healthy);
    const int links = probe.fabric().linkCount();
    Scenario s = healthy;
    std::uniform_real_distribution<double> factor(0.05, 1.0);
    for (int i = 0; i < 4; ++i) {
        Degradation p;
        p.kind = static_cast<Degradation::Kind>(rng() % 4);
        switch (p.kind) {
        case Degradation::Kind::Gpu:
            p.index = static_cast<int>(rng() % 128);
            p.computeSpeed = factor(rng);
            break;
        case Degradation::Kind::Server:
            p.index = static_cast<int>(rng() % 16);
            p.computeSpeed = factor(rng);
            break;
        case Degradation::Kind::Nic:
            p.index = static_cast<int>(rng() % 128);
            p.bandwidthFactor = factor(rng);
            p.addedLatencyUs = static_cast<double>(rng() % 20);
            break;
        case Degradation::Kind::Link:
            p.index = static_cast<int>(rng() % static_cast<unsigned>(links));
            p.bandwidthFactor = factor(rng);
            break;
        }
        bool duplicate = false;
        for (const Degradation &q : s.degradations.parts)
            duplicate = duplicate || (q.kind == p.kind && q.index == p.index);
        if (!duplicate)
            s.degradations.parts.push_back(p);
    }
    const CostReport d = evaluate(s);
    QVERIFY(d.iterationTime >= h.iterationTime * (1.0 - 1e-12));
    for (std::size_t l = 0; l < d.links.size(); ++l) {
        QVERIFY(d.links[l].busyTime >= 0.0);
        QVERIFY2(d.utilisation(static_cast<int>(l)) <= 1.0 + 1e-9, qPrintable(QString::number(l)));
    }
    for (const PhaseResult &p : d.phases)
        QVERIFY(p.time >= 0.0 && p.alphaTime >= 0.0);
    for (const StageReport &st : d.stages)
        QVERIFY(st.computeForward >= 0.0 && st.computeBackward >= 0.0 && st.dpExposed >= 0.0);
    QVERIFY(d.bubbleFraction >= 0.0 && d.bubbleFraction < 1.0);
}

void TestStragglers::fasterThanNominalIsRefused()
{
    Scenario s = fixtures::seed128();
    Degradation p = nicPart(5, 1.0);
    p.bandwidthGbps = 800.0; // the NIC runs at 400
    s.degradations.parts = { gpuPart(1, 0.9), p };
    try {
        evaluate(s);
        QFAIL("a NIC faster than nominal was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.what()),
            QStringLiteral("degradations.parts[1].bandwidth_gbps: 800 Gb/s is above nic:5's "
                           "nominal 400 Gb/s (a degradation can only slow a part down)"));
    }
}

void TestStragglers::unknownLinkIsRefused()
{
    Scenario s = fixtures::seed128();
    Degradation p;
    p.kind = Degradation::Kind::Link;
    p.index = 1 << 30;
    p.bandwidthFactor = 0.5;
    s.degradations.parts = { p };
    try {
        evaluate(s);
        QFAIL("a link outside the fabric was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromStdString(e.what()).startsWith(
                     "degradations.parts[0]: link:1073741824 does not exist (the fabric has "),
            e.what());
    }
}

QTEST_GUILESS_MAIN(TestStragglers)
#include "tst_stragglers.moc"
