// LinkMaxima (model/cost/linkmaxima.cpp) and the OverlapChannels built on it: a full pass that
// keeps the maxima alone (summarise(), OverlapChannels::beginFull()) finds what keeping every
// key finds, and once the keys are kept again (store(), keepKeys()) links changing one by one
// find the maxima of a structure that kept them all along, also where the largest key falls.
#include "cost/linkmaxima.h"
#include "cost/overlapchannels.h"

#include <QTest>

#include <utility>
#include <vector>

using namespace railyard;

class TestLinkMaxima : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void summaryEqualsKept();
    void storeThenChange();
    void overlapFullPassThenMoves();
};

void TestLinkMaxima::summaryEqualsKept()
{
    // Two channels over five links; link 3 copies link 2's keys.
    LinkMaxima kept, summary;
    kept.reset(2, 5);
    summary.reset(2, 5);
    summary.summarise();
    QVERIFY(summary.summarised());
    const std::vector<long long> a { 5, 9, 2, 0, 7 }, b { 0, 0, 11, 0, 3 };
    for (int link = 0; link < 5; ++link) {
        for (LinkMaxima *m : { &kept, &summary }) {
            if (link == 3) {
                m->copyKeys(3, 2);
            } else {
                m->set(0, link, a[std::size_t(link)]);
                m->set(1, link, b[std::size_t(link)]);
            }
        }
    }
    kept.settle();
    summary.settle();
    QCOMPARE(summary.max(0), 9LL);
    QCOMPARE(summary.max(1), 11LL);
    QCOMPARE(kept.max(0), 9LL);
    QCOMPARE(kept.max(1), 11LL);
    QCOMPARE(summary.max(2), 0LL); // no such channel
}

void TestLinkMaxima::storeThenChange()
{
    // After a summary pass, store() keeps keys again from 0; set anew, a lowered maximum is
    // found again by a scan (link 1's 9 drops to 1: link 4's 7 is the largest).
    LinkMaxima m;
    m.reset(1, 5);
    m.summarise();
    for (int link = 0; link < 5; ++link)
        m.set(0, link, 100 + link); // a pass whose keys are not the ones stored next
    QCOMPARE(m.max(0), 104LL);
    m.store();
    QVERIFY(!m.summarised());
    QCOMPARE(m.max(0), 0LL);
    const std::vector<long long> keys { 5, 9, 2, 0, 7 };
    for (int link = 0; link < 5; ++link)
        m.set(0, link, keys[std::size_t(link)]);
    m.settle();
    QCOMPARE(m.max(0), 9LL);
    m.set(0, 1, 1);
    m.settle();
    QCOMPARE(m.max(0), 7LL);
    m.store(); // kept already: nothing
    QCOMPARE(m.max(0), 7LL);
    // A channel only ever set to 0 keeps no keys and has 0 as its maximum.
    LinkMaxima zero;
    zero.reset(1, 3);
    zero.set(0, 2, 0);
    zero.settle();
    QCOMPARE(zero.max(0), 0LL);
}

void TestLinkMaxima::overlapFullPassThenMoves()
{
    // What CostEngine does: a full pass with beginFull() (links 1 and 3 copy the link before),
    // then keepKeys() from the links' bytes and moves one link at a time, against channels
    // that kept every key all along. TP and DP on four links of 100 GB/s, the reduction (half
    // the DP bytes) overlapping the backward half of TP over 4 micro-batches.
    OverlapChannels::Shares sh;
    sh.present[index(Dim::Tp)] = sh.present[index(Dim::Dp)] = true;
    sh.backward[index(Dim::Tp)] = 0.5;
    sh.microbatches = 4.0;
    sh.reduce = 0.5;
    sh.reduceOverlapped = true;
    OverlapChannels eager, full;
    eager.setUp(sh, 4);
    full.setUp(sh, 4);
    const double bw = 100e9;
    std::vector<DimArray> now(4, DimArray {});
    const auto bytes = [&](int link, double tp, double dp) {
        now[std::size_t(link)] = {};
        now[std::size_t(link)][index(Dim::Tp)] = tp;
        now[std::size_t(link)][index(Dim::Dp)] = dp;
    };
    bytes(0, 80e9, 40e9); // 1.2 s busy, 0.4 s without TP, contention (20 + 10) GB: 0.3 s
    bytes(1, 80e9, 40e9);
    bytes(2, 20e9, 100e9); // 1.2 s, 1.0 s without TP, contention (50 + 2.5) GB: 0.525 s
    bytes(3, 20e9, 100e9);
    full.beginFull();
    for (int link = 0; link < 4; ++link) {
        eager.update(link, now[std::size_t(link)], bw);
        if (link % 2 == 1)
            full.copyKeys(link, link - 1);
        else
            full.update(link, now[std::size_t(link)], bw);
    }
    eager.settle();
    full.settle();
    for (const auto without : { std::optional<Dim> {}, std::optional<Dim> { Dim::Tp } }) {
        QCOMPARE(full.bound(without), eager.bound(without));
        QCOMPARE(full.reduceContention(without), eager.reduceContention(without));
    }
    QCOMPARE(full.bound(Dim::Tp), 1.0 + 1e-12);
    QCOMPARE(full.reduceContention(), 0.525);
    // Moves: links 2 and 3 lose their DP bytes; link 0 then holds every maximum.
    full.keepKeys(
        [&](int link) { return std::pair<DimArray, double>(now[std::size_t(link)], bw); });
    for (const int link : { 2, 3 }) {
        bytes(link, 20e9, 0.0);
        eager.update(link, now[std::size_t(link)], bw);
        full.update(link, now[std::size_t(link)], bw);
    }
    eager.settle();
    full.settle();
    QCOMPARE(full.bound(), 1.2 + 1e-12);
    QCOMPARE(full.bound(Dim::Tp), 0.4 + 1e-12);
    QCOMPARE(full.reduceContention(), 0.3);
    for (const auto without :
        { std::optional<Dim> {}, std::optional<Dim> { Dim::Tp }, std::optional<Dim> { Dim::Dp } }) {
        QCOMPARE(full.bound(without), eager.bound(without));
        QCOMPARE(full.reduceContention(without), eager.reduceContention(without));
    }
    // A full pass after moves keeps every key (a search evaluates in full between moves):
    // links 0 and 1 lose their TP bytes in it, then link 2 gains DP bytes by a move, no
    // keepKeys() call needed. Link 2's 0.2 + 0.5 s is the busiest, link 3's 0.2 s of TP the
    // busiest without DP, link 2's 0.5 s of DP without TP.
    bytes(0, 0.0, 40e9);
    bytes(1, 0.0, 40e9);
    full.beginFull();
    for (int link = 0; link < 4; ++link) {
        eager.update(link, now[std::size_t(link)], bw);
        full.update(link, now[std::size_t(link)], bw);
    }
    full.settle();
    bytes(2, 20e9, 50e9);
    eager.update(2, now[2], bw);
    full.update(2, now[2], bw);
    eager.settle();
    full.settle();
    QCOMPARE(full.bound(), 0.7 + 1e-12);
    QCOMPARE(full.bound(Dim::Dp), 0.2 + 1e-12);
    QCOMPARE(full.bound(Dim::Tp), 0.5 + 1e-12);
    for (const auto without :
        { std::optional<Dim> {}, std::optional<Dim> { Dim::Tp }, std::optional<Dim> { Dim::Dp } }) {
        QCOMPARE(full.bound(without), eager.bound(without));
        QCOMPARE(full.reduceContention(without), eager.reduceContention(without));
    }
}

QTEST_GUILESS_MAIN(TestLinkMaxima)
#include "tst_linkmaxima.moc"
