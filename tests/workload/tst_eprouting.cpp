// Expert routing: shares, the dispatch matrix and its effect on the fabric, checked against
// hand-derived numbers; the scenario file's "model.routing" and its errors.
#include "cost/costengine.h"
#include "cost/epsummary.h"
#include "workload/eprouting.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "fixtures.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>

using namespace railyard;

namespace {

ExpertRouting explicitRouting(std::vector<double> hotness)
{
    ExpertRouting r;
    r.kind = RoutingKind::Explicit;
    r.hotness = std::move(hotness);
    return r;
}

ExpertRouting zipf(double s)
{
    ExpertRouting r;
    r.kind = RoutingKind::Zipf;
    r.zipfExponent = s;
    return r;
}

bool near(double a, double b, double rel = 1e-12)
{
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

/// Links a route crosses on the rail-optimised fabric (one SU): same server GPU -> NVSwitch ->
/// GPU (2); other server on the same rail GPU -> NIC -> leaf -> NIC -> GPU (4); another rail
/// also leaf -> spine -> leaf (6, ECMP shares summing to one per hop).
int linksOnRoute(int slotA, int slotB, int gpus)
{
    if (slotA / gpus == slotB / gpus)
        return 2;
    return slotA % gpus == slotB % gpus ? 4 : 6;
}

QString writeFile(QTemporaryDir &dir, const QString &name, const QByteArray &text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(text);
    return path;
}

/// A minimal MoE scenario file with `routing` (JSON text) in its model section.
std::string fileWithRouting(const std::string &routing, int experts = 8)
{
    return R"({"format_version": 1,
               "fabric": {"servers": 2, "gpus_per_server": 4},
               "parallel": {"tp": 1, "pp": 1, "dp": 8, "ep": 8},
               "model": {"preset": "mixtral-8x7b", "experts": )"
        + std::to_string(experts) + R"(, "routing": )" + routing + "}}";
}

} // namespace

class TestEpRouting : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void zipfShares_data();
    void zipfShares();
    void topKCapsTheHottestExpert();
    void explicitMemberShares();
    void hugeWeightsAreNotZero();
    void uniformMatrixIsFlat();
    void fp8DispatchStaysBf16();
    void uniformEngineBytesMatchHandCount();
    void skewedEngineBytesFollowTheShares();
    void skewRaisesTheEpPhaseByTheHotShare();
    void hottestDestinationAndSkew();
    void spineBytesZeroOnOneLeaf();
    void spineBytesWhenSpanningRailLeaves();
    void stragglerComputeKeepsModelFlops();
    void skewedSwapsMatchFreshEvaluation();
    void parseRoutingOption_data();
    void parseRoutingOption();
    void hotnessText();
    void loaderReadsAndWritesRouting();
    void loaderReadsHotnessFileRelativeToScenario();
    void loaderErrors_data();
    void loaderErrors();
};

void TestEpRouting::zipfShares_data()
{
    QTest::addColumn<double>("s");
    QTest::addColumn<QList<double>>("expected");
    // Weights 1/k^s for k = 1..4, normalised: s = 1 gives 12/25, 6/25, 4/25, 3/25 (sum 25/12).
    QTest::newRow("s=1") << 1.0 << QList<double> { 12.0 / 25, 6.0 / 25, 4.0 / 25, 3.0 / 25 };
    // s = 2: 1, 1/4, 1/9, 1/16, sum 205/144.
    QTest::newRow("s=2") << 2.0 << QList<double> { 144.0 / 205, 36.0 / 205, 16.0 / 205, 9.0 / 205 };
    QTest::newRow("s=0 is uniform") << 0.0 << QList<double> { 0.25, 0.25, 0.25, 0.25 };
}

void TestEpRouting::zipfShares()
{
    QFETCH(double, s);
    QFETCH(QList<double>, expected);
    const std::vector<double> share = expertShares(zipf(s), 4, 1);
    QCOMPARE(share.size(), std::size_t(4));
    for (int i = 0; i < 4; ++i)
        QVERIFY2(near(share[i], expected[i]), qPrintable(QString::number(share[i])));
    // Two members of two experts each: H = (e0 + e1, e2 + e3); load factor 2 max H.
    const std::vector<double> h = memberShares(zipf(s), 4, 2, 1);
    QVERIFY(near(h[0], expected[0] + expected[1]));
    QVERIFY(near(h[1], expected[2] + expected[3]));
    QVERIFY(near(hotLoadFactor(zipf(s), 4, 2, 1), s == 0.0 ? 1.0 : 2.0 * h[0]));
}

void TestEpRouting::topKCapsTheHottestExpert()
{
    // s = 2 over 4 experts gives expert 0 144/205 > 1/2 of the copies, impossible with top-2
    // (each token picks two distinct experts): capped at 1/2, the other 1/2 split 36:16:9.
    const std::vector<double> share = expertShares(zipf(2.0), 4, 2);
    QVERIFY(near(share[0], 0.5));
    QVERIFY(near(share[1], 0.5 * 36 / 61));
    QVERIFY(near(share[2], 0.5 * 16 / 61));
    QVERIFY(near(share[3], 0.5 * 9 / 61));
    // Only one expert hot, top-2: the second pick spreads evenly over the three cold ones.
    const std::vector<double> lone = expertShares(explicitRouting({ 1, 0, 0, 0 }), 4, 2);
    QVERIFY(near(lone[0], 0.5));
    QVERIFY(near(lone[1], 1.0 / 6));
}

void TestEpRouting::explicitMemberShares()
{
    const ExpertRouting r
        = explicitRouting({ 4, 2, 1, 1 }); // any scale: normalised to 1/2 1/4 1/8 1/8
    const std::vector<double> e = expertShares(r, 4, 1);
    QCOMPARE(e, (std::vector<double> { 0.5, 0.25, 0.125, 0.125 }));
    QCOMPARE(memberShares(r, 4, 2, 1), (std::vector<double> { 0.75, 0.25 }));
    QCOMPARE(hotLoadFactor(r, 4, 2, 1), 1.5);
    QCOMPARE(hotLoadFactor(r, 4, 4, 1), 2.0);
    QCOMPARE(hotLoadFactor(ExpertRouting {}, 4, 4, 1), 1.0);
}

void TestEpRouting::hugeWeightsAreNotZero()
{
    // Eight weights of 1e308 add up to inf: they were refused as "all weights are zero" and
    // shared out as 0 each (#40). Relative to the largest they are eight equal weights.
    const ExpertRouting r = explicitRouting(std::vector<double>(8, 1e308));
    checkRouting(r, 8, "model.routing");
    QCOMPARE(expertShares(r, 8, 1), std::vector<double>(8, 0.125));
    QCOMPARE(memberShares(r, 8, 2, 1), (std::vector<double> { 0.5, 0.5 }));
    // 1e308 beside 1e307 x 7: 10 : 1 x 7, finite however large the weights.
    std::vector<double> w(8, 1e307);
    w.front() = 1e308;
    const std::vector<double> e = expertShares(explicitRouting(w), 8, 1);
    QCOMPARE(e.front(), 10.0 / 17.0);
    QCOMPARE(e.back(), 1.0 / 17.0);
    // All zero is still refused.
    try {
        checkRouting(explicitRouting(std::vector<double>(8, 0.0)), 8, "model.routing");
        QFAIL("all-zero weights accepted");
    } catch (const ScenarioError &err) {
        QVERIFY2(
            std::string(err.what()).find("all weights are zero") != std::string::npos, err.what());
    }
}

void TestEpRouting::uniformMatrixIsFlat()
{
    // 2 servers x 4 GPUs, tp 1, dp 8, ep 8: one EP group of 8. T = b s = 2048 tokens per rank,
    // S = T k h e = 2048 * 2 * 1024 * 2 bytes.
    CostEngine engine(fixtures::smallMoe(2, 4, { 1, 1, 8, 1, 8 }));
    const EpSummary ep = epSummary(engine);
    QVERIFY(ep.present);
    const double S = 2048.0 * 2 * 1024 * 2;
    QCOMPARE(ep.tokensPerRank, 2048.0);
    QCOMPARE(ep.sendBytesPerRank, S);
    QCOMPARE(ep.matrix.size(), std::size_t(64));
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
            QCOMPARE(ep.matrix[i * 8 + j], S / 8);
    // Uniform routing: the total is tokens * top-k * hidden * bytes * (ep - 1) / ep over the group's
    // 8 * 2048 tokens.
    QCOMPARE(ep.dispatchBytesPerLayer, 8.0 * 2048 * 2 * 1024 * 2 * 7 / 8);
    QCOMPARE(ep.skew, 1.0);
    QCOMPARE(ep.groupCount, 1);
    // Matches the workload's all-to-all op size.
    bool found = false;
    for (const CommOp &op : engine.plan().ops)
        if (op.dim == Dim::Ep) {
            QCOMPARE(op.bytes, S);
            found = true;
        }
    QVERIFY(found);
}

void TestEpRouting::fp8DispatchStaysBf16()
{
    // Transformer Engine computes the expert GEMMs in fp8 but the token dispatcher moves bf16
    // hidden states, so an fp8 run's all-to-all buffer is the bf16 one, in the summary (the
    // EP matrix view) as in the engine's op.
    Scenario s = fixtures::smallMoe(2, 4, { 1, 1, 8, 1, 8 });
    s.training.precision = Precision::Fp8;
    CostEngine engine(s);
    const EpSummary ep = epSummary(engine);
    const double S = 2048.0 * 2 * 1024 * 2;
    QCOMPARE(ep.sendBytesPerRank, S);
    for (const CommOp &op : engine.plan().ops)
        if (op.dim == Dim::Ep)
            QCOMPARE(op.bytes, ep.sendBytesPerRank);
}

void TestEpRouting::uniformEngineBytesMatchHandCount()
{
    // Ordered pairs of the 8 members: 24 inside a server (2 links), 8 across on the same rail
    // (4 links), 24 across rails (6 links): 224 link crossings of S/8 per all-to-all. Per
    // iteration: 8 MoE layers x 4 all-to-alls (dispatch and combine, forward and backward) x 8
    // micro-batches.
    CostEngine engine(fixtures::smallMoe(2, 4, { 1, 1, 8, 1, 8 }));
    const double S = 2048.0 * 2 * 1024 * 2;
    const double perIteration = 8.0 * 4 * 8;
    QVERIFY(near(engine.report().dimBytes[index(Dim::Ep)], 224 * S / 8 * perIteration, 1e-9));
}

void TestEpRouting::skewedEngineBytesFollowTheShares()
{
    const ExpertRouting r = explicitRouting({ 1, 2, 3, 4, 5, 6, 7, 12 });
    Scenario s = fixtures::smallMoe(2, 4, { 1, 1, 8, 1, 8 });
    s.model.routing = r;
    CostEngine engine(s);
    const double S = 2048.0 * 2 * 1024 * 2;
    // Hand count: dispatch i -> j carries S H_j (H_j = hotness_j / 40), combine the same back,
    // over the links of the route; members are ranks 0..7 on slots 0..7 (packed).
    double linkBytes = 0.0;
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j)
            if (i != j)
                linkBytes += S * r.hotness[j] / 40.0 * linksOnRoute(i, j, 4);
    QVERIFY(near(engine.report().dimBytes[index(Dim::Ep)], linkBytes * 8 * 4 * 8, 1e-9));
    // Every destination has 3 sources on the other server and another rail, so the bytes that
    // cross the spine per layer are 3 S sum_j H_j = 3 S, skew or not.
    const EpSummary ep = epSummary(engine);
    QVERIFY(near(ep.spineDispatchBytesPerLayer, 3.0 * S));
    // Spine tier: each crossing byte uses one leaf -> spine and one spine -> leaf link.
    QVERIFY(near(ep.tierBytes[index(Tier::Spine)], 2.0 * 3.0 * S * 8 * 4 * 8, 1e-9));
    QVERIFY(near(ep.spineBytes, ep.tierBytes[index(Tier::Spine)]));
}

void TestEpRouting::skewRaisesTheEpPhaseByTheHotShare()
{
    // Two single-GPU servers on one leaf, ep 2 with experts {3, 1}: H = (3/4, 1/4). The busiest
    // link of the dispatch carries 3/4 S instead of 1/2 S (uniform), over the 400G NIC.
    auto phase = [](const ExpertRouting &r) {
        Scenario s = fixtures::smallMoe(2, 1, { 1, 1, 2, 1, 2 }, 2, 1);
        s.model.routing = r;
        CostEngine engine(s);
        for (const PhaseResult &p : engine.report().phases)
            if (p.dim == Dim::Ep && p.pass == OpPass::Forward)
                return p.time;
        return -1.0;
    };
    const double S = 2048.0 * 1 * 1024 * 2;
    const double nic = 400e9 / 8;
    const double uniform = phase(ExpertRouting {});
    const double skewed = phase(explicitRouting({ 3, 1 }));
    QVERIFY(uniform > 0.0);
    QVERIFY(near(skewed - uniform, (0.75 - 0.5) * S / nic, 1e-9));
}

void TestEpRouting::hottestDestinationAndSkew()
{
    Scenario s = fixtures::smallMoe(2, 4, { 1, 1, 8, 1, 8 });
    s.model.routing = explicitRouting({ 1, 1, 1, 1, 1, 1, 1, 9 }); // H_7 = 9/16 (top-2 cap 1/2!)
    s.model.topK = 1; // no cap with top-1
    CostEngine engine(s);
    const EpSummary ep = epSummary(engine);
    QCOMPARE(ep.hottestMember, 7);
    QCOMPARE(ep.hottestRank, 7);
    QCOMPARE(ep.hottestFirstExpert, 7);
    QCOMPARE(ep.hottestLastExpert, 7);
    QCOMPARE(ep.hottestExpert, 7);
    // Received off-rank bytes of j: 7 S H_j; mean 7 S / 8; skew = 8 * 9/16 = 4.5.
    const double S = 2048.0 * 1 * 1024 * 2;
    QVERIFY(near(ep.receivedMax, 7.0 * S * 9 / 16));
    QVERIFY(near(ep.receivedMean, 7.0 * S / 8));
    QVERIFY(near(ep.skew, 4.5));
    // Skew moves bytes between destinations but not the total: S (ep - 1).
    QVERIFY(near(ep.dispatchBytesPerLayer, 7.0 * S));
}

void TestEpRouting::spineBytesZeroOnOneLeaf()
{
    // tp 4 on 2 x 4 GPUs: EP group {t, t + 4} pairs GPU t of both servers, one rail leaf.
    Scenario s = fixtures::smallMoe(2, 4, { 4, 1, 2, 1, 2 });
    s.model.routing = zipf(1.5);
    CostEngine engine(s);
    const EpSummary ep = epSummary(engine);
    QCOMPARE(ep.groupCount, 4);
    QCOMPARE(ep.groupRanks, (std::vector<int> { 0, 4 }));
    QCOMPARE(ep.spineDispatchBytesPerLayerJob, 0.0);
    QCOMPARE(ep.spineBytes, 0.0);
    QVERIFY(ep.tierBytes[index(Tier::Leaf)] > 0.0); // over the NICs of one leaf instead
    QCOMPARE(ep.epGroupsSpanningLeaves, 0);
    QCOMPARE(ep.dpGroupsOneLeaf, ep.dpGroups);
    QCOMPARE(ep.locality, std::string("dp-on-leaf"));
    // With SP the rank routes its 1/t sequence shard: T = 2048 / 4.
    QCOMPARE(ep.tokensPerRank, 512.0);
}

void TestEpRouting::spineBytesWhenSpanningRailLeaves()
{
    Scenario s = fixtures::smallMoe(2, 4, { 1, 1, 8, 1, 8 });
    CostEngine engine(s);
    const EpSummary ep = epSummary(engine);
    const double S = 2048.0 * 2 * 1024 * 2;
    // 24 cross-rail ordered pairs of S/8.
    QVERIFY(near(ep.spineDispatchBytesPerLayer, 24 * S / 8));
    QVERIFY(ep.spineBytes > 0.0);
    QCOMPARE(ep.epGroupsSpanningLeaves, 1);
    QCOMPARE(ep.locality, std::string("ep-spans-leaves"));
    int crossing = 0;
    for (bool c : ep.crossesSpine)
        crossing += c ? 1 : 0;
    QCOMPARE(crossing, 24);
    // ep 4 on one server each (2 groups): NVLink only.
    CostEngine local(fixtures::smallMoe(2, 4, { 1, 1, 8, 1, 4 }));
    const EpSummary l = epSummary(local);
    QCOMPARE(l.epGroupsOneServer, 2);
    QCOMPARE(l.spineDispatchBytesPerLayerJob, 0.0);
    QCOMPARE(l.locality, std::string("ep-in-server"));
}

void TestEpRouting::stragglerComputeKeepsModelFlops()
{
    const Scenario uniform = fixtures::smallMoe(2, 4, { 1, 1, 8, 1, 8 });
    Scenario skewed = uniform;
    skewed.model.routing = zipf(1.0);
    const WorkloadPlan a
        = planWorkload(uniform.model, uniform.training, uniform.device, uniform.degrees);
    const WorkloadPlan b
        = planWorkload(skewed.model, skewed.training, skewed.device, skewed.degrees);
    // Useful FLOPs do not depend on where the tokens go; the busiest member's time does.
    QCOMPARE(b.modelFlopsPerIteration, a.modelFlopsPerIteration);
    QVERIFY(b.stages[0].forwardTime > a.stages[0].forwardTime);
    QVERIFY(b.memory[0].activationsPerMicrobatch > a.memory[0].activationsPerMicrobatch);
}

void TestEpRouting::skewedSwapsMatchFreshEvaluation()
{
    // The combine pattern is re-routed with the dispatch one when ranks move.
    Scenario s = fixtures::smallMoe(2, 4, { 1, 1, 8, 1, 8 });
    s.model.routing = zipf(1.0);
    CostEngine engine(s);
    for (const auto &[a, b] : { std::pair { 0, 5 }, std::pair { 3, 6 }, std::pair { 7, 1 } })
        engine.swapRanks(a, b);
    engine.moveRank(2, 4); // occupied: a swap too
    Scenario moved = s;
    moved.slots = engine.mapping().slots();
    CostEngine fresh(moved);
    const CostReport &x = engine.report();
    const CostReport &y = fresh.report();
    for (Tier t : kAllTiers)
        QVERIFY(near(
            x.tierBytes[index(t)][index(Dim::Ep)], y.tierBytes[index(t)][index(Dim::Ep)], 1e-9));
    QVERIFY(near(x.iterationTime, y.iterationTime, 1e-9));
    QVERIFY(near(
        epSummary(engine).spineDispatchBytesPerLayer, epSummary(fresh).spineDispatchBytesPerLayer));
}

void TestEpRouting::parseRoutingOption_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("kind"); // -1 = error
    QTest::addColumn<double>("exponent");
    QTest::newRow("uniform") << "uniform" << int(RoutingKind::Uniform) << 1.0;
    QTest::newRow("zipf:1.5") << "zipf:1.5" << int(RoutingKind::Zipf) << 1.5;
    QTest::newRow("zipf:") << "zipf:" << -1 << 0.0;
    QTest::newRow("zipf:abc") << "zipf:abc" << -1 << 0.0;
    QTest::newRow("zipf:-1") << "zipf:-1" << -1 << 0.0;
    QTest::newRow("zipf:11") << "zipf:11" << -1 << 0.0;
    QTest::newRow("pareto") << "pareto" << -1 << 0.0;
    QTest::newRow("hotness: missing file") << "hotness:/nonexistent/hot.csv" << -1 << 0.0;
}

void TestEpRouting::parseRoutingOption()
{
    QFETCH(QString, text);
    QFETCH(int, kind);
    QFETCH(double, exponent);
    if (kind < 0) {
        QVERIFY_THROWS_EXCEPTION(ScenarioError, railyard::parseRoutingOption(text.toStdString()));
        return;
    }
    const ExpertRouting r = railyard::parseRoutingOption(text.toStdString());
    QCOMPARE(int(r.kind), kind);
    QCOMPARE(r.zipfExponent, exponent);
}

void TestEpRouting::hotnessText()
{
    QCOMPARE(parseHotnessText("4, 2\n1 1 # two cold experts\n", "t"),
        (std::vector<double> { 4, 2, 1, 1 }));
    QCOMPARE(parseHotnessText("[0.5, 0.25]", "t"), (std::vector<double> { 0.5, 0.25 }));
    QCOMPARE(parseHotnessText(R"({"hotness": [3, 1]})", "t"), (std::vector<double> { 3, 1 }));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, parseHotnessText("1, two, 3", "t"));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, parseHotnessText("# nothing\n", "t"));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, parseHotnessText(R"({"hot": [1]})", "t"));
    QVERIFY_THROWS_EXCEPTION(ScenarioError, parseHotnessText("[1, -2]", "t"));
    // An object's messages name the file too (issue #40, item 12).
    for (const auto &[text, says] : { std::pair<const char *, const char *> {
                                          R"({"hot": [1]})", "hot.json.hot: unknown field" },
             { R"({})", "hot.json.hotness: missing required field" } }) {
        try {
            parseHotnessText(text, "hot.json");
            QFAIL("no error");
        } catch (const ScenarioError &e) {
            QVERIFY2(std::string(e.what()).rfind(says, 0) == 0, e.what());
        }
    }
}

void TestEpRouting::loaderReadsAndWritesRouting()
{
    const Scenario z = parseScenario(fileWithRouting(R"({"kind": "zipf", "zipf_exponent": 1.2})"));
    QCOMPARE(z.model.routing.kind, RoutingKind::Zipf);
    QCOMPARE(z.model.routing.zipfExponent, 1.2);
    const nlohmann::json written = scenarioToJson(z);
    QCOMPARE(written["model"]["routing"]["kind"].get<std::string>(), std::string("zipf"));
    QCOMPARE(parseScenario(scenarioToText(z)).model.routing, z.model.routing);

    const Scenario u = parseScenario(fileWithRouting(R"({"kind": "uniform"})"));
    QVERIFY(u.model.routing.isUniform());
    QVERIFY(!scenarioToJson(u)["model"].contains("routing")); // default: not written

    const Scenario e
        = parseScenario(fileWithRouting(R"({"kind": "explicit", "hotness": [8,1,1,1,1,1,1,1]})"));
    QCOMPARE(e.model.routing.hotness, (std::vector<double> { 8, 1, 1, 1, 1, 1, 1, 1 }));
    QCOMPARE(parseScenario(scenarioToText(e)).model.routing, e.model.routing);

    // Every sample without routing saves byte-identically (the field stays out).
    for (const char *name : { "seed-128.json", "mixtral-ep8.json", "mixtral-ep8-zipf.json" }) {
        QFile f(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const std::string text = f.readAll().toStdString();
        QCOMPARE(scenarioToText(parseScenario(text)), text);
    }
}

void TestEpRouting::loaderReadsHotnessFileRelativeToScenario()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeFile(dir, QStringLiteral("hot.csv"), "# tokens per expert\n5,1,1,1,1,1,1,1\n");
    const QString scenario = writeFile(dir, QStringLiteral("s.json"),
        QByteArray::fromStdString(
            fileWithRouting(R"({"kind": "explicit", "hotness_file": "hot.csv"})")));
    const Scenario s = loadScenario(scenario.toStdString());
    QCOMPARE(s.model.routing.kind, RoutingKind::Explicit);
    QCOMPARE(s.model.routing.hotness, (std::vector<double> { 5, 1, 1, 1, 1, 1, 1, 1 }));
    // Saved inline, so the file no longer depends on hot.csv.
    const nlohmann::json j = scenarioToJson(s);
    QVERIFY(!j["model"]["routing"].contains("hotness_file"));
    QCOMPARE(j["model"]["routing"]["hotness"].size(), std::size_t(8));
}

void TestEpRouting::loaderErrors_data()
{
    QTest::addColumn<QString>("routing");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown kind")
        << R"({"kind": "pareto"})"
        << "model.routing.kind: unknown value 'pareto' (accepted: uniform, zipf, explicit)";
    QTest::newRow("negative hotness")
        << R"({"kind": "explicit", "hotness": [1, -1, 1, 1, 1, 1, 1, 1]})"
        << "model.routing.hotness[1]: must not be negative, got -1";
    QTest::newRow("wrong length") << R"({"kind": "explicit", "hotness": [1, 1, 1]})"
                                  << "model.routing.hotness: has 3 entries but model.experts is 8";
    QTest::newRow("all zero") << R"({"kind": "explicit", "hotness": [0, 0, 0, 0, 0, 0, 0, 0]})"
                              << "model.routing.hotness: all weights are zero";
    QTest::newRow("exponent too large")
        << R"({"kind": "zipf", "zipf_exponent": 11})"
        << "model.routing.zipf_exponent: 11 exceeds the limit of 10";
    QTest::newRow("negative exponent") << R"({"kind": "zipf", "zipf_exponent": -0.5})"
                                       << "model.routing.zipf_exponent: must not be negative";
    QTest::newRow("hotness with zipf")
        << R"({"kind": "zipf", "hotness": [1]})"
        << R"(model.routing.hotness: only used with kind "explicit")";
    QTest::newRow("explicit without hotness")
        << R"({"kind": "explicit"})"
        << "model.routing: explicit routing needs exactly one";
    QTest::newRow("unknown field") << R"({"kind": "zipf", "exponent": 1})"
                                   << "model.routing.exponent: unknown field";
    QTest::newRow("missing hotness file")
        << R"({"kind": "explicit", "hotness_file": "/nonexistent/hot.csv"})"
        << "/nonexistent/hot.csv: cannot open hotness file";
    QTest::newRow("not an object") << R"("zipf")"
                                   << "model.routing: expected an object";
}

void TestEpRouting::loaderErrors()
{
    QFETCH(QString, routing);
    QFETCH(QString, message);
    try {
        parseScenario(fileWithRouting(routing.toStdString()));
        QFAIL("no error");
    } catch (const ScenarioError &e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(what.startsWith(message), qPrintable(what));
        QVERIFY(!what.contains(QLatin1Char('\n')));
    }
}

QTEST_GUILESS_MAIN(TestEpRouting)
#include "tst_eprouting.moc"
