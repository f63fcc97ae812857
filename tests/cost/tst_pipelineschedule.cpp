/**
 * Tests of the pipeline scheduler against hand-derived timelines: 4 equal stages forward only
 * (m + 3 slots for m micro-batches), GPipe / 1F1B fill-drain ((p-1)/(m+p-1), Narayanan et al. SC'21 §2.2.1), the
 * interleaved bubble ((p-1)/(v*m+p-1), SC'21 §2.2.2), peak in-flight micro-batches, send
 * delays, unequal stages, and every input the scheduler must refuse.
 */
#include "comparenear.h"
#include "cost/pipelineschedule.h"
#include "base/scenarioerror.h"

#include <QString>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <string>
#include <tuple>

using namespace railyard;

Q_DECLARE_METATYPE(railyard::ScheduleKind)
Q_DECLARE_METATYPE(railyard::PipelineInput)

namespace {

PipelineInput equalStages(
    ScheduleKind kind, int p, int m, int v, double tf, double tb, double send = 0.0)
{
    PipelineInput in;
    in.kind = kind;
    in.stages = p;
    in.microbatches = m;
    in.chunks = v;
    in.forward.assign(static_cast<std::size_t>(p), tf);
    in.backward.assign(static_cast<std::size_t>(p), tb);
    if (send > 0.0) {
        in.sendForward.assign(static_cast<std::size_t>(p - 1), send);
        in.sendBackward.assign(static_cast<std::size_t>(p - 1), send);
    }
    return in;
}

/// The kinds of one stage's compute events in time order, e.g. "FFFBFB".
QString computeOrder(const PipelineTimeline &t, int stage)
{
    QString out;
    for (const PipelineEvent &e : t.events) {
        if (e.stage != stage)
            continue;
        if (e.kind == PipelineEventKind::Forward)
            out += QLatin1Char('F');
        else if (e.kind == PipelineEventKind::Backward)
            out += QLatin1Char('B');
    }
    return out;
}

int countKind(const PipelineTimeline &t, PipelineEventKind kind)
{
    return int(std::count_if(t.events.begin(), t.events.end(),
        [kind](const PipelineEvent &e) { return e.kind == kind; }));
}

/**
 * Checks what must hold for every timeline: events sorted, a stage computes one op at a time,
 * each op starts after its producer plus the send (SC'21 §2.2 dependencies), busy and bubble
 * agree with the events, and makespan is the last end.
 */
void checkInvariants(const PipelineInput &in, const PipelineTimeline &t)
{
    const int p = in.stages;
    const int v = in.kind == ScheduleKind::Interleaved ? in.chunks : 1;
    for (std::size_t i = 1; i < t.events.size(); ++i) {
        const PipelineEvent &a = t.events[i - 1];
        const PipelineEvent &b = t.events[i];
        QVERIFY(a.start < b.start || (a.start == b.start && a.stage <= b.stage));
    }
    using Key = std::tuple<int, int, int>; // stage, chunk, micro-batch
    std::map<Key, const PipelineEvent *> fwd, bwd;
    std::vector<double> lastEnd(static_cast<std::size_t>(p), 0.0);
    std::vector<double> busy(static_cast<std::size_t>(p), 0.0);
    double makespan = 0.0;
    for (const PipelineEvent &e : t.events) {
        QVERIFY(e.end >= e.start);
        makespan = std::max(makespan, e.end);
        if (e.kind == PipelineEventKind::Forward || e.kind == PipelineEventKind::Backward) {
            auto &last = lastEnd[static_cast<std::size_t>(e.stage)];
            QVERIFY2(e.start >= last - 1e-12, "two compute ops overlap on one stage");
            last = e.end;
            busy[static_cast<std::size_t>(e.stage)] += e.end - e.start;
            auto &map = e.kind == PipelineEventKind::Forward ? fwd : bwd;
            QVERIFY(map.emplace(Key { e.stage, e.chunk, e.microbatch }, &e).second);
        }
    }
    const auto sendF
        = [&](int b) { return in.sendForward.empty() ? 0.0 : in.sendForward[std::size_t(b)]; };
    const auto sendB
        = [&](int b) { return in.sendBackward.empty() ? 0.0 : in.sendBackward[std::size_t(b)]; };
    for (const auto &[key, e] : fwd) {
        const auto [s, c, mb] = key;
        if (s > 0)
            QVERIFY(e->start >= fwd.at(Key { s - 1, c, mb })->end + sendF(s - 1) - 1e-12);
        else if (c > 0)
            QVERIFY(e->start >= fwd.at(Key { p - 1, c - 1, mb })->end - 1e-12);
    }
    for (const auto &[key, e] : bwd) {
        const auto [s, c, mb] = key;
        QVERIFY(e->start >= fwd.at(key)->end - 1e-12);
        if (s < p - 1)
            QVERIFY(e->start >= bwd.at(Key { s + 1, c, mb })->end + sendB(s) - 1e-12);
        else if (c < v - 1)
            QVERIFY(e->start >= bwd.at(Key { 0, c + 1, mb })->end - 1e-12);
    }
    QCOMPARE(int(fwd.size()), p * in.microbatches * v);
    QVERIFY(bwd.empty() || int(bwd.size()) == p * in.microbatches * v);
    COMPARE_NEAR(t.makespan, makespan);
    QCOMPARE(int(t.busy.size()), p);
    for (int s = 0; s < p; ++s)
        COMPARE_NEAR(t.busy[std::size_t(s)], busy[std::size_t(s)]);
    const double total = std::accumulate(busy.begin(), busy.end(), 0.0);
    COMPARE_NEAR(t.bubbleFraction, 1.0 - total / (p * makespan));
    QCOMPARE(int(t.peakInflight.size()), p);
}

} // namespace

class TestPipelineSchedule : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void names();

    void seedForwardOnly_data();
    void seedForwardOnly();

    void fillDrain_data();
    void fillDrain();

    void interleavedBubble_data();
    void interleavedBubble();

    void oneFOneBOrder();
    void interleavedOrderAndPeak();

    void sendsStretchMakespan_data();
    void sendsStretchMakespan();

    void slowestStageSetsPace_data();
    void slowestStageSetsPace();

    void zeroTimeStage();

    void badInput_data();
    void badInput();
    void reusedTimelineEqualsFresh();
};

void TestPipelineSchedule::names()
{
    for (const ScheduleKind k :
        { ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved }) {
        ScheduleKind parsed
            = k == ScheduleKind::GPipe ? ScheduleKind::OneFOneB : ScheduleKind::GPipe;
        QVERIFY(parseSchedule(scheduleName(k), parsed));
        QCOMPARE(parsed, k);
    }
    QCOMPARE(scheduleName(ScheduleKind::OneFOneB), std::string_view("1f1b"));
    ScheduleKind unchanged = ScheduleKind::GPipe;
    QVERIFY(!parseSchedule("pipedream", unchanged));
    QCOMPARE(unchanged, ScheduleKind::GPipe);
    QCOMPARE(eventKindName(PipelineEventKind::Forward), std::string_view("F"));
    QCOMPARE(eventKindName(PipelineEventKind::Backward), std::string_view("B"));
    QCOMPARE(eventKindName(PipelineEventKind::SendForward), std::string_view("send-F"));
    QCOMPARE(eventKindName(PipelineEventKind::SendBackward), std::string_view("send-B"));
}

void TestPipelineSchedule::seedForwardOnly_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("m");
    // 4 equal stages, forward only: m micro-batches take m+3 slots, utilisation m/(m+3)
    // (GPipe's fill and drain, Huang et al. 2019).
    QTest::newRow("gpipe m=4 (57%)") << ScheduleKind::GPipe << 4;
    QTest::newRow("gpipe m=16 (84%)") << ScheduleKind::GPipe << 16;
    QTest::newRow("1f1b m=4") << ScheduleKind::OneFOneB << 4;
    QTest::newRow("1f1b m=16") << ScheduleKind::OneFOneB << 16;
    QTest::newRow("1f1b m=1") << ScheduleKind::OneFOneB << 1;
}

void TestPipelineSchedule::seedForwardOnly()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, m);
    const PipelineInput in = equalStages(kind, 4, m, 1, 1.0, 0.0);
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    if (QTest::currentTestFailed())
        return;
    COMPARE_NEAR(t.makespan, m + 3.0);
    COMPARE_NEAR(1.0 - t.bubbleFraction, m / (m + 3.0));
    COMPARE_NEAR(t.bubbleFraction, 3.0 / (m + 3.0));
    QCOMPARE(int(t.events.size()), 4 * m); // forwards only, no zero-length sends
    QCOMPARE(countKind(t, PipelineEventKind::Backward), 0);
    for (int s = 0; s < 4; ++s) {
        COMPARE_NEAR(t.busy[std::size_t(s)], double(m));
        COMPARE_NEAR(t.peakInflight[std::size_t(s)], 1.0); // nothing stashed without backward
    }
    // The last micro-batch leaves stage s at m + s: the fill/drain staircase.
    for (const PipelineEvent &e : t.events) {
        COMPARE_NEAR(e.start, double(e.stage + e.microbatch));
        COMPARE_NEAR(e.end, double(e.stage + e.microbatch + 1));
    }
}

void TestPipelineSchedule::fillDrain_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    for (const ScheduleKind k : { ScheduleKind::GPipe, ScheduleKind::OneFOneB }) {
        for (const auto &[p, m] : { std::pair { 4, 4 }, std::pair { 4, 16 }, std::pair { 8, 32 },
                 std::pair { 4, 2 }, std::pair { 8, 3 }, std::pair { 1, 5 } }) {
            const QString name = QStringLiteral("%1 p=%2 m=%3")
                                     .arg(QLatin1String(scheduleName(k).data()))
                                     .arg(p)
                                     .arg(m);
            QTest::newRow(qPrintable(name)) << k << p << m;
        }
    }
}

void TestPipelineSchedule::fillDrain()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, p);
    QFETCH(int, m);
    const double tf = 1.0;
    const double tb = 2.0;
    const PipelineInput in = equalStages(kind, p, m, 1, tf, tb);
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    if (QTest::currentTestFailed())
        return;
    // GPipe: the last forward leaves stage p-1 at (m+p-1)tf, its m backwards then ripple down
    // to stage 0 in another (m+p-1)tb. 1F1B reorders the same work without shortening the
    // critical path (SC'21 §2.2.1): both take (m+p-1)(tf+tb), bubble (p-1)/(m+p-1).
    COMPARE_NEAR(t.makespan, (m + p - 1) * (tf + tb));
    COMPARE_NEAR(t.bubbleFraction, (p - 1.0) / (m + p - 1.0));
    QCOMPARE(countKind(t, PipelineEventKind::Forward), p * m);
    QCOMPARE(countKind(t, PipelineEventKind::Backward), p * m);
    QCOMPARE(countKind(t, PipelineEventKind::SendForward), 0);
    for (int s = 0; s < p; ++s) {
        COMPARE_NEAR(t.busy[std::size_t(s)], m * (tf + tb));
        // GPipe stashes all m; 1F1B at most p - s (its warm-up plus one), never more than m.
        const double peak = kind == ScheduleKind::GPipe ? m : std::min(p - s, m);
        COMPARE_NEAR(t.peakInflight[std::size_t(s)], peak);
    }
}

void TestPipelineSchedule::interleavedBubble_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("v");
    QTest::addColumn<double>("tb");
    QTest::newRow("p=4 m=4 v=2 (all warm-up)") << 4 << 4 << 2 << 2.0;
    QTest::newRow("p=4 m=8 v=2") << 4 << 8 << 2 << 2.0;
    QTest::newRow("p=4 m=16 v=2") << 4 << 16 << 2 << 2.0;
    QTest::newRow("p=4 m=8 v=4") << 4 << 8 << 4 << 2.0;
    QTest::newRow("p=4 m=12 v=3") << 4 << 12 << 3 << 2.0;
    QTest::newRow("p=8 m=32 v=4") << 8 << 32 << 4 << 2.0;
    QTest::newRow("p=2 m=4 v=2 tb=tf") << 2 << 4 << 2 << 1.0;
    QTest::newRow("p=4 m=8 v=2 forward only") << 4 << 8 << 2 << 0.0;
}

void TestPipelineSchedule::interleavedBubble()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(int, v);
    QFETCH(double, tb);
    const double tf = 1.0;
    const PipelineInput in = equalStages(ScheduleKind::Interleaved, p, m, v, tf, tb);
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    if (QTest::currentTestFailed())
        return;
    // SC'21 §2.2.2: the bubble shrinks by v, (p-1)(tf+tb)/v on top of the ideal m(tf+tb),
    // so idle/(p*makespan) = ((p-1)/v) / (m + (p-1)/v) = (p-1)/(v*m + p - 1).
    COMPARE_NEAR(t.makespan, (m + (p - 1.0) / v) * (tf + tb));
    COMPARE_NEAR(t.bubbleFraction, (p - 1.0) / (v * m + p - 1.0));
    QCOMPARE(countKind(t, PipelineEventKind::Forward), p * m * v);
    QCOMPARE(countKind(t, PipelineEventKind::Backward), tb > 0 ? p * m * v : 0);
    for (const PipelineEvent &e : t.events) {
        QVERIFY(e.chunk >= 0 && e.chunk < v);
        COMPARE_NEAR(e.end - e.start, (e.kind == PipelineEventKind::Forward ? tf : tb) / v);
    }
    // The interleaved schedule beats plain 1F1B on the same input.
    PipelineInput plain = in;
    plain.kind = ScheduleKind::OneFOneB;
    QVERIFY(t.makespan < schedulePipeline(plain).makespan);
}

void TestPipelineSchedule::oneFOneBOrder()
{
    // Megatron-LM's non-interleaved order for p=4, m=8: stage s warms up with p-s-1 forwards,
    // alternates F/B, and drains the rest.
    const PipelineTimeline t = schedulePipeline(equalStages(ScheduleKind::OneFOneB, 4, 8, 1, 1, 2));
    QCOMPARE(computeOrder(t, 0), QStringLiteral("FFFFBFBFBFBFBBBB"));
    QCOMPARE(computeOrder(t, 2), QStringLiteral("FFBFBFBFBFBFBFBB"));
    QCOMPARE(computeOrder(t, 3), QStringLiteral("FBFBFBFBFBFBFBFB"));
    const PipelineTimeline g = schedulePipeline(equalStages(ScheduleKind::GPipe, 4, 8, 1, 1, 2));
    QCOMPARE(computeOrder(g, 1), QStringLiteral("FFFFFFFFBBBBBBBB"));
    // Steady state on the last stage: F(i) then B(i) back to back, period tf + tb.
    for (const PipelineEvent &e : t.events) {
        if (e.stage == 3 && e.kind == PipelineEventKind::Backward) {
            COMPARE_NEAR(e.start, 3.0 + 1.0 + 3.0 * e.microbatch);
        }
    }
}

void TestPipelineSchedule::interleavedOrderAndPeak()
{
    const int p = 4, m = 8, v = 2;
    const PipelineTimeline t
        = schedulePipeline(equalStages(ScheduleKind::Interleaved, p, m, v, 1, 2));
    // Stage 0 warms up with (p-1)*2 + (v-1)*p = 10 chunk-forwards: micro-batches 0..3 through
    // chunk 0, then 0..3 through chunk 1, then 4, 5 through chunk 0 (groups of p per chunk).
    std::vector<std::pair<int, int>> warmup; // (chunk, micro-batch)
    for (const PipelineEvent &e : t.events) {
        if (e.stage != 0 || e.kind == PipelineEventKind::SendForward
            || e.kind == PipelineEventKind::SendBackward)
            continue;
        if (e.kind == PipelineEventKind::Backward)
            break;
        warmup.emplace_back(e.chunk, e.microbatch);
    }
    const std::vector<std::pair<int, int>> expected { { 0, 0 }, { 0, 1 }, { 0, 2 }, { 0, 3 },
        { 1, 0 }, { 1, 1 }, { 1, 2 }, { 1, 3 }, { 0, 4 }, { 0, 5 }, { 0, 6 } };
    QCOMPARE(warmup, expected); // 10 warm-up plus the first steady-state forward
    // The first backward on stage 0 is micro-batch 0 of its last chunk.
    const auto firstB = std::find_if(t.events.begin(), t.events.end(), [](const PipelineEvent &e) {
        return e.stage == 0 && e.kind == PipelineEventKind::Backward;
    });
    QVERIFY(firstB != t.events.end());
    QCOMPARE(firstB->chunk, v - 1);
    QCOMPARE(firstB->microbatch, 0);
    // Peak in flight: warm-up + 1 chunk-micro-batches, each 1/v: (2(p-s-1) + (v-1)p + 1)/v.
    for (int s = 0; s < p; ++s)
        COMPARE_NEAR(t.peakInflight[std::size_t(s)], (2.0 * (p - s - 1) + (v - 1) * p + 1) / v);
    // Forward only, one chunk's activations at a time.
    const PipelineTimeline f
        = schedulePipeline(equalStages(ScheduleKind::Interleaved, p, m, v, 1, 0));
    for (int s = 0; s < p; ++s)
        COMPARE_NEAR(f.peakInflight[std::size_t(s)], 1.0 / v);
}

void TestPipelineSchedule::sendsStretchMakespan_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<int>("v");
    QTest::addColumn<double>("tb");
    QTest::addColumn<double>("send");
    QTest::addColumn<double>("makespan");
    QTest::addColumn<int>("sends");
    // F on stage 0 [0,1], send [1,1.5], F on stage 1 [1.5,2.5].
    QTest::newRow("fwd-only p=2 m=1")
        << ScheduleKind::OneFOneB << 2 << 1 << 1 << 0.0 << 0.5 << 2.5 << 1;
    // Sends don't block the sender: only the first micro-batch's p-1 sends are exposed,
    // p*tf + (p-1)*send + (m-1)*tf = 4 + 0.75 + 3.
    QTest::newRow("fwd-only p=4 m=4")
        << ScheduleKind::GPipe << 4 << 4 << 1 << 0.0 << 0.25 << 7.75 << 12;
    // One micro-batch, p=2: F 0-1, send, F 1.5-2.5, B 2.5-4.5, send, B 5-7.
    QTest::newRow("1f1b p=2 m=1") << ScheduleKind::OneFOneB << 2 << 1 << 1 << 2.0 << 0.5 << 7.0
                                  << 2;
    // p=2 m=2: stage 1's second forward waits for its first backward anyway, so only the first
    // micro-batch's forward send and the last one's backward send are exposed: 9 + 2*0.5.
    QTest::newRow("1f1b p=2 m=2") << ScheduleKind::OneFOneB << 2 << 2 << 1 << 2.0 << 0.5 << 10.0
                                  << 4;
    // GPipe: the forward wave arrives (p-1)*send later and the backward wave once more:
    // (m+p-1)(tf+tb) + 2(p-1)*send = 21 + 1.5.
    QTest::newRow("gpipe p=4 m=4")
        << ScheduleKind::GPipe << 4 << 4 << 1 << 2.0 << 0.25 << 22.5 << 24;
    // Interleaved p=2, m=2, v=2, tf=1, tb=2 (chunks 0.5 / 1.0), send 0.5 on every boundary
    // including the wrap stage 1 -> stage 0. All warm-up (m == p). Forwards: s0 c0 mb0,1 at
    // 0-0.5, 0.5-1; s1 c0 at 1-1.5, 1.5-2; s0 c1 at 2-2.5, 2.5-3; s1 c1 at 3-3.5, 3.5-4.
    // Backwards: s1 c1 4-5, 5-6; s0 c1 5.5-6.5, 6.5-7.5; s1 c0 7-8, 8-9; s0 c0 8.5-9.5, 9.5-10.5.
    QTest::newRow("interleaved p=2 m=2 v=2")
        << ScheduleKind::Interleaved << 2 << 2 << 2 << 2.0 << 0.5 << 10.5 << 12;
}

void TestPipelineSchedule::sendsStretchMakespan()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(int, v);
    QFETCH(double, tb);
    QFETCH(double, send);
    QFETCH(double, makespan);
    QFETCH(int, sends);
    const PipelineInput in = equalStages(kind, p, m, v, 1.0, tb, send);
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    if (QTest::currentTestFailed())
        return;
    COMPARE_NEAR(t.makespan, makespan);
    const double busy = p * m * (1.0 + tb);
    COMPARE_NEAR(t.bubbleFraction, 1.0 - busy / (p * makespan));
    QCOMPARE(countKind(t, PipelineEventKind::SendForward)
            + countKind(t, PipelineEventKind::SendBackward),
        sends);
    for (const PipelineEvent &e : t.events) {
        if (e.kind == PipelineEventKind::SendForward || e.kind == PipelineEventKind::SendBackward)
            COMPARE_NEAR(e.end - e.start, send);
        // Sends sit on the sender: forward sends never on the last stage of the last chunk,
        // backward sends never on stage 0's first chunk.
        if (e.kind == PipelineEventKind::SendForward)
            QVERIFY(e.stage < p - 1 || e.chunk < v - 1);
        if (e.kind == PipelineEventKind::SendBackward)
            QVERIFY(e.stage > 0 || e.chunk > 0);
    }
    // Without the sends the same schedule is strictly shorter.
    QVERIFY(schedulePipeline(equalStages(kind, p, m, v, 1.0, tb)).makespan < t.makespan);
}

void TestPipelineSchedule::slowestStageSetsPace_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<bool>("forwardOnly");
    QTest::newRow("gpipe forward only") << ScheduleKind::GPipe << true;
    QTest::newRow("gpipe") << ScheduleKind::GPipe << false;
    QTest::newRow("1f1b") << ScheduleKind::OneFOneB << false;
}

void TestPipelineSchedule::slowestStageSetsPace()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(bool, forwardOnly);
    // Stage 2 is twice as slow as the rest.
    PipelineInput in;
    in.kind = kind;
    in.stages = 4;
    in.forward = { 1.0, 1.0, 2.0, 1.0 };
    in.backward
        = forwardOnly ? std::vector<double> { 0, 0, 0, 0 } : std::vector<double> { 2, 2, 4, 2 };
    const auto makespanAt = [&in](int m) {
        PipelineInput copy = in;
        copy.microbatches = m;
        const PipelineTimeline t = schedulePipeline(copy);
        checkInvariants(copy, t);
        return t.makespan;
    };
    const double slowest = forwardOnly ? 2.0 : 6.0; // max_s(tf_s + tb_s)
    // Each extra micro-batch in steady state costs the slowest stage's period.
    for (const int m : { 8, 16 })
        COMPARE_NEAR(makespanAt(m + 1) - makespanAt(m), slowest);
    // Forward only is a flow shop of identical jobs: sum(tf) + (m-1) max(tf).
    if (forwardOnly)
        COMPARE_NEAR(makespanAt(10), 5.0 + 9 * 2.0);
    // The fast stages idle: utilisation is below the equal-stage value.
    in.microbatches = 16;
    const PipelineTimeline t = schedulePipeline(in);
    QVERIFY(t.bubbleFraction > 3.0 / 19.0);
    COMPARE_NEAR(t.busy[2], 16 * (forwardOnly ? 2.0 : 6.0));
}

void TestPipelineSchedule::zeroTimeStage()
{
    // Forward only, the middle stage costs nothing: flow-shop makespan sum + (m-1) max = 2 + 2.
    PipelineInput in = equalStages(ScheduleKind::OneFOneB, 3, 3, 1, 1.0, 0.0);
    in.forward[1] = 0.0;
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    if (QTest::currentTestFailed())
        return;
    COMPARE_NEAR(t.makespan, 4.0);
    COMPARE_NEAR(t.bubbleFraction, 1.0 - 6.0 / 12.0);
    // A zero-length forward holds nothing in flight; the others hold one micro-batch.
    COMPARE_NEAR(t.peakInflight[0], 1.0);
    COMPARE_NEAR(t.peakInflight[1], 0.0);
    COMPARE_NEAR(t.peakInflight[2], 1.0);
    // With backwards, stage 1 stashes while it waits for stage 2's gradients: p - s = 2.
    in.backward = { 2.0, 2.0, 2.0 };
    const PipelineTimeline b = schedulePipeline(in);
    checkInvariants(in, b);
    COMPARE_NEAR(b.peakInflight[1], 2.0);
}

void TestPipelineSchedule::badInput_data()
{
    QTest::addColumn<PipelineInput>("input");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");

    const PipelineInput ok = equalStages(ScheduleKind::OneFOneB, 4, 8, 1, 1.0, 2.0);
    PipelineInput in = ok;
    in.stages = 0;
    QTest::newRow("no stages") << in << "parallel.pp"
                               << "at least 1 stage, got 0";
    in = ok;
    in.stages = (1 << 20) + 1;
    QTest::newRow("too many stages") << in << "parallel.pp"
                                     << "at most 1048576 stages";
    in = ok;
    in.microbatches = 0;
    QTest::newRow("no micro-batches") << in << "training.microbatches"
                                      << "at least 1 micro-batch, got 0";
    in = ok;
    in.microbatches = (1 << 16) + 1;
    QTest::newRow("too many micro-batches") << in << "training.microbatches"
                                            << "at most 65536";
    in = equalStages(ScheduleKind::OneFOneB, 4096, 4096, 1, 1.0, 2.0);
    QTest::newRow("too many ops") << in << "training.microbatches"
                                  << "exceeds the scheduler's limit";
    in = equalStages(ScheduleKind::Interleaved, 4, 6, 2, 1.0, 2.0);
    QTest::newRow("interleaved m % p") << in << "training.microbatches"
                                       << "multiple of the pipeline stages (4), got 6";
    in = equalStages(ScheduleKind::Interleaved, 4, 8, 1, 1.0, 2.0);
    QTest::newRow("interleaved v=1") << in << "training.interleave"
                                     << "at least 2 model chunks per stage, got 1";
    in = ok;
    in.forward.pop_back();
    QTest::newRow("forward size") << in << "pipeline.forward"
                                  << "expected 4 per-stage forward times, got 3";
    in = ok;
    in.backward.push_back(1.0);
    QTest::newRow("backward size") << in << "pipeline.backward"
                                   << "expected 4 per-stage backward times (or none), got 5";
    in = ok;
    in.sendForward = { 0.1, 0.1 };
    QTest::newRow("send size") << in << "pipeline.sendForward"
                               << "expected 3 per-boundary send times (or none), got 2";
    in = ok;
    in.forward[2] = -1.0;
    QTest::newRow("negative forward") << in << "pipeline.forward[2]"
                                      << "finite number of seconds >= 0, got -1";
    in = ok;
    in.backward[1] = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("NaN backward") << in << "pipeline.backward[1]"
                                  << "got nan";
    in = ok;
    in.sendBackward = { 0.0, std::numeric_limits<double>::infinity(), 0.0 };
    QTest::newRow("infinite send") << in << "pipeline.sendBackward[1]"
                                   << "got inf";
}

void TestPipelineSchedule::badInput()
{
    QFETCH(PipelineInput, input);
    QFETCH(QString, field);
    QFETCH(QString, reason);
    try {
        schedulePipeline(input);
        QFAIL("expected a ScenarioError");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), field);
        QVERIFY2(QString::fromStdString(e.reason()).contains(reason), e.what());
        QVERIFY(QString::fromUtf8(e.what()).startsWith(field + QStringLiteral(": ")));
    }
}

void TestPipelineSchedule::reusedTimelineEqualsFresh()
{
    // schedulePipeline() into a timeline that held another schedule (a search's previous
    // step) gives exactly what a fresh one does: every field set anew, nothing left over.
    PipelineInput wide = equalStages(ScheduleKind::Interleaved, 4, 8, 2, 1.0, 2.0, 0.25);
    wide.wrapForward = 0.5;
    PipelineInput zeroBubble = equalStages(ScheduleKind::ZbH1, 3, 6, 1, 1.5, 3.0, 0.125);
    zeroBubble.weightGrad.assign(3, 1.0);
    const std::vector<PipelineInput> inputs { wide,
        equalStages(ScheduleKind::OneFOneB, 2, 3, 1, 0.7, 1.3), zeroBubble,
        equalStages(ScheduleKind::DualPipe, 4, 8, 1, 1.0, 2.0, 0.1),
        equalStages(ScheduleKind::GPipe, 5, 2, 1, 0.3, 0.0) };
    PipelineTimeline reused;
    for (const EventOrder order : { EventOrder::Sorted, EventOrder::AsRun })
        for (const PipelineInput &in : inputs) {
            schedulePipeline(in, order, reused);
            const PipelineTimeline fresh = schedulePipeline(in, order);
            QVERIFY(reused.makespan == fresh.makespan);
            QVERIFY(reused.bubbleFraction == fresh.bubbleFraction);
            QVERIFY(reused.busy == fresh.busy);
            QVERIFY(reused.peakInflight == fresh.peakInflight);
            QCOMPARE(reused.events.size(), fresh.events.size());
            for (std::size_t i = 0; i < fresh.events.size(); ++i) {
                const PipelineEvent &a = reused.events[i], &b = fresh.events[i];
                QVERIFY(a.stage == b.stage && a.microbatch == b.microbatch && a.chunk == b.chunk
                    && a.kind == b.kind && a.start == b.start && a.end == b.end
                    && a.overlapped == b.overlapped && a.peer == b.peer);
            }
        }
}

QTEST_GUILESS_MAIN(TestPipelineSchedule)
#include "tst_pipelineschedule.moc"
