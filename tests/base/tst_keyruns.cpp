// KeyRuns (model/base/keyruns.h): items grouped by equal 64-bit key in exactly the order that
// sorting the (key, item) pairs gives, which RouteLumps::find() relies on for lumps identical
// to the sort it replaced: keys in any order, repeated or not, key 0, the largest key,
// consecutive keys, and more groups than the table's first size (it grows and rehashes).
#include "base/keyruns.h"

#include <QTest>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

using namespace railyard;

namespace {

/// The grouping by KeyRuns, as RouteLumps::find() reads it: the items in (key, item) order and
/// where each group starts.
std::pair<std::vector<int>, std::vector<int>> grouped(const std::vector<std::uint64_t> &keys)
{
    KeyRuns runs;
    std::vector<int> group;
    for (const std::uint64_t key : keys)
        group.push_back(runs.add(key));
    std::vector<int> start;
    const std::vector<int> rank = runs.ranks(start);
    std::vector<int> items(keys.size()), next(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < keys.size(); ++i)
        items[sz(next[sz(rank[sz(group[i])])]++)] = static_cast<int>(i);
    return { items, start };
}

/// The same by sorting the pairs (what RouteLumps::find() did before).
std::pair<std::vector<int>, std::vector<int>> sorted(const std::vector<std::uint64_t> &keys)
{
    std::vector<std::pair<std::uint64_t, int>> pairs;
    for (std::size_t i = 0; i < keys.size(); ++i)
        pairs.emplace_back(keys[i], static_cast<int>(i));
    std::sort(pairs.begin(), pairs.end());
    std::vector<int> items, start;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        if (i == 0 || pairs[i - 1].first != pairs[i].first)
            start.push_back(static_cast<int>(i));
        items.push_back(pairs[i].second);
    }
    start.push_back(static_cast<int>(pairs.size()));
    return { items, start };
}

} // namespace

class TestKeyRuns : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void byHand();
    void empty();
    void asSorted_data();
    void asSorted();
};

void TestKeyRuns::byHand()
{
    // Keys 7, 0, 7, max, 0, 3 for items 0..5: groups 0 {1, 4}, 3 {5}, 7 {0, 2}, max {3}.
    const std::uint64_t max = ~std::uint64_t { 0 };
    KeyRuns runs;
    QCOMPARE(runs.add(7), 0);
    QCOMPARE(runs.add(0), 1);
    QCOMPARE(runs.add(7), 0);
    QCOMPARE(runs.add(max), 2);
    QCOMPARE(runs.add(0), 1);
    QCOMPARE(runs.add(3), 3);
    QCOMPARE(runs.groups(), 4);
    std::vector<int> start;
    QCOMPARE(runs.ranks(start), (std::vector<int> { 2, 0, 3, 1 }));
    QCOMPARE(start, (std::vector<int> { 0, 2, 3, 5, 6 }));
    const auto [items, starts] = grouped({ 7, 0, 7, max, 0, 3 });
    QCOMPARE(items, (std::vector<int> { 1, 4, 5, 0, 2, 3 }));
    QCOMPARE(starts, start);
}

void TestKeyRuns::empty()
{
    KeyRuns runs;
    std::vector<int> start { 5, 6 };
    QVERIFY(runs.ranks(start).empty());
    QCOMPARE(start, std::vector<int> { 0 });
}

void TestKeyRuns::asSorted_data()
{
    QTest::addColumn<int>("items");
    QTest::addColumn<int>("distinct");
    QTest::addColumn<int>("spread");
    // Lump-like runs (tens of items a key), every key distinct, and more groups than the first
    // 1,024 slots hold (the table grows and rehashes five times).
    QTest::newRow("lumps of about 64") << 20000 << 300 << 0;
    QTest::newRow("all distinct") << 5000 << 0 << 0;
    QTest::newRow("grows past 1,024 slots") << 40000 << 9000 << 0;
    // Keys 0, 1, 2, ...: dense ids, as a table without a mixing hash would cluster.
    QTest::newRow("consecutive keys") << 3000 << 700 << 1;
}

void TestKeyRuns::asSorted()
{
    QFETCH(int, items);
    QFETCH(int, distinct);
    QFETCH(int, spread);
    std::mt19937_64 random(items + distinct); // fixed seeds: the same keys every run
    std::vector<std::uint64_t> pool;
    for (int k = 0; k < distinct; ++k)
        pool.push_back(spread ? static_cast<std::uint64_t>(k) : random());
    if (!pool.empty())
        pool[0] = 0; // key 0 is a key like any other
    std::vector<std::uint64_t> keys;
    for (int i = 0; i < items; ++i)
        keys.push_back(pool.empty() ? random() : pool[random() % pool.size()]);
    const auto want = sorted(keys);
    const auto got = grouped(keys);
    QCOMPARE(got.second, want.second);
    QCOMPARE(got.first, want.first);
    const int groups = static_cast<int>(got.second.size()) - 1;
    if (distinct == 0)
        QCOMPARE(groups, items);
    else
        QVERIFY(groups > distinct * 9 / 10 && groups <= distinct); // nearly every key drawn
}

QTEST_GUILESS_MAIN(TestKeyRuns)
#include "tst_keyruns.moc"
