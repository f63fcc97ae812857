/**
 * Tests of the two schedules that split the backward into B (input gradient) and W (weight
 * gradient): ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §3.1) and
 * DualPipe (DeepSeek-V3 Technical Report, arXiv 2412.19437, §3.2.1 and Table 2). Bubbles are
 * checked against the papers' closed forms with equal stages and chosen T_F, T_B, T_W:
 *   ZB-H1     (p-1)(T_F + T_B - T_W) per stage, T_B the input gradient alone;
 *   1F1B      (p-1)(T_F + T_B + T_W) on the same input;
 *   DualPipe  (p/2-1)(T_F&B + B - 3W), B = T_B + T_W the whole backward and T_F&B = T_F + B
 *             the pair without communication (the closed form holds exactly when T_F = T_B,
 *             the setting of the paper's Figure 5).
 * Also the peak in flight (1F1B and ZB-H1 p on stage 0, DualPipe p+1), the orders, the
 * overlapped pair's communication, the two directions' sends, refusals and determinism.
 */
#include "comparenear.h"
#include "base/scenarioerror.h"
#include "cost/pipelineschedule.h"

#include <QString>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <tuple>

using namespace railyard;

Q_DECLARE_METATYPE(railyard::PipelineInput)

namespace {

/// p equal stages: forward tf, input gradient tb, weight gradient tw (backward = tb + tw).
PipelineInput splitStages(ScheduleKind kind, int p, int m, double tf, double tb, double tw)
{
    PipelineInput in;
    in.kind = kind;
    in.stages = p;
    in.microbatches = m;
    in.forward.assign(std::size_t(p), tf);
    in.backward.assign(std::size_t(p), tb + tw);
    in.weightGrad.assign(std::size_t(p), tw);
    return in;
}

/// One stage's compute events in time order: F, B and W.
QString computeOrder(const PipelineTimeline &t, int stage)
{
    QString out;
    for (const PipelineEvent &e : t.events) {
        if (e.stage != stage || !isCompute(e))
            continue;
        out += QString::fromLatin1(eventKindName(e.kind).data());
    }
    return out;
}

/**
 * What must hold for every timeline of these schedules: no negative time, a stage computes
 * one op at a time, every F after its producer's F plus the send, every B after its own F and
 * the downstream B plus the send, every W after its own B on the same stage, busy and bubble
 * agree with the events, bubble in [0, 1). DualPipe's direction 1 runs from rank p-1 down to 0
 * (its activations on the sendBackward route, its gradients on sendForward).
 */
void checkInvariants(const PipelineInput &in, const PipelineTimeline &t)
{
    const int p = in.stages;
    const bool dual = in.kind == ScheduleKind::DualPipe;
    using Key = std::tuple<int, int, int>; // stage, chunk, micro-batch
    std::map<Key, const PipelineEvent *> fwd, bwd, wgt;
    std::vector<double> lastEnd(std::size_t(p), 0.0);
    std::vector<double> busy(std::size_t(p), 0.0);
    double makespan = 0.0;
    for (const PipelineEvent &e : t.events) {
        QVERIFY(e.start >= 0.0);
        QVERIFY(e.end >= e.start);
        makespan = std::max(makespan, e.end);
        if (!isCompute(e))
            continue;
        auto &last = lastEnd[std::size_t(e.stage)];
        QVERIFY2(e.start >= last - 1e-12, "two compute ops overlap on one stage");
        last = e.end;
        busy[std::size_t(e.stage)] += e.end - e.start;
        auto &map = e.kind == PipelineEventKind::Forward ? fwd
            : e.kind == PipelineEventKind::Backward      ? bwd
                                                         : wgt;
        QVERIFY(map.emplace(Key { e.stage, e.chunk, e.microbatch }, &e).second);
    }
    const auto link = [&](int from, int to) {
        const auto &route = to == from + 1 ? in.sendForward : in.sendBackward;
        return route.empty() ? 0.0 : route[std::size_t(std::min(from, to))];
    };
    // Upstream rank of direction c (dual), or the previous stage.
    const auto upstream = [&](int s, int c) { return dual && c == 1 ? s + 1 : s - 1; };
    const auto downstream = [&](int s, int c) { return dual && c == 1 ? s - 1 : s + 1; };
    for (const auto &[key, e] : fwd) {
        const auto [s, c, mb] = key;
        const int from = upstream(s, c);
        if (from >= 0 && from < p) {
            const PipelineEvent *producer = fwd.at(Key { from, c, mb });
            QVERIFY(e->start >= producer->end + link(from, s) - 1e-12);
        }
    }
    for (const auto &[key, e] : bwd) {
        const auto [s, c, mb] = key;
        QVERIFY(e->start >= fwd.at(key)->end - 1e-12);
        const int from = downstream(s, c);
        if (from >= 0 && from < p)
            QVERIFY(e->start >= bwd.at(Key { from, c, mb })->end + link(from, s) - 1e-12);
    }
    for (const auto &[key, e] : wgt)
        QVERIFY2(e->start >= bwd.at(key)->end - 1e-12, "a W pass before its B");
    QCOMPARE(int(fwd.size()), p * in.microbatches);
    QVERIFY(bwd.empty() || int(bwd.size()) == p * in.microbatches);
    COMPARE_NEAR(t.makespan, makespan);
    for (int s = 0; s < p; ++s)
        COMPARE_NEAR(t.busy[std::size_t(s)], busy[std::size_t(s)]);
    const double total = std::accumulate(busy.begin(), busy.end(), 0.0);
    COMPARE_NEAR(t.bubbleFraction, 1.0 - total / (p * makespan));
    QVERIFY(t.bubbleFraction >= 0.0 && t.bubbleFraction < 1.0);
}

} // namespace

class TestZeroBubble : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void names();

    void zbH1Bubble_data();
    void zbH1Bubble();
    void zbH1Order();
    void zbH1WithoutWeightGradIs1F1B();

    void dualPipeBubble_data();
    void dualPipeBubble();
    void dualPipeDirections();
    void dualPipeOverlappedPair_data();
    void dualPipeOverlappedPair();
    void dualPipeForwardOnly();

    void deterministic();

    void badInput_data();
    void badInput();
};

void TestZeroBubble::names()
{
    for (const ScheduleKind k : kScheduleKinds) {
        ScheduleKind parsed
            = k == ScheduleKind::GPipe ? ScheduleKind::DualPipe : ScheduleKind::GPipe;
        QVERIFY(parseSchedule(scheduleName(k), parsed));
        QCOMPARE(parsed, k);
    }
    QCOMPARE(scheduleName(ScheduleKind::ZbH1), std::string_view("zb-h1"));
    QCOMPARE(scheduleName(ScheduleKind::DualPipe), std::string_view("dualpipe"));
    QCOMPARE(eventKindName(PipelineEventKind::WeightGrad), std::string_view("W"));
    QVERIFY(splitsWeightGrad(ScheduleKind::ZbH1));
    QVERIFY(splitsWeightGrad(ScheduleKind::DualPipe));
    QVERIFY(!splitsWeightGrad(ScheduleKind::OneFOneB));
}

void TestZeroBubble::zbH1Bubble_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("tf");
    QTest::addColumn<double>("tb");
    QTest::addColumn<double>("tw");
    QTest::addColumn<double>("makespan"); // m (tf+tb+tw) + (p-1)(tf+tb-tw)
    QTest::addColumn<double>("makespan1f1b"); // (m+p-1)(tf+tb+tw)
    QTest::newRow("p2 m8 1/1/1") << 2 << 8 << 1.0 << 1.0 << 1.0 << 24.0 + 1.0 << 27.0;
    QTest::newRow("p4 m8 2/1.5/1") << 4 << 8 << 2.0 << 1.5 << 1.0 << 36.0 + 7.5 << 49.5;
    QTest::newRow("p4 m12 1/2/0.5") << 4 << 12 << 1.0 << 2.0 << 0.5 << 42.0 + 7.5 << 52.5;
    QTest::newRow("p8 m16 1/1/1") << 8 << 16 << 1.0 << 1.0 << 1.0 << 48.0 + 7.0 << 69.0;
    QTest::newRow("p4 m4 1/1/1 (m = p)") << 4 << 4 << 1.0 << 1.0 << 1.0 << 12.0 + 3.0 << 21.0;
}

void TestZeroBubble::zbH1Bubble()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(double, tf);
    QFETCH(double, tb);
    QFETCH(double, tw);
    QFETCH(double, makespan);
    QFETCH(double, makespan1f1b);
    const PipelineInput in = splitStages(ScheduleKind::ZbH1, p, m, tf, tb, tw);
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    COMPARE_NEAR(t.makespan, makespan);
    // Every stage idles (p-1)(tf+tb-tw), the paper's bubble.
    for (int s = 0; s < p; ++s)
        COMPARE_NEAR(t.makespan - t.busy[std::size_t(s)], (p - 1) * (tf + tb - tw));
    COMPARE_NEAR(t.bubbleFraction, (p - 1) * (tf + tb - tw) / makespan);
    // Same peak as 1F1B's stage 0 on every stage: p micro-batches from F to W.
    for (int s = 0; s < p; ++s)
        COMPARE_NEAR(t.peakInflight[std::size_t(s)], double(std::min(p, m)));

    PipelineInput plain = in;
    plain.kind = ScheduleKind::OneFOneB; // 1F1B runs B and W together
    const PipelineTimeline o = schedulePipeline(plain);
    COMPARE_NEAR(o.makespan, makespan1f1b);
    COMPARE_NEAR(o.peakInflight[0], double(p));
    COMPARE_NEAR(o.peakInflight[std::size_t(p - 1)], 1.0);
    QCOMPARE(int(std::count_if(o.events.begin(), o.events.end(),
                 [](const PipelineEvent &e) { return e.kind == PipelineEventKind::WeightGrad; })),
        0);
}

void TestZeroBubble::zbH1Order()
{
    // p = 2, m = 4. Stage 0 holds no W back: F0, then F B W three times, then B3 W3. Stage 1
    // holds one: F0 B0 F1 B1 W0 F2 B2 W1 F3 B3 W2 W3.
    const PipelineInput in = splitStages(ScheduleKind::ZbH1, 2, 4, 1.0, 1.0, 1.0);
    const PipelineTimeline t = schedulePipeline(in);
    QCOMPARE(computeOrder(t, 0), QStringLiteral("FFBWFBWFBWBW"));
    QCOMPARE(computeOrder(t, 1), QStringLiteral("FBFBWFBWFBWW"));
}

void TestZeroBubble::zbH1WithoutWeightGradIs1F1B()
{
    // No W given: ZB-H1 is 1F1B with every backward on the critical path.
    PipelineInput in = splitStages(ScheduleKind::ZbH1, 4, 8, 1.0, 2.0, 0.0);
    in.weightGrad.clear();
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    COMPARE_NEAR(t.makespan, (8 + 3) * 3.0);
}

void TestZeroBubble::dualPipeBubble_data()
{
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("m");
    QTest::addColumn<double>("tf");
    QTest::addColumn<double>("tb");
    QTest::addColumn<double>("tw");
    QTest::addColumn<double>("bubble"); // (p/2-1)(F&B + B - 3W), B = tb+tw, F&B = tf + B
    // p4 1/1/1: F&B 3, B 2: 1 x (3 + 2 - 3) = 2.
    QTest::newRow("p4 m8 1/1/1") << 4 << 8 << 1.0 << 1.0 << 1.0 << 2.0;
    // p8 2/2/1: F&B 5, B 3: 3 x (5 + 3 - 3) = 15.
    QTest::newRow("p8 m16 2/2/1") << 8 << 16 << 2.0 << 2.0 << 1.0 << 15.0;
    // p6 1/1/0.5: F&B 2.5, B 1.5: 2 x (2.5 + 1.5 - 1.5) = 5.
    QTest::newRow("p6 m14 1/1/0.5") << 6 << 14 << 1.0 << 1.0 << 0.5 << 5.0;
    // p8 3/3/0.25: F&B 6.25, B 3.25: 3 x (6.25 + 3.25 - 0.75) = 26.25.
    QTest::newRow("p8 m24 3/3/0.25") << 8 << 24 << 3.0 << 3.0 << 0.25 << 26.25;
    // p8 1/1/0 (no W to defer): 3 x (2 + 1) = 9.
    QTest::newRow("p8 m20 1/1/0") << 8 << 20 << 1.0 << 1.0 << 0.0 << 9.0;
    QTest::newRow("p2 m4 1/1/1 (no bubble)") << 2 << 4 << 1.0 << 1.0 << 1.0 << 0.0;
}

void TestZeroBubble::dualPipeBubble()
{
    QFETCH(int, p);
    QFETCH(int, m);
    QFETCH(double, tf);
    QFETCH(double, tb);
    QFETCH(double, tw);
    QFETCH(double, bubble);
    const PipelineInput in = splitStages(ScheduleKind::DualPipe, p, m, tf, tb, tw);
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    const double work = m * (tf + tb + tw);
    COMPARE_NEAR(t.makespan, work + bubble);
    for (int s = 0; s < p; ++s) {
        COMPARE_NEAR(t.busy[std::size_t(s)], work);
        // Table 2: activations of p+1 micro-batches on every rank.
        COMPARE_NEAR(t.peakInflight[std::size_t(s)], double(p + 1));
    }
    // Beside 1F1B on the same stages: (p-1)(tf+tb+tw) and a peak of p on stage 0.
    PipelineInput plain = in;
    plain.kind = ScheduleKind::OneFOneB;
    const PipelineTimeline o = schedulePipeline(plain);
    COMPARE_NEAR(o.makespan - work, (p - 1) * (tf + tb + tw));
    COMPARE_NEAR(o.peakInflight[0], double(p));
    QVERIFY(t.makespan <= o.makespan);
}

void TestZeroBubble::dualPipeDirections()
{
    // p = 4, m = 8: four micro-batches enter at rank 0 (direction 0), four at rank 3.
    PipelineInput in = splitStages(ScheduleKind::DualPipe, 4, 8, 1.0, 1.0, 0.5);
    in.sendForward = { 0.25, 0.25, 0.25 };
    in.sendBackward = { 0.5, 0.5, 0.5 };
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    int firstRankForward[2] = { -1, -1 };
    int weights = 0;
    int pairs = 0;
    for (const PipelineEvent &e : t.events) {
        if (e.kind == PipelineEventKind::Forward && e.start == 0.0)
            firstRankForward[e.chunk] = e.stage;
        // Direction 1's micro-batches are numbered from m/2 = 4.
        if (isCompute(e))
            QCOMPARE(e.microbatch >= 4, e.chunk == 1);
        weights += e.kind == PipelineEventKind::WeightGrad ? 1 : 0;
        pairs += e.overlapped ? 1 : 0;
        // Direction 1's activations travel down the ranks on the sendBackward route (0.5 s).
        if (e.kind == PipelineEventKind::SendForward && e.chunk == 1)
            COMPARE_NEAR(e.end - e.start, 0.5);
        if (e.kind == PipelineEventKind::SendBackward && e.chunk == 1)
            COMPARE_NEAR(e.end - e.start, 0.25);
    }
    QCOMPARE(firstRankForward[0], 0);
    QCOMPARE(firstRankForward[1], 3);
    QVERIFY(weights > 0); // the zero-bubble steps defer W passes
    QVERIFY(pairs > 0); // and the main step overlaps forward and backward chunks
    QCOMPARE(pairs % 2, 0);
}

void TestZeroBubble::dualPipeOverlappedPair_data()
{
    QTest::addColumn<double>("forwardComm");
    QTest::addColumn<double>("backwardComm");
    QTest::addColumn<double>("pair");
    // tf = 1, whole backward 1 (no W). Each chunk's communication hides behind the other's
    // compute; only the excess stays exposed: Fc + Bc + max(0, Fm - Bc) + max(0, Bm - Fc).
    QTest::newRow("no communication") << 0.0 << 0.0 << 2.0;
    QTest::newRow("both hidden") << 0.4 << 0.3 << 0.6 + 0.7;
    QTest::newRow("forward's exceeds") << 0.8 << 0.0 << 0.2 + 1.0;
    QTest::newRow("both exceed") << 0.8 << 0.9 << 0.2 + 0.1 + 0.7 + 0.7;
}

void TestZeroBubble::dualPipeOverlappedPair()
{
    QFETCH(double, forwardComm);
    QFETCH(double, backwardComm);
    QFETCH(double, pair);
    PipelineInput in = splitStages(ScheduleKind::DualPipe, 4, 8, 1.0, 1.0, 0.0);
    in.forwardComm.assign(4, forwardComm);
    in.backwardComm.assign(4, backwardComm);
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    int pairs = 0;
    for (std::size_t i = 0; i + 1 < t.events.size(); ++i) {
        const PipelineEvent &f = t.events[i];
        if (!f.overlapped || f.kind != PipelineEventKind::Forward)
            continue;
        // Its backward half follows on the same stage, right where the forward half ends.
        const auto b = std::find_if(t.events.begin() + long(i) + 1, t.events.end(),
            [&f](const PipelineEvent &e) { return e.stage == f.stage && isCompute(e); });
        QVERIFY(b != t.events.end());
        QVERIFY(b->overlapped && b->kind == PipelineEventKind::Backward);
        COMPARE_NEAR(b->start, f.end);
        COMPARE_NEAR(b->end - f.start, pair);
        ++pairs;
    }
    QVERIFY(pairs > 0);
}

void TestZeroBubble::dualPipeForwardOnly()
{
    PipelineInput in = splitStages(ScheduleKind::DualPipe, 4, 8, 1.0, 0.0, 0.0);
    in.backward.clear();
    in.weightGrad.clear();
    const PipelineTimeline t = schedulePipeline(in);
    checkInvariants(in, t);
    for (const PipelineEvent &e : t.events)
        QVERIFY(e.kind == PipelineEventKind::Forward || !isCompute(e));
    for (const double peak : t.peakInflight)
        COMPARE_NEAR(peak, 1.0);
}

void TestZeroBubble::deterministic()
{
    for (const ScheduleKind k : { ScheduleKind::ZbH1, ScheduleKind::DualPipe }) {
        PipelineInput in = splitStages(k, 4, 12, 1.0, 1.3, 0.7);
        in.forward[2] = 1.4; // unequal stages and sends: many ties broken the same way
        in.sendForward = { 0.1, 0.2, 0.1 };
        in.sendBackward = { 0.1, 0.1, 0.3 };
        const PipelineTimeline a = schedulePipeline(in);
        const PipelineTimeline b = schedulePipeline(in);
        checkInvariants(in, a);
        QCOMPARE(a.events.size(), b.events.size());
        for (std::size_t i = 0; i < a.events.size(); ++i) {
            QCOMPARE(a.events[i].stage, b.events[i].stage);
            QCOMPARE(a.events[i].microbatch, b.events[i].microbatch);
            QCOMPARE(a.events[i].kind, b.events[i].kind);
            QCOMPARE(a.events[i].start, b.events[i].start);
            QCOMPARE(a.events[i].end, b.events[i].end);
        }
        QCOMPARE(a.makespan, b.makespan);
    }
}

void TestZeroBubble::badInput_data()
{
    QTest::addColumn<PipelineInput>("input");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("reason");
    const PipelineInput dual = splitStages(ScheduleKind::DualPipe, 4, 8, 1.0, 1.0, 0.5);
    PipelineInput in = splitStages(ScheduleKind::DualPipe, 3, 8, 1.0, 1.0, 0.5);
    QTest::newRow("dualpipe odd pp") << in << "parallel.pp"
                                     << "even number of pipeline stages";
    in = dual;
    in.microbatches = 9;
    QTest::newRow("dualpipe odd m") << in << "training.microbatches"
                                    << "at least twice the pipeline stages (8), got 9";
    in = dual;
    in.microbatches = 6;
    QTest::newRow("dualpipe m < 2p") << in << "training.microbatches"
                                     << "at least twice the pipeline stages (8), got 6";
    in = splitStages(ScheduleKind::ZbH1, 4, 8, 1.0, 1.0, 0.5);
    in.weightGrad[1] = 2.0;
    QTest::newRow("W beyond backward") << in << "pipeline.weightGrad[1]"
                                       << "exceeds the stage's backward of 1.5 s";
    in = splitStages(ScheduleKind::ZbH1, 4, 8, 1.0, 1.0, 0.5);
    in.weightGrad.pop_back();
    QTest::newRow("W size") << in << "pipeline.weightGrad"
                            << "expected 4 per-stage weight-gradient times (or none), got 3";
    in = dual;
    in.weightGrad[0] = -0.5;
    QTest::newRow("negative W") << in << "pipeline.weightGrad[0]"
                                << "finite number of seconds >= 0";
    in = dual;
    in.forwardComm = { 0.5, 1.5, 0.5, 0.5 };
    QTest::newRow("comm beyond forward") << in << "pipeline.forwardComm[1]"
                                         << "exceeds its 1 s";
}

void TestZeroBubble::badInput()
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
    }
}

QTEST_GUILESS_MAIN(TestZeroBubble)
#include "tst_zerobubble.moc"
