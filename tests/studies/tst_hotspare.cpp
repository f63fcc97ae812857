/**
 * The failure remap's hot-spare swap (remap --spare, studies/remapresult.h HotSpare) on the
 * 128-GPU sample with two spare servers (tp 8, pp 4, dp 4 packed on servers 0..15 of 18: rank =
 * t + 8 d + 32 p, server S holds the TP group d = S mod 4, p = S / 4). Only the ranks on failed
 * slots move; each TP group stays in one NVLink domain and each rank on its rail.
 */
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fixtures.h"
#include "studies/failureremap.h"

#include <QTest>

#include <set>

using namespace railyard;

namespace {

Scenario seedWithSpares()
{
    Scenario s = fixtures::seed128();
    s.fabric.servers = 18;
    return s;
}

HotSpare spareOf(const char *text)
{
    HotSpare s;
    s.use = true;
    if (std::string(text) != "first")
        s.part = parseFailure(text, "test");
    return s;
}

} // namespace

class TestHotSpare : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void namedServerTakesTheFailedServersRanks();
    void firstFreeSlotKeepsTheRules();
    void spareBreakingARuleIsImpossible_data();
    void spareBreakingARuleIsImpossible();
    void spareMustBeAServerOrGpu();
};

void TestHotSpare::namedServerTakesTheFailedServersRanks()
{
    // server:3 holds the TP group (d 3, p 0), ranks 24..31 on GPUs 0..7. The spare node017
    // (server 17) takes rank 24 + t on its GPU t: the group is whole on one NVLink domain, each
    // rank on rail t as before, so its DP group (p 0, t) stays on rail t.
    const Scenario healthy = seedWithSpares();
    const RemapResult r = remap(
        healthy, { parseFailure("server:3", "test") }, RemapStrategy::Spares, spareOf("server:17"));
    QVERIFY2(r.possible, r.reason.c_str());
    QCOMPARE(r.ranksMoved, 8);
    QCOMPARE(r.ranksDropped, 0);
    QCOMPARE(r.ranksUnchanged, 120);
    CostEngine e(r.degraded);
    const Fabric &f = e.fabric();
    for (int t = 0; t < 8; ++t)
        QCOMPARE(e.mapping().slotOf(24 + t), 17 * 8 + t);
    for (const auto &group : e.layout().groups(GroupKind::Tp)) {
        std::set<int> domains;
        for (const int rank : group)
            domains.insert(f.scaleUpDomainOfSlot(e.mapping().slotOf(rank)));
        QCOMPARE(domains.size(), std::size_t { 1 });
    }
    for (const auto &group : e.layout().groups(GroupKind::Dp))
        for (const int rank : group)
            QCOMPARE(f.railOfSlot(e.mapping().slotOf(rank)),
                f.railOfSlot(e.mapping().slotOf(group.front())));
    QVERIFY(e.mappingWarnings().empty());
}

void TestHotSpare::firstFreeSlotKeepsTheRules()
{
    // Without a name the first free slot that keeps the rules: server 16's GPU t for rank 24 + t.
    const RemapResult r = remap(seedWithSpares(), { parseFailure("server:3", "test") },
        RemapStrategy::Spares, spareOf("first"));
    QVERIFY2(r.possible, r.reason.c_str());
    CostEngine e(r.degraded);
    for (int t = 0; t < 8; ++t)
        QCOMPARE(e.mapping().slotOf(24 + t), 16 * 8 + t);
}

void TestHotSpare::spareBreakingARuleIsImpossible_data()
{
    QTest::addColumn<QString>("failure");
    QTest::addColumn<QString>("spare");
    QTest::addColumn<QString>("reason");
    // gpu:17 is node002's GPU 1: rank 17 of the TP group on node002, rail 1.
    QTest::newRow("another NVLink domain")
        << "gpu:17"
        << "gpu:137"
        << "hot spare gpu:137 (node017/gpu1) cannot take every rank the failure hit: no spare "
           "slot for rank 17 (it sat on slot 17) on rail 1 in NVLink domain node002";
    QTest::newRow("another rail") << "server:3"
                                  << "gpu:136"
                                  << "hot spare gpu:136 (node017/gpu0) cannot take every rank "
                                     "the failure hit: no spare slot for rank 25 (it sat on slot "
                                     "25) on rail 1 in NVLink domain node017";
    QTest::newRow("first, none in the domain")
        << "gpu:17"
        << "first"
        << "hot spare the first free slot cannot take every rank the failure hit: no spare slot "
           "for rank 17 (it sat on slot 17) on rail 1 in NVLink domain node002";
}

void TestHotSpare::spareBreakingARuleIsImpossible()
{
    QFETCH(QString, failure);
    QFETCH(QString, spare);
    QFETCH(QString, reason);
    const RemapResult r = remap(seedWithSpares(), { parseFailure(failure.toStdString(), "test") },
        RemapStrategy::Spares, spareOf(spare.toLatin1().constData()));
    QVERIFY(!r.possible);
    QCOMPARE(QString::fromStdString(r.reason), reason);
}

void TestHotSpare::spareMustBeAServerOrGpu()
{
    try {
        remap(seedWithSpares(), { parseFailure("server:3", "test") }, RemapStrategy::Spares,
            spareOf("nic:3"));
        QFAIL("a NIC was taken as a hot spare");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.what()),
            QStringLiteral("--spare: a hot spare is a server (server:S) or a GPU slot (gpu:N), "
                           "not nic:3"));
    }
    try {
        remap(seedWithSpares(), { parseFailure("server:3", "test") }, RemapStrategy::Spares,
            spareOf("server:18"));
        QFAIL("a server outside the fabric was taken as a hot spare");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromStdString(e.what()).startsWith("--spare: server:18 does not exist"),
            e.what());
    }
}

QTEST_GUILESS_MAIN(TestHotSpare)
#include "tst_hotspare.moc"
