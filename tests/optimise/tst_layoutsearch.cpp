/**
 * The parallel-layout search (optimise/layoutsearch.h): divisibility pruning counted against a
 * hand count of the candidates whose heads or key/value heads do not split over tp; memory
 * pruning against the ledger's 16 bytes per parameter (mixed-precision Adam) and against the
 * engine's own verdict for every candidate of a search; the ranking against evaluating the rows
 * directly; the Pareto front against a brute-force check; determinism; shards merged through
 * their JSON parts equal the serial result; the merge refuses missing, repeated and foreign
 * parts; the monitor cancels.
 */
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "optimise/layoutsearch.h"
#include "optimise/layoutsearchjson.h"
#include "workload/workloadplan.h"

#include <QTest>

#include <array>

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

using namespace railyard;

namespace {

/// The GPUs of the determinism and shard-merge cases: 32 in the release suite; under the
/// sanitizers (about 40x slower at -O0) 16, the same code on a smaller space (these two cases
/// took 74 of the suite's 97 s under ASan + UBSan at 32).
#ifdef RAILYARD_SANITIZED
constexpr int kRepeatGpus = 16;
#else
constexpr int kRepeatGpus = 32;
#endif

/// A small search: one schedule, one recompute mode, micro-batch 1, no cp.
LayoutSearchOptions smallSearch(const char *model, int gpus)
{
    LayoutSearchOptions o;
    o.model = model;
    o.gpus = gpus;
    o.maxCp = 1;
    o.maxMicroBatch = 1;
    o.schedules = { ScheduleKind::OneFOneB };
    o.recomputes = { Recompute::Selective };
    o.placements = { Placement::Packed, Placement::RailAligned };
    o.top = 100000; // every evaluated candidate stays in the ranking
    return o;
}

bool relativelyEqual(double a, double b, double tolerance)
{
    return std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b));
}

/// Llama 2 70B's parameters by hand from its shape (80 layers, hidden 8192, 64 heads of 128,
/// 8 key/value heads, SwiGLU 28672, vocabulary 32000, untied input and output embeddings):
/// per layer Q and O 8192^2 each, K and V 8192 x 1024 each, three MLP matrices 8192 x 28672,
/// two RMSNorm vectors.
double llama2_70bParameters()
{
    const double h = 8192.0, kv = 1024.0, ffn = 28672.0, vocab = 32000.0;
    const double layer = 2.0 * h * h + 2.0 * h * kv + 3.0 * h * ffn + 2.0 * h;
    return 80.0 * layer + 2.0 * vocab * h + h;
}

std::string dumped(const LayoutSearchResult &r)
{
    return layoutSearchJson(r).dump();
}

/// Through the text a shard writes and merge reads.
LayoutSearchResult throughPartText(const LayoutSearchResult &r)
{
    return layoutSearchFromPartJson(nlohmann::json::parse(layoutSearchPartJson(r).dump()), "part");
}

} // namespace

class TestLayoutSearch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void headsThatDoNotSplitPruneTp();
    void memoryPruneUsesTheLedger();
    void pruningAgreesWithTheEngine();
    void rankingMatchesDirectEvaluation();
    void paretoFrontByBruteForce();
    void paretoFrontOfHandBuiltCandidates();
    void deterministic();
    void shardsMergeToTheSerialResult();
    void mergeRefusesWrongParts();
    void monitorCancels();
    void badOptionsNameTheOption();
};

void TestLayoutSearch::headsThatDoNotSplitPruneTp()
{
    // Llama 3 8B: 32 layers, 32 heads, 8 key/value heads. On 48 GPUs with tp up to 16 the
    // degrees 3, 6 and 12 do not split the heads and 16 does not split the key/value heads.
    LayoutSearchOptions o = smallSearch("llama3-8b", 48);
    o.maxTp = 16;
    o.globalBatch = 96;
    const std::vector<LayoutCandidate> list = enumerateLayouts(o);
    // checkWorkload() tests the layers over pp before the heads over tp: only candidates whose
    // pp divides the 32 layers reach the heads check (1F1B only: no virtual stages).
    std::int64_t heads = 0, kvHeads = 0, tp16 = 0;
    for (const LayoutCandidate &c : list) {
        const int tp = c.degrees.tp;
        tp16 += tp == 16 ? 1 : 0;
        if (32 % c.degrees.pp != 0)
            continue;
        if (tp == 3 || tp == 6 || tp == 12)
            ++heads;
        if (tp == 16)
            ++kvHeads;
    }
    QVERIFY(tp16 > 0); // the enumeration offers tp 16; the pruning removes it
    QVERIFY(heads > 0);
    const LayoutSearchResult r = searchLayouts(o);
    QCOMPARE(r.enumerated, static_cast<std::int64_t>(list.size()));
    QCOMPARE(r.pruned.at("model.heads"), heads);
    QCOMPARE(r.pruned.at("model.kv_heads"), kvHeads);
    QVERIFY(r.evaluated > 0);
    for (const LayoutCandidate &c : r.top)
        QVERIFY2(c.degrees.tp == 1 || c.degrees.tp == 2 || c.degrees.tp == 4 || c.degrees.tp == 8,
            candidateName("llama3-8b", c).c_str());
    // The reason is the engine's own: the same candidate refused by CostEngine names the field.
    LayoutCandidate bad;
    bad.degrees = { 16, 1, 3, 1, 1 };
    const Scenario s = candidateScenario(o, bad);
    QCOMPARE(pruneReason(s), std::string("model.kv_heads"));
    try {
        CostEngine engine(s);
        QFAIL("the engine accepted tp 16 with 8 key/value heads");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string("model.kv_heads"));
    }
}

void TestLayoutSearch::memoryPruneUsesTheLedger()
{
    // Llama 2 70B on one 8-GPU server at tp 8: every rank holds 1/8 of the ~69e9 parameters, and
    // mixed-precision Adam keeps 16 bytes per parameter (bf16 weights 2, fp32 gradients 4, fp32
    // master weights 4, two fp32 moments 8; Rajbhandari et al., ZeRO, SC'20 §3.1): about 138 GB
    // before any activation, over the H100's 80 GB.
    LayoutSearchOptions o = smallSearch("llama2-70b", 8);
    LayoutCandidate c;
    c.degrees = { 8, 1, 1, 1, 1 };
    c.sequenceParallel = true;
    c.distributedOptimizer = false;
    const Scenario s = candidateScenario(o, c);
    QCOMPARE(pruneReason(s), std::string("memory"));
    const WorkloadPlan plan = planWorkload(s.model, s.training, s.device, s.degrees);
    const MemoryLedger &m = plan.memory.front();
    const double perRank = llama2_70bParameters() / 8.0;
    QVERIFY2(
        relativelyEqual(m.parameters, 2.0 * perRank, 0.01), std::to_string(m.parameters).c_str());
    QVERIFY(relativelyEqual(m.gradients, 4.0 * perRank, 0.01));
    QVERIFY(relativelyEqual(m.optimizer, 12.0 * perRank, 0.01));
    QVERIFY(m.parameters + m.gradients + m.optimizer > s.device.hbmBytes);
    // The engine agrees when asked anyway.
    CostEngine engine(s);
    QVERIFY(!engine.report().memoryFits);

    // The whole search on that server: nothing fits, nothing is evaluated.
    const LayoutSearchResult r = searchLayouts(o);
    QCOMPARE(r.evaluated, std::int64_t { 0 });
    QVERIFY(r.top.empty());
    QVERIFY(r.pruned.at("memory") > 0);
}

void TestLayoutSearch::pruningAgreesWithTheEngine()
{
    // Every candidate of a search with every schedule and recompute mode: the pre-check prunes
    // for memory exactly those the engine's report says do not fit, and the engine refuses
    // every candidate pruned for a field, naming the same field.
    LayoutSearchOptions o = smallSearch("llama3-8b", 16);
    o.schedules = { ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved,
        ScheduleKind::ZbH1, ScheduleKind::DualPipe };
    o.recomputes = { Recompute::None, Recompute::Full };
    o.placements = { Placement::Packed };
    o.globalBatch = 64;
    o.maxTp = 16; // tp 16 does not split the 8 key/value heads
    const Scenario base = searchBaseScenario(o);
    int fits = 0, over = 0, refused = 0;
    for (const LayoutCandidate &c : enumerateLayouts(o)) {
        if (c.distributedOptimizer || c.sequenceParallel)
            continue; // the switches do not change what this checks; keep the test short
        const Scenario s = candidateScenario(base, c);
        const std::string reason = pruneReason(s);
        if (reason.empty() || reason == "memory") {
            CostEngine engine(s);
            QVERIFY2(engine.report().memoryFits == reason.empty(), s.name.c_str());
            (reason.empty() ? fits : over) += 1;
        } else {
            ++refused;
            try {
                CostEngine engine(s);
                QFAIL(("the engine accepted " + s.name).c_str());
            } catch (const ScenarioError &e) {
                QCOMPARE(e.field(), reason);
            }
        }
    }
    QVERIFY(fits > 0);
    QVERIFY(over > 0);
    QVERIFY(refused > 0);
}

void TestLayoutSearch::rankingMatchesDirectEvaluation()
{
    LayoutSearchOptions o = smallSearch("llama3-8b", 32);
    o.globalBatch = 128;
    const LayoutSearchResult r = searchLayouts(o);
    QVERIFY(r.top.size() >= 3);
    for (std::size_t i = 1; i < r.top.size(); ++i)
        QVERIFY(r.top[i - 1].tokensPerSecond >= r.top[i].tokensPerSecond);
    for (std::size_t i = 0; i < 3; ++i) {
        const LayoutCandidate &c = r.top[i];
        const Scenario s = candidateScenario(o, c);
        const CostReport report = evaluate(s); // a fresh engine: its own fabric and router
        QVERIFY(relativelyEqual(report.iterationTime, c.iterationTime, 1e-12));
        QVERIFY(relativelyEqual(c.tokensPerSecond, 128.0 * 8192.0 / report.iterationTime, 1e-12));
        QVERIFY(relativelyEqual(c.memoryHeadroomGB, (80e9 - report.maxMemoryPerRank) / 1e9, 1e-9));
        QCOMPARE(c.spineShare, report.spineBytesShare);
    }
}

void TestLayoutSearch::paretoFrontByBruteForce()
{
    LayoutSearchOptions o = smallSearch("llama3-8b", 32);
    o.placements = { Placement::Packed, Placement::RailAligned, Placement::Scattered };
    o.globalBatch = 128;
    const LayoutSearchResult r = searchLayouts(o);
    QCOMPARE(static_cast<std::int64_t>(r.top.size()), r.evaluated); // top holds them all
    std::set<std::int64_t> expected;
    // On the figures as printed (tokens/s to 1, headroom to 0.1 GB, spine share to 0.1 %); of
    // candidates printing the same three, the first in the ranking.
    const auto shown = [](const LayoutCandidate &c) {
        return std::array<long long, 3> { std::llround(c.tokensPerSecond),
            std::llround(c.memoryHeadroomGB * 10.0), -std::llround(c.spineShare * 1000.0) };
    };
    for (const LayoutCandidate &c : r.top) {
        bool dominated = false;
        for (const LayoutCandidate &d : r.top) {
            const auto x = shown(d), y = shown(c);
            const bool noWorse = x[0] >= y[0] && x[1] >= y[1] && x[2] >= y[2];
            const bool better = x[0] > y[0] || x[1] > y[1] || x[2] > y[2];
            const bool twinBefore = x == y && d.index != c.index && rankedBefore(d, c);
            dominated = dominated || (noWorse && better) || twinBefore;
        }
        if (!dominated)
            expected.insert(c.index);
        QCOMPARE(c.pareto, !dominated);
    }
    std::set<std::int64_t> front;
    for (const LayoutCandidate &c : r.front)
        front.insert(c.index);
    QCOMPARE(front, expected);
    QVERIFY(front.size() >= 2); // a real trade-off, not a single winner
    QVERIFY(front.size() < r.top.size());
}

void TestLayoutSearch::paretoFrontOfHandBuiltCandidates()
{
    // Three real trade-offs (A: fastest; B: most headroom; C: least spine), a candidate all of
    // them beat (D), and three that print as a front row's figures: A's twin (another
    // placement name, the same figures), A with floating-point noise (1e-10 tokens/s fewer,
    // 1e-6 GB more headroom) and B less than the printed digits apart. Compared exactly, the
    // noise and the digits made each of these a front row of its own (6 rows, not 3).
    const auto make = [](std::int64_t index, double tps, double headroom, double spine) {
        LayoutCandidate c;
        c.index = index;
        c.tokensPerSecond = tps;
        c.memoryHeadroomGB = headroom;
        c.spineShare = spine;
        return c;
    };
    const std::vector<LayoutCandidate> all {
        make(0, 1000.0, 10.0, 0.200), // A
        make(1, 1000.0, 10.0, 0.200), // A's twin
        make(2, 1000.0 - 1e-10, 10.0 + 1e-6, 0.200), // A with noise
        make(3, 900.0, 20.0, 0.200), // B
        make(4, 900.0, 15.0, 0.100), // C
        make(5, 800.0, 14.0, 0.300), // D: B and C beat it
        make(6, 899.6, 20.04, 0.2004), // prints as B: 900, 20.0 GB, 20.0 %
    };
    std::set<std::int64_t> front;
    for (const LayoutCandidate &c : paretoFront(all)) {
        QVERIFY(c.pareto);
        front.insert(c.index);
    }
    QCOMPARE(front, (std::set<std::int64_t> { 0, 3, 4 }));
    // Dominance on the printed figures.
    QVERIFY(dominates(all[3], all[5]) && dominates(all[4], all[5]));
    QVERIFY(!dominates(all[0], all[3]) && !dominates(all[3], all[0]));
    QVERIFY(!dominates(all[0], all[2]) && !dominates(all[2], all[0])); // equal as printed
    // Whatever the input order, the same front (the representative of a point is the first in
    // the ranking, not the first met).
    std::vector<LayoutCandidate> reversed(all.rbegin(), all.rend());
    std::set<std::int64_t> again;
    for (const LayoutCandidate &c : paretoFront(reversed))
        again.insert(c.index);
    QCOMPARE(again, front);
}

void TestLayoutSearch::deterministic()
{
    LayoutSearchOptions o = smallSearch("llama3-8b", kRepeatGpus);
    o.top = 5;
    const LayoutSearchResult a = searchLayouts(o);
    const LayoutSearchResult b = searchLayouts(o);
    QCOMPARE(a.top, b.top);
    QCOMPARE(a.front, b.front);
    QCOMPARE(dumped(a), dumped(b));
}

void TestLayoutSearch::shardsMergeToTheSerialResult()
{
    LayoutSearchOptions o = smallSearch("llama3-8b", kRepeatGpus);
    o.placements = { Placement::Packed, Placement::RailAligned, Placement::Scattered };
    o.top = 7;
    const LayoutSearchResult serial = searchLayouts(o);
    std::vector<LayoutSearchResult> parts;
    std::int64_t considered = 0;
    for (int i = 2; i >= 0; --i) { // any order
        LayoutSearchOptions shard = o;
        shard.shardIndex = i;
        shard.shardCount = 3;
        parts.push_back(throughPartText(searchLayouts(shard)));
        considered += parts.back().considered;
    }
    QCOMPARE(considered, serial.enumerated);
    const LayoutSearchResult merged = mergeSearchResults(parts);
    QCOMPARE(merged.top, serial.top);
    QCOMPARE(merged.front, serial.front);
    QCOMPARE(merged.pruned, serial.pruned);
    QCOMPARE(dumped(merged), dumped(serial));
    // Fewer rows than the parts kept: the serial search with that --top.
    LayoutSearchOptions three = o;
    three.top = 3;
    QCOMPARE(dumped(mergeSearchResults(parts, 3)), dumped(searchLayouts(three)));
}

void TestLayoutSearch::mergeRefusesWrongParts()
{
    LayoutSearchOptions o = smallSearch("llama3-8b", 16);
    o.placements = { Placement::Packed };
    o.top = 3;
    std::vector<LayoutSearchResult> parts;
    for (int i = 0; i < 3; ++i) {
        LayoutSearchOptions shard = o;
        shard.shardIndex = i;
        shard.shardCount = 3;
        parts.push_back(searchLayouts(shard));
    }
    const auto message = [](const std::vector<LayoutSearchResult> &p, int top = 0) {
        try {
            mergeSearchResults(p, top);
        } catch (const ScenarioError &e) {
            return std::string(e.what());
        }
        return std::string("merged");
    };
    QCOMPARE(message({ parts[0], parts[2] }), std::string("merge: missing shard(s) 1/3"));
    QCOMPARE(message({ parts[0], parts[1], parts[1], parts[2] }),
        std::string("merge: shard 1/3 is given twice (part 3)"));
    LayoutSearchOptions other = o;
    other.gpus = 32;
    other.shardIndex = 1;
    other.shardCount = 3;
    const std::string foreign = message({ parts[0], searchLayouts(other), parts[2] });
    QVERIFY2(foreign.rfind("part 2: is a shard of a different search", 0) == 0, foreign.c_str());
    QVERIFY(message(parts, 4).rfind("top: 4 rows asked for", 0) == 0);
    QCOMPARE(message(parts), std::string("merged"));
}

void TestLayoutSearch::monitorCancels()
{
    LayoutSearchOptions o = smallSearch("llama3-8b", 32);
    int calls = 0;
    const LayoutSearchResult r = searchLayouts(o, [&calls](const LayoutSearchProgress &p) {
        ++calls;
        return p.evaluated < 1;
    });
    QCOMPARE(calls, 1);
    QVERIFY(r.cancelled);
    QCOMPARE(r.considered, std::int64_t { 1 });
    QVERIFY(r.enumerated > 1);
}

void TestLayoutSearch::badOptionsNameTheOption()
{
    const auto field = [](LayoutSearchOptions o) {
        try {
            searchBaseScenario(o);
        } catch (const ScenarioError &e) {
            return e.field();
        }
        return std::string("accepted");
    };
    LayoutSearchOptions o = smallSearch("llama3-8b", 16);
    QCOMPARE(field(o), std::string("accepted"));
    LayoutSearchOptions bad = o;
    bad.model = "gpt5";
    QCOMPARE(field(bad), std::string("model"));
    bad = o;
    bad.gpus = 12; // not whole 8-GPU servers
    QCOMPARE(field(bad), std::string("gpus"));
    bad = o;
    bad.shardIndex = 2;
    bad.shardCount = 2;
    QCOMPARE(field(bad), std::string("shard"));
    bad = o;
    bad.globalBatch = -4;
    QCOMPARE(field(bad), std::string("training.global_batch"));
}

QTEST_GUILESS_MAIN(TestLayoutSearch)
#include "tst_layoutsearch.moc"
