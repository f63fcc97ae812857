// The trace reader (model/io/kinetotrace.cpp, kinetosteps.cpp) on a trace as torch 1.13.1 wrote
// it: tests/data/training-logs/torch113-gloo-rank0.json is rank 0's output of
// tests/data/make_gloo_trace.py under Debian 12's python3-torch (1.13.1, CPU, no Kineto),
// unedited. That release writes the Chrome trace's bare-array form: no "cat", no
// distributedInfo, no process-group args; gloo's collectives are CPU ranges "gloo:all_reduce"
// and "gloo:broadcast" on gloo's worker threads, the compute "aten::" ranges on the main one.
#include "io/kinetotrace.h"
#include "io/traininglog.h"
#include "layout/parallellayout.h"

#include <QFile>
#include <QTest>

#include <cmath>

using namespace railyard;

namespace {

std::string torch113Sample()
{
    return std::string(RAILYARD_SOURCE_DIR) + "/tests/data/training-logs/torch113-gloo-rank0.json";
}

bool nearUs(double seconds, double microseconds)
{
    return std::fabs(seconds - microseconds * 1e-6) < 1e-9;
}

} // namespace

class TestTorch113Trace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void detected();
    void stepsComputeAndCollectives();
    void spansOfOneStep();
    void ungroupedDimension();
};

void TestTorch113Trace::detected()
{
    QFile f(QString::fromStdString(torch113Sample()));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray head = f.readAll();
    QVERIFY(head.startsWith("[{")); // the bare array, as written
    QVERIFY(detectMeasurementFormat(std::string_view(head.constData(), std::size_t(head.size())))
        == MeasurementFormat::KinetoTrace);
    // An array that is no trace stays what it was taken for before.
    QVERIFY(detectMeasurementFormat("[1, 2, 3]\n") == MeasurementFormat::NcclTests);
}

void TestTorch113Trace::stepsComputeAndCollectives()
{
    const KinetoTrace t = readKinetoTrace(torch113Sample());
    QVERIFY(t.cpuTrace);
    QCOMPARE(t.rank, -1); // no distributedInfo in this release's export
    QCOMPARE(t.worldSize, 0);
    QVERIFY(t.groups.empty());
    QVERIFY(!t.gpuWindows);
    QCOMPARE(t.windows.size(), std::size_t(3)); // ProfilerStep#0..2: the active steps
    QCOMPARE(t.windows[2].step, 2LL);
    // Three collectives a step (all-reduce on the world, all-reduce and broadcast on the
    // second group), none with process-group args.
    QCOMPARE(t.ncclKernels, 9LL);
    QCOMPARE(t.ungroupedNcclKernels, 9LL);

    const std::vector<TraceStepMeasure> steps = traceStepsByGroup(t);
    QCOMPARE(steps.size(), std::size_t(3));
    const TraceStepMeasure &s = steps[0];
    // ProfilerStep#0: ts 168, dur 116035 us.
    QVERIFY(nearUs(s.stepTime, 116035));
    // Compute: aten::empty (1 us) and the two aten::matmul ranges (45665 + 22753 us, their
    // aten::mm inside); the c10d:: enqueue ranges and the gloo threads' ranges are not compute.
    QVERIFY2(nearUs(s.computeTime, 68419), qPrintable(QString::number(s.computeTime, 'g', 12)));
    // Communication: gloo:all_reduce 28665 + 720 us and gloo:broadcast 115 us, none of it under
    // a compute range: all exposed, in the one bucket of the ungrouped.
    QVERIFY(nearUs(s.commTime, 29500));
    QVERIFY(nearUs(s.exposedComm, 29500));
    QCOMPARE(s.exposed.size(), std::size_t(1));
    QVERIFY(nearUs(s.exposed[0], 29500));
    // Step 1: the broadcast (8695 us) overlaps nothing either; compute 9807 + 22102 + 1 us.
    QVERIFY(nearUs(steps[1].computeTime, 31910));
    QVERIFY(nearUs(steps[1].exposedComm, 14237 + 540 + 8695));
}

void TestTorch113Trace::spansOfOneStep()
{
    const KinetoTrace t = readKinetoTrace(torch113Sample());
    const TraceStepSpans spans = traceStepSpans(t, {}, 1, 0, 0);
    // Seconds from the window's start (ts 168): merged, nested ranges taken once.
    QCOMPARE(spans.compute.size(), std::size_t(3));
    QVERIFY(nearUs(spans.compute[0].start, 0) && nearUs(spans.compute[0].end, 1));
    QVERIFY(nearUs(spans.compute[1].start, 13) && nearUs(spans.compute[1].end, 45678));
    QVERIFY(nearUs(spans.compute[2].start, 87689) && nearUs(spans.compute[2].end, 110442));
    QCOMPARE(spans.comm.size(), std::size_t(1));
    QCOMPARE(spans.comm[0].size(), std::size_t(3));
    QVERIFY(nearUs(spans.comm[0][0].start, 55026) && nearUs(spans.comm[0][0].end, 83691));
    QVERIFY(nearUs(spans.comm[0][2].start, 115874) && nearUs(spans.comm[0][2].end, 115989));
    // Without a bucket for them, the collectives are left out; a window past the end is empty.
    QVERIFY(traceStepSpans(t, {}, 1, -1, 0).comm[0].empty());
    QVERIFY(traceStepSpans(t, {}, 1, 0, 3).compute.empty());
}

void TestTorch113Trace::ungroupedDimension()
{
    // The job above: 2 ranks, data-parallel only: its collectives can only be dp's.
    ParallelDegrees dp2;
    dp2.dp = 2;
    QVERIFY(ungroupedTraceDimension(ParallelLayout(dp2)) == Dim::Dp);
    ParallelDegrees tp2;
    tp2.tp = 2;
    QVERIFY(ungroupedTraceDimension(ParallelLayout(tp2)) == Dim::Tp);
    // Two dimensions above 1: a collective without its group could be either.
    ParallelDegrees both;
    both.tp = 2;
    both.dp = 2;
    QVERIFY(!ungroupedTraceDimension(ParallelLayout(both)).has_value());
    QVERIFY(!ungroupedTraceDimension(ParallelLayout(ParallelDegrees {})).has_value());
}

QTEST_GUILESS_MAIN(TestTorch113Trace)
#include "tst_torch113trace.moc"
