// The Kineto trace reader (model/io/kinetotrace.cpp, kinetosteps.cpp) on a trace written here
// in torch.profiler's Chrome-trace format (tests/data/training-logs/kineto-trace.json, README
// there): per step the compute time and the exposed communication of each process group, each
// group tied to the layout's TP / DP / PP group by its ranks; truncated rank lists, GPU step
// ranges, and malformed traces refused with file and line or field.
#include "base/scenarioerror.h"
#include "io/kinetotrace.h"
#include "layout/parallellayout.h"

#include <QTest>

#include <cmath>

using namespace railyard;

namespace {

std::string sample(const std::string &name)
{
    return std::string(RAILYARD_SOURCE_DIR) + "/tests/data/training-logs/" + name;
}

QString errorOf(const std::string &text)
{
    try {
        parseKinetoTrace(text, "bad.json");
    } catch (const ScenarioError &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

bool near(double a, double b)
{
    return std::fabs(a - b) < 1e-9;
}

int groupNamed(const KinetoTrace &t, const std::string &name)
{
    for (std::size_t i = 0; i < t.groups.size(); ++i)
        if (t.groups[i].name == name)
            return static_cast<int>(i);
    return -1;
}

/// A kernel event of the Chrome trace.
std::string kernel(double ts, double dur, const std::string &name, const std::string &args = "{}")
{
    return "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + name
        + "\", \"pid\": 0, \"tid\": 7, \"ts\": " + std::to_string(ts)
        + ", \"dur\": " + std::to_string(dur) + ", \"args\": " + args + "}";
}

} // namespace

class TestKinetoTrace : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sampleTrace();
    void groupsToDimensions();
    void truncatedRanks();
    void gpuWindowsAndNoWindows();
    void malformed_data();
    void malformed();
};

void TestKinetoTrace::sampleTrace()
{
    const KinetoTrace t = readKinetoTrace(sample("kineto-trace.json"));
    QCOMPARE(t.rank, 0);
    QCOMPARE(t.worldSize, 16);
    QCOMPARE(t.ncclVersion, std::string("2.21.5"));
    QCOMPARE(static_cast<int>(t.groups.size()), 3);
    QCOMPARE(t.ncclKernels, 6LL);
    QCOMPARE(t.ungroupedNcclKernels, 0LL);
    QCOMPARE(static_cast<int>(t.windows.size()), 2);
    QVERIFY(!t.gpuWindows);
    const int tp = groupNamed(t, "1"), dp = groupNamed(t, "2"), pp = groupNamed(t, "3");
    QVERIFY(tp >= 0 && dp >= 0 && pp >= 0);
    QCOMPARE(t.groups[tp].ranks, (std::vector<int> { 0, 1, 2, 3 }));
    QCOMPARE(t.groups[tp].description, std::string("tp"));
    QCOMPARE(t.groups[dp].kernels, 2LL);

    const std::vector<TraceStepMeasure> steps = traceStepsByGroup(t);
    QCOMPARE(static_cast<int>(steps.size()), 2);
    // The README's figures: compute 7.0 / 6.8 ms, exposed TP 1.0 / 1.2, DP 1.0, PP 0.5 ms; the
    // memcpy is neither compute nor communication.
    QCOMPARE(steps[0].step, 2LL);
    QVERIFY(near(steps[0].stepTime, 0.010));
    QVERIFY(near(steps[0].computeTime, 0.0070));
    QVERIFY(near(steps[0].exposed[tp], 0.0010));
    QVERIFY(near(steps[0].exposed[dp], 0.0010));
    QVERIFY(near(steps[0].exposed[pp], 0.0005));
    QVERIFY(near(steps[0].commTime, 0.0055));
    QVERIFY(near(steps[0].exposedComm, 0.0025));
    QCOMPARE(steps[1].step, 3LL);
    QVERIFY(near(steps[1].computeTime, 0.0068));
    QVERIFY(near(steps[1].exposed[tp], 0.0012));
    QVERIFY(near(steps[1].exposedComm, 0.0027));
    QVERIFY(near(steps[1].exposed.back(), 0.0)); // no ungrouped kernel

    // Read from memory, the same.
    const KinetoTrace again = parseKinetoTrace(
        std::string(R"({"traceEvents": [)") + kernel(0, 10, "gemm") + "]}", "x.json");
    QCOMPARE(static_cast<int>(again.kernels.size()), 1);
}

void TestKinetoTrace::groupsToDimensions()
{
    const KinetoTrace t = readKinetoTrace(sample("kineto-trace.json"));
    // The job of the sample: TP4 PP2 DP2, Megatron's order (tp fastest, then dp, then pp).
    ParallelDegrees d;
    d.tp = 4;
    d.pp = 2;
    d.dp = 2;
    const ParallelLayout layout(d);
    const std::vector<TraceGroupDimension> dims = traceGroupDimensions(t, layout);
    QCOMPARE(dims[groupNamed(t, "1")].dim, std::optional<Dim>(Dim::Tp));
    QCOMPARE(dims[groupNamed(t, "2")].dim, std::optional<Dim>(Dim::Dp));
    QCOMPARE(dims[groupNamed(t, "3")].dim, std::optional<Dim>(Dim::Pp));
    QCOMPARE(dims[groupNamed(t, "2")].kind, std::string("dp"));
    // Another order puts other ranks together: {0, 4} is a pp group there and {0, 8} a dp one,
    // so the rank sets, not the groups' names, decide.
    const ParallelLayout other(d, "tp-cp-ep-pp-dp");
    const std::vector<TraceGroupDimension> otherDims = traceGroupDimensions(t, other);
    QCOMPARE(otherDims[groupNamed(t, "1")].dim, std::optional<Dim>(Dim::Tp));
    QCOMPARE(otherDims[groupNamed(t, "2")].dim, std::optional<Dim>(Dim::Pp));
    QCOMPARE(otherDims[groupNamed(t, "3")].dim, std::optional<Dim>(Dim::Dp));
    // A layout with no group of these ranks: none matched.
    d.tp = 8;
    d.dp = 1;
    QVERIFY(!traceGroupDimensions(t, ParallelLayout(d))[groupNamed(t, "1")].dim);
}

void TestKinetoTrace::truncatedRanks()
{
    // A DP group of 64 (TP 1): record_param_comms lists 29 ranks, "...", and the last.
    std::string ranks = "[";
    for (int r = 0; r < 29; ++r)
        ranks += std::to_string(r) + ", ";
    ranks += "..., 63]";
    const std::string args
        = "{\"Collective name\": \"allreduce\", \"Group size\": 64, \"Process Group Name\": "
          "\"5\", \"Process Group Ranks\": \""
        + ranks + "\"}";
    const KinetoTrace t = parseKinetoTrace("{\"traceEvents\": ["
            + kernel(0, 10, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", args) + "]}",
        "t.json");
    QCOMPARE(static_cast<int>(t.groups.size()), 1);
    QVERIFY(t.groups[0].truncated);
    QCOMPARE(t.groups[0].size, 64);
    ParallelDegrees d;
    d.dp = 64;
    QCOMPARE(traceGroupDimensions(t, ParallelLayout(d))[0].dim, std::optional<Dim>(Dim::Dp));
    d.dp = 32;
    d.tp = 2; // a group of 32 with other members: no match
    QVERIFY(!traceGroupDimensions(t, ParallelLayout(d))[0].dim);
}

void TestKinetoTrace::gpuWindowsAndNoWindows()
{
    // GPU step ranges win over the CPU's.
    const std::string text = R"({"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "ts": 0, "dur": 100},
{"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#5", "ts": 40, "dur": 80},
)" + kernel(40, 50, "gemm")
        + ",\n" + kernel(90, 30, "ncclDevKernel_AllGather_RING_LL(x)") + "]}";
    const KinetoTrace t = parseKinetoTrace(text, "g.json");
    QVERIFY(t.gpuWindows);
    const std::vector<TraceStepMeasure> s = traceStepsByGroup(t);
    QCOMPARE(static_cast<int>(s.size()), 1);
    QVERIFY(near(s[0].stepTime, 80e-6));
    QVERIFY(near(s[0].computeTime, 50e-6));
    QVERIFY(near(s[0].exposed.back(), 30e-6)); // ungrouped: no process-group args
    QCOMPARE(t.ungroupedNcclKernels, 1LL);
    // No step range: the kernels' span is one step.
    const KinetoTrace none = parseKinetoTrace(
        "{\"traceEvents\": [" + kernel(10, 5, "gemm") + "," + kernel(20, 5, "gemm") + "]}",
        "n.json");
    const std::vector<TraceStepMeasure> n = traceStepsByGroup(none);
    QCOMPARE(n[0].step, -1LL);
    QVERIFY(near(n[0].stepTime, 15e-6));
    QVERIFY(near(n[0].computeTime, 10e-6));
}

void TestKinetoTrace::malformed_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("syntax") << "{\"traceEvents\": [\n{\"ph\": \"X\",\n\"ts\": 1,, }]}"
                            << "bad.json:3: not valid JSON";
    QTest::newRow("truncated") << "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"kernel\""
                               << "bad.json:2: not valid JSON";
    QTest::newRow("negative dur") << "{\"traceEvents\": [{\"ph\": \"M\"}, {\"ph\": \"X\", \"cat\": "
                                     "\"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": -2}]}"
                                  << "bad.json: traceEvents[1].dur: must not be negative";
    QTest::newRow("string ts") << "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", "
                                  "\"name\": \"k\", \"ts\": \"1\", \"dur\": 2}]}"
                               << "bad.json: traceEvents[0].ts: expected a number, got a string";
    QTest::newRow("no dur")
        << "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1}]}"
        << "bad.json: traceEvents[0].dur: missing required field";
    QTest::newRow("bad step")
        << "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": "
           "\"ProfilerStep#x\", \"ts\": 1, \"dur\": 2}]}"
        << "bad.json: traceEvents[0].name: expected ProfilerStep#N";
    QTest::newRow("bad ranks")
        << "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclK\", \"ts\": "
           "1, "
           "\"dur\": 2, \"args\": {\"Process Group Ranks\": \"zero\"}}]}"
        << "bad.json: traceEvents[0].args.Process Group Ranks: expected a list of ranks";
    QTest::newRow("empty") << "{\"traceEvents\": []}"
                           << "bad.json: no GPU kernel and no ProfilerStep#N range";
    QTest::newRow("deep") << "{\"traceEvents\": [{\"args\": " + QString(40, QLatin1Char('['))
            + QString(40, QLatin1Char(']')) + "}]}"
                          << "bad.json: JSON nests deeper than 32 levels";
}

void TestKinetoTrace::malformed()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const QString e = errorOf(text.toStdString());
    QVERIFY2(e.startsWith(message), qPrintable(e));
}

QTEST_GUILESS_MAIN(TestKinetoTrace)
#include "tst_kinetotrace.moc"
