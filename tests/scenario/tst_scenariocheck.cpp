// checkScenario() (model/cost/scenariocheck.cpp) and the cost engine's constructor share one
// validation (prepareEvaluation(), model/cost/evaluationinputs.cpp): for every kind of bad
// scenario both refuse it with the same message; for a good one checkScenario fills in the
// slots the engine places and hands back a fabric the engine can share.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/scenariocheck.h"
#include "fixtures.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <functional>

using namespace railyard;

namespace {

std::string engineError(const Scenario &s)
{
    try {
        CostEngine engine(s);
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return {};
}

std::string checkError(Scenario s)
{
    try {
        checkScenario(s, nullptr);
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return {};
}

using Edit = std::function<void(Scenario &)>;

} // namespace

Q_DECLARE_METATYPE(Edit)

class TestScenarioCheck : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameRefusalAsTheEngine_data();
    void sameRefusalAsTheEngine();
    void fillsSlotsAndSharesTheFabric();
    void inferencePartIsChecked();
    void sameEvaluationInputs();
};

void TestScenarioCheck::sameRefusalAsTheEngine_data()
{
    QTest::addColumn<Edit>("edit");
    QTest::addColumn<QString>("field"); // the start of the message, what the GUI shows in red
    QTest::newRow("fabric") << Edit([](Scenario &s) {
        s.fabric.gpuToNic = { 0, 1 };
    }) << "fabric.gpu_to_nic";
    QTest::newRow("order") << Edit([](Scenario &s) { s.order = "tp-pp-xx"; }) << "parallel.order";
    QTest::newRow("layers over pp") << Edit([](Scenario &s) { s.model.layers = 81; })
                                    << "model.layers: 81 layers do not split evenly over pp 4";
    QTest::newRow("heads over tp") << Edit([](Scenario &s) {
        s.degrees.tp = 3;
        s.degrees.dp = 2;
        s.training.globalBatch = 32;
    }) << "model.heads: 64 attention heads do not split over tp 3";
    QTest::newRow("duplicate slot") << Edit([](Scenario &s) {
        for (int r = 0; r < 128; ++r)
            s.slots.push_back(r);
        s.slots[1] = 0;
    }) << "mapping:";
    QTest::newRow("rank on a failed server")
        << Edit([](Scenario &s) {
               s.failures.push_back({ FailedComponent::Kind::Server, 0 });
           })
        << "mapping: rank 0 (d 0, p 0, t 0) is on slot 0 (node000/gpu0), which is unusable: "
           "server:0 (node000) failed";
    QTest::newRow("interleaved micro-batches") << Edit([](Scenario &s) {
        s.training.schedule = ScheduleKind::Interleaved;
        s.training.interleave = 2;
        s.training.globalBatch = 24; // 6 micro-batches, not a multiple of pp 4
    }) << "training.";
    QTest::newRow("dualpipe micro-batches") << Edit([](Scenario &s) {
        s.training.schedule = ScheduleKind::DualPipe;
        s.training.globalBatch = 24; // 6 micro-batches, fewer than 2 pp = 8
    }) << "training.microbatches: the dualpipe schedule needs an even number of micro-batches";
    // The fp8 parameter all-gather is the distributed optimizer's, in an fp8 run.
    QTest::newRow("fp8 param gather on bf16") << Edit([](Scenario &s) {
        s.training.precision = Precision::Bf16;
        s.training.fp8ParamGather = true;
    }) << "training.fp8_param_gather: gathers fp8 parameters and needs precision fp8, got bf16";
    QTest::newRow("fp8 param gather without distributed optimizer") << Edit([](Scenario &s) {
        s.training.precision = Precision::Fp8;
        s.training.distributedOptimizer = false;
        s.training.fp8ParamGather = true;
    }) << "training.fp8_param_gather: is the distributed optimizer's parameter all-gather";
    QTest::newRow("zero-3 without distributed optimizer") << Edit([](Scenario &s) {
        s.training.distributedOptimizer = false;
        s.training.dpSharding = DpSharding::OptimGradsParams;
    }) << "training.dp_sharding:";
}

void TestScenarioCheck::sameRefusalAsTheEngine()
{
    QFETCH(Edit, edit);
    QFETCH(QString, field);
    Scenario s = fixtures::seed128();
    edit(s);
    const std::string fromEngine = engineError(s);
    const std::string fromCheck = checkError(s);
    QVERIFY2(QString::fromStdString(fromEngine).startsWith(field), fromEngine.c_str());
    QCOMPARE(QString::fromStdString(fromCheck), QString::fromStdString(fromEngine));
}

void TestScenarioCheck::fillsSlotsAndSharesTheFabric()
{
    Scenario s = fixtures::seed128();
    s.placement = Placement::Scattered;
    QVERIFY(s.slots.empty());
    const std::shared_ptr<const Fabric> fabric = checkScenario(s, nullptr);
    QVERIFY(fabric);
    QVERIFY(fabric->spec() == s.fabric);
    const CostEngine engine(s, fabric);
    QCOMPARE(s.slots, engine.mapping().slots());
    QCOMPARE(s.slots[1], 8); // scattered: rank r on server r mod 16, here GPU 0 of node001
    QVERIFY(engine.sharedFabric() == fabric); // an equal spec: the engine shares it
    // A fabric built from another spec is not reused: checkScenario builds the right one.
    Scenario other = s;
    other.fabric.servers = 17;
    other.slots.clear();
    QVERIFY(checkScenario(other, fabric) != fabric);
    QVERIFY(checkScenario(s, fabric) == fabric);
}

void TestScenarioCheck::inferencePartIsChecked()
{
    // Beyond the engine's checks: an edit that breaks the serving pools is refused too.
    Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/inference-disaggregated.json");
    checkScenario(s, nullptr);
    s.device.hbmBytes = 1e9;
    const std::string error = checkError(s);
    QVERIFY2(QString::fromStdString(error).startsWith("inference.pools[0]: pool 'prefill': "),
        error.c_str());
}

void TestScenarioCheck::sameEvaluationInputs()
{
    const Scenario base = fixtures::seed128();
    // What only names or places the job does not count.
    for (const std::function<void(Scenario &)> &edit :
        std::vector<std::function<void(Scenario &)>> { [](Scenario &s) { s.name = "other"; },
            [](Scenario &s) { s.description = "other"; },
            [](Scenario &s) { s.placement = Placement::Scattered; },
            [](Scenario &s) {
                s.slots = { 1, 0 };
            },
            [](Scenario &s) { s.mappingVersion = 7; },
            [](Scenario &s) { s.inference = InferenceSpec {}; } }) {
        Scenario s = base;
        edit(s);
        QVERIFY(railyard::sameEvaluationInputs(s, base));
        QVERIFY(!(s == base));
    }
    // Everything the engine is built from does.
    for (const std::function<void(Scenario &)> &edit :
        std::vector<std::function<void(Scenario &)>> { [](Scenario &s) { s.fabric.pxn = true; },
            [](Scenario &s) { s.degrees.dp = 2; }, [](Scenario &s) { s.order = "tp-cp-ep-pp-dp"; },
            [](Scenario &s) { s.model.seq = 2048; },
            [](Scenario &s) { s.training.dpOverlap = false; },
            [](Scenario &s) { s.device.hbmGBps = 1000.0; },
            [](Scenario &s) {
                s.failures.push_back({ FailedComponent::Kind::Server, 15 });
            } }) {
        Scenario s = base;
        edit(s);
        QVERIFY(!railyard::sameEvaluationInputs(s, base));
    }
    QVERIFY(sameFabricSpec(base.fabric, fixtures::seed128().fabric));
    QVERIFY(sameScenario(base, fixtures::seed128()));
}

QTEST_GUILESS_MAIN(TestScenarioCheck)
#include "tst_scenariocheck.moc"
