// The traffic model's bookkeeping (model/cost): paged link loads against an ordered map,
// block maxima against a scan, the lumps of
// super-spine routes and their single discovery per router, the changed-link list of a build,
// and the link ranking against a fresh one and against sorted keys.
#include "base/writeahead.h"
#include "cost/linkloads.h"
#include "cost/linkranking.h"
#include "cost/maxtree.h"
#include "cost/trafficmodel.h"
#include "fabric/fabric.h"
#include "fabric/routelumps.h"
#include "fabric/router.h"
#include "fixtures.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"
#include "trafficmodelsetup.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <vector>

using namespace railyard;
using namespace railyard::traffictest;

class TestTrafficBookkeeping : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void linkLoadsMatchAnOrderedMap();
    void linkLoadsBlocksFollowRuns();
    void maxTreeMatchesScan();
    void roundToIntegerIsLlround();
    void superSpineLumps();
    void lumpsFoundOncePerRouter();
    void buildListsNoChangedLinks();
    void linkRankingMatchesFreshRanking();
    void linkRankingMatchesSortedKeys();
};

void TestTrafficBookkeeping::linkLoadsMatchAnOrderedMap()
{
    // LinkLoads (model/cost/linkloads.h) against std::map after every update: loads that add
    // up, loads that cancel exactly (a move's flows leaving a link), ids across page boundaries
    // and pages allocated out of order; iteration in id order over non-zero loads only, the
    // count, and the dense flag once more than an eighth of the links carry a load.
    const int links = 3079;
    const int P = LinkLoads::pageSizeFor(links); // 64 link ids; a last, partial page
    QCOMPARE(P, 64);
    QCOMPARE(LinkLoads::pageSizeFor(1'200'000), 512);
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> linkOf(0, links - 1);
    std::uniform_int_distribution<int> unitOf(1, 8);
    LinkLoads loads;
    loads.setLinkCount(links);
    std::map<int, double> expected;
    std::vector<std::pair<int, double>> added; // to take back, as a move does
    const auto check = [&] {
        QCOMPARE(loads.size(), expected.size());
        std::vector<std::pair<int, double>> seen;
        for (const auto &[link, load] : loads)
            seen.emplace_back(link, load);
        const std::vector<std::pair<int, double>> want(expected.begin(), expected.end());
        QCOMPARE(seen, want);
        std::set<int> pages; // a page is held while, and only while, one of its links is loaded
        for (const auto &[link, load] : expected)
            pages.insert(link / P);
        QCOMPARE(loads.pages(), pages.size());
    };
    bool wasDense = false;
    for (int step = 0; step < 4000; ++step) {
        if (step % 3 == 2 && !added.empty()) {
            const auto [link, delta] = added.back();
            added.pop_back();
            QCOMPARE(loads.add(link, -delta), expected[link] - delta);
            if ((expected[link] -= delta) == 0.0)
                expected.erase(link);
            QVERIFY(!expected.count(link) || loads.find(link) != nullptr);
        } else {
            const int link = linkOf(rng);
            const double delta = 0.25 * unitOf(rng); // exact in binary: sums cancel to zero
            QCOMPARE(loads.add(link, delta), expected[link] + delta);
            expected[link] += delta;
            added.emplace_back(link, delta);
        }
        if (step % 97 == 0)
            check();
        if (QTest::currentTestFailed())
            return;
        QCOMPARE(loads.dense(), wasDense || expected.size() * 8 > std::size_t(links));
        wasDense = loads.dense();
    }
    check();
    QVERIFY(wasDense); // the walk covered more than an eighth of the links
    QVERIFY(loads.pages() > 1);
    for (const auto &[link, load] : expected) {
        QVERIFY(loads.find(link) != nullptr);
        QCOMPARE(*loads.find(link), load);
        QCOMPARE(loads.valueAt(link), load);
    }
    QVERIFY(loads.find(links - 1) == nullptr || expected.count(links - 1));
    QCOMPARE(loads.valueAt(links - 1), expected.count(links - 1) ? expected[links - 1] : 0.0);

    // Residue of loads that cancel up to rounding is dropped: 0.1 + 0.2 - 0.3 is not zero.
    LinkLoads residue;
    residue.setLinkCount(links);
    residue.add(3 * P + 1, 0.1);
    residue.add(3 * P + 1, 0.2);
    QCOMPARE(residue.add(3 * P + 1, -0.3), 0.0);
    QCOMPARE(residue.size(), std::size_t { 0 });
    QCOMPARE(residue.pages(), std::size_t { 0 });
    QVERIFY(residue.begin() == residue.end());
    QCOMPARE(residue.add(7, 0.0), 0.0); // nothing added: no page held
    QCOMPARE(residue.pages(), std::size_t { 0 });

    // Scattered loads, one per page, go to a hash table once 64 pages hold them (less than 64
    // loads per page); the same loads either way, then pages again once the pattern is dense.
    {
        const int wide = 512000;
        const int WP = LinkLoads::pageSizeFor(wide); // 512
        LinkLoads scattered;
        scattered.setLinkCount(wide);
        std::map<int, double> want;
        const auto same = [&] {
            std::map<int, double> seen;
            for (const auto &[link, load] : scattered)
                QVERIFY(seen.emplace(link, load).second); // each link once
            QCOMPARE(seen, want);
            QCOMPARE(scattered.size(), want.size());
        };
        for (int page = 0; page < 100; ++page) {
            const int link = page * WP + (page * 37) % WP;
            QCOMPARE(scattered.add(link, 1.0 + page), 1.0 + page);
            want[link] = 1.0 + page;
            QCOMPARE(scattered.hashed(), page + 1 >= 64);
        }
        QCOMPARE(scattered.pages(), std::size_t { 0 }); // the pages' memory went with them
        same();
        const int first = (0 * 37) % WP;
        QCOMPARE(scattered.add(first, -1.0), 0.0); // cancelled: gone from the table
        want.erase(first);
        QVERIFY(scattered.find(first) == nullptr);
        QCOMPARE(scattered.valueAt(5 * WP + (5 * 37) % WP), 6.0);
        same();
        for (int link = 1; want.size() * 8 <= std::size_t(wide); link += 3) {
            const double before = want.count(link) ? want[link] : 0.0;
            QCOMPARE(scattered.add(link, 0.5), before + 0.5);
            want[link] = before + 0.5;
        }
        QVERIFY(scattered.dense());
        QVERIFY(!scattered.hashed());
        QVERIFY(scattered.pages() > 0);
        same();
    }

    // A pattern told it will be dense after its first loads keeps them. Its block of pages,
    // one for every page of the links and nearly all of them written, is announced to the
    // program once (base/writeahead.h) at its size; a hint that it will be sparse is not.
    LinkLoads late;
    late.setLinkCount(links);
    late.add(P + 2, 1.5);
    static std::vector<std::size_t> announced;
    announced.clear();
    setAboutToWriteHandler([](const void *, std::size_t bytes) { announced.push_back(bytes); });
    late.reserve(std::size_t(links) / 16);
    QVERIFY(announced.empty());
    late.reserve(std::size_t(links));
    setAboutToWriteHandler(nullptr);
    QCOMPARE(announced,
        std::vector<std::size_t>({ std::size_t((links + P - 1) / P) * std::size_t(P) * 8 }));
    QVERIFY(late.dense());
    QCOMPARE(late.add(5 * P, 0.5), 0.5);
    QCOMPARE(late.valueAt(P + 2), 1.5);
    QCOMPARE(late.size(), std::size_t { 2 });

    loads.clear(); // keeps its pages and its dense flag
    QCOMPARE(loads.size(), std::size_t { 0 });
    QVERIFY(loads.begin() == loads.end());
    QVERIFY(loads.dense());
    QCOMPARE(loads.add(links - 1, 2.0), 2.0);
    QCOMPARE((*loads.begin()).first, links - 1);
}

void TestTrafficBookkeeping::linkLoadsBlocksFollowRuns()
{
    // A sparse pattern's pages hold blocks of the 8 even or the 8 odd ids among 16 consecutive
    // ids. Servers of 48 link ids: a TP group loads 16 consecutive ids of each (its NVLink
    // cables, both ways), a pipeline boundary every other id of 32 (one direction): either way
    // two blocks a server, 16 loads in 16 slots, where a whole page of 512 ids took 4 KiB for
    // the 170 loads of its 10.7 servers.
    const int links = 1'200'000;
    const int servers = 20;
    const auto run = [&](int first, int stride) {
        LinkLoads loads;
        loads.setLinkCount(links);
        std::map<int, double> want;
        for (int s = 0; s < servers; ++s)
            for (int k = 0; k < 16; ++k) {
                const int link = 48 * s + first + stride * k;
                const double load = 1.0 + s + 0.5 * k;
                QCOMPARE(loads.add(link, load), load);
                want[link] = load;
            }
        QCOMPARE(loads.blocks(), std::size_t(2 * servers));
        QCOMPARE(loads.pages(), std::size_t((48 * servers + 511) / 512));
        const std::map<int, double> seen(loads.begin(), loads.end());
        QCOMPARE(seen, want);
        for (const int link : { 48 + first + 1, 48 + 40, 48 * servers + 3 }) // odd, no block
            QCOMPARE(loads.valueAt(link), want.count(link) ? want[link] : 0.0);
        QVERIFY(loads.find(48 + 40) == nullptr);
        for (const auto &[link, load] : want) // a move takes them all back
            QCOMPARE(loads.add(link, -load), 0.0);
        QCOMPARE(loads.blocks(), std::size_t { 0 });
        QCOMPARE(loads.pages(), std::size_t { 0 });
        QVERIFY(loads.begin() == loads.end());
        // The blocks and tables go back for the next loads: the same again reads the same.
        for (const auto &[link, load] : want)
            QCOMPARE(loads.add(link, load), load);
        QCOMPARE(loads.blocks(), std::size_t(2 * servers));
        QCOMPARE((std::map<int, double>(loads.begin(), loads.end())), want);
        loads.clear();
        QCOMPARE(loads.blocks(), std::size_t { 0 });
        QCOMPARE(loads.valueAt(48 + first), 0.0);
    };
    run(16, 1); // a TP group: ids 16..31 of each server
    run(0, 2); // a pipeline boundary: ids 0, 2, ..., 30

    // A pattern dense from the start keeps whole pages; loads it held before move into them.
    LinkLoads dense;
    dense.setLinkCount(links);
    dense.add(3, 2.0);
    QCOMPARE(dense.blocks(), std::size_t { 1 });
    dense.reserve(std::size_t(links));
    QCOMPARE(dense.blocks(), std::size_t { 0 });
    QCOMPARE(dense.valueAt(3), 2.0);
    QCOMPARE(dense.add(5, 1.0), 1.0);
    QCOMPARE(dense.size(), std::size_t { 2 });
    QCOMPARE(dense.pages(), std::size_t { 1 });
}

void TestTrafficBookkeeping::maxTreeMatchesScan()
{
    // MaxTree and BlockMaxima (model/cost/maxtree.h): batches of changes of every size (one
    // value, several set twice, most of them: the rebuild path; grown values mostly raised) against
    // a plain scan for the maximum and its smallest index. Values are drawn from a few levels so
    // that ties and maxima that shrink are frequent.
    std::mt19937 rng(7);
    for (const std::size_t n :
        { std::size_t { 1 }, std::size_t { 5 }, std::size_t { 64 }, std::size_t { 1000 } }) {
        MaxTree tree;
        tree.assign(n);
        BlockMaxima blocks; // the same values, read back from `values` by blocks of 64
        blocks.assign(n);
        std::vector<double> values(n, 0.0);
        const auto valueOf = [&values](std::size_t i) { return values[i]; };
        std::uniform_int_distribution<std::size_t> at(0, n - 1);
        std::uniform_int_distribution<int> level(0, 6);
        for (int round = 0; round < 300; ++round) {
            const std::size_t changes = round % 3 == 0 ? 1 : round % 3 == 1 ? 1 + n / 16 : n;
            for (std::size_t c = 0; c < changes; ++c) {
                const std::size_t i = at(rng);
                const double before = values[i];
                values[i] = 0.5 * level(rng);
                tree.set(i, values[i]);
                if (values[i] >= before && c % 3 != 2)
                    blocks.raise(i, values[i]); // a grown value: no rescan of its block
                else
                    blocks.touch(i);
                if (c % 2 == 0) { // the same value set again before settle()
                    values[i] = 0.5 * level(rng);
                    tree.set(i, values[i]);
                    blocks.touch(i);
                }
            }
            tree.settle();
            blocks.settle(valueOf);
            const auto best = std::max_element(values.begin(), values.end());
            QCOMPARE(tree.max(), *best);
            QCOMPARE(blocks.max(), *best);
            if (*best > 0.0) {
                QCOMPARE(tree.argmax(), static_cast<std::size_t>(best - values.begin()));
                QCOMPARE(blocks.argmax(valueOf), static_cast<std::size_t>(best - values.begin()));
            }
        }
    }
}

void TestTrafficBookkeeping::roundToIntegerIsLlround()
{
    // The keys of link busy times and latencies (base/units.h): the same integer as
    // std::llround for halves, the doubles next to them, both signs, large and odd values.
    std::vector<double> values { 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0x1.0p52 + 1.0,
        -0x1.0p52 - 1.0, 0x1.0p53, 0x1.0p62, 1e15 + 0.5, std::numeric_limits<double>::min(),
        std::numeric_limits<double>::denorm_min() };
    for (double half = 0.5; half < 1e6; half = half * 3.0 + 0.5)
        for (const double v : { half, -half }) {
            values.push_back(std::nextafter(v, 0.0));
            values.push_back(std::nextafter(v, v * 2.0));
        }
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> wide(-1e13, 1e13);
    for (int i = 0; i < 20000; ++i)
        values.push_back(wide(rng));
    for (const double v : values)
        QVERIFY2(roundToInteger(v) == std::llround(v),
            qPrintable(QStringLiteral("%1: %2, llround %3")
                           .arg(v, 0, 'g', 17)
                           .arg(roundToInteger(v))
                           .arg(std::llround(v))));
}

void TestTrafficBookkeeping::superSpineLumps()
{
    // 16 servers x 2 GPUs in pods of 2 SUs (4 leaves, 2 spines): 4 pods under 2 planes x 2
    // super-spines (tst_router's threeTier fabric). Lumped (TrafficModel::Lump): each pod's
    // spine -> super-spine part and its super-spine -> spine part, and each leaf's uplinks and
    // downlinks: 4 x 2 + 16 x 2. A cross-pod send enters its pod's up part with one unit per
    // byte and ECMP splits it evenly, so each of those links carries (the pod's cross-pod
    // sends) / (the part's links); the same on the way down.
    Setup s(fixtures::railFabric(16, 2, 2, 8), fixtures::degrees(1, 2, 16));
    QCOMPARE(s.fabric.podCount(), 4);
    QCOMPARE(s.traffic->lumpCount(), 2 * 4 + 2 * 16);
    for (int p = 0; p < s.traffic->patternCount(); ++p)
        s.traffic->setWeight(p, 1.0 + p);
    s.traffic->build(s.mapping);

    // Moves through the incremental path: swaps of random ranks (most cross pods), one of
    // them undone as a revert, then a fresh model on the final mapping must agree link by link.
    Mapping mapping = s.mapping;
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> pick(0, s.layout.worldSize() - 1);
    for (int i = 0; i < 12; ++i) {
        const int a = pick(rng), b = pick(rng);
        s.traffic->beginMove(mapping, { a, b });
        mapping.swapRanks(a, b);
        s.traffic->endMove(mapping);
        if (i == 5) {
            s.traffic->beginMove(mapping, { a, b }, true);
            mapping.swapRanks(a, b);
            s.traffic->endMove(mapping);
        }
    }
    TrafficModel::Setup setup;
    setup.stageDpBytes = { 1.0, 1.0 }; // as Setup gives the model under test
    TrafficModel fresh(s.fabric, s.layout, s.router, setup);
    for (int p = 0; p < fresh.patternCount(); ++p)
        fresh.setWeight(p, 1.0 + p);
    fresh.build(mapping);
    compareModels(*s.traffic, fresh, s.fabric.linkCount());

    // The pipeline boundary's super-spine loads, counted from the mapping.
    const int fwd = s.traffic->ppForwardPattern(0);
    const auto podOf = [&s](int slot) { return s.fabric.node(s.leafOfSlot(slot)).pod; };
    std::vector<double> up(4, 0.0), down(4, 0.0);
    for (const std::span<const int> group : s.layout.groups(GroupKind::Pp)) {
        const int from = podOf(mapping.slotOf(group[0])), to = podOf(mapping.slotOf(group[1]));
        if (from != to) {
            up[static_cast<std::size_t>(from)] += 1.0;
            down[static_cast<std::size_t>(to)] += 1.0;
        }
    }
    QVERIFY(std::accumulate(up.begin(), up.end(), 0.0) > 0.0); // the swaps crossed pods
    std::vector<int> upLinks(4, 0), downLinks(4, 0);
    for (const FabricLink &l : s.fabric.links())
        if (l.tier == Tier::SuperSpine) {
            const bool isUp = s.fabric.node(l.src).kind == NodeKind::Spine;
            const int pod = s.fabric.node(isUp ? l.src : l.dst).pod;
            ++(isUp ? upLinks : downLinks)[static_cast<std::size_t>(pod)];
        }
    double worst = 0.0;
    for (const FabricLink &l : s.fabric.links()) {
        const double load = s.traffic->patternLoad(fwd, l.id);
        worst = std::max(worst, load / l.bandwidth); // send/recv patterns: efficiency 1
        if (l.tier != Tier::SuperSpine)
            continue;
        const bool isUp = s.fabric.node(l.src).kind == NodeKind::Spine;
        const auto pod = static_cast<std::size_t>(s.fabric.node(isUp ? l.src : l.dst).pod);
        const double expected = isUp ? up[pod] / upLinks[pod] : down[pod] / downLinks[pod];
        QVERIFY2(near(load, expected),
            qPrintable(
                QStringLiteral("link %1: %2, expected %3").arg(l.id).arg(load).arg(expected)));
    }
    QVERIFY(near(s.traffic->pattern(fwd).maxRatio, worst));

    // Every switch-to-switch link of the boundary, summed hop by hop over the router's own
    // segments for each send (what the model did before it kept lumps).
    std::vector<double> hopByHop(static_cast<std::size_t>(s.fabric.linkCount()), 0.0);
    Router::Parts parts;
    for (const std::span<const int> group : s.layout.groups(GroupKind::Pp)) {
        s.router.routeParts(mapping.slotOf(group[0]), mapping.slotOf(group[1]), parts);
        for (int i = 0; i < parts.segmentCount; ++i)
            for (const RouteHop &h :
                s.router.segmentHops(parts.segments[static_cast<std::size_t>(i)]))
                hopByHop[static_cast<std::size_t>(h.link)] += h.share;
    }
    int switchLinks = 0;
    for (const FabricLink &l : s.fabric.links())
        if (l.tier == Tier::Spine || l.tier == Tier::SuperSpine) {
            ++switchLinks;
            const double expected = hopByHop[static_cast<std::size_t>(l.id)];
            QVERIFY2(near(s.traffic->patternLoad(fwd, l.id), expected),
                qPrintable(QStringLiteral("link %1: %2, hop by hop %3")
                               .arg(l.id)
                               .arg(s.traffic->patternLoad(fwd, l.id))
                               .arg(expected)));
        }
    QVERIFY(switchLinks > 0);
}

void TestTrafficBookkeeping::lumpsFoundOncePerRouter()
{
    // The router finds its lumps once (Router::lumps()) and every model built on it reads the
    // same ones: a second model on the router agrees with the first link by link, and with a
    // model on a router of its own, which finds them afresh.
    Setup s(fixtures::railFabric(16, 2, 2, 8), fixtures::degrees(1, 2, 16));
    const RouteLumps &lumps = s.router.lumps();
    QCOMPARE(&s.router.lumps(), &lumps);
    QCOMPARE(static_cast<int>(lumps.lumps.size()), s.traffic->lumpCount());
    QVERIFY(s.traffic->lumpCount() > 0);
    TrafficModel::Setup setup;
    setup.stageDpBytes = { 1.0, 1.0 }; // as Setup gives the model under test
    TrafficModel second(s.fabric, s.layout, s.router, setup);
    second.build(s.mapping);
    QCOMPARE(&s.router.lumps(), &lumps);
    compareModels(*s.traffic, second, s.fabric.linkCount());
    Router own(s.fabric);
    TrafficModel fresh(s.fabric, s.layout, own, setup);
    fresh.build(s.mapping);
    QVERIFY(&own.lumps() != &lumps);
    QCOMPARE(own.lumps().links, lumps.links);
    QCOMPARE(own.lumps().segmentLumpStart, lumps.segmentLumpStart);
    compareModels(*s.traffic, fresh, s.fabric.linkCount());
    // Built again on the same model (setMapping()), it clears what it held.
    second.build(s.mapping);
    compareModels(*s.traffic, second, s.fabric.linkCount());
}

void TestTrafficBookkeeping::buildListsNoChangedLinks()
{
    // build() lists no changed link (every link is new, and a full evaluation reads them all);
    // a move afterwards lists the links whose bytes it changed: a pipeline send's PCIe and NIC
    // links at both ends.
    Setup s(fixtures::railFabric(2, 1), fixtures::degrees(1, 2, 1));
    for (int p = 0; p < s.traffic->patternCount(); ++p)
        s.traffic->setWeight(p, 1.0);
    s.traffic->build(s.mapping);
    QVERIFY(s.traffic->changedLinks().empty());
    Mapping moved = s.mapping;
    s.traffic->beginMove(s.mapping, { 0, 1 });
    moved.swapRanks(0, 1);
    s.traffic->endMove(moved);
    std::vector<int> changed = s.traffic->changedLinks();
    std::sort(changed.begin(), changed.end());
    QCOMPARE(std::adjacent_find(changed.begin(), changed.end()), changed.end()); // each once
    for (const int link : { s.pcieUp(0), s.nicUp(0), s.nicDown(1), s.pcieDown(1) })
        QVERIFY(std::binary_search(changed.begin(), changed.end(), link));
    s.traffic->clearChangedLinks();
    QVERIFY(s.traffic->changedLinks().empty());
    // The list starts afresh with the next move (the links it changes back).
    s.traffic->beginMove(moved, { 0, 1 });
    s.traffic->endMove(s.mapping);
    std::vector<int> back = s.traffic->changedLinks();
    std::sort(back.begin(), back.end());
    QCOMPARE(back, changed);
}

void TestTrafficBookkeeping::linkRankingMatchesFreshRanking()
{
    // LinkRanking (model/cost/linkranking.h) after batches of changes, many of them runs of
    // links moving from one key to the same other key (as a lumped ECMP part's links do),
    // against a ranking made afresh from the same keys: bottleneck, percentiles, maximum.
    std::mt19937 rng(11);
    const int n = 500;
    std::uniform_int_distribution<int> at(0, n - 1);
    std::uniform_int_distribution<int> level(0, 9);
    std::vector<long long> keys(static_cast<std::size_t>(n));
    for (long long &k : keys)
        k = level(rng);
    LinkRanking ranking;
    ranking.rank(keys);
    for (int round = 0; round < 200; ++round) {
        const int runs = 1 + round % 4;
        for (int r = 0; r < runs; ++r) {
            // A run: links that share a key all take one new key, in id order.
            const long long from = keys[static_cast<std::size_t>(at(rng))];
            const long long to = level(rng);
            for (int link = 0; link < n; ++link)
                if (keys[static_cast<std::size_t>(link)] == from && at(rng) % 3 != 0) {
                    keys[static_cast<std::size_t>(link)] = to;
                    ranking.change(link, to);
                }
            const int single = at(rng); // and a lone change between runs
            keys[static_cast<std::size_t>(single)] = level(rng);
            ranking.change(single, keys[static_cast<std::size_t>(single)]);
        }
        ranking.settle();
        LinkRanking fresh;
        fresh.rank(keys);
        QCOMPARE(ranking.bottleneck(), fresh.bottleneck());
        for (const double q : { 0.0, 0.25, 0.5, 0.95, 0.99, 1.0 })
            QCOMPARE(ranking.percentile(q, 1.0), fresh.percentile(q, 1.0));
        QCOMPARE(ranking.max(1.0), fresh.max(1.0));
    }
}

void TestTrafficBookkeeping::linkRankingMatchesSortedKeys()
{
    // LinkRanking::rank() counts the distinct keys in a hash table that grows from 1,024
    // slots: against a plain sort of every key, with few distinct keys (lumped links share
    // theirs), with more than the table's first size, and with negative and huge ones.
    std::mt19937_64 rng(7);
    for (const long long levels : { 3LL, 700LL, 5000LL, 1000000000000LL }) {
        const int n = 20000;
        std::uniform_int_distribution<long long> key(-2, levels);
        std::vector<long long> keys(static_cast<std::size_t>(n));
        for (long long &k : keys)
            k = key(rng);
        LinkRanking ranking;
        ranking.rank(keys);
        std::vector<long long> sorted = keys;
        std::sort(sorted.begin(), sorted.end());
        for (const double q : { 0.0, 0.001, 0.25, 0.5, 0.95, 0.99, 1.0 }) {
            const auto rank = std::clamp<long long>(static_cast<long long>(std::ceil(q * n)), 1, n);
            QCOMPARE(ranking.percentile(q, 1.0),
                static_cast<double>(sorted[static_cast<std::size_t>(rank - 1)]));
        }
        QCOMPARE(ranking.max(1.0), static_cast<double>(sorted.back()));
        const auto first = std::max_element(keys.begin(), keys.end()); // the first of equals
        QCOMPARE(ranking.bottleneck(), static_cast<int>(first - keys.begin()));
    }
}

QTEST_GUILESS_MAIN(TestTrafficBookkeeping)
#include "tst_trafficbookkeeping.moc"
