// The Scenario value (model/scenario/scenario.h): its header and the spec headers it gathers
// compile without Boost.Graph, and operator== compares every field, as the file stores them.

// First, before anything else can bring Boost in: the plain value headers alone.
#include "scenario/scenario.h"
#include "studies/inference.h"
#include "workload/inferencespec.h"
#if defined(BOOST_CONFIG_HPP) || defined(BOOST_GRAPH_ADJACENCY_LIST_HPP)
#error "scenario.h and the spec headers must not include Boost: the graph lives in fabric/fabric.h"
#endif

#include "fixtures.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <functional>

using namespace railyard;

namespace {

using Edit = std::function<void(Scenario &)>;

/// One edit of each kind of field, nested specs included.
std::vector<std::pair<const char *, Edit>> edits()
{
    return {
        { "name", [](Scenario &s) { s.name += "x"; } },
        { "description", [](Scenario &s) { s.description = "other"; } },
        { "fabric.servers", [](Scenario &s) { s.fabric.servers += 1; } },
        { "fabric.nic.gbps", [](Scenario &s) { s.fabric.nic.gbps = 200.0; } },
        { "fabric.fabric_latency_us", [](Scenario &s) { s.fabric.fabricPort.latencyUs = 0.7; } },
        { "fabric.gpu_to_nic",
            [](Scenario &s) {
                s.fabric.gpuToNic = { 0, 0, 1, 1, 2, 2, 3, 3 };
            } },
        { "fabric.server_names", [](Scenario &s) { s.fabric.serverNames.assign(16, "n"); } },
        { "fabric.pxn", [](Scenario &s) { s.fabric.pxn = !s.fabric.pxn; } },
        { "parallel.cp", [](Scenario &s) { s.degrees.cp = 2; } },
        { "parallel.order", [](Scenario &s) { s.order = "tp-cp-ep-pp-dp"; } },
        { "model.layers", [](Scenario &s) { s.model.layers += 1; } },
        { "model.routing", [](Scenario &s) { s.model.routing.kind = RoutingKind::Zipf; } },
        { "training.interleave", [](Scenario &s) { s.training.interleave = 2; } },
        { "training.flash_attention", [](Scenario &s) { s.training.flashAttention = false; } },
        { "device.hbm_gb", [](Scenario &s) { s.device.hbmBytes = 94e9; } },
        { "device.name", [](Scenario &s) { s.device.name = "h200"; } },
        { "mapping.placement", [](Scenario &s) { s.placement = Placement::RailAligned; } },
        { "mapping.slots",
            [](Scenario &s) {
                s.slots = { 1, 0 };
            } },
        { "mapping.version", [](Scenario &s) { s.mappingVersion = 2; } },
        { "failures",
            [](Scenario &s) {
                s.failures.push_back({ FailedComponent::Kind::Gpu, 3 });
            } },
        { "inference", [](Scenario &s) { s.inference = InferenceSpec {}; } },
        { "inference.pools",
            [](Scenario &s) {
                s.inference = InferenceSpec {};
                s.inference->pools.push_back({});
            } },
    };
}

} // namespace

class TestScenario : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyFieldCounts();
    void specsCompareByValue();
    void fileRoundTripIsEqual_data();
    void fileRoundTripIsEqual();
};

void TestScenario::everyFieldCounts()
{
    const Scenario base = fixtures::seed128();
    QVERIFY(base == fixtures::seed128());
    for (const auto &[field, edit] : edits()) {
        Scenario changed = base;
        edit(changed);
        QVERIFY2(!(changed == base), field);
        QVERIFY2(changed == changed, field);
    }
    // A pool edit inside an inference part counts too.
    Scenario a = base, b = base;
    a.inference = b.inference = InferenceSpec {};
    a.inference->pools.push_back({});
    b.inference->pools.push_back({});
    QVERIFY(a == b);
    b.inference->pools.front().tp = 2;
    QVERIFY(!(a == b));
}

void TestScenario::specsCompareByValue()
{
    FabricSpec f;
    FabricSpec g = f;
    QVERIFY(f == g);
    g.scaleUp.latencyUs += 0.1; // a nested LinkSpec field
    QVERIFY(!(f == g));
    ParallelDegrees d { 8, 4, 4, 1, 1 };
    QVERIFY(d == (ParallelDegrees { 8, 4, 4, 1, 1 }));
    QVERIFY(!(d == (ParallelDegrees { 8, 4, 4, 1, 2 })));
    ModelSpec m;
    ModelSpec n = m;
    n.routing.hotness = { 1.0 };
    QVERIFY(!(m == n));
    TrainingSpec t;
    TrainingSpec u = t;
    u.pipelineScatterGather = !u.pipelineScatterGather;
    QVERIFY(!(t == u));
    DeviceSpec x;
    DeviceSpec y = x;
    y.streamingMultiprocessors = 108;
    QVERIFY(!(x == y));
}

void TestScenario::fileRoundTripIsEqual_data()
{
    QTest::addColumn<QString>("sample");
    for (const char *name : { "seed-128", "seed-128-tor", "seed-128-tor-ppdp",
             "seed-128-tor-failed-server3", "seed-128-failed-server3", "mixtral-ep8-zipf",
             "inference-disaggregated", "inference-minimal", "dgx-h100-4su" })
        QTest::newRow(name) << QString::fromLatin1(name);
}

void TestScenario::fileRoundTripIsEqual()
{
    // Whatever a file stores survives save and load, so == after a round trip means the file
    // writes every field == compares (and the other way round).
    QFETCH(QString, sample);
    const Scenario s
        = loadScenario(RAILYARD_SOURCE_DIR "/samples/" + sample.toStdString() + ".json");
    const Scenario back = parseScenario(scenarioToText(s));
    QVERIFY(back == s);
}

QTEST_GUILESS_MAIN(TestScenario)
#include "tst_scenario.moc"
