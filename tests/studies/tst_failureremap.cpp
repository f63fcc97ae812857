/**
 * Failure remap: failed components in scenario files, the engine refusing ranks on
 * failed slots, and the three strategies checked against hand-derived numbers on the
 * 128-GPU sample (tp 8, pp 4, dp 4 on 16 servers, packed: rank = t + 8 d + 32 p, so server S
 * holds the TP group d = S mod 4, p = S / 4).
 */
#include "cost/costengine.h"
#include "studies/failureremap.h"
#include "studies/remaptext.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "workload/workloadplan.h"
#include "fixtures.h"

#include <QFile>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>

using namespace railyard;

namespace {

/// The 128-GPU sample on a fabric with two spare servers (18 x 8 slots, 16 used).
Scenario seedWithSpares()
{
    Scenario s = fixtures::seed128();
    s.fabric.servers = 18;
    return s;
}

std::vector<FailedComponent> fails(std::initializer_list<const char *> texts)
{
    std::vector<FailedComponent> out;
    for (const char *t : texts)
        out.push_back(parseFailure(t, "test"));
    return out;
}

/// Every DP group of an evaluated scenario sits on one rail.
bool dpSameRail(const CostEngine &e)
{
    for (const auto &group : e.layout().groups(GroupKind::Dp))
        for (int r : group)
            if (e.fabric().railOfSlot(e.mapping().slotOf(r))
                != e.fabric().railOfSlot(e.mapping().slotOf(group.front())))
                return false;
    return true;
}

std::string errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return "(no error)";
}

} // namespace

class TestFailureRemap : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseFailures_data();
    void parseFailures();
    void loaderErrors_data();
    void loaderErrors();
    void failuresRoundTrip();
    void failedSlots();
    void rankOnFailedSlotRefused();
    void dropDpSeedServer3();
    void dropDpGpuFailureRenumbers();
    void sparesMovesFailedServer();
    void sparesGpuFailureMovesWholeTpGroup();
    void sparesShortfall();
    void shrinkPpSeed();
    void shrinkPpImpossible();
    void shrinkPpLeavesDualPipe();
    void leafFailureSplitsEveryServer();
    void remapInputErrors();
    void allStrategiesAndBest();
};

void TestFailureRemap::parseFailures_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("canonical"); // empty: an error containing `message`
    QTest::addColumn<QString>("message");
    QTest::newRow("server") << "server:3"
                            << "server:3"
                            << "";
    QTest::newRow("gpu") << "gpu:17"
                         << "gpu:17"
                         << "";
    QTest::newRow("nic") << "nic:5"
                         << "nic:5"
                         << "";
    QTest::newRow("leaf") << "leaf:2"
                          << "leaf:2"
                          << "";
    QTest::newRow("unknown kind") << "rack:1"
                                  << ""
                                  << "unknown component kind 'rack'";
    QTest::newRow("no colon") << "server3"
                              << ""
                              << "expected KIND:INDEX";
    QTest::newRow("negative") << "server:-1"
                              << ""
                              << "expected a non-negative whole index";
    QTest::newRow("fraction") << "gpu:1.5"
                              << ""
                              << "expected a non-negative whole index";
    QTest::newRow("empty index") << "nic:"
                                 << ""
                                 << "expected a non-negative whole index";
    QTest::newRow("huge") << "gpu:99999999999"
                          << ""
                          << "expected a non-negative whole index";
}

void TestFailureRemap::parseFailures()
{
    QFETCH(QString, text);
    QFETCH(QString, canonical);
    QFETCH(QString, message);
    if (!canonical.isEmpty()) {
        QCOMPARE(
            QString::fromStdString(failureText(parseFailure(text.toStdString(), "f"))), canonical);
        return;
    }
    const std::string error = errorOf([&] { parseFailure(text.toStdString(), "f"); });
    QVERIFY2(error.find("f: " + message.toStdString()) == 0, error.c_str());
}

void TestFailureRemap::loaderErrors_data()
{
    QTest::addColumn<QString>("failures"); // JSON value of "failures"
    QTest::addColumn<QString>("message");
    QTest::newRow("not an array") << R"("server:3")"
                                  << "failures: expected an array";
    QTest::newRow("number entry") << "[3]"
                                  << "failures[0]: expected a string";
    QTest::newRow("unknown kind") << R"(["server:1", "rack:1"])"
                                  << "failures[1]: unknown component kind 'rack'";
    QTest::newRow("server out of range")
        << R"(["server:16"])"
        << "failures[0]: server:16 does not exist (the fabric has 16 servers";
    QTest::newRow("gpu out of range")
        << R"(["gpu:128"])"
        << "failures[0]: gpu:128 does not exist (the fabric has 128 GPU slots";
    QTest::newRow("nic out of range")
        << R"(["nic:128"])"
        << "failures[0]: nic:128 does not exist (the fabric has 128 NICs";
    QTest::newRow("duplicate") << R"(["server:3", "gpu:2", "server:3"])"
                               << "failures[2]: duplicate entry \"server:3\" (already failures[0])";
}

void TestFailureRemap::loaderErrors()
{
    QFETCH(QString, failures);
    QFETCH(QString, message);
    nlohmann::json j = scenarioToJson(fixtures::seed128());
    j["failures"] = nlohmann::json::parse(failures.toStdString());
    const std::string error = errorOf([&] { scenarioFromJson(j); });
    QVERIFY2(error.find(message.toStdString()) == 0, error.c_str());
}

void TestFailureRemap::failuresRoundTrip()
{
    // Without failures nothing is written: the sample stays byte-identical.
    QFile file(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    QVERIFY(file.open(QIODevice::ReadOnly));
    const std::string bytes = file.readAll().toStdString();
    QCOMPARE(scenarioToText(parseScenario(bytes)), bytes);
    QVERIFY(bytes.find("failures") == std::string::npos);

    Scenario s = fixtures::seed128();
    s.failures = fails({ "server:3", "gpu:17", "nic:5", "leaf:2" });
    const std::string text = scenarioToText(s);
    QVERIFY(text.find(R"("failures": [)") != std::string::npos);
    QCOMPARE(parseScenario(text).failures, s.failures);
    QCOMPARE(scenarioToText(parseScenario(text)), text);

    // A leaf index is checked once the fabric is built (the leaf count is derived): the
    // sample has 8 rail leaves.
    s.failures = fails({ "leaf:8" });
    s.placement = Placement::Packed;
    const Scenario loaded = parseScenario(scenarioToText(s));
    const std::string error = errorOf([&] { CostEngine e(loaded); });
    QVERIFY2(error.find("failures[0]: leaf:8 does not exist (the fabric has 8 leaf switches") == 0,
        error.c_str());
}

void TestFailureRemap::failedSlots()
{
    const Fabric seedFabric = Fabric::build(fixtures::seed128().fabric);
    // server:3 = slots 24..31; gpu:17 = slot 17; nic:5 = server 0, NIC 5 = GPU 5 (GPU i <-> NIC
    // i); leaf:2 = leaf-su0-rail2, the rail-2 NIC of every server = GPU 2 of all 16 servers.
    const auto unusable = [](const Fabric &f, std::initializer_list<const char *> t) {
        const std::vector<char> u = usableSlots(f, fails(t));
        std::vector<int> out;
        for (std::size_t s = 0; s < u.size(); ++s)
            if (!u[s])
                out.push_back(static_cast<int>(s));
        return out;
    };
    QCOMPARE(unusable(seedFabric, { "server:3" }),
        (std::vector<int> { 24, 25, 26, 27, 28, 29, 30, 31 }));
    QCOMPARE(unusable(seedFabric, { "gpu:17" }), std::vector<int> { 17 });
    QCOMPARE(unusable(seedFabric, { "nic:5" }), std::vector<int> { 5 });
    std::vector<int> rail2;
    for (int s = 0; s < 16; ++s)
        rail2.push_back(s * 8 + 2);
    QCOMPARE(unusable(seedFabric, { "leaf:2" }), rail2);
    QCOMPARE(describeFailure(seedFabric, fails({ "leaf:2" }).front()),
        std::string("leaf:2 (leaf-su0-rail2)"));
    QCOMPARE(describeFailure(seedFabric, fails({ "nic:13" }).front()),
        std::string("nic:13 (node001/nic5)"));

    // Four NICs per server, two GPUs each: nic:5 = server 1, NIC 1 = GPUs 2 and 3 = slots 10, 11.
    FabricSpec shared = fixtures::seed128().fabric;
    shared.nicsPerServer = 4;
    shared.gpuToNic = { 0, 0, 1, 1, 2, 2, 3, 3 };
    QCOMPARE(unusable(Fabric::build(shared), { "nic:5" }), (std::vector<int> { 10, 11 }));
    const std::string error
        = errorOf([&] { checkFailureRange(fails({ "nic:64" }).front(), shared, "x"); });
    QVERIFY2(error.find("x: nic:64 does not exist (the fabric has 64 NICs") == 0, error.c_str());
}

void TestFailureRemap::rankOnFailedSlotRefused()
{
    Scenario s = fixtures::seed128();
    s.failures = fails({ "server:3" });
    const std::string error = errorOf([&] { CostEngine e(s); });
    QVERIFY2(error
            == "mapping: rank 24 (d 3, p 0, t 0) is on slot 24 (node003/gpu0), which is "
               "unusable: server:3 (node003) failed",
        error.c_str());

    // A degraded scenario refuses a move onto a failed slot and keeps its mapping.
    Scenario spare = seedWithSpares();
    spare.failures = fails({ "server:16" }); // an idle server: the packed mapping stays valid
    CostEngine e(spare);
    const Mapping before = e.mapping();
    const std::string moveError = errorOf([&] { e.moveRank(0, 16 * 8 + 3); });
    QVERIFY2(moveError.find("is unusable: server:16 (node016) failed") != std::string::npos,
        moveError.c_str());
    QVERIFY(e.mapping() == before);
    e.moveRank(0, 17 * 8); // a healthy spare slot is fine
    QCOMPARE(e.mapping().slotOf(0), 17 * 8);
}

void TestFailureRemap::dropDpSeedServer3()
{
    const Scenario healthy = fixtures::seed128();
    const RemapResult r = remap(healthy, fails({ "server:3" }), RemapStrategy::DropDp);
    QVERIFY2(r.possible, r.reason.c_str());
    const Scenario &s = r.degraded;
    // 15 whole servers hold 15 TP groups of 8; a replica needs pp = 4 of them: dp' = 15/4 = 3.
    QCOMPARE(s.degrees.dp, 3);
    QCOMPARE(s.degrees.tp, 8);
    QCOMPARE(s.degrees.pp, 4);
    QCOMPARE(r.result.ranks, 96);
    QCOMPARE(r.result.tpGroupsAcrossServers, 0);
    QVERIFY(r.tpGroupsAcross.empty());
    QCOMPARE(s.mappingVersion, 2);
    QCOMPARE(s.failures, fails({ "server:3" }));
    QCOMPARE(static_cast<int>(s.slots.size()), 96);
    for (int slot : s.slots)
        QVERIFY(slot / 8 != 3);
    // Replica d = 3 (servers 3, 7, 11, 15) is dropped; the others keep their slots.
    QCOMPARE(r.ranksOnFailedSlots, 8);
    QCOMPARE(r.ranksDropped, 32);
    QCOMPARE(r.ranksMoved, 0);
    QCOMPARE(r.ranksRenumbered, 0);
    QCOMPARE(r.ranksUnchanged, 96);
    for (const RemappedRank &m : r.moves) {
        QCOMPARE(m.kind, RemappedRank::Kind::Dropped);
        QCOMPARE(m.oldCoord.d, 3);
        QCOMPARE(m.oldSlot / 8 % 4, 3);
    }
    // Global batch: 16 micro-batches of 1 per replica kept -> 16 x 1 x 3 = 48.
    QCOMPARE(s.training.globalBatch, 48);
    QCOMPARE(r.result.microbatches, 16);
    QCOMPARE(r.healthy.globalBatch, 64);

    // Evaluated exactly as `evaluate` does, and the file round-trips.
    CostEngine e(parseScenario(scenarioToText(s)));
    QCOMPARE(e.report().iterationTime, r.result.iterationTime);
    QCOMPARE(r.result.samplesPerSecond, 48.0 / e.report().iterationTime);
    QVERIFY(dpSameRail(e));
    QCOMPARE(r.result.dpGroupsAcrossRails, 0);
    QCOMPARE(r.healthy.iterationTime, CostEngine(healthy).report().iterationTime);

    // Memory, distributed optimizer [MegatronDocs]: parameters and gradients per rank do not
    // depend on dp, the Adam state is 12/dp bytes per parameter: 4/3 of the healthy shard.
    CostEngine h(healthy);
    for (int st = 0; st < 4; ++st) {
        const MemoryLedger &a = h.report().memory[static_cast<std::size_t>(st)];
        const MemoryLedger &b = e.report().memory[static_cast<std::size_t>(st)];
        QCOMPARE(b.parameters, a.parameters);
        QCOMPARE(b.gradients, a.gradients);
        QVERIFY(qFuzzyCompare(b.optimizer, a.optimizer * 4.0 / 3.0));
        QCOMPARE(r.stageMemory[static_cast<std::size_t>(st)], b.total());
    }
    QCOMPARE(r.stageLayers, (std::vector<int> { 20, 20, 20, 20 }));
    QCOMPARE(r.layerImbalance, 1.0);
    QVERIFY(r.result.memoryFits);
    QVERIFY(qFuzzyCompare(r.memoryGrowth, r.result.maxMemoryPerRank / r.healthy.maxMemoryPerRank));
}

void TestFailureRemap::dropDpGpuFailureRenumbers()
{
    // gpu:17 = server 2, GPU 1 = rank 17 = (d 2, p 0, t 1). Server 2 keeps no whole TP group,
    // so dp' = 15/4 = 3 again; replica 2 is dropped and replica 3 becomes d 2 on its own slots.
    const RemapResult r = remap(fixtures::seed128(), fails({ "gpu:17" }), RemapStrategy::DropDp);
    QVERIFY2(r.possible, r.reason.c_str());
    QCOMPARE(r.degraded.degrees.dp, 3);
    QCOMPARE(r.ranksOnFailedSlots, 1);
    QCOMPARE(r.ranksDropped, 32);
    QCOMPARE(r.ranksMoved, 0);
    QCOMPARE(r.ranksRenumbered, 32);
    for (const RemappedRank &m : r.moves) {
        if (m.kind == RemappedRank::Kind::Dropped) {
            QCOMPARE(m.oldCoord.d, 2);
        } else {
            QCOMPARE(m.kind, RemappedRank::Kind::Renumbered);
            QCOMPARE(m.oldCoord.d, 3);
            QCOMPARE(m.newCoord.d, 2);
            QCOMPARE(m.newSlot, m.oldSlot);
        }
    }
    QVERIFY(
        std::find(r.degraded.slots.begin(), r.degraded.slots.end(), 17) == r.degraded.slots.end());
}

void TestFailureRemap::sparesMovesFailedServer()
{
    const RemapResult r = remap(seedWithSpares(), fails({ "server:3" }), RemapStrategy::Spares);
    QVERIFY2(r.possible, r.reason.c_str());
    QCOMPARE(r.degraded.degrees.dp, 4);
    QCOMPARE(r.degraded.degrees.pp, 4);
    QCOMPARE(r.degraded.training.globalBatch, 64);
    QCOMPARE(r.result.ranks, 128);
    QCOMPARE(r.ranksMoved, 8);
    QCOMPARE(r.ranksDropped, 0);
    QCOMPARE(r.ranksRenumbered, 0);
    QCOMPARE(static_cast<int>(r.moves.size()), 8);
    // Ranks 24..31 move to the first spare server, node016, shard t on GPU t (same rail).
    for (const RemappedRank &m : r.moves) {
        QVERIFY(m.oldSlotFailed);
        QCOMPARE(m.oldSlot / 8, 3);
        QCOMPARE(m.newSlot, 16 * 8 + m.oldCoord.t);
        QCOMPARE(m.newCoord, m.oldCoord);
    }
    QCOMPARE(r.result.tpGroupsAcrossServers, 0);
    QCOMPARE(r.result.dpGroupsAcrossRails, 0);
    QCOMPARE(r.degraded.mappingVersion, 2);
}

void TestFailureRemap::sparesGpuFailureMovesWholeTpGroup()
{
    // One failed GPU moves its whole TP group (ranks 16..23) to a spare server: tp stays on
    // NVLink, at the price of 8 moves instead of 1.
    const RemapResult r = remap(seedWithSpares(), fails({ "gpu:17" }), RemapStrategy::Spares);
    QVERIFY2(r.possible, r.reason.c_str());
    QCOMPARE(r.ranksMoved, 8);
    for (const RemappedRank &m : r.moves) {
        QCOMPARE(m.oldRank / 8, 2);
        QCOMPARE(m.newSlot, 16 * 8 + m.oldCoord.t);
    }
    QCOMPARE(r.result.tpGroupsAcrossServers, 0);

    // With spare slots but no whole free server, the one rank moves alone (same GPU index,
    // hence the same rail) and its TP group is forced across servers.
    Scenario odd = fixtures::seed128();
    odd.fabric.servers = 17;
    odd.failures = fails({ "gpu:131" }); // spare server 16 has 7 usable GPUs
    const RemapResult split = remap(odd, fails({ "gpu:17" }), RemapStrategy::Spares);
    QVERIFY2(split.possible, split.reason.c_str());
    QCOMPARE(split.ranksMoved, 1);
    QCOMPARE(split.moves.front().newSlot, 16 * 8 + 1);
    QCOMPARE(split.result.tpGroupsAcrossServers, 1);
    QCOMPARE(split.tpGroupsAcross.front(), std::string("tp group 2 (d 2, p 0): node002, node016"));
    QCOMPARE(split.degraded.failures, fails({ "gpu:131", "gpu:17" }));
}

void TestFailureRemap::sparesShortfall()
{
    const RemapResult r = remap(fixtures::seed128(), fails({ "server:3" }), RemapStrategy::Spares);
    QVERIFY(!r.possible);
    QCOMPARE(r.reason,
        std::string("8 ranks sat on failed slots but only 0 usable GPU slots are "
                    "unused (short by 8); add spare servers or use drop-dp / "
                    "shrink-pp"));
}

void TestFailureRemap::shrinkPpSeed()
{
    const Scenario healthy = fixtures::seed128();
    const RemapResult r = remap(healthy, fails({ "server:3" }), RemapStrategy::ShrinkPp);
    QVERIFY2(r.possible, r.reason.c_str());
    // pp 3 holds 80 layers only unevenly: balanced by compute time. With L one layer's
    // compute, e the embedding lookup (< L) and H the LM head with the loss (> L at vocab
    // 32000, hidden 8192), the stage times are 27L + e, 27L, 26L + H for 27/27/26, and each
    // other split of 80 over 3 puts 27 layers beside the head (27L + H): 27/27/26 is the best.
    QCOMPARE(r.degraded.degrees.pp, 3);
    QCOMPARE(r.degraded.degrees.dp, 4);
    QCOMPARE(r.result.ranks, 96);
    QCOMPARE(r.stageLayers, (std::vector<int> { 27, 27, 26 }));
    QCOMPARE(r.degraded.training.layersPerStage, (std::vector<int> { 27, 27, 26 }));
    QCOMPARE(r.degraded.training.globalBatch, 64);
    // New stage q continues the old stage that held its first layer (0, 27, 54 -> old stages
    // 0, 1, 2): old stage 3 is dropped, and (d 3, p 0), on failed server 3, moves whole to
    // node012, where the dropped (d 0, p 3) was.
    QCOMPARE(r.ranksMoved, 8);
    QCOMPARE(r.ranksDropped, 32);
    QCOMPARE(r.result.tpGroupsAcrossServers, 0);
    QCOMPARE(r.result.dpGroupsAcrossRails, 0);

    // Memory by the ledger: stage 0 of pp 3 holds the embedding and layers 0..26, i.e. old
    // stage 0 (layers 0..19 and the embedding) and 7 of old stage 1's 20 layers; the last
    // holds 26 layers (6 of old stage 2's, all 20 of old stage 3's with the head).
    const WorkloadPlan p4
        = planWorkload(healthy.model, healthy.training, healthy.device, healthy.degrees);
    const WorkloadPlan p3
        = planWorkload(healthy.model, r.degraded.training, healthy.device, r.degraded.degrees);
    QVERIFY(qFuzzyCompare(p3.memory[0].parameters,
        p4.memory[0].parameters + 7.0 / 20.0 * p4.memory[1].parameters));
    QVERIFY(qFuzzyCompare(p3.memory[0].optimizer,
        p4.memory[0].optimizer + 7.0 / 20.0 * p4.memory[1].optimizer));
    QVERIFY(qFuzzyCompare(p3.memory[2].parameters,
        p4.memory[3].parameters + 6.0 / 20.0 * p4.memory[2].parameters));
    QVERIFY(qFuzzyCompare(r.memoryGrowth, r.result.maxMemoryPerRank / r.healthy.maxMemoryPerRank));
    QVERIFY(r.memoryGrowth > 1.1); // about 4/3 the weights, the same activations (1F1B)
    QVERIFY(r.result.memoryFits); // still under the H100's 80 GB
    QVERIFY(r.result.maxMemoryPerRank < 80e9);
}

void TestFailureRemap::shrinkPpLeavesDualPipe()
{
    // DualPipe pairs its ranks: pp 4 -> 3 cannot run it, so the plan falls back to ZB-H1 and
    // says so.
    Scenario healthy = fixtures::seed128();
    healthy.training.schedule = ScheduleKind::DualPipe;
    const RemapResult r = remap(healthy, fails({ "server:3" }), RemapStrategy::ShrinkPp);
    QVERIFY2(r.possible, r.reason.c_str());
    QCOMPARE(r.degraded.degrees.pp, 3);
    QCOMPARE(r.degraded.training.schedule, ScheduleKind::ZbH1);
    QVERIFY(std::find(r.notes.begin(), r.notes.end(), "schedule dualpipe -> zb-h1: pp 3 is odd")
        != r.notes.end());
}

void TestFailureRemap::shrinkPpImpossible()
{
    // pp 1 has nothing to shrink.
    Scenario flat = fixtures::seed128();
    flat.degrees.pp = 1;
    flat.degrees.dp = 4;
    flat.training.globalBatch = 64;
    const RemapResult none = remap(flat, fails({ "server:0" }), RemapStrategy::ShrinkPp);
    QVERIFY(!none.possible);
    QCOMPARE(none.reason, std::string("pp is already 1: there is no pipeline to shrink"));

    // 13 failed servers leave 24 slots: pp 2 needs 64 ranks, pp 1 needs 32.
    std::vector<FailedComponent> many;
    for (int s = 3; s < 16; ++s)
        many.push_back({ FailedComponent::Kind::Server, s });
    const RemapResult small = remap(fixtures::seed128(), many, RemapStrategy::ShrinkPp);
    QVERIFY(!small.possible);
    QCOMPARE(small.reason,
        std::string("no pp below 4 fits (pp 1 needs 32 ranks, only 24 GPU slots are usable)"));
    const RemapResult drop = remap(fixtures::seed128(), many, RemapStrategy::DropDp);
    QVERIFY(!drop.possible);
    QCOMPARE(drop.reason,
        std::string("not even one data-parallel replica (tp x pp x cp = 32 "
                    "ranks) fits the 24 usable GPU slots"));
}

void TestFailureRemap::leafFailureSplitsEveryServer()
{
    // leaf:2 (rail 2) removes GPU 2 of every server: no server keeps 8 usable GPUs, so no
    // strategy keeps its TP groups whole, and there are no spare slots.
    const std::vector<RemapResult> all = remapAll(fixtures::seed128(), fails({ "leaf:2" }));
    QCOMPARE(static_cast<int>(all.size()), 3);
    for (const RemapResult &r : all)
        QVERIFY(!r.possible);
    QVERIFY2(all[0].reason.find("no dp from 3 down to 1 keeps every TP group whole") == 0,
        all[0].reason.c_str());
    QVERIFY2(
        all[1].reason.find("16 ranks sat on failed slots but only 0") == 0, all[1].reason.c_str());
    QCOMPARE(bestRemap(all), -1);

    // A failed NIC takes only its GPU: nic:5 -> slot 5 = (d 0, p 0, t 5); drop-dp drops d 0.
    const RemapResult nic = remap(fixtures::seed128(), fails({ "nic:5" }), RemapStrategy::DropDp);
    QVERIFY2(nic.possible, nic.reason.c_str());
    QCOMPARE(nic.ranksOnFailedSlots, 1);
    QCOMPARE(nic.degraded.degrees.dp, 3);
    QVERIFY(std::find(nic.degraded.slots.begin(), nic.degraded.slots.end(), 5)
        == nic.degraded.slots.end());
}

void TestFailureRemap::remapInputErrors()
{
    const Scenario s = fixtures::seed128();
    QCOMPARE(errorOf([&] { remap(s, fails({ "server:16" }), RemapStrategy::DropDp); }),
        std::string("failure: server:16 does not exist (the fabric has 16 servers, 0..15)"));
    QCOMPARE(errorOf([&] { remap(s, fails({ "leaf:9" }), RemapStrategy::DropDp); }),
        std::string("failure: leaf:9 does not exist (the fabric has 8 leaf switches, 0..7)"));
    QCOMPARE(errorOf([&] {
        remap(s, fails({ "gpu:3", "gpu:3" }), RemapStrategy::DropDp);
    }),
        std::string("failure: gpu:3 is given twice"));
    QCOMPARE(errorOf([&] { remap(s, {}, RemapStrategy::DropDp); }).substr(0, 33),
        std::string("failure: name at least one failed"));

    // A second failure on a degraded scenario: version 3, both failures recorded.
    const RemapResult first = remap(seedWithSpares(), fails({ "server:3" }), RemapStrategy::Spares);
    QCOMPARE(errorOf([&] { remap(first.degraded, fails({ "server:3" }), RemapStrategy::Spares); }),
        std::string("failure: server:3 already failed in the scenario"));
    const RemapResult second = remap(first.degraded, fails({ "server:5" }), RemapStrategy::Spares);
    QVERIFY2(second.possible, second.reason.c_str());
    QCOMPARE(second.degraded.mappingVersion, 3);
    QCOMPARE(second.degraded.failures, fails({ "server:3", "server:5" }));
    QCOMPARE(second.ranksMoved, 8);
    for (int slot : second.degraded.slots)
        QVERIFY(slot / 8 != 3 && slot / 8 != 5);
}

void TestFailureRemap::allStrategiesAndBest()
{
    const std::vector<RemapResult> all = remapAll(fixtures::seed128(), fails({ "server:3" }));
    QCOMPARE(all[0].strategy, RemapStrategy::DropDp);
    QVERIFY(all[0].possible);
    QVERIFY(!all[1].possible);
    QVERIFY(all[2].possible);
    // drop-dp keeps 3/4 of the samples at about the same iteration time; shrink-pp to pp 3
    // keeps all samples with 4/3 the layers per stage (about 3/4 the speed) and a smaller
    // bubble (3 stages instead of 4 over 16 micro-batches): shrink-pp is faster on the sample.
    QVERIFY(all[2].result.samplesPerSecond > all[0].result.samplesPerSecond);
    QVERIFY(all[0].result.samplesPerSecond > 0.7 * all[2].result.samplesPerSecond);
    QCOMPARE(bestRemap(all), 2);
    // The same healthy evaluation backs every result and the single-strategy call.
    QCOMPARE(all[2].healthy.iterationTime, all[0].healthy.iterationTime);
    const RemapResult single = remap(fixtures::seed128(), fails({ "server:3" }), RemapStrategy::ShrinkPp);
    QCOMPARE(single.result.iterationTime, all[2].result.iterationTime);
    QCOMPARE(single.degraded.slots, all[2].degraded.slots);

    const auto rows = remapComparisonRows(all);
    QCOMPARE(rows.front(),
        (std::vector<std::string> { "", "healthy", "drop-dp", "spares", "shrink-pp" }));
    QCOMPARE(rows[1], (std::vector<std::string> { "ranks", "128", "96", "-", "96" }));
    QCOMPARE(rows.back()[3], std::string("impossible"));
}

QTEST_GUILESS_MAIN(TestFailureRemap)
#include "tst_failureremap.moc"
