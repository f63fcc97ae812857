/** The scenario file's "jobs" section (docs/shared-fabric.md): reading, the field paths of its
 *  refusals, two jobs on one slot, the round trip, and the single-job view of each job. */
#include "base/scenarioerror.h"
#include "scenario/composejobs.h"
#include "scenario/jobssection.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <numeric>

using namespace railyard;
using nlohmann::json;

namespace {

/// Two jobs on the 16x8 fabric: "a" (tp 8, dp 2) on servers 0 and 8, "b" (tp 8, dp 2) on 1, 9.
json twoJobs()
{
    auto slotsOf = [](std::initializer_list<int> servers) {
        std::vector<int> slots;
        for (const int s : servers)
            for (int g = 0; g < 8; ++g)
                slots.push_back(s * 8 + g);
        return slots;
    };
    return json::parse(R"({
      "format_version": 1,
      "name": "two",
      "fabric": {"servers": 16, "gpus_per_server": 8},
      "device": "h100-sxm",
      "jobs": [
        {"name": "a", "colour": "#e69f00", "parallel": {"tp": 8, "pp": 1, "dp": 2},
         "model": "llama3-8b", "training": {"global_batch": 16}, "mapping": {}},
        {"name": "b", "parallel": {"tp": 8, "pp": 1, "dp": 2}, "model": "llama3-8b",
         "device": "a100-80g", "mapping": {}}
      ]})")
        .patch(json::array({ { { "op", "add" }, { "path", "/jobs/0/mapping/slots" },
                                 { "value", slotsOf({ 0, 8 }) } },
            { { "op", "add" }, { "path", "/jobs/1/mapping/slots" },
                { "value", slotsOf({ 1, 9 }) } } }));
}

} // namespace

class TestJobs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsJobs();
    void roundTripKeepsEveryField();
    void jobScenarioIsTheJobOnTheSharedFabric();
    void anEditOfTheFirstJobThroughTheTopLevelIsSaved();
    void refusals_data();
    void refusals();
    void twoJobsOnOneSlotNameBothAndTheSlot();
    void serverLists();
    void composePacksRanksOnTheServers();
    void composeRefusesDifferentFabricsNamingTheField();
    void composeRefusesTooFewGpusWithTheCounts();
};

void TestJobs::readsJobs()
{
    const Scenario s = scenarioFromJson(twoJobs());
    QCOMPARE(s.jobs.size(), std::size_t { 2 });
    QCOMPARE(s.jobs[0].name, std::string("a"));
    QCOMPARE(s.jobs[0].colour, std::string("#e69f00"));
    QCOMPARE(s.jobs[1].colour, defaultJobColour(1)); // none given: the palette's second
    QCOMPARE(s.jobs[0].training.globalBatch, 16);
    QCOMPARE(s.jobs[0].slots.size(), std::size_t { 16 });
    QCOMPARE(s.jobs[1].slots.front(), 8);
    QVERIFY(!s.jobs[0].device);
    QVERIFY(s.jobs[1].device);
    QCOMPARE(s.jobs[1].device->name, std::string("a100-80g"));
    // The top level holds the first job for commands that handle one.
    QCOMPARE(s.degrees.dp, 2);
    QCOMPARE(s.slots, s.jobs[0].slots);
    QCOMPARE(s.device.name, std::string("h100-sxm"));
}

void TestJobs::roundTripKeepsEveryField()
{
    const Scenario s = scenarioFromJson(twoJobs());
    const std::string text = scenarioToText(s);
    const Scenario back = parseScenario(text);
    QVERIFY(back == s);
    QCOMPARE(scenarioToText(back), text);
    const json written = json::parse(text);
    QVERIFY(!written.contains("parallel")); // every job holds its own
    QVERIFY(!written["jobs"][0].contains("device")); // the scenario's device, not repeated
    QVERIFY(written["jobs"][1].contains("device"));
}

void TestJobs::jobScenarioIsTheJobOnTheSharedFabric()
{
    const Scenario s = scenarioFromJson(twoJobs());
    const Scenario b = jobScenario(s, 1);
    QVERIFY(b.jobs.empty());
    QCOMPARE(b.name, std::string("b"));
    QCOMPARE(b.fabric, s.fabric);
    QCOMPARE(b.slots, s.jobs[1].slots);
    QCOMPARE(b.device.name, std::string("a100-80g"));
    QCOMPARE(jobScenario(s, 0).device.name, std::string("h100-sxm"));
}

void TestJobs::anEditOfTheFirstJobThroughTheTopLevelIsSaved()
{
    // The explorer and the single-job commands edit the top-level fields, which hold the first
    // job: a swap made there must reach the file, not be dropped for the jobs list's copy.
    Scenario s = scenarioFromJson(twoJobs());
    std::swap(s.slots[0], s.slots[15]);
    s.mappingVersion = 2;
    const Scenario back = parseScenario(scenarioToText(s));
    QCOMPARE(back.jobs[0].slots, s.slots);
    QCOMPARE(back.jobs[0].mappingVersion, 2);
    QCOMPARE(back.slots, s.slots);
    QCOMPARE(back.jobs[1].slots, s.jobs[1].slots);
}

void TestJobs::refusals_data()
{
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    QTest::newRow("top-level parallel")
        << R"([{"op": "add", "path": "/parallel", "value": {"tp": 8, "pp": 1, "dp": 2}}])"
        << "parallel"
        << "gives each job its own";
    QTest::newRow("degree") << R"([{"op": "replace", "path": "/jobs/1/parallel/tp", "value": 0}])"
                            << "jobs[1].parallel.tp"
                            << "";
    QTest::newRow("slot count") << R"([{"op": "remove", "path": "/jobs/1/mapping/slots/3"}])"
                                << "jobs[1].mapping.slots"
                                << "ranks";
    QTest::newRow("no slots") << R"([{"op": "remove", "path": "/jobs/0/mapping/slots"}])"
                              << "jobs[0].mapping.slots"
                              << "names its slots";
    QTest::newRow("colour") << R"([{"op": "replace", "path": "/jobs/0/colour", "value": "red"}])"
                            << "jobs[0].colour"
                            << "#rrggbb";
    QTest::newRow("no name") << R"([{"op": "remove", "path": "/jobs/0/name"}])"
                             << "jobs[0].name"
                             << "needs a name";
    QTest::newRow("same name") << R"([{"op": "replace", "path": "/jobs/1/name", "value": "a"}])"
                               << "jobs[1].name"
                               << "already the name of jobs[0]";
    QTest::newRow("unknown key") << R"([{"op": "add", "path": "/jobs/0/placement", "value": 1}])"
                                 << "jobs[0].placement"
                                 << "unknown";
    QTest::newRow("empty") << R"([{"op": "replace", "path": "/jobs", "value": []}])"
                           << "jobs"
                           << "lists no job";
    QTest::newRow("model") << R"([{"op": "replace", "path": "/jobs/0/model", "value": "nope"}])"
                           << "jobs[0].model"
                           << "";
}

void TestJobs::refusals()
{
    QFETCH(QString, patch);
    QFETCH(QString, field);
    QFETCH(QString, message);
    try {
        (void)scenarioFromJson(twoJobs().patch(json::parse(patch.toStdString())));
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), field);
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

void TestJobs::twoJobsOnOneSlotNameBothAndTheSlot()
{
    json j = twoJobs();
    j["jobs"][1]["mapping"]["slots"][5] = 69; // job a's server 8, GPU 5
    try {
        (void)scenarioFromJson(j);
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string("jobs[1].mapping.slots[5]"));
        QCOMPARE(e.reason(),
            std::string("slot 69 is taken by both job \"a\" (jobs[0]) and job \"b\" (jobs[1])"));
    }
}

void TestJobs::serverLists()
{
    QCOMPARE(parseServerList("0-3,8-11", 16, "x"), (std::vector<int> { 0, 1, 2, 3, 8, 9, 10, 11 }));
    QCOMPARE(parseServerList("5", 16, "x"), std::vector<int> { 5 });
    for (const char *bad : { "", "3-1", "0,0", "16", "a", "1-", "-1" })
        QVERIFY_THROWS_EXCEPTION(ScenarioError, (void)parseServerList(bad, 16, "x"));
}

/// A single-job file: tp 8, dp 2 (16 ranks) of llama3-8b on the 16x8 fabric.
Scenario singleJob(const char *name)
{
    Scenario s = parseScenario(R"({"format_version": 1,
        "fabric": {"servers": 16, "gpus_per_server": 8},
        "parallel": {"tp": 8, "pp": 1, "dp": 2}, "model": "llama3-8b"})");
    s.name = name;
    return s;
}

void TestJobs::composePacksRanksOnTheServers()
{
    Scenario fabricFile = singleJob("fabric");
    Scenario b = singleJob("b");
    b.degrees.dp = 1; // 8 ranks on the first of its two servers
    const Scenario shared = composeJobs(
        fabricFile, { { "a.json@5,2", singleJob("a"), { 5, 2 } }, { "b.json@0-1", b, { 0, 1 } } });
    QCOMPARE(shared.jobs.size(), std::size_t { 2 });
    std::vector<int> want(16);
    std::iota(want.begin(), want.begin() + 8, 40); // server 5 first: the order given
    std::iota(want.begin() + 8, want.end(), 16);
    QCOMPARE(shared.jobs[0].slots, want);
    QCOMPARE(shared.jobs[1].slots.size(), std::size_t { 8 });
    QCOMPARE(shared.jobs[1].slots.back(), 7);
    QCOMPARE(shared.jobs[0].name, std::string("a"));
    QCOMPARE(shared.jobs[1].colour, defaultJobColour(1));
    QVERIFY(!shared.jobs[0].device); // the fabric file's device
    // The composed file reads back as written.
    QVERIFY(parseScenario(scenarioToText(shared)) == shared);
    // A server two jobs claim is refused naming the job that has it.
    try {
        (void)composeJobs(fabricFile,
            { { "a.json@0-1", singleJob("a"), { 0, 1 } }, { "b.json@1-2", b, { 1, 2 } } });
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string("b.json@1-2"));
        QCOMPARE(e.reason(), std::string("server 1 is already taken by a.json@0-1"));
    }
}

void TestJobs::composeRefusesDifferentFabricsNamingTheField()
{
    Scenario other = singleJob("a");
    other.fabric.nic.gbps = 200.0;
    try {
        (void)composeJobs(singleJob("fabric"), { { "a.json@0-1", other, { 0, 1 } } });
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string("a.json@0-1"));
        QCOMPARE(e.reason(),
            std::string("the fabrics must agree: fabric.nic_gbps: 200.0 here, 400.0 in the "
                        "fabric file"));
    }
}

void TestJobs::composeRefusesTooFewGpusWithTheCounts()
{
    try {
        (void)composeJobs(singleJob("fabric"), { { "a.json@3", singleJob("a"), { 3 } } });
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string("a.json@3"));
        QCOMPARE(e.reason(), std::string("the job has 16 ranks but its 1 servers hold 8 GPUs"));
    }
}

QTEST_GUILESS_MAIN(TestJobs)
#include "tst_jobs.moc"
