// The fabric comparison and search (model/studies/fabriccompare.h, fabricsearch.h): the seed
// job's cheapest fabric within a 3 % slowdown checked against a brute force written here
// independently (each fabric built by hand, evaluated and priced), the Pareto front's
// definition, shards merged equal to the serial search, the job-mix hook taking the worst job,
// the comparison's designs and refusals naming the option.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fixtures.h"
#include "studies/bomcost.h"
#include "studies/fabriccompare.h"
#include "studies/fabricsearch.h"
#include "studies/fabricsearchjson.h"

#include <QTest>

#include <limits>
#include <optional>
#include <utility>
#include <vector>

using namespace railyard;

namespace {

/** One fabric of the brute force: the seed's fabric with these fields set by hand. */
struct BruteDesign
{
    FabricKind kind;
    double leaf;
    int planes;
};

struct BruteResult
{
    double seconds = 0.0;
    double capex = 0.0;
    bool ok = false;
};

BruteResult bruteEvaluate(const Scenario &seed, const BruteDesign &d)
{
    Scenario s = seed;
    s.fabric.kind = d.kind;
    s.fabric.leafOversubscription = d.leaf;
    s.fabric.planes = d.planes;
    s.fabric.planePortGbps = 0.0;
    s.slots.clear();
    BruteResult r;
    try {
        CostEngine engine(s);
        r.seconds = engine.report().iterationTime;
        r.capex = priceScenarioBom(engine.fabric(), s, engine.report()).cost.capexUsd;
        r.ok = true;
    } catch (const ScenarioError &) {
        r.ok = false;
    }
    return r;
}

FabricSearchOptions smallSpace()
{
    FabricSearchOptions o;
    o.kinds = { FabricKind::RailOptimised, FabricKind::Tor, FabricKind::RailOnly };
    o.leafOversubscriptions = { 1.0, 2.0, 4.0 };
    o.planes = { 1, 2 };
    o.spines = { 0 };
    o.maxSlowdown = 0.03;
    return o;
}

} // namespace

class TestFabricSearch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void seedCheapestMatchesBruteForce();
    void constraintsChangeTheAnswer();
    void frontIsNonDominated();
    void shardsMergeToTheSerialSearch();
    void jobMixTakesTheWorstJob();
    void comparisonDesignsAndNames();
    void railOnlyKeepsOneDesignPerPlanes();
    void refusalsNameTheOption();
    void partRoundTrips();
};

void TestFabricSearch::seedCheapestMatchesBruteForce()
{
    const Scenario seed = fixtures::seed128();
    // The brute force's fabrics: every kind x leaf ratio x planes, rail-only only non-blocking
    // (it has no uplinks), the baseline the seed's own non-blocking rail-optimised fabric.
    const BruteResult base = bruteEvaluate(seed, { FabricKind::RailOptimised, 1.0, 1 });
    QVERIFY(base.ok);
    std::vector<std::pair<BruteDesign, BruteResult>> all;
    for (FabricKind kind : { FabricKind::RailOptimised, FabricKind::Tor, FabricKind::RailOnly })
        for (double leaf : { 1.0, 2.0, 4.0 })
            for (int planes : { 1, 2 }) {
                if (kind == FabricKind::RailOnly && leaf != 1.0)
                    continue;
                const BruteDesign d { kind, leaf, planes };
                const BruteResult b = bruteEvaluate(seed, d);
                if (b.ok)
                    all.emplace_back(d, b);
            }
    QCOMPARE(all.size(), std::size_t(14));

    // Two bounds: the 3 %, and 0 % (as fast as non-blocking).
    for (double bound : { 0.03, 0.0 }) {
        FabricSearchOptions o = smallSpace();
        o.maxSlowdown = bound;
        const FabricSearchResult r = searchFabrics({ seed }, o);
        QCOMPARE(r.baselineSeconds.size(), std::size_t(1));
        QCOMPARE(r.baselineSeconds.front(), base.seconds);
        int evaluated = 0;
        for (const FabricDesignResult &row : r.rows)
            evaluated += row.evaluated ? 1 : 0;
        QCOMPARE(evaluated, static_cast<int>(all.size()));

        const std::pair<BruteDesign, BruteResult> *best = nullptr;
        for (const auto &entry : all) {
            const BruteResult &b = entry.second;
            if (b.seconds / base.seconds - 1.0 > bound + 1e-12)
                continue;
            if (!best || b.capex < best->second.capex
                || (b.capex == best->second.capex && b.seconds < best->second.seconds))
                best = &entry;
        }
        QVERIFY(best);
        const std::optional<std::size_t> found = cheapestMeeting(r);
        QVERIFY(found);
        const FabricDesignResult &row = r.rows[*found];
        QCOMPARE(row.capexUsd, best->second.capex);
        QCOMPARE(row.iterationSeconds, best->second.seconds);
        QCOMPARE(row.design.kind, best->first.kind);
        QCOMPARE(row.design.leafOversubscription, best->first.leaf);
        QCOMPARE(row.design.planes, best->first.planes);
        QVERIFY(row.slowdown <= bound + 1e-12);
        if (bound > 0.0) {
            // The seed's communication hides behind its compute (overlapped gradient
            // reduction, 16 micro-batches): a ToR fabric with 4:1 leaves loses 0.1 % and has the
            // fewest switches (4 top-of-rack leaves and a spine).
            QCOMPARE(row.name, std::string("tor, 4:1 leaves"));
            QVERIFY(row.slowdown > 0.0 && row.slowdown < 0.002);
            QCOMPARE(row.switches, 5);
        } else {
            // As fast as non-blocking: every DP and PP partner shares a rail (packed,
            // tp-cp-ep-dp-pp), so the spineless rail-only fabric loses nothing and is cheapest.
            QCOMPARE(row.name, std::string("rail-only"));
            QCOMPARE(row.slowdown, 0.0);
            QCOMPARE(row.switches, 8);
        }
        QVERIFY(row.capexUsd < r.rows.front().capexUsd);
        QCOMPARE(r.rows.front().name, std::string("rail-optimised"));
        QCOMPARE(r.rows.front().slowdown, 0.0);
    }
}

void TestFabricSearch::constraintsChangeTheAnswer()
{
    const Scenario seed = fixtures::seed128();
    FabricSearchOptions o = smallSpace();
    o.kinds = { FabricKind::RailOptimised, FabricKind::Tor };
    const FabricSearchResult r = searchFabrics({ seed }, o);
    const std::optional<std::size_t> loose = cheapestMeeting(r);
    QVERIFY(loose);
    // Bounding the switches below the cheapest's count moves the answer or leaves none.
    FabricSearchResult bounded = r;
    bounded.options.maxSwitches = r.rows[*loose].switches - 1;
    const std::optional<std::size_t> tight = cheapestMeeting(bounded);
    if (tight)
        QVERIFY(r.rows[*tight].switches < r.rows[*loose].switches);
    // A capital bound below every design leaves none.
    bounded.options.maxSwitches = 0;
    bounded.options.maxCostUsd = 1.0;
    QVERIFY(!cheapestMeeting(bounded));
    // A 0 % bound keeps only designs as fast as the baseline.
    bounded.options.maxCostUsd = 0.0;
    bounded.options.maxSlowdown = 0.0;
    const std::optional<std::size_t> exact = cheapestMeeting(bounded);
    QVERIFY(exact);
    QVERIFY(r.rows[*exact].slowdown <= 1e-12);
}

void TestFabricSearch::frontIsNonDominated()
{
    const FabricSearchResult r = searchFabrics({ fixtures::seed128() }, smallSpace());
    const std::vector<std::size_t> front = paretoFront(r.rows);
    QVERIFY(!front.empty());
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        if (!r.rows[i].evaluated)
            continue;
        const bool onFront = std::find(front.begin(), front.end(), i) != front.end();
        bool dominated = false;
        for (std::size_t j : front)
            dominated = dominated
                || (j != i && r.rows[j].iterationSeconds <= r.rows[i].iterationSeconds
                    && r.rows[j].capexUsd <= r.rows[i].capexUsd);
        QVERIFY2(onFront != dominated, r.rows[i].name.c_str());
    }
    for (std::size_t k = 1; k < front.size(); ++k) {
        QVERIFY(r.rows[front[k - 1]].capexUsd <= r.rows[front[k]].capexUsd);
        // Further along the front a design costs more only by being faster.
        QVERIFY(r.rows[front[k]].iterationSeconds < r.rows[front[k - 1]].iterationSeconds);
    }
}

void TestFabricSearch::shardsMergeToTheSerialSearch()
{
    const Scenario seed = fixtures::seed128();
    const FabricSearchResult serial = searchFabrics({ seed }, smallSpace());
    std::vector<FabricSearchResult> parts;
    for (int i = 0; i < 3; ++i) {
        FabricSearchOptions o = smallSpace();
        o.shardIndex = i;
        o.shardCount = 3;
        // Through the part's JSON text, as merge reads it.
        parts.push_back(fabricSearchFromPartJson(
            nlohmann::json::parse(fabricSearchPartJson(searchFabrics({ seed }, o)).dump()),
            "part"));
    }
    std::swap(parts[0], parts[2]); // the order of the parts does not matter
    const FabricSearchResult merged = mergeFabricSearches(parts);
    QCOMPARE(fabricSearchJson(merged).dump(), fabricSearchJson(serial).dump());

    parts.pop_back();
    try {
        mergeFabricSearches(parts);
        QFAIL("a missing shard was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(std::string(e.what()),
            std::string("merge: shard 0/3 is missing; give every "
                        "shard's part"));
    }
}

void TestFabricSearch::jobMixTakesTheWorstJob()
{
    const Scenario seed = fixtures::seed128();
    QCOMPARE(fabricJobsOf(seed).size(), std::size_t(1));
    // Two jobs on one fabric: the seed and the same job scattered over the servers (its TP
    // groups span servers), each measured against its own non-blocking baseline.
    Scenario scattered = seed;
    scattered.placement = Placement::Scattered;
    const std::vector<Scenario> mix { seed, scattered };
    const std::vector<double> base = baselineSeconds(mix);
    QCOMPARE(base.size(), std::size_t(2));
    QVERIFY(base[1] != base[0]);
    FabricDesign tor;
    tor.kind = FabricKind::Tor;
    tor.leafOversubscription = 4.0;
    const FabricDesignResult alone0 = evaluateDesign({ seed }, tor, { base[0] });
    const FabricDesignResult alone1 = evaluateDesign({ scattered }, tor, { base[1] });
    const FabricDesignResult both = evaluateDesign(mix, tor, base);
    QVERIFY(alone0.evaluated && alone1.evaluated && both.evaluated);
    QVERIFY(alone0.slowdown != alone1.slowdown);
    QCOMPARE(both.slowdown, std::max(alone0.slowdown, alone1.slowdown));
    const int worst = alone1.slowdown > alone0.slowdown ? 1 : 0;
    QCOMPARE(both.worstJob, worst);
    QCOMPARE(both.iterationSeconds, worst == 1 ? alone1.iterationSeconds : alone0.iterationSeconds);
    // The fabric is the same whichever job is worst.
    QCOMPARE(both.capexUsd, alone0.capexUsd);
}

void TestFabricSearch::comparisonDesignsAndNames()
{
    const Scenario seed = fixtures::seed128();
    const std::vector<FabricDesign> designs = standardDesigns(seed);
    std::vector<std::string> names;
    for (const FabricDesign &d : designs)
        names.push_back(fabricDesignName(d));
    // 16 servers fit two tiers (no spine oversubscription) and an H100 has no NVL72 rack.
    QCOMPARE(names,
        (std::vector<std::string> { "rail-optimised", "rail-optimised, 2:1 leaves", "tor",
            "tor, 2:1 leaves", "rail-only", "rail-optimised, 2 planes" }));
    const FabricComparison c = compareFabrics({ seed }, designs);
    QCOMPARE(c.rows.size(), designs.size());
    for (const FabricDesignResult &row : c.rows) {
        QVERIFY2(row.evaluated, row.problem.c_str());
        QVERIFY(row.capexUsd > 0.0 && row.networkPowerW > 0.0 && row.usdPerIteration > 0.0);
    }
    // Rail-only: 8 rail switches and no spine; rail-optimised: 8 leaves and the derived spines.
    QCOMPARE(c.rows[4].switches, 8);
    QVERIFY(c.rows[0].switches > 8);
    QVERIFY(c.rows[4].networkCapexUsd < c.rows[0].networkCapexUsd);

    // A GB200 job on its trays gets the NVL72 design.
    Scenario gb = seed;
    gb.device.name = "gb200";
    gb.fabric.gpusPerServer = 4;
    gb.fabric.servers = 36;
    const std::vector<FabricDesign> gbDesigns = standardDesigns(gb);
    QCOMPARE(gbDesigns.back().scaleUpDomainServers, 18);
    QCOMPARE(fabricDesignName(gbDesigns.back()),
        std::string("rail-optimised, NVLink domains of 18 servers"));
}

void TestFabricSearch::railOnlyKeepsOneDesignPerPlanes()
{
    const std::vector<FabricDesign> d = enumerateFabricDesigns(fixtures::seed128(), smallSpace());
    int railOnly = 0;
    for (const FabricDesign &x : d)
        railOnly += x.kind == FabricKind::RailOnly ? 1 : 0;
    QCOMPARE(railOnly, 2); // planes 1 and 2
    // 3 ratios x 2 planes for each of the two kinds with uplinks, plus the two rail-only.
    QCOMPARE(d.size(), std::size_t(3 * 2 * 2 + 2));
}

void TestFabricSearch::refusalsNameTheOption()
{
    FabricSearchOptions o = smallSpace();
    o.planes = {};
    try {
        enumerateFabricDesigns(fixtures::seed128(), o);
        QFAIL("an empty list was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(std::string(e.what()),
            std::string("planes: the list is empty; give at least one value"));
    }
    o = smallSpace();
    o.leafOversubscriptions = { 0.5 };
    try {
        enumerateFabricDesigns(fixtures::seed128(), o);
        QFAIL("a ratio below 1 was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string("oversubscription"));
    }
}

void TestFabricSearch::partRoundTrips()
{
    FabricSearchOptions o = smallSpace();
    o.kinds = { FabricKind::RailOnly };
    const FabricSearchResult r = searchFabrics({ fixtures::seed128() }, o);
    const FabricSearchResult back
        = fabricSearchFromPartJson(nlohmann::json::parse(fabricSearchPartJson(r).dump()), "p");
    QCOMPARE(back.rows.size(), r.rows.size());
    QCOMPARE(back.rows[0].capexUsd, r.rows[0].capexUsd);
    QCOMPARE(back.rows[0].iterationSeconds, r.rows[0].iterationSeconds);
    QVERIFY(back.options == r.options);
    nlohmann::json broken = fabricSearchPartJson(r);
    broken["rows"][0].erase("capex_usd");
    try {
        fabricSearchFromPartJson(broken, "p.json");
        QFAIL("a row without its cost was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(std::string(e.what()), std::string("p.json: rows[0].capex_usd: missing"));
    }
}

QTEST_GUILESS_MAIN(TestFabricSearch)
#include "tst_fabricsearch.moc"
