// prepareEvaluation() (cost/evaluationinputs.h) builds the layout and the workload plan on a
// second thread while it builds the fabric (from 16,384 GPUs, or when told to): the inputs it
// gives, and the refusal it throws when the scenario has more than one fault, are those of
// building them one after the other.
#include "base/scenarioerror.h"
#include "cost/evaluationinputs.h"
#include "cost/scenariocheck.h"
#include "fabric/degradation.h"
#include "fixtures.h"
#include "randomscenario.h"

#include <QTest>

#include <string>
#include <vector>

using namespace railyard;

class TestEvaluationInputs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parallelEqualsSerial();
    void refusalIsTheSerialOne();
    void parallelFromSixteenThousandGpus();
    void shapeForGenerate();
};

namespace {

/// What prepareEvaluation() gave, as comparable values; "refused: ..." when it threw.
struct PreparedInputs
{
    std::string refusal;
    std::vector<FabricLink> links;
    std::vector<std::string> names;
    std::vector<std::vector<std::vector<int>>> groups; ///< per GroupKind
    int microbatches = 0;
    std::vector<double> stageFigures; ///< per stage: layers, FLOPs and times
    std::vector<double> opFigures; ///< per op: its stage, dim and bytes
    double modelFlops = 0.0;
    std::vector<int> mapped; ///< the mapping's slots
};

PreparedInputs prepared(const Scenario &s, PrepareThreads threads)
{
    PreparedInputs p;
    try {
        const EvaluationInputs in = prepareEvaluation(s, nullptr, threads);
        const Fabric::LinkRange links = in.fabric->links();
        p.links.assign(links.begin(), links.end());
        for (int v = 0; v < static_cast<int>(boost::num_vertices(in.fabric->graph())); ++v)
            p.names.push_back(in.fabric->node(v).name);
        for (const GroupKind k : { GroupKind::Tp, GroupKind::Pp, GroupKind::Dp, GroupKind::Cp,
                 GroupKind::Ep, GroupKind::DpCp, GroupKind::TpPp, GroupKind::ExpertDp })
            p.groups.push_back(in.layout.groups(k).copies());
        p.microbatches = in.plan.microbatches;
        for (const StageCompute &c : in.plan.stages)
            p.stageFigures.insert(p.stageFigures.end(),
                { double(c.layers), double(c.moeLayers), c.forwardFlops, c.backwardFlops,
                    c.forwardTime, c.backwardTime, c.weightGradTime });
        for (const CommOp &op : in.plan.ops)
            p.opFigures.insert(
                p.opFigures.end(), { double(op.stage), double(index(op.dim)), op.bytes });
        p.modelFlops = in.plan.modelFlopsPerIteration;
        p.mapped = in.mapping.slots();
    } catch (const ScenarioError &e) {
        p.refusal = std::string("refused: ") + e.what();
    }
    return p;
}

void compare(const PreparedInputs &a, const PreparedInputs &b)
{
    QCOMPARE(a.refusal, b.refusal);
    QCOMPARE(a.links.size(), b.links.size());
    for (std::size_t i = 0; i < a.links.size(); ++i) {
        const FabricLink &x = a.links[i], &y = b.links[i];
        QCOMPARE(std::vector<int>({ x.id, x.reverse, x.src, x.dst, x.ports, int(x.tier) }),
            std::vector<int>({ y.id, y.reverse, y.src, y.dst, y.ports, int(y.tier) }));
        QCOMPARE(x.bandwidth, y.bandwidth);
        QCOMPARE(x.latency, y.latency);
    }
    QCOMPARE(a.names, b.names);
    QCOMPARE(a.groups, b.groups);
    QCOMPARE(a.microbatches, b.microbatches);
    QCOMPARE(a.stageFigures, b.stageFigures);
    QCOMPARE(a.opFigures, b.opFigures);
    QCOMPARE(a.modelFlops, b.modelFlops);
    QCOMPARE(a.mapped, b.mapped);
}

} // namespace

/// Random scenarios (the property tests' generator), each prepared on one thread and on two:
/// the same fabric, layout, plan and mapping, or the same refusal.
void TestEvaluationInputs::parallelEqualsSerial()
{
    int accepted = 0;
    for (std::uint32_t seed = 1; seed <= 40; ++seed) {
        const Scenario s = fixtures::randomScenario(seed);
        const PreparedInputs serial = prepared(s, PrepareThreads::Serial);
        const PreparedInputs parallel = prepared(s, PrepareThreads::Parallel);
        compare(serial, parallel);
        if (serial.refusal.empty()) {
            ++accepted;
            QVERIFY(!serial.links.empty());
            QVERIFY(!serial.stageFigures.empty());
        }
    }
    QVERIFY(accepted >= 20); // most random scenarios are valid (randomscenario.h)
}

/// A scenario with two faults, one in the fabric and one the layout thread meets (the overlap
/// rule): on two threads the refusal is still the fabric's, the one the serial order meets
/// first; with the fabric mended, the overlap rule's in both.
void TestEvaluationInputs::refusalIsTheSerialOne()
{
    Scenario s = fixtures::seed128();
    s.training.overlapParamGather = true;
    s.training.distributedOptimizer = false;
    const PreparedInputs overlapOnly = prepared(s, PrepareThreads::Parallel);
    QVERIFY2(overlapOnly.refusal.find("training.overlap_param_gather") != std::string::npos,
        overlapOnly.refusal.c_str());
    compare(prepared(s, PrepareThreads::Serial), overlapOnly);

    s.fabric.gpusPerServer = 0;
    const PreparedInputs serial = prepared(s, PrepareThreads::Serial);
    QVERIFY2(serial.refusal.find("fabric") != std::string::npos, serial.refusal.c_str());
    for (int run = 0; run < 5; ++run) // whichever thread finishes first
        compare(serial, prepared(s, PrepareThreads::Parallel));
}

/// Auto takes the second thread from 16,384 GPUs (the scaling runs), not below.
void TestEvaluationInputs::parallelFromSixteenThousandGpus()
{
    Scenario s = fixtures::seed128();
    QVERIFY(!evaluationInputsInParallel(s, PrepareThreads::Auto));
    QVERIFY(evaluationInputsInParallel(s, PrepareThreads::Parallel));
    s.fabric.servers = 2048;
    s.fabric.gpusPerServer = 8;
    QVERIFY(evaluationInputsInParallel(s, PrepareThreads::Auto));
    QVERIFY(!evaluationInputsInParallel(s, PrepareThreads::Serial));
    s.fabric.servers = 2047;
    QVERIFY(!evaluationInputsInParallel(s, PrepareThreads::Auto));
}

/// FabricParts::Shape (generate's check): the vertices and NIC attachments alone, no links, on
/// one thread or two, and the same mapping as on the whole fabric; a scenario with a link
/// degradation is still checked on the whole fabric, which its links need.
void TestEvaluationInputs::shapeForGenerate()
{
    Scenario s = fixtures::seed128();
    const EvaluationInputs whole = prepareEvaluation(s, nullptr);
    QVERIFY(whole.fabric->linkCount() > 0);
    for (const PrepareThreads threads : { PrepareThreads::Serial, PrepareThreads::Parallel }) {
        const EvaluationInputs shape = prepareEvaluation(s, nullptr, threads, FabricParts::Shape);
        QCOMPARE(shape.fabric->linkCount(), 0);
        QCOMPARE(
            boost::num_vertices(shape.fabric->graph()), boost::num_vertices(whole.fabric->graph()));
        QCOMPARE(shape.mapping.slots(), whole.mapping.slots());
    }
    Scenario checked = s;
    QCOMPARE(checkScenario(checked, nullptr, FabricParts::Shape)->linkCount(), 0);
    QCOMPARE(checked.slots, whole.mapping.slots());

    Degradation nic;
    nic.kind = Degradation::Kind::Nic;
    nic.index = 0;
    nic.bandwidthFactor = 0.5;
    s.degradations.parts.push_back(nic);
    QCOMPARE(
        prepareEvaluation(s, nullptr, PrepareThreads::Auto, FabricParts::Shape).fabric->linkCount(),
        whole.fabric->linkCount());
}

QTEST_GUILESS_MAIN(TestEvaluationInputs)
#include "tst_evaluationinputs.moc"
