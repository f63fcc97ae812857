// "Place a new job" (model/optimise/jobplacement.cpp) on the two-job sample: a third copy of
// job a goes where it slows neither running job (two free servers under one leaf), a window
// across two leaves costs each running job one more share of the uplink (derived below), and a
// job larger than the free servers is refused naming the counts.
#include "optimise/jobplacement.h"

#include "base/scenarioerror.h"
#include "cost/costenginejobs.h"
#include "scenario/jobssection.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <algorithm>
#include <cmath>

using namespace railyard;

class TestJobPlacement : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void bestHurtsNobody();
    void acrossLeavesCostsAnUplinkShare();
    void tooLargeIsRefused();
    void singleJobScenarioIsOneRunningJob();
    void othersFixedCountAsFailed();

private:
    Scenario m_shared;
    JobSpec m_job;
    NewJobPlacement m_placement;
};

namespace {

const PlacementCandidate *onServers(const NewJobPlacement &p, std::vector<int> servers)
{
    const auto it = std::find_if(p.candidates.begin(), p.candidates.end(),
        [&](const PlacementCandidate &c) { return c.servers == servers; });
    return it == p.candidates.end() ? nullptr : &*it;
}

} // namespace

void TestJobPlacement::initTestCase()
{
    m_shared = loadScenario(RAILYARD_SOURCE_DIR "/samples/two-jobs.json");
    Scenario single = jobScenario(m_shared, 0); // job a's layout, model and training
    single.name = "c";
    m_job = newJobFrom(single, m_shared);
    QCOMPARE(m_job.name, std::string("c"));
    QCOMPARE(m_job.colour, defaultJobColour(2));
    PlaceJobOptions options;
    options.optimiserMoves = 200; // a short deterministic run: the windows already hurt nobody
    m_placement = placeNewJob(m_shared, m_job, options);
}

void TestJobPlacement::bestHurtsNobody()
{
    const NewJobPlacement &p = m_placement;
    QCOMPARE(p.ranks, 16);
    QCOMPARE(p.serversNeeded, 2);
    QCOMPARE(p.running, (std::vector<std::string> { "a", "b" }));
    QCOMPARE(p.before.freeServers, 12);
    // 4 windows under one leaf, 11 of two free servers in order, 4 of them the same: 11.
    QVERIFY(p.candidates.size() >= 11);
    const PlacementCandidate &best = p.candidates.front();
    // Servers 2 and 3 sit under tor-0 with nothing else of theirs: c's DP rings turn at tor-0
    // and never reach the uplinks a and b share. Every leaf's pair ties; the lowest wins.
    QCOMPARE(best.servers, (std::vector<int> { 2, 3 }));
    QCOMPARE(best.how, std::string("under tor-0"));
    QCOMPARE(best.addedSeconds, 0.0);
    QCOMPARE(best.slowdown, (std::vector<double> { 1.0, 1.0 }));
    QCOMPARE(best.iterationTime, best.aloneIterationTime);
    // Left free: 4-7 | 10,11 | 12-15 = 10 servers; 5 jobs of 2 fit, 0 + 2 + 1 + 2 under one leaf.
    QCOMPARE(best.fragmentation.freeServers, 10);
    QCOMPARE(best.fragmentation.jobsFit, 5);
    QCOMPARE(best.fragmentation.jobsFitInOneLeaf, 5);
    QCOMPARE(best.fragmentation.leaves[0].freeServers, 0);
    QCOMPARE(best.fragmentation.largestRun, 4);
    // Sorted: nothing after the best hurts less.
    for (const PlacementCandidate &c : p.candidates)
        QVERIFY(c.addedSeconds >= best.addedSeconds);
    QVERIFY(newJobPlacementText(p).find("1. servers 2,3 (under tor-0): running jobs +0")
        != std::string::npos);
}

void TestJobPlacement::acrossLeavesCostsAnUplinkShare()
{
    // c on servers 3 (tor-0) and 4 (tor-1): its 8 rings cross tor-0 <-> spine, as a's and b's
    // do. Worst case, a gets a third of the uplink instead of a half: its all-reduce phase P
    // (alone) takes 3P instead of 2P, so its iteration grows by one more P, P = its shared
    // iteration minus its alone one (docs/shared-fabric.md: 171.0 ms). The same for b.
    const PlacementCandidate *c = onServers(m_placement, { 3, 4 });
    QVERIFY(c);
    const SharedFabricReport before = evaluateJobs(m_shared);
    double added = 0.0;
    for (std::size_t j = 0; j < 2; ++j) {
        const double alone = before.jobs[j].aloneIterationTime;
        const double shared = before.jobs[j].iterationTime;
        const double phase = shared - alone;
        QVERIFY(std::abs(phase - 0.171) < 0.001);
        QVERIFY(std::abs(c->slowdown[j] - (shared + phase) / shared) < 1e-9);
        added += phase;
    }
    QVERIFY(std::abs(c->addedSeconds - added) < 1e-9);
    // And the ranking put it behind every placement that hurts nobody.
    QVERIFY(m_placement.candidates.front().addedSeconds < c->addedSeconds);
}

void TestJobPlacement::tooLargeIsRefused()
{
    JobSpec big = m_job;
    big.degrees.dp = 4; // 32 GPUs = 4 servers; fine
    QCOMPARE(placeNewJob(m_shared, big, { 24, 0 }).serversNeeded, 4);
    big.degrees.dp = 16; // 128 GPUs = 16 servers, 12 free
    try {
        placeNewJob(m_shared, big, { 24, 0 });
        QFAIL("a job larger than the free servers was placed");
    } catch (const ScenarioError &e) {
        QCOMPARE(std::string(e.what()),
            std::string("the new job \"c\" needs 128 GPUs on 16 servers of 8, and only 12 "
                        "servers are free"));
    }
}

void TestJobPlacement::singleJobScenarioIsOneRunningJob()
{
    // A single-job file is one running job named after it, on its own slots.
    Scenario single = jobScenario(m_shared, 0);
    single.name = "solo";
    const Scenario asJobs = asJobsScenario(single);
    QCOMPARE(asJobs.jobs.size(), std::size_t(1));
    QCOMPARE(asJobs.jobs[0].name, std::string("solo"));
    QCOMPARE(asJobs.jobs[0].slots, single.slots);
    const Scenario with = withNewJob(single, newJobFrom(single, single),
        { 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 });
    QCOMPARE(with.jobs.size(), std::size_t(2));
    QCOMPARE(with.jobs[1].name, std::string("solo-2")); // the name made unique
    QCOMPARE(evaluateJobs(with).jobs.size(), std::size_t(2));
}

void TestJobPlacement::othersFixedCountAsFailed()
{
    const Scenario single = jobWithOthersFixed(m_shared, 1);
    QCOMPARE(single.slots, m_shared.jobs[1].slots);
    QCOMPARE(single.failures.size(), m_shared.jobs[0].slots.size());
    QCOMPARE(single.failures.front().index, m_shared.jobs[0].slots.front());
}

QTEST_GUILESS_MAIN(TestJobPlacement)
#include "tst_jobplacement.moc"
