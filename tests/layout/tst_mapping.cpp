// Tests for Mapping: named placements, swaps and validation messages on rail-optimised and
// ToR fabrics. Expected slots are derived by hand from the rank formulas in the comments.
#include "fabric/fabric.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"
#include "base/scenarioerror.h"
#include "fixtures.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <QTest>

#include <functional>
#include <vector>

using namespace railyard;

namespace {

Fabric makeFabric(int servers, int gpus, bool tor = false)
{
    return Fabric::build(tor ? fixtures::torFabric(servers, gpus) : fixtures::railFabric(servers, gpus));
}

ParallelLayout makeLayout(int tp, int pp, int dp, int cp = 1, const QString &order = {})
{
    const ParallelDegrees d = fixtures::degrees(tp, pp, dp, cp);
    return order.isEmpty() ? ParallelLayout(d) : ParallelLayout(d, order.toStdString());
}

/// slot(r) for r in 0..world-1.
QList<int> slotsFrom(int world, const std::function<int(int)> &slotOfRank)
{
    QList<int> out;
    for (int r = 0; r < world; ++r)
        out << slotOfRank(r);
    return out;
}

QList<int> toList(const std::vector<int> &v)
{
    return QList<int>(v.begin(), v.end());
}

/// "E: message" / "W: message" lines, so a whole issue list compares in one QCOMPARE.
QStringList describe(const std::vector<MappingIssue> &issues)
{
    QStringList out;
    for (const MappingIssue &i : issues)
        out << (i.severity == MappingIssue::Error ? QStringLiteral("E: ") : QStringLiteral("W: "))
                + QString::fromStdString(i.message);
    return out;
}

/// Number of groups a kind of warning names, counting the "... and N more" summary line.
int countWarnings(
    const std::vector<MappingIssue> &issues, const QString &prefix, const QString &summary)
{
    int n = 0;
    for (const MappingIssue &i : issues) {
        const QString m = QString::fromStdString(i.message);
        if (i.severity != MappingIssue::Warning)
            continue;
        if (m.startsWith(prefix))
            ++n;
        else if (m.startsWith(QStringLiteral("... and ")) && m.endsWith(summary))
            n += m.section(QLatin1Char(' '), 2, 2).toInt();
    }
    return n;
}

int countErrors(const std::vector<MappingIssue> &issues)
{
    int n = 0;
    for (const MappingIssue &i : issues)
        n += i.severity == MappingIssue::Error;
    return n;
}

} // namespace

class TestMapping : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void place_data();
    void place();
    void railAlignedInvariants_data();
    void railAlignedInvariants();
    void warningMessages();
    void validation_data();
    void validation();
    void swapAndMove();
    void explicitInverse();
    void tooFewSlots();
    void placementNames();
};

void TestMapping::place_data()
{
    QTest::addColumn<QString>("placement");
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<QString>("order");
    QTest::addColumn<int>("servers");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<bool>("tor");
    QTest::addColumn<QList<int>>("expected");
    QTest::addColumn<int>("tpSplit"); // TP groups on more servers than needed
    QTest::addColumn<int>("dpRail"); // DP groups spanning several rails

    const QString def = QStringLiteral("tp-cp-ep-dp-pp");
    const auto identity = [](int r) { return r; };

    // The 128-GPU sample (tp 8, pp 4, dp 4 on 16 x 8): default order, rank = t + 8d + 32p;
    // packed puts (d,p)'s TP group on server d + 4p with t on GPU t, so DP peers share GPU t:
    // rail-aligned already.
    QTest::newRow("sample packed") << "packed" << 8 << 4 << 4 << 1 << def << 16 << 8 << false
                                 << slotsFrom(128, identity) << 0 << 0;
    QTest::newRow("sample rail-aligned") << "rail-aligned" << 8 << 4 << 4 << 1 << def << 16 << 8
                                       << false << slotsFrom(128, identity) << 0 << 0;
    // Scattered: rank r -> server r mod 16, GPU r / 16. TP group ranks 8k..8k+7 land on 8
    // servers; DP group {t + 32p + 8d} sits on GPUs 2p (d = 0, 1) and 2p+1 (d = 2, 3).
    QTest::newRow("sample scattered")
        << "scattered" << 8 << 4 << 4 << 1 << def << 16 << 8 << false
        << slotsFrom(128, [](int r) { return (r % 16) * 8 + r / 16; }) << 16 << 32;
    // Same on a ToR fabric: no rails, so no rail warnings.
    QTest::newRow("sample scattered tor")
        << "scattered" << 8 << 4 << 4 << 1 << def << 16 << 8 << true
        << slotsFrom(128, [](int r) { return (r % 16) * 8 + r / 16; }) << 16 << 0;

    // Order tp-pp-dp: rank = t + 8p + 32d. Packed is fine (server p + 4d, GPU t); rail-aligned
    // fills servers in (p, d) order instead: slot 8(4p + d) + t.
    const QString tpd = QStringLiteral("tp-pp-dp");
    QTest::newRow("tp-pp-dp packed") << "packed" << 8 << 4 << 4 << 1 << tpd << 16 << 8 << false
                                     << slotsFrom(128, identity) << 0 << 0;
    QTest::newRow("tp-pp-dp rail-aligned")
        << "rail-aligned" << 8 << 4 << 4 << 1 << tpd << 16 << 8 << false
        << slotsFrom(128, [](int r) { return 8 * (4 * ((r / 8) % 4) + r / 32) + r % 8; }) << 0 << 0;

    // Order dp-tp-pp: rank = d + 4t + 32p. Packed puts TP group (d,p) = {d + 4t + 32p} on four
    // servers and DP group (p,t) = 4 consecutive ranks on four GPUs of one server (4 rails);
    // rail-aligned repairs both: slot 8(4p + d) + t.
    const QString dtp = QStringLiteral("dp-tp-pp");
    QTest::newRow("dp-tp-pp packed") << "packed" << 8 << 4 << 4 << 1 << dtp << 16 << 8 << false
                                     << slotsFrom(128, identity) << 16 << 32;
    QTest::newRow("dp-tp-pp rail-aligned")
        << "rail-aligned" << 8 << 4 << 4 << 1 << dtp << 16 << 8 << false
        << slotsFrom(128, [](int r) { return 8 * (4 * (r / 32) + r % 4) + (r / 4) % 8; }) << 0 << 0;

    // tp = 2 on 8-GPU servers: 4 lanes. Default order, rank = t + 2d + 32p. Packed puts DP
    // group (p,t) on GPUs t + 2d mod 8 (4 rails); rail-aligned gives each p a lane: server d,
    // GPU t + 2p.
    QTest::newRow("tp2 packed") << "packed" << 2 << 4 << 16 << 1 << def << 16 << 8 << false
                                << slotsFrom(128, identity) << 0 << 8;
    QTest::newRow("tp2 rail-aligned")
        << "rail-aligned" << 2 << 4 << 16 << 1 << def << 16 << 8 << false
        << slotsFrom(128, [](int r) { return 8 * ((r / 2) % 16) + r % 2 + 2 * (r / 32); }) << 0
        << 0;

    // tp = 16 > G = 8: a TP group needs two servers (no warning), shard t on GPU t mod 8.
    // Default order, rank = t + 16d + 64p; servers 2(4p + d) + t/8 -> slot = rank.
    QTest::newRow("tp16 rail-aligned") << "rail-aligned" << 16 << 2 << 4 << 1 << def << 16 << 8
                                       << false << slotsFrom(128, identity) << 0 << 0;
    // Order tp-pp-dp, rank = t + 16p + 32d -> slot 16(4p + d) + t.
    QTest::newRow("tp16 tp-pp-dp rail-aligned")
        << "rail-aligned" << 16 << 2 << 4 << 1 << tpd << 16 << 8 << false
        << slotsFrom(128, [](int r) { return 16 * (4 * ((r / 16) % 2) + r / 32) + r % 16; }) << 0
        << 0;

    // Context parallel: rank = t + 8c + 16d + 64p; columns (p,c) in order q = 2p + c, server
    // 4q + d: slot = t + 8d + 32c + 64p.
    QTest::newRow("cp rail-aligned")
        << "rail-aligned" << 8 << 2 << 4 << 2 << def << 16 << 8 << false
        << slotsFrom(128,
               [](int r) {
                   const int t = r % 8, c = (r / 8) % 2, d = (r / 16) % 4, p = r / 64;
                   return t + 8 * d + 32 * c + 64 * p;
               })
        << 0 << 0;

    // Fallback: tp4 pp3 dp2 on 3 servers of 8 GPUs (rank = t + 4d + 8p). One block of dp = 2
    // servers holds two columns: p = 0 in lane 0 (slot 8d + t), p = 1 in lane 1 (8d + 4 + t).
    // p = 2 does not fit and is packed into server 2: slot 16 + 4d + t, so its DP groups
    // {t, t+4} leave their rail (4 warnings) while TP groups stay whole.
    QTest::newRow("rail-aligned fallback")
        << "rail-aligned" << 4 << 3 << 2 << 1 << def << 3 << 8 << false
        << slotsFrom(24,
               [](int r) {
                   const int t = r % 4, d = (r / 4) % 2, p = r / 8;
                   return p < 2 ? 8 * d + t + 4 * p : 16 + 4 * d + t;
               })
        << 0 << 4;

    // Scattered with fewer ranks than slots: the same formula stays one-to-one (r/16 < 8).
    QTest::newRow("scattered 64 of 128")
        << "scattered" << 8 << 2 << 4 << 1 << def << 16 << 8 << false
        << slotsFrom(64, [](int r) { return (r % 16) * 8 + r / 16; }) << 8 << 16;
    // Packed with spare slots: ranks on the first 64 slots.
    QTest::newRow("packed 64 of 128") << "packed" << 8 << 2 << 4 << 1 << def << 16 << 8 << false
                                      << slotsFrom(64, identity) << 0 << 0;
}

void TestMapping::place()
{
    QFETCH(QString, placement);
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, dp);
    QFETCH(int, cp);
    QFETCH(QString, order);
    QFETCH(int, servers);
    QFETCH(int, gpus);
    QFETCH(bool, tor);
    QFETCH(QList<int>, expected);
    QFETCH(int, tpSplit);
    QFETCH(int, dpRail);

    Placement p {};
    QVERIFY(parsePlacement(placement.toStdString(), p));
    const Fabric fabric = makeFabric(servers, gpus, tor);
    const ParallelLayout layout = makeLayout(tp, pp, dp, cp, order);
    const Mapping m = Mapping::place(p, layout, fabric);

    QCOMPARE(m.rankCount(), layout.worldSize());
    QCOMPARE(m.slotCount(), servers * gpus);
    QCOMPARE(toList(m.slots()), expected);
    for (int r = 0; r < m.rankCount(); ++r)
        QCOMPARE(m.rankAt(m.slotOf(r)), r);
    int empty = 0;
    for (int s = 0; s < m.slotCount(); ++s)
        empty += m.rankAt(s) < 0;
    QCOMPARE(empty, servers * gpus - layout.worldSize());

    const auto issues = m.validate(layout, fabric);
    QCOMPARE(countErrors(issues), 0);
    QCOMPARE(countWarnings(issues, QStringLiteral("tp group "),
                 QStringLiteral("more tp groups split across servers")),
        tpSplit);
    QCOMPARE(countWarnings(issues, QStringLiteral("dp group "),
                 QStringLiteral("more dp groups span several rails")),
        dpRail);
}

void TestMapping::railAlignedInvariants_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<QString>("order");
    QTest::addColumn<int>("servers");
    QTest::addColumn<int>("gpus");

    QTest::newRow("tp4 cp2") << 4 << 2 << 8 << 2 << "tp-cp-ep-dp-pp" << 16 << 8;
    QTest::newRow("tp4 pp-first") << 4 << 2 << 16 << 1 << "pp-tp-dp" << 16 << 8;
    QTest::newRow("tp1") << 1 << 4 << 16 << 1 << "dp-tp-pp" << 16 << 8;
    QTest::newRow("tp3 on 8") << 3 << 2 << 4 << 1 << "tp-dp-pp" << 8 << 8;
    QTest::newRow("tp8 on 4") << 8 << 2 << 2 << 1 << "tp-pp-dp" << 8 << 4;
    QTest::newRow("spare servers") << 2 << 2 << 4 << 1 << "tp-dp-pp" << 16 << 8;
}

void TestMapping::railAlignedInvariants()
{
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, dp);
    QFETCH(int, cp);
    QFETCH(QString, order);
    QFETCH(int, servers);
    QFETCH(int, gpus);

    const Fabric fabric = makeFabric(servers, gpus);
    const ParallelLayout layout = makeLayout(tp, pp, dp, cp, order);
    const Mapping m = Mapping::place(Placement::RailAligned, layout, fabric);

    // Whenever every column fits, nothing is split: TP groups on ceil(tp/G) servers, each DP
    // group on one GPU index.
    QCOMPARE(describe(m.validate(layout, fabric)), QStringList {});
    for (const auto &g : layout.groups(GroupKind::Dp))
        for (int r : g)
            QCOMPARE(fabric.gpuOfSlot(m.slotOf(r)), fabric.gpuOfSlot(m.slotOf(g.front())));
    for (int r = 0; r < layout.worldSize(); ++r)
        QCOMPARE(fabric.gpuOfSlot(m.slotOf(r)) % tp, layout.coord(r).t % gpus % tp);
}

void TestMapping::warningMessages()
{
    const Fabric fabric = makeFabric(16, 8);
    {
        // dp-tp-pp packed: TP group 0 = {0, 4, ..., 28} on servers 0..3; DP group 0 = (t0, p0)
        // = ranks 0..3 on GPUs 0..3 of server 0.
        const ParallelLayout layout = makeLayout(8, 4, 4, 1, QStringLiteral("dp-tp-pp"));
        const QStringList got
            = describe(Mapping::place(Placement::Packed, layout, fabric).validate(layout, fabric));
        QCOMPARE(got.size(), 16 + 20 + 1);
        QCOMPARE(got.first(),
            QStringLiteral("W: tp group 0 (ranks 0, 4, 8, 12, 16, 20, 24, 28) is "
                           "split across servers node000, node001, node002, "
                           "node003"));
        QCOMPARE(got.at(16), QStringLiteral("W: dp group 0 (ranks 0..3) spans rails 0, 1, 2, 3"));
        QCOMPARE(got.last(), QStringLiteral("W: ... and 12 more dp groups span several rails"));
    }
    {
        // The sample scattered: TP group 0 = ranks 0..7 on servers 0..7; DP group 0 = {0, 8, 16, 24}
        // on GPU 0 (ranks 0, 8) and GPU 1 (ranks 16, 24).
        const ParallelLayout layout = makeLayout(8, 4, 4);
        const QStringList got = describe(
            Mapping::place(Placement::Scattered, layout, fabric).validate(layout, fabric));
        QCOMPARE(got.first(),
            QStringLiteral("W: tp group 0 (ranks 0..7) is split across servers "
                           "node000, node001, node002, node003, node004, node005, "
                           "node006, node007"));
        QCOMPARE(got.at(16), QStringLiteral("W: dp group 0 (ranks 0, 8, 16, 24) spans rails 0, 1"));
    }
    {
        // tp = 32 on a 64x8 fabric, scattered: each TP group touches 32 servers; the name list
        // is cut after eight.
        const Fabric big = makeFabric(64, 8);
        const ParallelLayout layout = makeLayout(32, 1, 16);
        const QStringList got
            = describe(Mapping::place(Placement::Scattered, layout, big).validate(layout, big));
        QCOMPARE(got.first(),
            QStringLiteral("W: tp group 0 (ranks 0..31) is split across servers "
                           "node000, node001, node002, node003, node004, node005, "
                           "node006, node007 and 24 more"));
    }
}

void TestMapping::validation_data()
{
    QTest::addColumn<QList<int>>("slots");
    QTest::addColumn<int>("slotCount");
    QTest::addColumn<bool>("tor");
    QTest::addColumn<QStringList>("expected");

    // Layout tp4 dp2 (rank = t + 4d): TP groups {0..3}, {4..7}; DP groups {t, t+4}.
    // Fabric 16 servers x 8 GPUs, rail i = GPU i.
    const QList<int> aligned { 0, 1, 2, 3, 8, 9, 10, 11 };
    QTest::newRow("rail-aligned") << aligned << 128 << false << QStringList {};
    QTest::newRow("packed") << QList<int> { 0, 1, 2, 3, 4, 5, 6, 7 } << 128 << false
                            << QStringList { "W: dp group 0 (ranks 0, 4) spans rails 0, 4",
                                   "W: dp group 1 (ranks 1, 5) spans rails 1, 5",
                                   "W: dp group 2 (ranks 2, 6) spans rails 2, 6",
                                   "W: dp group 3 (ranks 3, 7) spans rails 3, 7" };
    QTest::newRow("packed tor") << QList<int> { 0, 1, 2, 3, 4, 5, 6, 7 } << 128 << true
                                << QStringList {};
    QTest::newRow("short") << QList<int> { 0, 1, 2 } << 128 << false
                           << QStringList {
                                  "E: the slot list has 3 entries but the layout has 8 ranks",
                                  "E: ranks 3..7 have no slot"
                              };
    QTest::newRow("long") << QList<int> { 0, 1, 2, 3, 8, 9, 10, 11, 12 } << 128 << false
                          << QStringList {
                                 "E: the slot list has 9 entries but the layout has 8 ranks"
                             };
    QTest::newRow("slot count") << aligned << 64 << false
                                << QStringList {
                                       "E: the mapping covers 64 slots but the fabric has 128"
                                   };
    QTest::newRow("out of range") << QList<int> { 0, 1, 2, 3, 8, 9, 10, 200 } << 128 << false
                                  << QStringList { "E: rank 7 is on slot 200, outside the fabric's "
                                                   "128 slots" };
    QTest::newRow("duplicate") << QList<int> { 0, 1, 2, 3, 8, 9, 10, 3 } << 128 << false
                               << QStringList {
                                      "E: ranks 3 and 7 are both on slot 3 (node000/gpu3)",
                                      "W: tp group 1 (ranks 4..7) is split across servers "
                                      "node000, node001"
                                  };
    QTest::newRow("unassigned") << QList<int> { 0, 1, -1, 3, 8, 9, 10, 11 } << 128 << false
                                << QStringList { "E: rank 2 has no slot" };
    QTest::newRow("two unassigned") << QList<int> { -1, 1, -1, 3, 8, 9, 10, 11 } << 128 << false
                                    << QStringList { "E: ranks 0, 2 have no slot" };
    // Rank 7 moved to server 2, GPU 0: its TP group splits and DP group {3, 7} leaves rail 3.
    QTest::newRow("split") << QList<int> { 0, 1, 2, 3, 8, 9, 10, 16 } << 128 << false
                           << QStringList { "W: tp group 1 (ranks 4..7) is split across servers "
                                            "node001, node002",
                                  "W: dp group 3 (ranks 3, 7) spans rails 0, 3" };
}

void TestMapping::validation()
{
    QFETCH(QList<int>, slots);
    QFETCH(int, slotCount);
    QFETCH(bool, tor);
    QFETCH(QStringList, expected);

    const Fabric fabric = makeFabric(16, 8, tor);
    const ParallelLayout layout = makeLayout(4, 1, 2);
    const Mapping m(std::vector<int>(slots.begin(), slots.end()), slotCount);
    QCOMPARE(describe(m.validate(layout, fabric)), expected);
}

void TestMapping::swapAndMove()
{
    const Fabric fabric = makeFabric(16, 8);
    const ParallelLayout sample = makeLayout(8, 4, 4);
    const Mapping packed = Mapping::place(Placement::Packed, sample, fabric);

    Mapping m = packed;
    m.swapRanks(3, 77);
    QCOMPARE(m.slotOf(3), 77);
    QCOMPARE(m.slotOf(77), 3);
    QCOMPARE(m.rankAt(77), 3);
    QCOMPARE(m.rankAt(3), 77);
    QVERIFY(!(m == packed));
    m.swapRanks(77, 3);
    QVERIFY(m == packed);

    // Swapping ranks 0 and 8 puts one shard of TP groups 0 and 1 on the other's server; DP group
    // {0, 8, 16, 24} stays on GPU 0, so only the two TP warnings appear.
    m.swapRanks(0, 8);
    QCOMPARE(describe(m.validate(sample, fabric)),
        (QStringList { "W: tp group 0 (ranks 0..7) is split across servers node000, node001",
            "W: tp group 1 (ranks 8..15) is split across servers node000, node001" }));
    m.swapRanks(0, 8);
    QVERIFY(m == packed);

    // moveRank onto an occupied slot swaps the two ranks.
    m.moveRank(5, 9);
    QCOMPARE(m.slotOf(5), 9);
    QCOMPARE(m.slotOf(9), 5);
    QCOMPARE(m.rankAt(5), 9);
    QCOMPARE(m.rankAt(9), 5);
    m.moveRank(5, 5);
    QVERIFY(m == packed);
    m.moveRank(5, 5); // already there: nothing changes
    QVERIFY(m == packed);

    // moveRank onto an empty slot frees the old one.
    const ParallelLayout half = makeLayout(8, 2, 4);
    const Mapping packedHalf = Mapping::place(Placement::Packed, half, fabric);
    Mapping h = packedHalf;
    h.moveRank(0, 100);
    QCOMPARE(h.slotOf(0), 100);
    QCOMPARE(h.rankAt(100), 0);
    QCOMPARE(h.rankAt(0), -1);
    QCOMPARE(describe(h.validate(half, fabric)),
        (QStringList { "W: tp group 0 (ranks 0..7) is split across servers node000, node012",
            "W: dp group 0 (ranks 0, 8, 16, 24) spans rails 0, 4" }));
    h.moveRank(0, 0);
    QVERIFY(h == packedHalf);
}

void TestMapping::explicitInverse()
{
    // Best-effort inverse: the first rank on a slot keeps it, out-of-range slots are skipped.
    const Mapping m(std::vector<int> { 5, 2, 2, 9 }, 8);
    QCOMPARE(m.rankCount(), 4);
    QCOMPARE(m.slotCount(), 8);
    QCOMPARE(m.rankAt(5), 0);
    QCOMPARE(m.rankAt(2), 1);
    QCOMPARE(m.rankAt(0), -1);
    QCOMPARE(m.slotOf(3), 9);
}

void TestMapping::tooFewSlots()
{
    const Fabric fabric = makeFabric(16, 8);
    const ParallelLayout layout = makeLayout(8, 4, 8);
    for (Placement p : { Placement::Packed, Placement::RailAligned, Placement::Scattered }) {
        bool threw = false;
        try {
            Mapping::place(p, layout, fabric);
        } catch (const ScenarioError &e) {
            threw = true;
            QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("mapping"));
            QCOMPARE(QString::fromUtf8(e.what()),
                QStringLiteral("mapping: the layout needs 256 GPU slots but the fabric has 128"));
        }
        QVERIFY(threw);
    }
}

void TestMapping::placementNames()
{
    const Placement all[] = { Placement::Packed, Placement::RailAligned, Placement::Scattered };
    const char *names[] = { "packed", "rail-aligned", "scattered" };
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(std::string(placementName(all[i])), std::string(names[i]));
        Placement p = Placement::Packed;
        QVERIFY(parsePlacement(names[i], p));
        QVERIFY(p == all[i]);
    }
    Placement p = Placement::Scattered;
    QVERIFY(!parsePlacement("rail_aligned", p));
    QVERIFY(p == Placement::Scattered);
}

QTEST_GUILESS_MAIN(TestMapping)
#include "tst_mapping.moc"
