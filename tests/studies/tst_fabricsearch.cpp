// The fabric comparison and search (model/studies/fabriccompare.h, fabricsearch.h): the seed
// job's cheapest fabric within a 3 % slowdown checked against a brute force written here
// independently (each fabric built by hand, evaluated and priced), the Pareto front's
// definition, shards merged equal to the serial search, the comparison's designs and refusals
// naming the option. The job mix (samples/two-jobs.json): the cheapest design within 3 %
// against a brute force of the jobs evaluated shared by hand, and a design the mix rules out
// that neither job alone would.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/costenginejobs.h"
#include "fixtures.h"
#include "scenario/jobssection.h"
#include "scenario/scenariofile.h"
#include "studies/bomcost.h"
#include "studies/fabriccompare.h"
#include "studies/fabricsearch.h"
#include "studies/fabricsearchjson.h"

#include <QTest>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
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

/// The two-job sample: jobs a and b, each Llama 3 8B at tp 8 x dp 2, a on servers 0 and 8, b on
/// servers 1 and 9 of a 16-server ToR fabric (8:1 leaves).
Scenario twoJobs()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/two-jobs.json");
}

/** One design of the mix's brute force: every job's shared time and the fabric's capital. */
struct BruteMix
{
    std::vector<double> seconds;
    double capex = 0.0;
    bool ok = false;
};

/// The mix's fabric with these fields set by hand, every job on its own slots, evaluated shared
/// (worst overlap). The sample's fabric has the generator's SU and ToR sizes (32, derived), so
/// nothing else needs resetting.
BruteMix bruteEvaluateMix(const Scenario &mix, const BruteDesign &d)
{
    Scenario s = mix;
    s.fabric.kind = d.kind;
    s.fabric.leafOversubscription = d.kind == FabricKind::RailOnly ? 1.0 : d.leaf;
    s.fabric.planes = d.planes;
    s.fabric.planePortGbps = 0.0;
    BruteMix r;
    try {
        const SharedFabricReport report = evaluateJobs(s, PhaseOverlap::Worst);
        for (const JobReport &job : report.jobs)
            r.seconds.push_back(job.iterationTime);
        r.capex = priceScenarioBom(*report.fabric, jobScenario(s, 0), report.jobs[0].shared())
                      .cost.capexUsd;
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
    void mixCheapestMatchesBruteForce();
    void mixRulesOutADesign();
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

void TestFabricSearch::mixCheapestMatchesBruteForce()
{
    const Scenario mix = twoJobs();
    const FabricJobs jobs = fabricJobsOf(mix);
    QVERIFY(jobs.isMix());
    QCOMPARE(jobs.count(), std::size_t(2));
    // The brute force's reference: the mix shared on the non-blocking rail-optimised fabric.
    const BruteMix base = bruteEvaluateMix(mix, { FabricKind::RailOptimised, 1.0, 1 });
    QVERIFY(base.ok);
    QCOMPARE(base.seconds.size(), std::size_t(2));
    struct Entry
    {
        BruteDesign design;
        double slowdown;
        double seconds;
        double capex;
    };
    std::vector<Entry> all;
    for (FabricKind kind : { FabricKind::RailOptimised, FabricKind::Tor, FabricKind::RailOnly })
        for (double leaf : { 1.0, 2.0, 4.0 })
            for (int planes : { 1, 2 }) {
                if (kind == FabricKind::RailOnly && leaf != 1.0)
                    continue;
                const BruteDesign d { kind, leaf, planes };
                const BruteMix b = bruteEvaluateMix(mix, d);
                if (!b.ok)
                    continue;
                // The worst job's slowdown, each job against itself in the mix on the reference.
                Entry e { d, -1.0, 0.0, b.capex };
                for (std::size_t j = 0; j < b.seconds.size(); ++j) {
                    const double slowdown = b.seconds[j] / base.seconds[j] - 1.0;
                    if (slowdown > e.slowdown) {
                        e.slowdown = slowdown;
                        e.seconds = b.seconds[j];
                    }
                }
                all.push_back(e);
            }
    QCOMPARE(all.size(), std::size_t(14));

    for (double bound : { 0.03, 0.0 }) {
        FabricSearchOptions o = smallSpace();
        o.maxSlowdown = bound;
        const FabricSearchResult r = searchFabrics(jobs, o);
        QCOMPARE(r.baselineSeconds, base.seconds);
        QCOMPARE(r.mixJobs, (std::vector<std::string> { "a", "b" }));
        const Entry *best = nullptr;
        for (const Entry &e : all)
            if (e.slowdown <= bound + 1e-12
                && (!best || e.capex < best->capex
                    || (e.capex == best->capex && e.seconds < best->seconds)))
                best = &e;
        QVERIFY(best);
        const std::optional<std::size_t> found = cheapestMeeting(r);
        QVERIFY(found);
        const FabricDesignResult &row = r.rows[*found];
        QCOMPARE(row.capexUsd, best->capex);
        QCOMPARE(row.iterationSeconds, best->seconds);
        QCOMPARE(row.slowdown, best->slowdown);
        QCOMPARE(row.design.kind, best->design.kind);
        QCOMPARE(row.design.leafOversubscription, best->design.leaf);
        QCOMPARE(row.design.planes, best->design.planes);
        QCOMPARE(r.rows.front().slowdown, 0.0); // the reference itself
    }
}

void TestFabricSearch::mixRulesOutADesign()
{
    // ToR with 4:1 leaves, by hand: 16 servers of 8 NICs on 64-port leaves at 4:1 gives 4
    // servers (32 x 400G) down and 8 x 400G = 400 GB/s up per leaf, exactly one server's 8 NICs
    // (8 x 50 GB/s). Job a's gradient all-reduce (dp 2: GPU k of server 0 with GPU k of server
    // 8, leaves 0 and 2) sends 8 flows at NIC speed through leaf 0's uplink: alone it fits, so
    // each job alone is as fast as on the non-blocking fabric. Job b (servers 1 and 9) uses the
    // same two uplinks at the same time (worst overlap): each job gets half, 200 GB/s, and its
    // DP sync - all of it exposed, overlap_grad_reduce is off - takes twice as long.
    const Scenario mix = twoJobs();
    const FabricJobs jobs = fabricJobsOf(mix);
    const std::vector<double> base = baselineSeconds(jobs);
    FabricDesign tor;
    tor.kind = FabricKind::Tor;
    tor.leafOversubscription = 4.0;
    const Scenario onTor = jobOnDesign(mix, tor);
    QCOMPARE(onTor.jobs[0].slots, mix.jobs[0].slots); // every job keeps its slots
    QCOMPARE(onTor.jobs[1].slots, mix.jobs[1].slots);
    for (std::size_t j = 0; j < 2; ++j) {
        // Alone: each job by itself on the design against itself on the reference.
        CostEngine alone(jobScenario(onTor, j));
        CostEngine reference(jobScenario(jobOnDesign(mix, baselineDesign()), j));
        QCOMPARE(reference.report().iterationTime, base[j]); // they share no link there
        // Within 0.01 %: the spine hop's latency, which the rail-optimised rail leaf spares.
        const double aloneSlowdown = alone.report().iterationTime / base[j] - 1.0;
        QVERIFY2(
            aloneSlowdown >= 0.0 && aloneSlowdown < 1e-4, std::to_string(aloneSlowdown).c_str());
        // Shared: the iteration grows by the whole DP sync (half the bandwidth, twice as long).
        const SharedFabricReport shared = evaluateJobs(onTor, PhaseOverlap::Worst);
        const double grown = shared.jobs[j].iterationTime - alone.report().iterationTime;
        QVERIFY2(std::abs(grown / alone.report().dpSyncTime - 1.0) < 0.01,
            std::to_string(grown).c_str());
    }
    const FabricDesignResult row = evaluateDesign(jobs, tor, base);
    QVERIFY(row.evaluated);
    QVERIFY(row.slowdown > 0.05 && row.slowdown < 0.065); // 1.535 s against 1.449 s: 5.9 %
    FabricSearchOptions bound;
    QVERIFY(!meetsFabricConstraints(row, bound)); // the default 3 % rules it out
    // It would be the cheapest ToR within 3 % were the jobs alone: the search picks the dearer
    // 2:1 leaves instead.
    FabricDesign tor2 = tor;
    tor2.leafOversubscription = 2.0;
    const FabricDesignResult row2 = evaluateDesign(jobs, tor2, base);
    QVERIFY(meetsFabricConstraints(row2, bound));
    QVERIFY(row.capexUsd < row2.capexUsd);
    const FabricSearchResult r = searchFabrics(jobs, smallSpace());
    const std::optional<std::size_t> best = cheapestMeeting(r);
    QVERIFY(best);
    QCOMPARE(r.rows[*best].name, std::string("tor, 2:1 leaves"));
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
