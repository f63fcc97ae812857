/** Several jobs on one fabric (cost/costenginejobs.h, docs/shared-fabric.md): max-min fair
 *  shares, the two-job sample's hand-derived slowdown through the spine links and its removal
 *  when job B moves off them, the duty-cycle assumption, and properties on random placements. */
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/costenginejobs.h"
#include "fabric/fabric.h"
#include "randomscenario.h"
#include "scenario/jobssection.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

using namespace railyard;

namespace {

Scenario twoJobSample()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/two-jobs.json");
}

/// The servers' GPU slots, server by server (what compose packs ranks on).
std::vector<int> slotsOfServers(std::initializer_list<int> servers, int gpus)
{
    std::vector<int> slots;
    for (const int s : servers)
        for (int g = 0; g < gpus; ++g)
            slots.push_back(s * gpus + g);
    return slots;
}

/// The link named `name` ("leaf0 -> spine0" style), or -1.
int linkNamed(const Fabric &fabric, const std::string &name)
{
    for (int l = 0; l < fabric.linkCount(); ++l)
        if (fabric.linkName(l) == name)
            return l;
    return -1;
}

/// The two-job sample's gradient all-reduce message S, by hand: Llama 3 8B (32 layers, hidden
/// 4096, 32 heads of 128, 8 KV heads, SwiGLU FFN 14336, vocabulary 128256) on TP 8, fp32
/// gradients (4 bytes; Megatron-LM reduces bf16 training's gradients in fp32).
double gradientBytesByHand()
{
    const double h = 4096, q = 32 * 128, kv = 8 * 128, ffn = 14336, layers = 32, tp = 8;
    const double attention = h * (q + 2 * kv) + q * h; // W_qkv and W_o
    const double norms = 2 * h; // two RMSNorms
    const double mlp = 3 * h * ffn; // gate, up, down
    // Megatron-LM pads the vocabulary to a multiple of 128 x tp: 128256 -> 129024.
    const double vocab = std::ceil(128256.0 / (128 * tp)) * (128 * tp);
    // Untied input embedding and output layer, plus the final norm; one stage holds all.
    const double params = layers * (attention + norms + mlp) + 2 * vocab * h + h;
    return 4.0 * params / tp;
}

/// The leaf uplink of the sample's fabric, by hand: a ToR leaf of a 64-port switch takes 4
/// servers x 8 NICs = 32 ports down, ceil(32 / 8) = 4 up at 8:1 oversubscription, all to the
/// one spine (ceil(4 leaves x 4 / 64) = 1): 4 x 400 Gb/s = 200 GB/s per direction.
constexpr double kUplinkBytesPerSecond = 4 * 400e9 / 8;
/// NCCL's ring all-reduce reaches 47/50 of a network link (nccl-tests issue #290, the engine's
/// linkEfficiency()).
constexpr double kRingEfficiency = 47.0 / 50.0;

} // namespace

class TestCostEngineJobs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void maxMinShares_data();
    void maxMinShares();
    void bSlowsAThroughTheSpineByTheDerivedTime();
    void bMovedOffTheSpineLinksCostsANothing();
    void dutyCycleSharesLessThanTheWorstCase();
    void jobErrorsNameTheJob();
    void aSlowNicSlowsOnlyTheJobOnIt();
    void randomPlacementsKeepTheInvariants();
};

void TestCostEngineJobs::maxMinShares_data()
{
    QTest::addColumn<std::vector<double>>("demands");
    QTest::addColumn<double>("share");
    QTest::addColumn<std::vector<double>>("taken");
    // Greedy neighbours: equal shares.
    QTest::newRow("one greedy") << std::vector<double> { 1.0 } << 0.5
                                << std::vector<double> { 0.5 };
    QTest::newRow("three greedy") << std::vector<double> { 1.0, 1.0, 1.0 } << 0.25
                                  << std::vector<double> { 0.25, 0.25, 0.25 };
    // A neighbour below the equal share gets its demand, the job the rest.
    QTest::newRow("small") << std::vector<double> { 0.3 } << 0.7 << std::vector<double> { 0.3 };
    // 0.1 is served (below 1/3); then 0.6 and the job split the 0.9 left: 0.45 each.
    QTest::newRow("mixed") << std::vector<double> { 0.6, 0.1 } << 0.45
                           << std::vector<double> { 0.45, 0.1 };
}

void TestCostEngineJobs::maxMinShares()
{
    QFETCH(std::vector<double>, demands);
    QFETCH(double, share);
    QFETCH(std::vector<double>, taken);
    std::vector<double> got;
    QCOMPARE(maxMinShare(demands, &got), share);
    QCOMPARE(got, taken);
    // Nothing is handed out twice: the job's share and the neighbours' fill the link at most.
    QVERIFY(share + std::accumulate(got.begin(), got.end(), 0.0) <= 1.0 + 1e-12);
}

void TestCostEngineJobs::bSlowsAThroughTheSpineByTheDerivedTime()
{
    // samples/two-jobs.json: jobs a and b, each Llama 3 8B TP 8 DP 2 with the gradient
    // all-reduce exposed (no overlap, no distributed optimizer), a on servers 0 and 8, b on 1
    // and 9 of the 8:1 oversubscribed ToR fabric (leaf tor-0: servers 0-3, tor-2: 8-11). Each
    // job's 8 DP rings (one per TP rank t: GPU t of its two servers) cross tor-0 -> spine ->
    // tor-2 and back.
    //
    // By hand, alone: a 2-member ring all-reduce sends S/2 per member per pass, 2 passes; the 8
    // rings put 8 x S/2 on each uplink direction per pass, so the uplink (200 GB/s at 47/50)
    // sets the phase: 2 x 8 x S/2 / (0.94 x 200 GB/s) = 8 S / 188 GB/s. (Each GPU's own NIC
    // takes 2 x S/2 / (0.94 x 50 GB/s), half that.)
    // Shared, worst case: b's rings cross the same four links, so a gets half of each
    // (max-min fair between two greedy jobs) and the phase takes twice as long. The DP sync is
    // exposed in full, so a's iteration grows by exactly the alone phase: 8 S / 188 GB/s.
    const double S = gradientBytesByHand();
    const double slowdown = 8.0 * S / (kRingEfficiency * kUplinkBytesPerSecond);
    const SharedFabricReport r = evaluateJobs(twoJobSample());
    QCOMPARE(r.jobs.size(), std::size_t { 2 });
    const JobReport &a = r.jobs[0];
    QCOMPARE(a.name, std::string("a"));
    // The hand's S is the plan's (the message the engine sizes the sync with).
    const auto sync = std::find_if(a.alone().phases.begin(), a.alone().phases.end(),
        [](const PhaseResult &p) { return p.dim == Dim::Dp; });
    QVERIFY(sync != a.alone().phases.end());
    QCOMPARE(sync->bytes, S);
    const double grew = a.iterationTime - a.aloneIterationTime;
    QVERIFY2(std::abs(grew - slowdown) <= 1e-6 * slowdown,
        qPrintable(QStringLiteral("a slowed by %1 s, by hand %2 s").arg(grew).arg(slowdown)));
    QVERIFY(std::abs(slowdown - 0.171) < 0.001); // 8 x 4.018 GB / 188 GB/s
    // Through the four links, named, each b's; b's busy time there at line rate: the link
    // carries 8 S of a's per iteration (8 rings x 2 passes x S/2), now at half of 200 GB/s.
    const Fabric &fabric = *r.fabric;
    QCOMPARE(a.sharedLinks, 4);
    QCOMPARE(a.interference.size(), std::size_t { 4 });
    std::vector<std::string> names;
    for (const JobInterference &row : a.interference) {
        names.push_back(fabric.linkName(row.link));
        QCOMPARE(row.neighbour, 1);
        QVERIFY(std::abs(row.seconds - 8.0 * S / kUplinkBytesPerSecond) <= 1e-9 * row.seconds);
        QCOMPARE(fabric.linkTier(row.link), Tier::Spine);
    }
    std::sort(names.begin(), names.end());
    QCOMPARE(names,
        (std::vector<std::string> { "spine-p0-0 -> tor-0", "spine-p0-0 -> tor-2",
            "tor-0 -> spine-p0-0", "tor-2 -> spine-p0-0" }));
    QVERIFY(linkNamed(fabric, "tor-0 -> spine-p0-0") >= 0);
    // The same holds for b, the mirror image.
    QVERIFY(std::abs(r.jobs[1].iterationTime - r.jobs[1].aloneIterationTime - slowdown)
        <= 1e-6 * slowdown);
}

void TestCostEngineJobs::bMovedOffTheSpineLinksCostsANothing()
{
    // b on servers 4 and 12 (leaves tor-1 and tor-3): its rings cross tor-1 -> spine -> tor-3,
    // no link a uses, so a's iteration is its alone time and no link is shared.
    Scenario s = twoJobSample();
    s.jobs[1].slots = slotsOfServers({ 4, 12 }, 8);
    const SharedFabricReport r = evaluateJobs(s);
    for (const JobReport &job : r.jobs) {
        QCOMPARE(job.iterationTime, job.aloneIterationTime);
        QCOMPARE(job.sharedLinks, 0);
        QVERIFY(job.interference.empty());
    }
    // And the alone time is the sample's: moving b changes nothing of a's.
    QCOMPARE(r.jobs[0].aloneIterationTime, evaluateJobs(twoJobSample()).jobs[0].aloneIterationTime);
    // The alone time is the single-job engine's on the job's own file.
    QCOMPARE(r.jobs[0].aloneIterationTime, CostEngine(jobScenario(s, 0)).report().iterationTime);
}

void TestCostEngineJobs::dutyCycleSharesLessThanTheWorstCase()
{
    // Duty cycle: b is on the uplink only its DP sync's share of its iteration: d = busy / T
    // (alone), 8 S / 200 GB/s over b's alone iteration. That is below 1/2, so max-min gives b
    // exactly d and a the rest, 1 - d: a's phase on the uplink takes 8 S / (0.94 x 200 GB/s x
    // (1 - d)), and a slows by that minus the alone phase.
    const double S = gradientBytesByHand();
    const SharedFabricReport worst = evaluateJobs(twoJobSample(), PhaseOverlap::Worst);
    const SharedFabricReport duty = evaluateJobs(twoJobSample(), PhaseOverlap::DutyCycle);
    const double d = (8.0 * S / kUplinkBytesPerSecond) / duty.jobs[1].aloneIterationTime;
    QVERIFY(d > 0.0 && d < 0.5);
    const double alonePhase = 8.0 * S / (kRingEfficiency * kUplinkBytesPerSecond);
    const double want = alonePhase / (1.0 - d) - alonePhase;
    const JobReport &a = duty.jobs[0];
    QVERIFY2(std::abs(a.iterationTime - a.aloneIterationTime - want) <= 1e-6 * want,
        qPrintable(QStringLiteral("duty cycle: a slowed by %1 s, by hand %2 s")
                       .arg(a.iterationTime - a.aloneIterationTime)
                       .arg(want)));
    QVERIFY(a.iterationTime < worst.jobs[0].iterationTime);
    QVERIFY(a.iterationTime > a.aloneIterationTime);
}

void TestCostEngineJobs::jobErrorsNameTheJob()
{
    Scenario s = twoJobSample();
    s.jobs[1].degrees.tp = 3; // 3 * 1 * 2 = 6 ranks, but 16 slots listed
    s.jobs[1].slots.resize(6);
    try {
        (void)evaluateJobs(s);
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromStdString(e.field()).startsWith(QStringLiteral("jobs[1]")), e.what());
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("job \"b\"")), e.what());
    }
}

void TestCostEngineJobs::aSlowNicSlowsOnlyTheJobOnIt()
{
    // NIC 3 of server 0 (nic:3) at 5 % of its 400 Gb/s: only job a has a rank there (TP rank 3
    // of its first replica), so a slows and b, alone, does not. A shared scenario's jobs see
    // its degradations as a single-job file of each would.
    Scenario s = twoJobSample();
    Degradation nic;
    nic.kind = Degradation::Kind::Nic;
    nic.index = 3;
    nic.bandwidthFactor = 0.05; // 20 Gb/s: slower than the shared uplink's share
    s.degradations.parts.push_back(nic);
    const SharedFabricReport healthy = evaluateJobs(twoJobSample());
    const SharedFabricReport slow = evaluateJobs(s);
    // Each job evaluates as its own file does, degradations included.
    QCOMPARE(slow.jobs[0].aloneIterationTime, CostEngine(jobScenario(s, 0)).report().iterationTime);
    QVERIFY(slow.jobs[0].aloneIterationTime > healthy.jobs[0].aloneIterationTime);
    QVERIFY(slow.jobs[0].iterationTime > healthy.jobs[0].iterationTime);
    // b has no rank on server 0: alone, it does not see the NIC.
    QCOMPARE(slow.jobs[1].aloneIterationTime, healthy.jobs[1].aloneIterationTime);
    // By hand, a's DP phase alone is now the slow NIC's: 2 passes x S/2 through 20 Gb/s at
    // 47/50, in place of the uplink's 8 S / 188 GB/s; the DP sync is exposed in full.
    const double S = gradientBytesByHand();
    const double uplinkPhase = 8.0 * S / (kRingEfficiency * kUplinkBytesPerSecond);
    const double nicPhase = 2.0 * (S / 2.0) / (kRingEfficiency * 20e9 / 8.0);
    const double grew = slow.jobs[0].aloneIterationTime - healthy.jobs[0].aloneIterationTime;
    QVERIFY2(std::abs(grew - (nicPhase - uplinkPhase)) <= 1e-3 * (nicPhase - uplinkPhase),
        qPrintable(QStringLiteral("a alone grew %1 s, by hand %2 s")
                       .arg(grew)
                       .arg(nicPhase - uplinkPhase)));
}

void TestCostEngineJobs::randomPlacementsKeepTheInvariants()
{
    // Two copies of a random job (half its data-parallel replicas each when both do not fit)
    // on random disjoint slots of its fabric, under both overlap assumptions: every link's
    // utilisation stays <= 1, no job is faster shared than alone, no time is negative.
    int checked = 0;
    for (std::uint32_t seed = 1; seed <= 60; ++seed) {
        Scenario base = fixtures::randomScenario(seed);
        const int slots = base.fabric.servers * base.fabric.gpusPerServer;
        auto world = [](const ParallelDegrees &d) { return d.tp * d.pp * d.dp * d.cp; };
        if (2 * world(base.degrees) > slots) {
            if (base.degrees.dp % 2 != 0 || base.degrees.ep > base.degrees.dp / 2)
                continue;
            base.degrees.dp /= 2;
        }
        std::vector<int> order(static_cast<std::size_t>(slots));
        std::iota(order.begin(), order.end(), 0);
        std::mt19937 random(seed);
        std::shuffle(order.begin(), order.end(), random);
        Scenario s = base;
        s.inference.reset();
        s.failures.clear(); // random slots would land on failed hardware
        const auto n = static_cast<std::size_t>(world(base.degrees));
        for (std::size_t j = 0; j < 2; ++j) {
            JobSpec job;
            job.name = j == 0 ? "a" : "b";
            job.colour = defaultJobColour(j);
            job.degrees = base.degrees;
            job.order = base.order;
            job.model = base.model;
            job.training = base.training;
            job.slots.assign(order.begin() + static_cast<std::ptrdiff_t>(j * n),
                order.begin() + static_cast<std::ptrdiff_t>((j + 1) * n));
            s.jobs.push_back(std::move(job));
        }
        adoptFirstJob(s);
        for (const PhaseOverlap overlap : { PhaseOverlap::Worst, PhaseOverlap::DutyCycle }) {
            SharedFabricReport r;
            try {
                r = evaluateJobs(s, overlap);
            } catch (const ScenarioError &) {
                continue; // a scenario the single-job engine refuses (memory, schedule rules)
            }
            ++checked;
            const QByteArray tag = "seed " + QByteArray::number(seed) + " "
                + QByteArray(phaseOverlapName(overlap).data());
            for (const double u : r.linkUtilisation)
                QVERIFY2(
                    u >= 0.0 && u <= 1.0 + 1e-9, tag + ": utilisation " + QByteArray::number(u));
            for (const JobReport &job : r.jobs) {
                QVERIFY2(job.aloneIterationTime > 0.0, tag);
                QVERIFY2(job.iterationTime >= job.aloneIterationTime * (1.0 - 1e-12),
                    tag + ": shared " + QByteArray::number(job.iterationTime) + " < alone "
                        + QByteArray::number(job.aloneIterationTime));
                for (const JobInterference &row : job.interference)
                    QVERIFY2(row.seconds >= 0.0 && std::isfinite(row.seconds), tag);
                QCOMPARE(job.sharedLinks == 0, job.interference.empty());
            }
        }
    }
    QVERIFY2(checked >= 20, QByteArray::number(checked) + " random two-job scenarios evaluated");
}

QTEST_GUILESS_MAIN(TestCostEngineJobs)
#include "tst_costenginejobs.moc"
