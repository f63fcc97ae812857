// Tests for ParallelLayout against hand-derived Megatron-LM rank groups
// (megatron/core/parallel_state.py: RankGenerator, generate_masked_orthogonal_rank_groups).
#include "layout/parallellayout.h"
#include "base/scenarioerror.h"
#include "fixtures.h"

#include <QString>
#include <QStringList>
#include <QTest>

#include <functional>
#include <vector>

using namespace railyard;

namespace railyard {
/// Found by QTest through ADL: readable failure messages for RankCoord comparisons.
char *toString(const RankCoord &c)
{
    return QTest::toString(
        QStringLiteral("(t%1 p%2 d%3 c%4 e%5)").arg(c.t).arg(c.p).arg(c.d).arg(c.c).arg(c.e));
}
} // namespace railyard

namespace {

using Groups = std::vector<std::vector<int>>;

/// "0 1|2 3" for {{0,1},{2,3}}: compact expectations that QCOMPARE prints readably.
template<typename GroupsOrList> QString formatGroups(const GroupsOrList &groups)
{
    QStringList parts;
    for (const auto &g : groups) {
        QStringList members;
        for (int r : g)
            members << QString::number(r);
        parts << members.join(QLatin1Char(' '));
    }
    return parts.join(QLatin1Char('|'));
}

/// Builds groups from a formula: group g (0..count-1), member i (0..size-1) -> rank.
QString formulaGroups(int count, int size, const std::function<int(int, int)> &rank)
{
    Groups groups(static_cast<std::size_t>(count));
    for (int g = 0; g < count; ++g)
        for (int i = 0; i < size; ++i)
            groups[static_cast<std::size_t>(g)].push_back(rank(g, i));
    return formatGroups(groups);
}

using fixtures::degrees;

} // namespace

class TestParallelLayout : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void groupListKeepsGroupsBackToBack();
    void groups_data();
    void groups();
    void coords_data();
    void coords();
    void invariants_data();
    void invariants();
    void badInput_data();
    void badInput();
    void orderIsCaseInsensitive();
    void kindNames();
};

void TestParallelLayout::groups_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<int>("ep");
    QTest::addColumn<QString>("order");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");

    // Megatron-LM's documented example (parallel_state.py, initialize_model_parallel docstring):
    // 16 GPUs, tp=2, pp=4, dp=2, order tp-dp-pp -> rank = t + 2d + 4p.
    const QString mex = QStringLiteral("tp-dp-pp");
    QTest::newRow("megatron tp") << 2 << 4 << 2 << 1 << 1 << mex << "tp"
                                 << "0 1|2 3|4 5|6 7|8 9|10 11|12 13|14 15";
    QTest::newRow("megatron dp") << 2 << 4 << 2 << 1 << 1 << mex << "dp"
                                 << "0 2|1 3|4 6|5 7|8 10|9 11|12 14|13 15";
    QTest::newRow("megatron pp") << 2 << 4 << 2 << 1 << 1 << mex << "pp"
                                 << "0 4 8 12|1 5 9 13|2 6 10 14|3 7 11 15";
    // Model-parallel group: t fastest, then p.
    QTest::newRow("megatron tp-pp") << 2 << 4 << 2 << 1 << 1 << mex << "tp-pp"
                                    << "0 1 4 5 8 9 12 13|2 3 6 7 10 11 14 15";
    QTest::newRow("megatron dp-cp") << 2 << 4 << 2 << 1 << 1 << mex << "dp-cp"
                                    << "0 2|1 3|4 6|5 7|8 10|9 11|12 14|13 15";
    QTest::newRow("megatron edp") << 2 << 4 << 2 << 1 << 1 << mex << "edp"
                                  << "0 2|1 3|4 6|5 7|8 10|9 11|12 14|13 15";
    QTest::newRow("megatron cp") << 2 << 4 << 2 << 1 << 1 << mex << "cp"
                                 << "0|1|2|3|4|5|6|7|8|9|10|11|12|13|14|15";
    QTest::newRow("megatron ep") << 2 << 4 << 2 << 1 << 1 << mex << "ep"
                                 << "0|1|2|3|4|5|6|7|8|9|10|11|12|13|14|15";

    // Default order tp-cp-ep-dp-pp, tp=pp=dp=2: rank = t + 2d + 4p.
    const QString def = QStringLiteral("tp-cp-ep-dp-pp");
    QTest::newRow("default tp") << 2 << 2 << 2 << 1 << 1 << def << "tp"
                                << "0 1|2 3|4 5|6 7";
    QTest::newRow("default dp") << 2 << 2 << 2 << 1 << 1 << def << "dp"
                                << "0 2|1 3|4 6|5 7";
    QTest::newRow("default pp") << 2 << 2 << 2 << 1 << 1 << def << "pp"
                                << "0 4|1 5|2 6|3 7";

    // tp-pp-dp: rank = t + 2p + 4d.
    const QString tpd = QStringLiteral("tp-pp-dp");
    QTest::newRow("tp-pp-dp dp") << 2 << 2 << 2 << 1 << 1 << tpd << "dp"
                                 << "0 4|1 5|2 6|3 7";
    QTest::newRow("tp-pp-dp pp") << 2 << 2 << 2 << 1 << 1 << tpd << "pp"
                                 << "0 2|1 3|4 6|5 7";
    QTest::newRow("tp-pp-dp tp-pp") << 2 << 2 << 2 << 1 << 1 << tpd << "tp-pp"
                                    << "0 1 2 3|4 5 6 7";

    // dp-tp-pp: rank = d + 2t + 4p (TP is no longer contiguous).
    const QString dtp = QStringLiteral("dp-tp-pp");
    QTest::newRow("dp-tp-pp tp") << 2 << 2 << 2 << 1 << 1 << dtp << "tp"
                                 << "0 2|1 3|4 6|5 7";
    QTest::newRow("dp-tp-pp dp") << 2 << 2 << 2 << 1 << 1 << dtp << "dp"
                                 << "0 1|2 3|4 5|6 7";
    QTest::newRow("dp-tp-pp pp") << 2 << 2 << 2 << 1 << 1 << dtp << "pp"
                                 << "0 4|1 5|2 6|3 7";
    QTest::newRow("dp-tp-pp tp-pp") << 2 << 2 << 2 << 1 << 1 << dtp << "tp-pp"
                                    << "0 2 4 6|1 3 5 7";

    // pp-dp-tp: rank = p + 2d + 4t.
    const QString pdt = QStringLiteral("pp-dp-tp");
    QTest::newRow("pp-dp-tp tp") << 2 << 2 << 2 << 1 << 1 << pdt << "tp"
                                 << "0 4|1 5|2 6|3 7";
    QTest::newRow("pp-dp-tp pp") << 2 << 2 << 2 << 1 << 1 << pdt << "pp"
                                 << "0 1|2 3|4 5|6 7";
    QTest::newRow("pp-dp-tp dp") << 2 << 2 << 2 << 1 << 1 << pdt << "dp"
                                 << "0 2|1 3|4 6|5 7";

    // Context parallel, default order: rank = t + 2c + 4d (pp = 1).
    QTest::newRow("cp cp") << 2 << 1 << 2 << 2 << 1 << def << "cp"
                           << "0 2|1 3|4 6|5 7";
    QTest::newRow("cp dp") << 2 << 1 << 2 << 2 << 1 << def << "dp"
                           << "0 4|1 5|2 6|3 7";
    // dp-cp members: c fastest (cp precedes dp in the order), groups indexed by t.
    QTest::newRow("cp dp-cp") << 2 << 1 << 2 << 2 << 1 << def << "dp-cp"
                              << "0 2 4 6|1 3 5 7";
    // With ep = 1 the expert data-parallel group is the whole dp*cp group.
    QTest::newRow("cp edp") << 2 << 1 << 2 << 2 << 1 << def << "edp"
                            << "0 2 4 6|1 3 5 7";
    // Order dp-cp-tp-pp: rank = d + 2c + 4t; dp-cp members d fastest, then c.
    const QString dct = QStringLiteral("dp-cp-tp-pp");
    QTest::newRow("dp-cp-tp-pp dp-cp") << 2 << 1 << 2 << 2 << 1 << dct << "dp-cp"
                                       << "0 1 2 3|4 5 6 7";
    QTest::newRow("dp-cp-tp-pp cp") << 2 << 1 << 2 << 2 << 1 << dct << "cp"
                                    << "0 2|1 3|4 6|5 7";
    QTest::newRow("dp-cp-tp-pp tp") << 2 << 1 << 2 << 2 << 1 << dct << "tp"
                                    << "0 4|1 5|2 6|3 7";
    QTest::newRow("dp-cp-tp-pp edp") << 2 << 1 << 2 << 2 << 1 << dct << "edp"
                                     << "0 1 2 3|4 5 6 7";

    // Expert parallel, default order, tp=2 dp=4 pp=2 ep=2. Dense: rank = t + 2d + 8p.
    // Expert generator (tp 2, ep 2, expert dp 2, pp 2): rank = t + 2e + 4d' + 8p.
    QTest::newRow("ep dp") << 2 << 2 << 4 << 1 << 2 << def << "dp"
                           << "0 2 4 6|1 3 5 7|8 10 12 14|9 11 13 15";
    QTest::newRow("ep ep") << 2 << 2 << 4 << 1 << 2 << def << "ep"
                           << "0 2|1 3|4 6|5 7|8 10|9 11|12 14|13 15";
    QTest::newRow("ep edp") << 2 << 2 << 4 << 1 << 2 << def << "edp"
                            << "0 4|1 5|2 6|3 7|8 12|9 13|10 14|11 15";
    QTest::newRow("ep tp") << 2 << 2 << 4 << 1 << 2 << def << "tp"
                           << "0 1|2 3|4 5|6 7|8 9|10 11|12 13|14 15";

    // Expert parallel across context parallel: tp=2 cp=2 dp=2 ep=2. Dense: t + 2c + 4d.
    // The ep groups are consecutive slices of the dp-cp groups {0 2 4 6}, {1 3 5 7}.
    QTest::newRow("ep+cp dp-cp") << 2 << 1 << 2 << 2 << 2 << def << "dp-cp"
                                 << "0 2 4 6|1 3 5 7";
    QTest::newRow("ep+cp ep") << 2 << 1 << 2 << 2 << 2 << def << "ep"
                              << "0 2|1 3|4 6|5 7";
    QTest::newRow("ep+cp edp") << 2 << 1 << 2 << 2 << 2 << def << "edp"
                               << "0 4|1 5|2 6|3 7";
    QTest::newRow("ep=dp*cp ep") << 1 << 1 << 2 << 2 << 4 << def << "ep"
                                 << "0 1 2 3";
    QTest::newRow("ep=dp*cp edp") << 1 << 1 << 2 << 2 << 4 << def << "edp"
                                  << "0|1|2|3";

    // The 128-GPU sample (16 servers x 8), default order, tp=8 pp=4 dp=4: rank = t + 8d + 32p.
    // Groups enumerate the other dims first-fastest: tp group index d + 4p, dp group index
    // t + 8p, pp group index t + 8d.
    QTest::newRow("seed128 tp") << 8 << 4 << 4 << 1 << 1 << def << "tp"
                                << formulaGroups(16, 8,
                                       [](int g, int i) { return i + 8 * (g % 4) + 32 * (g / 4); });
    QTest::newRow("seed128 dp") << 8 << 4 << 4 << 1 << 1 << def << "dp"
                                << formulaGroups(32, 4,
                                       [](int g, int i) { return (g % 8) + 32 * (g / 8) + 8 * i; });
    QTest::newRow("seed128 pp") << 8 << 4 << 4 << 1 << 1 << def << "pp"
                                << formulaGroups(32, 4,
                                       [](int g, int i) { return (g % 8) + 8 * (g / 8) + 32 * i; });
    // Same degrees, order tp-pp-dp: rank = t + 8p + 32d.
    QTest::newRow("seed128 tp-pp-dp dp")
        << 8 << 4 << 4 << 1 << 1 << tpd << "dp"
        << formulaGroups(32, 4, [](int g, int i) { return (g % 8) + 8 * (g / 8) + 32 * i; });
    QTest::newRow("seed128 tp-pp-dp pp")
        << 8 << 4 << 4 << 1 << 1 << tpd << "pp"
        << formulaGroups(32, 4, [](int g, int i) { return (g % 8) + 32 * (g / 8) + 8 * i; });
}

void TestParallelLayout::groups()
{
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, dp);
    QFETCH(int, cp);
    QFETCH(int, ep);
    QFETCH(QString, order);
    QFETCH(QString, kind);
    QFETCH(QString, expected);

    GroupKind k {};
    QVERIFY(parseGroupKind(kind.toStdString(), k));
    const ParallelLayout layout(degrees(tp, pp, dp, cp, ep), order.toStdString());
    QCOMPARE(layout.worldSize(), tp * pp * dp * cp);
    QCOMPARE(formatGroups(layout.groups(k)), expected);

    // groupOf() points back at the group holding each rank.
    const GroupList &gs = layout.groups(k);
    for (std::size_t g = 0; g < gs.size(); ++g)
        for (int r : gs[g])
            QCOMPARE(layout.groupOf(k, r), static_cast<int>(g));
}

void TestParallelLayout::groupListKeepsGroupsBackToBack()
{
    // Four groups of three: group g is members [3g, 3g + 3), in the order given.
    const GroupList list({ 5, 1, 9, 0, 2, 4, 11, 3, 6, 7, 8, 10 }, 3);
    QCOMPARE(list.size(), std::size_t { 4 });
    QCOMPARE(list.groupSize(), 3);
    QVERIFY(!list.empty());
    QCOMPARE(toVector(list[2]), (std::vector<int> { 11, 3, 6 }));
    QCOMPARE(toVector(list.front()), (std::vector<int> { 5, 1, 9 }));
    QCOMPARE(toVector(list.back()), (std::vector<int> { 7, 8, 10 }));
    const Groups expected { { 5, 1, 9 }, { 0, 2, 4 }, { 11, 3, 6 }, { 7, 8, 10 } };
    QCOMPARE(list.copies(), expected);
    Groups visited;
    for (const std::span<const int> group : list)
        visited.push_back(toVector(group));
    QCOMPARE(visited, expected);
    QVERIFY(list != GroupList({ 5, 1, 9, 0, 2, 4, 11, 3, 6, 7, 8, 10 }, 4)); // other groups
    QVERIFY(GroupList().empty());
    QCOMPARE(GroupList().size(), std::size_t { 0 });

    // cp = ep = 1: each rank is a group of one, kept as one member each (no block per group).
    const ParallelLayout layout(degrees(2, 2, 4, 1, 1), "tp-cp-ep-dp-pp");
    for (const GroupKind kind : { GroupKind::Cp, GroupKind::Ep }) {
        const GroupList &ones = layout.groups(kind);
        QCOMPARE(ones.size(), std::size_t { 16 });
        QCOMPARE(ones.groupSize(), 1);
        for (std::size_t g = 0; g < ones.size(); ++g)
            QCOMPARE(toVector(ones[g]), (std::vector<int> { static_cast<int>(g) }));
    }
}

void TestParallelLayout::coords_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<int>("ep");
    QTest::addColumn<QString>("order");
    QTest::addColumn<int>("rank");
    QTest::addColumn<QList<int>>("tpdce"); // expected t, p, d, c, e

    // Megatron example, rank = t + 2d + 4p: 13 = 1 + 2*0 + 4*3.
    QTest::newRow("megatron 13") << 2 << 4 << 2 << 1 << 1 << "tp-dp-pp" << 13
                                 << QList<int> { 1, 3, 0, 0, 0 };
    QTest::newRow("megatron 6") << 2 << 4 << 2 << 1 << 1 << "tp-dp-pp" << 6
                                << QList<int> { 0, 1, 1, 0, 0 };
    // The same example, rank = t + 8d + 32p: 109 = 5 + 8*1 + 32*3.
    QTest::newRow("seed128 109") << 8 << 4 << 4 << 1 << 1 << "tp-cp-ep-dp-pp" << 109
                                 << QList<int> { 5, 3, 1, 0, 0 };
    // tp-pp-dp, rank = t + 8p + 32d: 109 = 5 + 8*1 + 32*3.
    QTest::newRow("tp-pp-dp 109") << 8 << 4 << 4 << 1 << 1 << "tp-pp-dp" << 109
                                  << QList<int> { 5, 1, 3, 0, 0 };
    // dp-tp-pp, rank = d + 4t + 32p: 109 = 1 + 4*3 + 32*3.
    QTest::newRow("dp-tp-pp 109") << 8 << 4 << 4 << 1 << 1 << "dp-tp-pp" << 109
                                  << QList<int> { 3, 3, 1, 0, 0 };
    // cp: rank = t + 2c + 4d; 7 = 1 + 2 + 4.
    QTest::newRow("cp 7") << 2 << 1 << 2 << 2 << 1 << "tp-cp-ep-dp-pp" << 7
                          << QList<int> { 1, 0, 1, 1, 0 };
    // ep (tp 2, dp 4, pp 2, ep 2): dense t + 2d + 8p, expert t + 2e + 4d' + 8p.
    // 14 = 0 + 2*3 + 8*1 -> e = (14/2) % 2 = 1.  12 -> d = 2, e = 0.
    QTest::newRow("ep 14") << 2 << 2 << 4 << 1 << 2 << "tp-cp-ep-dp-pp" << 14
                           << QList<int> { 0, 1, 3, 0, 1 };
    QTest::newRow("ep 12") << 2 << 2 << 4 << 1 << 2 << "tp-cp-ep-dp-pp" << 12
                           << QList<int> { 0, 1, 2, 0, 0 };
    // ep across cp (tp 2, cp 2, dp 2, ep 2): dense t + 2c + 4d, expert t + 2e + 4d'.
    // 6 = 0 + 2*1 + 4*1 -> e = 1.
    QTest::newRow("ep+cp 6") << 2 << 1 << 2 << 2 << 2 << "tp-cp-ep-dp-pp" << 6
                             << QList<int> { 0, 0, 1, 1, 1 };
}

void TestParallelLayout::coords()
{
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, dp);
    QFETCH(int, cp);
    QFETCH(int, ep);
    QFETCH(QString, order);
    QFETCH(int, rank);
    QFETCH(QList<int>, tpdce);

    const ParallelLayout layout(degrees(tp, pp, dp, cp, ep), order.toStdString());
    const RankCoord c = layout.coord(rank);
    QCOMPARE((QList<int> { c.t, c.p, c.d, c.c, c.e }), tpdce);
    QCOMPARE(layout.rankOf(c.t, c.p, c.d, c.c), rank);
}

void TestParallelLayout::invariants_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<int>("ep");
    QTest::addColumn<QString>("order");

    QTest::newRow("seed128") << 8 << 4 << 4 << 1 << 1 << "tp-cp-ep-dp-pp";
    QTest::newRow("megatron") << 2 << 4 << 2 << 1 << 1 << "tp-dp-pp";
    QTest::newRow("all dims") << 2 << 3 << 4 << 2 << 4 << "tp-cp-ep-dp-pp";
    QTest::newRow("pp first") << 2 << 3 << 4 << 2 << 2 << "pp-ep-dp-cp-tp";
    QTest::newRow("cp first") << 4 << 2 << 3 << 2 << 3 << "cp-dp-ep-tp-pp";
    QTest::newRow("short order") << 3 << 2 << 4 << 1 << 2 << "ep-dp-tp-pp";
    QTest::newRow("tp-pp-dp ep") << 2 << 2 << 4 << 2 << 2 << "tp-pp-cp-ep-dp";
    QTest::newRow("single gpu") << 1 << 1 << 1 << 1 << 1 << "tp";
}

void TestParallelLayout::invariants()
{
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, dp);
    QFETCH(int, cp);
    QFETCH(int, ep);
    QFETCH(QString, order);

    const ParallelLayout layout(degrees(tp, pp, dp, cp, ep), order.toStdString());
    const int world = tp * pp * dp * cp;
    QCOMPARE(layout.worldSize(), world);

    struct Expect
    {
        GroupKind kind;
        int size;
    };
    const Expect expects[] = { { GroupKind::Tp, tp }, { GroupKind::Pp, pp }, { GroupKind::Dp, dp },
        { GroupKind::Cp, cp }, { GroupKind::Ep, ep }, { GroupKind::DpCp, dp * cp },
        { GroupKind::TpPp, tp * pp }, { GroupKind::ExpertDp, dp * cp / ep } };
    for (const Expect &x : expects) {
        const GroupList &gs = layout.groups(x.kind);
        QCOMPARE(static_cast<int>(gs.size()), world / x.size);
        std::vector<int> seen(static_cast<std::size_t>(world), 0);
        for (std::size_t g = 0; g < gs.size(); ++g) {
            QCOMPARE(static_cast<int>(gs[g].size()), x.size);
            for (std::size_t i = 0; i < gs[g].size(); ++i) {
                const int r = gs[g][i];
                QVERIFY(r >= 0 && r < world);
                ++seen[static_cast<std::size_t>(r)];
                QCOMPARE(layout.groupOf(x.kind, r), static_cast<int>(g));
                const RankCoord c = layout.coord(r);
                const RankCoord first = layout.coord(gs[g][0]);
                const int pos = static_cast<int>(i);
                // A single-dim group enumerates its dim in order and keeps the others fixed.
                switch (x.kind) {
                case GroupKind::Tp:
                    QCOMPARE(c.t, pos);
                    QCOMPARE((RankCoord { 0, c.p, c.d, c.c, 0 }),
                        (RankCoord { 0, first.p, first.d, first.c, 0 }));
                    break;
                case GroupKind::Pp:
                    QCOMPARE(c.p, pos);
                    QCOMPARE((RankCoord { c.t, 0, c.d, c.c, 0 }),
                        (RankCoord { first.t, 0, first.d, first.c, 0 }));
                    break;
                case GroupKind::Dp:
                    QCOMPARE(c.d, pos);
                    QCOMPARE((RankCoord { c.t, c.p, 0, c.c, 0 }),
                        (RankCoord { first.t, first.p, 0, first.c, 0 }));
                    break;
                case GroupKind::Cp:
                    QCOMPARE(c.c, pos);
                    QCOMPARE((RankCoord { c.t, c.p, c.d, 0, 0 }),
                        (RankCoord { first.t, first.p, first.d, 0, 0 }));
                    break;
                case GroupKind::Ep:
                    QCOMPARE(c.e, pos);
                    QCOMPARE((RankCoord { c.t, c.p, 0, 0, 0 }),
                        (RankCoord { first.t, first.p, 0, 0, 0 }));
                    break;
                case GroupKind::DpCp:
                case GroupKind::ExpertDp:
                    QCOMPARE((RankCoord { c.t, c.p, 0, 0, 0 }),
                        (RankCoord { first.t, first.p, 0, 0, 0 }));
                    break;
                case GroupKind::TpPp:
                    QCOMPARE((RankCoord { 0, 0, c.d, c.c, 0 }),
                        (RankCoord { 0, 0, first.d, first.c, 0 }));
                    break;
                }
            }
        }
        for (int r = 0; r < world; ++r)
            QCOMPARE(seen[static_cast<std::size_t>(r)], 1);
    }

    // Every ep group lies inside one dp-cp group (Megatron carves expert groups out of the
    // data-parallel ranks), and each rank's coordinates round-trip through rankOf().
    for (int r = 0; r < world; ++r) {
        const RankCoord c = layout.coord(r);
        QCOMPARE(layout.rankOf(c.t, c.p, c.d, c.c), r);
        const auto &epGroup = layout.groups(
            GroupKind::Ep)[static_cast<std::size_t>(layout.groupOf(GroupKind::Ep, r))];
        for (int peer : epGroup)
            QCOMPARE(layout.groupOf(GroupKind::DpCp, peer), layout.groupOf(GroupKind::DpCp, r));
    }
    QCOMPARE(layout.rankOf(tp, 0, 0, 0), -1);
    QCOMPARE(layout.rankOf(0, -1, 0, 0), -1);
}

void TestParallelLayout::badInput_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("cp");
    QTest::addColumn<int>("ep");
    QTest::addColumn<QString>("order");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");

    const QString def = QStringLiteral("tp-cp-ep-dp-pp");
    QTest::newRow("tp 0") << 0 << 1 << 1 << 1 << 1 << def << "parallel.tp"
                          << "parallel.tp: tp must be at least 1, got 0";
    QTest::newRow("pp -1") << 1 << -1 << 1 << 1 << 1 << def << "parallel.pp"
                           << "parallel.pp: pp must be at least 1, got -1";
    QTest::newRow("dp 0") << 1 << 1 << 0 << 1 << 1 << def << "parallel.dp"
                          << "parallel.dp: dp must be at least 1, got 0";
    QTest::newRow("cp 0") << 1 << 1 << 1 << 0 << 1 << def << "parallel.cp"
                          << "parallel.cp: cp must be at least 1, got 0";
    QTest::newRow("ep 0") << 1 << 1 << 1 << 1 << 0 << def << "parallel.ep"
                          << "parallel.ep: ep must be at least 1, got 0";
    QTest::newRow("tp huge") << (1 << 21) << 1 << 1 << 1 << 1 << def << "parallel.tp"
                             << "parallel.tp: tp = 2097152 exceeds the limit of 1048576";
    QTest::newRow("world huge") << 1024 << 1024 << 2 << 1 << 1 << def << "parallel"
                                << "parallel: world size tp*pp*dp*cp = 1024*1024*2*1 exceeds the "
                                   "limit of 1048576 GPUs";
    QTest::newRow("world overflow")
        << (1 << 20) << (1 << 20) << (1 << 20) << (1 << 20) << 1 << def << "parallel"
        << "parallel: world size tp*pp*dp*cp = 1048576*1048576*1048576*"
           "1048576 exceeds the limit of 1048576 GPUs";
    QTest::newRow("ep divides") << 1 << 1 << 4 << 1 << 3 << def << "parallel.ep"
                                << "parallel.ep: ep = 3 must divide dp*cp = 4";
    QTest::newRow("empty order") << 1 << 1 << 1 << 1 << 1 << ""
                                 << "parallel.order"
                                 << "parallel.order: the order string is empty (expected e.g. "
                                    "'tp-cp-ep-dp-pp')";
    QTest::newRow("unknown dim") << 1 << 1 << 1 << 1 << 1 << "tp-xx-pp"
                                 << "parallel.order"
                                 << "parallel.order: unknown dimension 'xx' in 'tp-xx-pp' "
                                    "(expected tp, pp, dp, cp or ep)";
    QTest::newRow("empty dim") << 1 << 1 << 1 << 1 << 1 << "tp--pp"
                               << "parallel.order"
                               << "parallel.order: empty dimension name in 'tp--pp'";
    QTest::newRow("trailing dash") << 1 << 1 << 1 << 1 << 1 << "tp-dp-"
                                   << "parallel.order"
                                   << "parallel.order: empty dimension name in 'tp-dp-'";
    QTest::newRow("duplicate") << 1 << 1 << 1 << 1 << 1 << "tp-dp-tp"
                               << "parallel.order"
                               << "parallel.order: 'tp' appears more than once in 'tp-dp-tp'";
    QTest::newRow("missing cp") << 1 << 1 << 1 << 2 << 1 << "tp-dp-pp"
                                << "parallel.order"
                                << "parallel.order: cp = 2 > 1 but 'cp' is not in the order "
                                   "'tp-dp-pp'";
    QTest::newRow("missing tp") << 4 << 2 << 1 << 1 << 1 << "dp-pp"
                                << "parallel.order"
                                << "parallel.order: tp = 4 > 1 but 'tp' is not in the order "
                                   "'dp-pp'";
    QTest::newRow("missing ep") << 1 << 1 << 2 << 1 << 2 << "tp-dp-pp"
                                << "parallel.order"
                                << "parallel.order: ep = 2 > 1 but 'ep' is not in the order "
                                   "'tp-dp-pp'";
    QTest::newRow("missing expert dp") << 1 << 1 << 1 << 2 << 1 << "tp-cp-pp"
                                       << "parallel.order"
                                       << "parallel.order: expert data-parallel size dp*cp/ep = 2"
                                          " > 1 but 'dp' is not in the order 'tp-cp-pp'";
    // Megatron-LM's own consistency checks between the dense and expert generators.
    QTest::newRow("pp not last") << 1 << 2 << 4 << 1 << 2 << "tp-pp-ep-dp"
                                 << "parallel.order"
                                 << "parallel.order: pp = 2 > 1 is not last in the order "
                                    "'tp-pp-ep-dp', so Megatron-LM needs the expert data-parallel "
                                    "size dp*cp/ep = 2 to equal dp = 4";
    // Dense: c + 2p + 4d (pp stride 2); expert: p + 2e + 4d' (pp stride 1).
    QTest::newRow("pp groups differ")
        << 1 << 2 << 2 << 2 << 2 << "cp-pp-ep-dp-tp"
        << "parallel.order"
        << "parallel.order: in the order 'cp-pp-ep-dp-tp' the expert "
           "rank generator (cp folded into dp, ep = 2) gives other pp "
           "groups than the dense one, which Megatron-LM rejects; "
           "keep cp, ep and dp on the same side of pp";
    // Dense: c + 2t + 4d (tp stride 2); expert: t + 2d' (tp stride 1).
    QTest::newRow("tp groups differ")
        << 2 << 1 << 2 << 2 << 1 << "cp-tp-dp-pp"
        << "parallel.order"
        << "parallel.order: in the order 'cp-tp-dp-pp' the expert "
           "rank generator (cp folded into dp, ep = 1) gives other tp "
           "groups than the dense one, but Railyard models expert TP "
           "= TP; keep cp, ep and dp on the same side of tp";
}

void TestParallelLayout::badInput()
{
    QFETCH(int, tp);
    QFETCH(int, pp);
    QFETCH(int, dp);
    QFETCH(int, cp);
    QFETCH(int, ep);
    QFETCH(QString, order);
    QFETCH(QString, field);
    QFETCH(QString, message);

    bool threw = false;
    try {
        ParallelLayout layout(degrees(tp, pp, dp, cp, ep), order.toStdString());
    } catch (const ScenarioError &e) {
        threw = true;
        QCOMPARE(QString::fromStdString(e.field()), field);
        QCOMPARE(QString::fromUtf8(e.what()), message);
    }
    QVERIFY(threw);
}

void TestParallelLayout::orderIsCaseInsensitive()
{
    const ParallelLayout upper(degrees(2, 4, 2), "TP-DP-PP");
    const ParallelLayout lower(degrees(2, 4, 2), "tp-dp-pp");
    QCOMPARE(upper.order(), std::string("tp-dp-pp"));
    QCOMPARE(formatGroups(upper.groups(GroupKind::Dp)), formatGroups(lower.groups(GroupKind::Dp)));
    // Missing size-1 dims are appended (Megatron does the same), so "tp-dp-pp" with cp = ep = 1
    // gives the same groups as spelling them out.
    const ParallelLayout full(degrees(2, 4, 2), "tp-dp-pp-cp-ep");
    QCOMPARE(
        formatGroups(full.groups(GroupKind::TpPp)), formatGroups(lower.groups(GroupKind::TpPp)));
}

void TestParallelLayout::kindNames()
{
    const GroupKind kinds[] = { GroupKind::Tp, GroupKind::Pp, GroupKind::Dp, GroupKind::Cp,
        GroupKind::Ep, GroupKind::DpCp, GroupKind::TpPp, GroupKind::ExpertDp };
    const char *names[] = { "tp", "pp", "dp", "cp", "ep", "dp-cp", "tp-pp", "edp" };
    for (int i = 0; i < 8; ++i) {
        QCOMPARE(std::string(groupKindName(kinds[i])), std::string(names[i]));
        GroupKind parsed = GroupKind::Tp;
        QVERIFY(parseGroupKind(names[i], parsed));
        QVERIFY(parsed == kinds[i]);
    }
    GroupKind unused = GroupKind::Pp;
    QVERIFY(!parseGroupKind("xp", unused));
    QVERIFY(unused == GroupKind::Pp);
}

QTEST_GUILESS_MAIN(TestParallelLayout)
#include "tst_parallellayout.moc"
