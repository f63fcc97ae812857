// LinkLoadTable (model/cost/linkloadtable.h), the report's per-link loads: links that repeat the
// link before them share one entry, and set() changes one link alone. Checked against a plain
// std::vector<LinkLoad> driven by the same random operations (full rebuilds with runs of
// repeats, then changes to shared and unshared links), and on the engine: the report of a
// rail-optimised job after moves equals a fresh evaluation's link for link, with far fewer
// entries than links.
#include "cost/costengine.h"
#include "cost/linkloadtable.h"
#include "fixtures.h"

#include <QTest>

#include <random>
#include <vector>

using namespace railyard;

class TestLinkLoadTable : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void followsAVectorUnderRandomOperations();
    void setNeverGrowsBeyondOneEntryPerLink();
    void referencesSurviveSet();
    void engineReportSharesRepeatedLinks();
};

namespace {

LinkLoad randomLoad(std::mt19937 &rng)
{
    std::uniform_int_distribution<int> small(0, 3);
    LinkLoad l;
    for (double &b : l.dimBytes) {
        b = small(rng) * 1e6;
        l.bytes += b;
    }
    l.busyTime = l.bytes / 50e9;
    return l;
}

void compare(const LinkLoadTable &table, const std::vector<LinkLoad> &expected)
{
    QCOMPARE(table.size(), expected.size());
    QCOMPARE(table.empty(), expected.empty());
    for (std::size_t i = 0; i < expected.size(); ++i)
        QVERIFY2(table[i] == expected[i], qPrintable(QString("link %1").arg(i)));
    // Iteration visits the same loads in link order.
    std::size_t i = 0;
    for (const LinkLoad &l : table)
        QVERIFY(l == expected[i++]);
    QCOMPARE(i, expected.size());
    QCOMPARE(static_cast<std::size_t>(table.end() - table.begin()), expected.size());
}

} // namespace

void TestLinkLoadTable::followsAVectorUnderRandomOperations()
{
    std::mt19937 rng(20261207);
    LinkLoadTable table;
    std::vector<LinkLoad> expected;
    for (int round = 0; round < 20; ++round) {
        const int links = std::uniform_int_distribution<int>(1, 400)(rng);
        table.clear();
        table.reserve(static_cast<std::size_t>(links));
        expected.clear();
        for (int i = 0; i < links; ++i) {
            if (i > 0 && std::uniform_int_distribution<int>(0, 3)(rng) > 0) {
                table.pushRepeat();
                expected.push_back(expected.back());
            } else {
                const LinkLoad l = randomLoad(rng);
                table.push_back(l);
                expected.push_back(l);
            }
        }
        compare(table, expected);
        QVERIFY(table.distinctLoads() < table.size() || links < 4);
        for (int change = 0; change < 3 * links; ++change) {
            const auto at
                = static_cast<std::size_t>(std::uniform_int_distribution<int>(0, links - 1)(rng));
            const LinkLoad l = randomLoad(rng);
            table.set(at, l);
            expected[at] = l;
        }
        compare(table, expected);
        QVERIFY(table.distinctLoads() <= table.size());
    }
    // assign(): every link one shared load.
    const LinkLoad l = randomLoad(rng);
    table.assign(7, l);
    compare(table, std::vector<LinkLoad>(7, l));
    QCOMPARE(table.distinctLoads(), std::size_t(1));
    QVERIFY(LinkLoadTable(3, l) == LinkLoadTable(3, l));
    QVERIFY(!(LinkLoadTable(3, l) == LinkLoadTable(4, l)));
}

void TestLinkLoadTable::setNeverGrowsBeyondOneEntryPerLink()
{
    // 1,000 links sharing one entry; each changed once gets an entry of its own, and changing
    // them again writes those entries in place.
    LinkLoadTable table(1000, LinkLoad {});
    LinkLoad l;
    for (int pass = 1; pass <= 3; ++pass)
        for (std::size_t i = 0; i < table.size(); ++i) {
            l.bytes = pass * 1e3 + static_cast<double>(i);
            table.set(i, l);
            QVERIFY(table.distinctLoads() <= table.size());
        }
    // The first pass left the original entry (now unused) and one per link.
    QCOMPARE(table.distinctLoads(), table.size());
    QCOMPARE(table[999].bytes, 3e3 + 999);
}

void TestLinkLoadTable::referencesSurviveSet()
{
    LinkLoadTable table;
    table.reserve(100);
    LinkLoad l;
    l.bytes = 1.0;
    table.push_back(l);
    for (int i = 1; i < 100; ++i)
        table.pushRepeat();
    const LinkLoad &first = table[0];
    const LinkLoad *entryBefore = &first;
    for (std::size_t i = 1; i < 100; ++i) {
        l.bytes = 2.0 + static_cast<double>(i);
        table.set(i, l); // each takes a new entry: the table must not move link 0's
    }
    QCOMPARE(&table[0], entryBefore);
    QCOMPARE(first.bytes, 1.0);
}

void TestLinkLoadTable::engineReportSharesRepeatedLinks()
{
    // A small dense job on 32 servers of 8 GPUs, rail-optimised, tp 8 x pp 2 x dp 16: every
    // GPU's ports of a stage carry the same TP load, every rail the same DP load.
    const Scenario s = fixtures::smallDense(32, 8, fixtures::degrees(8, 2, 16));
    CostEngine engine(s);
    const LinkLoadTable &links = engine.report().links;
    QCOMPARE(static_cast<int>(links.size()), engine.fabric().linkCount());
    QVERIFY2(links.distinctLoads() * 10 < links.size(),
        qPrintable(QString("%1 distinct loads for %2 links")
                       .arg(links.distinctLoads())
                       .arg(links.size())));

    // Moves change links one by one (set()); the result equals a fresh evaluation.
    std::mt19937 rng(7);
    const int ranks = s.degrees.tp * s.degrees.pp * s.degrees.dp;
    for (int m = 0; m < 40; ++m) {
        const int a = std::uniform_int_distribution<int>(0, ranks - 1)(rng);
        const int b = std::uniform_int_distribution<int>(0, ranks - 1)(rng);
        engine.swapRanks(a, b);
    }
    Scenario moved = s;
    moved.slots = engine.mapping().slots();
    const CostEngine fresh(moved);
    QCOMPARE(links.size(), fresh.report().links.size());
    for (std::size_t i = 0; i < links.size(); ++i)
        QVERIFY2(std::abs(links[i].bytes - fresh.report().links[i].bytes)
                <= 1e-6 * std::max(1.0, fresh.report().links[i].bytes),
            qPrintable(QString("link %1").arg(i)));
    QVERIFY(links.distinctLoads() <= links.size());
}

QTEST_GUILESS_MAIN(TestLinkLoadTable)
#include "tst_linkloadtable.moc"
