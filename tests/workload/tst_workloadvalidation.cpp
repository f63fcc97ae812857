// The workload plan's refusals, one message per bad input naming the field and the problem
// (each distinct), and the names of collectives, precisions and recompute modes.
#include "base/scenarioerror.h"
#include "fixtures.h"
#include "smallworkload.h"
#include "workload/workloadnames.h"
#include "workload/workloadplan.h"

#include <QtTest>

#include <functional>
#include <set>
#include <string>
#include <vector>

using namespace railyard;
using railyard::smallworkload::h100;
using railyard::smallworkload::smallModel;
using railyard::smallworkload::smallTraining;
using fixtures::degrees;

class TestWorkloadValidation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void validationMessages_data();
    void validationMessages();
    void validationMessagesDistinct();
    void collectiveNames();
    void precisionAndRecomputeNames();
};

namespace {
struct BadCase
{
    const char *label;
    const char *field;
    const char *fragment;
    std::function<void(ModelSpec &, TrainingSpec &, DeviceSpec &, ParallelDegrees &)> mutate;
};

const std::vector<BadCase> &badCases()
{
    static const std::vector<BadCase> cases{
        {"layers over pp", "model.layers", "pipeline stages",
         [](ModelSpec &, TrainingSpec &, DeviceSpec &, ParallelDegrees &d) { d.pp = 3; }},
        {"layers over chunks", "model.layers", "model chunks",
         [](ModelSpec &, TrainingSpec &t, DeviceSpec &, ParallelDegrees &d) {
             d.pp = 2;
             t.schedule = ScheduleKind::Interleaved;
             t.interleave = 4;
         }},
        {"interleave pp1", "training.interleave", "pp >= 2",
         [](ModelSpec &, TrainingSpec &t, DeviceSpec &, ParallelDegrees &) {
             t.schedule = ScheduleKind::Interleaved;
             t.interleave = 2;
         }},
        {"heads over tp", "model.heads", "attention heads do not split",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &d) {
             m.heads = 12;
             m.hidden = 1152;
             d.tp = 8;
         }},
        {"kv over tp", "model.kv_heads", "num_query_groups",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &d) {
             m.kvHeads = 2;
             d.tp = 4;
         }},
        {"kv groups", "model.kv_heads", "equal groups",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &) { m.kvHeads = 3; }},
        {"hidden over heads", "model.hidden", "not a multiple",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &) { m.hidden = 1000; }},
        {"ffn over tp", "model.ffn", "MLP size",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &d) {
             m.ffn = 4098;
             d.tp = 4;
         }},
        {"global batch", "training.global_batch", "micro_batch x dp",
         [](ModelSpec &, TrainingSpec &t, DeviceSpec &, ParallelDegrees &d) {
             t.globalBatch = 10;
             d.dp = 4;
         }},
        {"experts over ep", "parallel.ep", "experts do not split",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &d) {
             m.experts = 6;
             m.topK = 2;
             d.ep = 4;
             d.dp = 4;
         }},
        {"ep without experts", "parallel.ep", "needs an MoE model",
         [](ModelSpec &, TrainingSpec &, DeviceSpec &, ParallelDegrees &d) {
             d.ep = 2;
             d.dp = 2;
         }},
        {"ep over dp cp", "parallel.ep", "must divide dp x cp",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &d) {
             m.experts = 8;
             m.topK = 2;
             d.ep = 4;
             d.dp = 2;
         }},
        {"top k", "model.top_k", "routes each token",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &) {
             m.experts = 4;
             m.topK = 5;
         }},
        {"moe tp without sp", "training.sequence_parallel", "sequence parallelism",
         [](ModelSpec &m, TrainingSpec &t, DeviceSpec &, ParallelDegrees &d) {
             m.experts = 8;
             m.topK = 2;
             d.ep = 2;
             d.dp = 2;
             d.tp = 2;
             t.sequenceParallel = false;
         }},
        {"seq over 2cp", "model.seq", "load-balanced",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &d) {
             m.seq = 2050;
             d.cp = 2;
         }},
        {"zero tp", "parallel.tp", "at least 1",
         [](ModelSpec &, TrainingSpec &, DeviceSpec &, ParallelDegrees &d) { d.tp = 0; }},
        {"negative dp", "parallel.dp", "at least 1",
         [](ModelSpec &, TrainingSpec &, DeviceSpec &, ParallelDegrees &d) { d.dp = -2; }},
        {"too many layers", "model.layers", "at most",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &) { m.layers = 1 << 20; }},
        {"zero micro batch", "training.micro_batch", "at least 1",
         [](ModelSpec &, TrainingSpec &t, DeviceSpec &, ParallelDegrees &) { t.microBatch = 0; }},
        {"too many microbatches", "training.global_batch", "exceed the limit",
         [](ModelSpec &, TrainingSpec &t, DeviceSpec &, ParallelDegrees &) {
             t.globalBatch = 1 << 20;
         }},
        {"fp8 on a100", "device.peak_tflops_fp8", "positive",
         [](ModelSpec &, TrainingSpec &t, DeviceSpec &dev, ParallelDegrees &) {
             dev = *devicePreset("a100-80g");
             t.precision = Precision::Fp8;
         }},
        {"hbm bandwidth", "device.hbm_gbps", "positive",
         [](ModelSpec &, TrainingSpec &, DeviceSpec &dev, ParallelDegrees &) { dev.hbmGBps = 0; }},
        {"efficiency", "device.max_efficiency", "0..1",
         [](ModelSpec &, TrainingSpec &, DeviceSpec &dev, ParallelDegrees &) {
             dev.maxEfficiency = 1.5;
         }},
        {"zero seq", "model.seq", "at least 1",
         [](ModelSpec &m, TrainingSpec &, DeviceSpec &, ParallelDegrees &) { m.seq = 0; }},
    };
    return cases;
}
} // namespace

void TestWorkloadValidation::validationMessages_data()
{
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < badCases().size(); ++i)
        QTest::newRow(badCases()[i].label) << int(i);
}

namespace {
std::string errorFor(const BadCase &c, std::string *field)
{
    ModelSpec m = smallModel();
    TrainingSpec t = smallTraining();
    DeviceSpec dev = h100();
    ParallelDegrees d = degrees(1);
    c.mutate(m, t, dev, d);
    try {
        planWorkload(m, t, dev, d);
    } catch (const ScenarioError &e) {
        *field = e.field();
        return e.what();
    }
    return {};
}
} // namespace

void TestWorkloadValidation::validationMessages()
{
    QFETCH(int, index);
    const BadCase &c = badCases()[index];
    // The unmutated baseline is valid.
    QCOMPARE(planWorkload(smallModel(), smallTraining(), h100(), degrees(1)).stages.size(),
             std::size_t{1});
    std::string field;
    const std::string message = errorFor(c, &field);
    QVERIFY2(!message.empty(), "no ScenarioError");
    QCOMPARE(QString::fromStdString(field), QString(c.field));
    QVERIFY2(message.find(c.fragment) != std::string::npos, message.c_str());
    QVERIFY2(message.rfind(std::string(c.field) + ": ", 0) == 0, message.c_str());
}

void TestWorkloadValidation::validationMessagesDistinct()
{
    std::set<std::string> messages;
    for (const BadCase &c : badCases()) {
        std::string field;
        messages.insert(errorFor(c, &field));
    }
    QCOMPARE(messages.size(), badCases().size());
}

// ---------------------------------------------------------------------------------------------

void TestWorkloadValidation::collectiveNames()
{
    for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
                         Collective::AllToAll, Collective::SendRecv}) {
        Collective back = Collective::SendRecv;
        QVERIFY(parseCollective(collectiveName(c), back));
        QCOMPARE(int(back), int(c));
    }
    QCOMPARE(collectiveName(Collective::ReduceScatter), std::string_view("reduce-scatter"));
    Collective out = Collective::AllReduce;
    QVERIFY(!parseCollective("allreduce", out));
    QCOMPARE(int(out), int(Collective::AllReduce));
}

void TestWorkloadValidation::precisionAndRecomputeNames()
{
    for (Precision p : {Precision::Bf16, Precision::Fp16, Precision::Fp8}) {
        Precision back = Precision::Bf16;
        QVERIFY(parsePrecision(precisionName(p), back));
        QCOMPARE(int(back), int(p));
    }
    for (Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full}) {
        Recompute back = Recompute::None;
        QVERIFY(parseRecompute(recomputeName(r), back));
        QCOMPARE(int(back), int(r));
    }
    Precision p = Precision::Bf16;
    QVERIFY(!parsePrecision("int8", p));
    QCOMPARE(precisionName(Precision::Fp8), std::string_view("fp8"));
    QCOMPARE(recomputeName(Recompute::Selective), std::string_view("selective"));
    QCOMPARE(precisionBytes(Precision::Fp8), 1.0);
    QCOMPARE(precisionBytes(Precision::Bf16), 2.0);
}

QTEST_GUILESS_MAIN(TestWorkloadValidation)
#include "tst_workloadvalidation.moc"
