/**
 * What a scheduled block waited on (pipelineWait()), read back from the scheduler's own events:
 * a hand-derived 1F1B timeline (2 stages, 2 micro-batches, forward 1 s, backward 2 s, sends
 * 0.5 s), a parameter wait (forwardReady), and for every schedule kind the rule itself: every
 * block after time 0 waited on an event of its own stage or on the send that carries its input,
 * and that event ends exactly at its start.
 */
#include "cost/pipelineschedule.h"
#include "cost/pipelinewait.h"
#include "fixtures.h"

#include <QTest>

#include <cmath>

using namespace railyard;

Q_DECLARE_METATYPE(railyard::ScheduleKind)

namespace {

PipelineInput twoStages()
{
    PipelineInput in;
    in.kind = ScheduleKind::OneFOneB;
    in.stages = 2;
    in.microbatches = 2;
    in.forward = { 1.0, 1.0 };
    in.backward = { 2.0, 2.0 };
    in.sendForward = { 0.5 };
    in.sendBackward = { 0.5 };
    return in;
}

/// Index of the event of this kind, stage and micro-batch (-1 if none).

} // namespace

class TestPipelineWait : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void handDerivedOneFOneB();
    void parameterWait();
    void everyBlockWaitsOnWhatEndsAtItsStart_data();
    void everyBlockWaitsOnWhatEndsAtItsStart();
    void outOfRange();
};

void TestPipelineWait::handDerivedOneFOneB()
{
    const PipelineTimeline t = schedulePipeline(twoStages());
    using K = PipelineEventKind;
    // Stage 0's F0 [0, 1] opens the schedule.
    const int f00 = fixtures::findEvent(t, K::Forward, 0, 0);
    QCOMPARE(t.events[static_cast<std::size_t>(f00)].start, 0.0);
    QCOMPARE(pipelineWait(t, 2, f00).kind, PipelineWait::Kind::Start);
    // Its send [1, 1.5] leaves when F0 ends: it waits on F0.
    const int send0 = fixtures::findEvent(t, K::SendForward, 0, 0);
    QCOMPARE(t.events[static_cast<std::size_t>(send0)].start, 1.0);
    QCOMPARE(pipelineWait(t, 2, send0).kind, PipelineWait::Kind::Input);
    QCOMPARE(pipelineWait(t, 2, send0).event, f00);
    // Stage 1's F0 starts at 1.5, when the activation arrives: it waits on the send.
    const int f10 = fixtures::findEvent(t, K::Forward, 1, 0);
    QCOMPARE(t.events[static_cast<std::size_t>(f10)].start, 1.5);
    PipelineWait w = pipelineWait(t, 2, f10);
    QCOMPARE(w.kind, PipelineWait::Kind::Input);
    QCOMPARE(w.event, send0);
    QCOMPARE(w.gap, 0.0);
    // Stage 0's F1 [1, 2] has its input at 0: it waits on the stage, busy with F0.
    const int f01 = fixtures::findEvent(t, K::Forward, 0, 1);
    QCOMPARE(t.events[static_cast<std::size_t>(f01)].start, 1.0);
    w = pipelineWait(t, 2, f01);
    QCOMPARE(w.kind, PipelineWait::Kind::StageBusy);
    QCOMPARE(w.event, f00);
    // Stage 1's B0 [2.5, 4.5] follows its own F0 on the last stage.
    const int b10 = fixtures::findEvent(t, K::Backward, 1, 0);
    QCOMPARE(t.events[static_cast<std::size_t>(b10)].start, 2.5);
    w = pipelineWait(t, 2, b10);
    QCOMPARE(w.kind, PipelineWait::Kind::StageBusy);
    QCOMPARE(w.event, f10);
    // Stage 0's B0 starts at 5 = 4.5 + 0.5, when the gradient arrives (the stage idles from 2).
    const int b00 = fixtures::findEvent(t, K::Backward, 0, 0);
    QCOMPARE(t.events[static_cast<std::size_t>(b00)].start, 5.0);
    w = pipelineWait(t, 2, b00);
    QCOMPARE(w.kind, PipelineWait::Kind::Input);
    QCOMPARE(w.event, fixtures::findEvent(t, K::SendBackward, 1, 0));
}

void TestPipelineWait::parameterWait()
{
    PipelineInput in = twoStages();
    in.forwardReady = { 0.25, 0.0 }; // stage 0's parameters arrive at 0.25 s
    const PipelineTimeline t = schedulePipeline(in);
    const int f00 = fixtures::findEvent(t, PipelineEventKind::Forward, 0, 0);
    QCOMPARE(t.events[static_cast<std::size_t>(f00)].start, 0.25);
    const PipelineWait w = pipelineWait(t, 2, f00);
    QCOMPARE(w.kind, PipelineWait::Kind::Ready);
    QCOMPARE(w.event, -1);
    QCOMPARE(w.gap, 0.25);
}

void TestPipelineWait::everyBlockWaitsOnWhatEndsAtItsStart_data()
{
    QTest::addColumn<ScheduleKind>("kind");
    QTest::addColumn<int>("chunks");
    QTest::newRow("GPipe") << ScheduleKind::GPipe << 1;
    QTest::newRow("1F1B") << ScheduleKind::OneFOneB << 1;
    QTest::newRow("interleaved v=2") << ScheduleKind::Interleaved << 2;
    QTest::newRow("ZB-H1") << ScheduleKind::ZbH1 << 1;
    QTest::newRow("DualPipe") << ScheduleKind::DualPipe << 1;
}

void TestPipelineWait::everyBlockWaitsOnWhatEndsAtItsStart()
{
    QFETCH(ScheduleKind, kind);
    QFETCH(int, chunks);
    PipelineInput in;
    in.kind = kind;
    in.stages = 4;
    in.microbatches = 8;
    in.chunks = chunks;
    // Unequal stages and sends, so stage and input waits both occur.
    in.forward = { 1.0, 1.3, 0.9, 1.1 };
    in.backward = { 2.0, 2.4, 1.9, 2.2 };
    in.sendForward = { 0.3, 0.2, 0.4 };
    in.sendBackward = { 0.3, 0.2, 0.4 };
    if (splitsWeightGrad(kind))
        in.weightGrad = { 0.8, 1.0, 0.7, 0.9 };
    const PipelineTimeline t = schedulePipeline(in);
    int inputs = 0, busy = 0;
    for (std::size_t i = 0; i < t.events.size(); ++i) {
        const PipelineEvent &e = t.events[i];
        const PipelineWait w = pipelineWait(t, in.stages, static_cast<int>(i));
        if (!isCompute(e)) {
            QCOMPARE(w.kind, PipelineWait::Kind::Input); // the block that computed it
            continue;
        }
        if (e.start < 1e-12) {
            QCOMPARE(w.kind, PipelineWait::Kind::Start);
            continue;
        }
        QVERIFY2(w.kind == PipelineWait::Kind::Input || w.kind == PipelineWait::Kind::StageBusy,
            qPrintable(QStringLiteral("event %1 (stage %2, mb %3)")
                           .arg(i)
                           .arg(e.stage)
                           .arg(e.microbatch)));
        const PipelineEvent &on = t.events[static_cast<std::size_t>(w.event)];
        QVERIFY(std::abs(on.end - e.start) <= 1e-9 * t.makespan);
        if (w.kind == PipelineWait::Kind::Input) {
            ++inputs;
            QVERIFY(!isCompute(on));
            QCOMPARE(pipelineReceiver(on, in.stages), e.stage);
            // Its own input, or (DualPipe) that of the pair's second half.
            QVERIFY(on.microbatch == e.microbatch || e.overlapped);
        } else {
            ++busy;
            QVERIFY(isCompute(on));
            QCOMPARE(on.stage, e.stage);
        }
    }
    QVERIFY(inputs > 0);
    QVERIFY(busy > 0);
}

void TestPipelineWait::outOfRange()
{
    const PipelineTimeline t = schedulePipeline(twoStages());
    QCOMPARE(pipelineWait(t, 2, -1).kind, PipelineWait::Kind::None);
    QCOMPARE(pipelineWait(t, 2, static_cast<int>(t.events.size())).kind, PipelineWait::Kind::None);
}

QTEST_GUILESS_MAIN(TestPipelineWait)
#include "tst_pipelinewait.moc"
