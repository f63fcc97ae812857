// Tests of the inference model (model/studies/inference.cpp): KV bytes per request, the KV
// transfer over the fabric, the Minimal / Distributed classification and the loader's checks,
// each against numbers derived by hand in the comments.

#include "base/scenarioerror.h"
#include "fabric/fabric.h"
#include "scenario/scenariofile.h"
#include "studies/inference.h"
#include "workload/inferencecompute.h"
#include "workload/presets.h"
#include "workload/workloadplan.h"

#include <QFile>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace railyard;

namespace {

/// Two DGX-H100-like servers (8 GPUs, 8 rails) on a rail-optimised fabric, Llama-3-8B, no pools.
Scenario baseScenario(const char *model = "llama3-8b", int servers = 2)
{
    Scenario s;
    s.name = "inference-test";
    s.fabric.servers = servers;
    s.fabric.gpusPerServer = 8;
    s.degrees = { 8, 1, 1, 1, 1 };
    s.model = *modelPreset(model);
    s.device = *devicePreset("h100-sxm");
    InferenceSpec inf;
    inf.requestRate = 4.0;
    inf.promptTokens = 2048;
    inf.outputTokens = 128;
    inf.batch = 8;
    s.inference = inf;
    return s;
}

PoolSpec pool(const char *name, PoolRole role, int tp, std::vector<int> slots, int pp = 1)
{
    PoolSpec p;
    p.name = name;
    p.role = role;
    p.tp = tp;
    p.pp = pp;
    p.slots = std::move(slots);
    return p;
}

std::vector<int> range(int first, int count)
{
    std::vector<int> v;
    for (int i = 0; i < count; ++i)
        v.push_back(first + i);
    return v;
}

InferenceReport evaluate(const Scenario &s)
{
    const Fabric fabric = Fabric::build(s.fabric);
    return evaluateInference(s, fabric);
}

constexpr double kNic = 400e9 / 8.0; // 400 Gbit/s NIC port, bytes/s
constexpr double kNvlink = 3600e9 / 8.0; // one GPU's NVLink port, bytes/s
constexpr double kPcieUs = 0.5, kNicUs = 1.0, kFabricUs = 0.6, kScaleUpUs = 0.6; // defaults
/// Llama-3-8B: 2 (K,V) x 32 layers x 8 KV heads x 128 head dim x 2 bytes (bf16).
constexpr double kLlama8bKvPerToken = 2.0 * 32 * 8 * 128 * 2;

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

std::string errorOf(const nlohmann::json &j)
{
    try {
        parseScenario(j.dump());
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestInference : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void kvBytesPerRequest_data();
    void kvBytesPerRequest();
    void transferTimeByPath_data();
    void transferTimeByPath();
    void tensorShardsRegroupWhenTpDiffers();
    void kvOverNvlinkInsideOneServer();
    void linkLoadAtTheRequestRate();
    void latenciesAddUp();
    void overloadIsOfferedNotBusy();
    void weightsMatchTheTrainingLedger();
    void headDimSetsCacheAndWeights();
    void classification_data();
    void classification();
    void loaderErrors_data();
    void loaderErrors();
    void samplesRoundTripByteIdentical_data();
    void samplesRoundTripByteIdentical();
    void trainingScenarioHasNoInferenceSection();
    void poolsComputeOnTheirServersDevices();
};

void TestInference::kvBytesPerRequest_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<int>("kvPrecision");
    QTest::addColumn<double>("perToken");
    // 2 x layers x kv_heads x (hidden / heads) x bytes [Kwon23; GQA, Ainslie23].
    QTest::newRow("llama3-8b GQA bf16")
        << "llama3-8b" << int(Precision::Bf16) << 2.0 * 32 * 8 * 128 * 2;
    QTest::newRow("llama3-70b GQA bf16")
        << "llama3-70b" << int(Precision::Bf16) << 2.0 * 80 * 8 * 128 * 2;
    QTest::newRow("llama3-70b GQA fp8")
        << "llama3-70b" << int(Precision::Fp8) << 2.0 * 80 * 8 * 128 * 1;
    // GPT-3 has no GQA: kv_heads = heads = 96.
    QTest::newRow("gpt3-175b MHA bf16")
        << "gpt3-175b" << int(Precision::Bf16) << 2.0 * 96 * 96 * 128 * 2;
}

void TestInference::kvBytesPerRequest()
{
    QFETCH(QString, model);
    QFETCH(int, kvPrecision);
    QFETCH(double, perToken);
    Scenario s = baseScenario(qPrintable(model));
    s.inference->kvPrecision = static_cast<Precision>(kvPrecision);
    s.inference->batch = 1;
    s.inference->pools = { pool("serve", PoolRole::Colocated, 8, range(0, 8)) };
    const InferenceReport r = evaluate(s);
    QCOMPARE(r.kvBytesPerToken, perToken);
    QCOMPARE(r.kvBytesPerRequest, perToken * 2048);
    QCOMPARE(r.kvBytesPerRequestFinal, perToken * (2048 + 128));
}

void TestInference::transferTimeByPath_data()
{
    QTest::addColumn<int>("decodeSlot");
    QTest::addColumn<int>("tier");
    QTest::addColumn<double>("latencyUs");
    // node000/gpu0 (rail 0) -> node001/gpu0 (rail 0): GPU -PCIe-> NIC -> leaf -> NIC -PCIe-> GPU.
    QTest::newRow("same rail: one leaf hop")
        << 8 << int(PathTier::SameLeaf) << 2 * kPcieUs + 2 * kNicUs;
    // node000/gpu0 (rail 0) -> node001/gpu1 (rail 1): leaf 0 -> spine -> leaf 1 adds two
    // switch-to-switch hops.
    QTest::newRow("cross rail: via the spine")
        << 9 << int(PathTier::ViaSpine) << 2 * kPcieUs + 2 * kNicUs + 2 * kFabricUs;
}

void TestInference::transferTimeByPath()
{
    QFETCH(int, decodeSlot);
    QFETCH(int, tier);
    QFETCH(double, latencyUs);
    Scenario s = baseScenario();
    s.inference->pools = { pool("prefill", PoolRole::Prefill, 1, { 0 }),
        pool("decode", PoolRole::Decode, 1, { decodeSlot }) };
    const InferenceReport r = evaluate(s);
    const double bytes = kLlama8bKvPerToken * 2048;
    QCOMPARE(r.flows.size(), std::size_t { 1 });
    QCOMPARE(int(r.flows[0].tier), tier);
    QCOMPARE(r.flows[0].bytes, bytes);
    // One flow: the 400G NIC (50 GB/s, below PCIe's 64 GB/s and any spine share) is the
    // bottleneck; time = bytes / NIC + path latency.
    QVERIFY(near(r.kvTransferLatency, latencyUs * 1e-6));
    QVERIFY(near(r.kvTransferTime, bytes / kNic + latencyUs * 1e-6));
    QVERIFY(near(r.kvBytesPerTier[tier], bytes));
    QVERIFY(!r.minimal);
    QCOMPARE(r.reasons.size(), std::size_t { 1 });
    QVERIFY(QString::fromStdString(r.reasons[0])
                .startsWith("KV transfer prefill -> decode crosses hosts"));
}

void TestInference::tensorShardsRegroupWhenTpDiffers()
{
    // Prefill TP8 on node000 holds KV head t on GPU t; decode TP4 replicas on node001 hold heads
    // [2u, 2u+2) on GPU u. So prefill GPU t sends its 1/8 to decode GPU t/2: two shards land on
    // each decode GPU, whose NIC then carries 1/4 of the request; odd t change rail (spine).
    Scenario s = baseScenario();
    s.inference->pools = { pool("prefill", PoolRole::Prefill, 8, range(0, 8)),
        pool("decode", PoolRole::Decode, 4, range(8, 8)) };
    const InferenceReport r = evaluate(s);
    const double bytes = kLlama8bKvPerToken * 2048;
    QCOMPARE(r.pools[1].replicas, 2);
    QCOMPARE(r.flows.size(), std::size_t { 8 });
    for (const KvFlow &f : r.flows)
        QCOMPARE(f.bytes, bytes / 8);
    QVERIFY(near(
        r.kvTransferTime, (bytes / 4) / kNic + (2 * kPcieUs + 2 * kNicUs + 2 * kFabricUs) * 1e-6));
    // Replica 0 (GPUs 8..11): only t = 0 stays on its rail -> 1/8 same leaf, 7/8 via spine;
    // replica 1 (GPUs 12..15): only t = 7 -> the same split. Mean over the two pairs.
    QVERIFY(near(r.kvBytesPerTier[int(PathTier::SameLeaf)], bytes / 8));
    QVERIFY(near(r.kvBytesPerTier[int(PathTier::ViaSpine)], 7 * bytes / 8));
}

void TestInference::kvOverNvlinkInsideOneServer()
{
    // Prefill TP4 on GPUs 0-3, decode TP4 on GPUs 4-7 of node000: shard t -> shard t over
    // NVLink, 1/4 of the bytes each on its own 450 GB/s port; latency GPU -> NVSwitch -> GPU.
    Scenario s = baseScenario();
    s.inference->pools = { pool("prefill", PoolRole::Prefill, 4, range(0, 4)),
        pool("decode", PoolRole::Decode, 4, range(4, 4)) };
    const InferenceReport r = evaluate(s);
    const double bytes = kLlama8bKvPerToken * 2048;
    QVERIFY(near(r.kvTransferTime, (bytes / 4) / kNvlink + 2 * kScaleUpUs * 1e-6));
    QVERIFY(near(r.kvBytesPerTier[int(PathTier::ScaleUp)], bytes));
    QVERIFY(r.minimal);
    QCOMPARE(r.classification(), std::string("Minimal Inference"));
    QVERIFY(r.reasons.empty());
}

void TestInference::linkLoadAtTheRequestRate()
{
    // One prefill GPU, one decode GPU on the same rail: every request's KV crosses node000's
    // NIC 0 uplink; at 4 requests/s it carries 4 x bytes per second. Its utilisation (over
    // 50 GB/s) beats the PCIe hop's (64 GB/s), so it is the hottest KV link.
    Scenario s = baseScenario();
    s.inference->pools = { pool("prefill", PoolRole::Prefill, 1, { 0 }),
        pool("decode", PoolRole::Decode, 1, { 8 }) };
    const Fabric fabric = Fabric::build(s.fabric);
    const InferenceReport r = evaluateInference(s, fabric);
    const double bytes = kLlama8bKvPerToken * 2048;
    const KvLinkLoad *hot = r.hottestLink();
    QVERIFY(hot);
    const int nicUp
        = fabric.linkBetween(fabric.nicVertex(0, 0), fabric.leafVertex(fabric.leafOfNic(0, 0)));
    const int nicDown
        = fabric.linkBetween(fabric.leafVertex(fabric.leafOfNic(1, 0)), fabric.nicVertex(1, 0));
    QVERIFY(hot->link == nicUp || hot->link == nicDown);
    QVERIFY(near(hot->bytesPerSecond, 4.0 * bytes));
    QVERIFY(near(hot->utilisation, 4.0 * bytes / kNic));
    // PCIe, NIC up, NIC down, PCIe: four directed links, nothing else.
    QCOMPARE(r.kvLinks.size(), std::size_t { 4 });
}

void TestInference::latenciesAddUp()
{
    Scenario s = baseScenario();
    s.inference->pools = { pool("prefill", PoolRole::Prefill, 8, range(0, 8)),
        pool("decode", PoolRole::Decode, 8, range(8, 8)) };
    const InferenceReport r = evaluate(s);
    QVERIFY(r.prefillTime > 0.0 && r.tpot > 0.0);
    // Definitions [Zhong24, Patel24]: TTFT = prefill + KV; the other output - 1 tokens one
    // decode step each; the KV share is transfer / end-to-end.
    QVERIFY(near(r.ttft, r.prefillTime + r.kvTransferTime));
    QVERIFY(near(r.endToEnd, r.ttft + 127 * r.tpot));
    QVERIFY(near(r.criticalPathShare, r.kvTransferTime / r.endToEnd));
    QVERIFY(near(r.ttftShare, r.kvTransferTime / r.ttft));
    // TP8 -> TP8 on the same rails: 8 parallel one-leaf flows of 1/8 each.
    const double bytes = kLlama8bKvPerToken * 2048;
    QVERIFY(near(r.kvTransferTime, bytes / 8 / kNic + (2 * kPcieUs + 2 * kNicUs) * 1e-6));
    // Decode is memory-bound: a step costs at least the weight bytes over the HBM roof.
    const double hbm = 3350e9 * 0.85;
    QVERIFY(r.tpot > r.pools[1].weightBytesPerGpu / hbm);
    // Prefill is compute-bound: at least 2 x parameters x prompt FLOPs over the 8 GPUs' peak.
    const double params = r.pools[0].weightBytesPerGpu * 8 / 2.0;
    QVERIFY(r.prefillTime > 2.0 * params * 2048 / (8 * 989e12));
    // Busy share: 4 requests/s on one prefill replica.
    QVERIFY(near(r.pools[0].utilisation, 4.0 * r.pools[0].stepTime));
}

void TestInference::overloadIsOfferedNotBusy()
{
    // Far more requests than one GPU each way serves: the prefill replica is offered
    // rate x prompt time of work a second (rho = lambda x service time), well above 1, and the
    // NIC uplink rate x KV bytes over its bandwidth. Nothing is busier than 100 %: the busy
    // share stops at 1, the offer is reported beside it, and the warnings name the offer.
    Scenario s = baseScenario();
    s.inference->requestRate = 400.0;
    s.inference->pools = { pool("prefill", PoolRole::Prefill, 1, { 0 }),
        pool("decode", PoolRole::Decode, 1, { 8 }) };
    const Fabric fabric = Fabric::build(s.fabric);
    const InferenceReport r = evaluateInference(s, fabric);
    const PoolResult &prefill = r.pools[0];
    QVERIFY(near(prefill.offeredLoad, 400.0 * prefill.stepTime));
    QVERIFY(prefill.offeredLoad > 1.0);
    QCOMPARE(prefill.utilisation, 1.0);
    const double bytes = kLlama8bKvPerToken * 2048;
    const KvLinkLoad *hot = r.hottestLink();
    QVERIFY(hot);
    QVERIFY(near(hot->offeredLoad, 400.0 * bytes / kNic));
    QVERIFY(hot->offeredLoad > 1.0);
    QCOMPARE(hot->utilisation, 1.0);
    for (const KvLinkLoad &l : r.kvLinks)
        QVERIFY(l.utilisation <= 1.0 && near(l.utilisation, std::min(1.0, l.offeredLoad)));
    char overload[160];
    std::snprintf(overload, sizeof overload, "pool 'prefill' is overloaded: %.2fx its capacity",
        prefill.offeredLoad);
    bool named = false;
    for (const std::string &w : r.warnings)
        named = named || w.find(overload) != std::string::npos;
    QVERIFY2(named, overload);
    // A pool below its capacity keeps busy == offered.
    s.inference->requestRate = 0.5;
    const InferenceReport light = evaluateInference(s, fabric);
    QVERIFY(light.pools[0].offeredLoad < 1.0);
    QCOMPARE(light.pools[0].utilisation, light.pools[0].offeredLoad);
}

void TestInference::weightsMatchTheTrainingLedger()
{
    // The serving weights per GPU equal planWorkload()'s bf16 parameter bytes for the same split.
    Scenario s = baseScenario("llama3-70b");
    s.inference->batch = 1;
    s.inference->pools = { pool("serve", PoolRole::Colocated, 8, range(0, 16), 2) };
    const InferenceReport r = evaluate(s);
    TrainingSpec training;
    training.globalBatch = 8;
    const WorkloadPlan plan = planWorkload(s.model, training, s.device, { 8, 2, 1, 1, 1 });
    const double ledger = std::max(plan.memory[0].parameters, plan.memory[1].parameters);
    QVERIFY(near(r.pools[0].weightBytesPerGpu, ledger));
}

void TestInference::headDimSetsCacheAndWeights()
{
    // A model whose heads x head_dim is not its hidden size (as Qwen3 and GPT-OSS set it):
    // Llama-3-8B's 32 query and 8 KV heads at head_dim 160, 5,120 wide against hidden 4,096.
    // The KV cache per token is 2 x layers x kv_heads x head_dim x bytes [Kwon23], and the
    // serving weights are the training ledger's (Q and O 4,096 x 5,120, K and V 4,096 x 1,280).
    Scenario s = baseScenario("llama3-8b");
    s.model.headDim = 160;
    s.inference->batch = 1;
    s.inference->pools = { pool("serve", PoolRole::Colocated, 8, range(0, 8)) };
    const InferenceReport r = evaluate(s);
    QCOMPARE(r.kvBytesPerToken, 2.0 * 32 * 8 * 160 * 2);
    TrainingSpec training;
    training.globalBatch = 8;
    const WorkloadPlan plan = planWorkload(s.model, training, s.device, { 8, 1, 1, 1, 1 });
    QVERIFY(near(r.pools[0].weightBytesPerGpu, plan.memory[0].parameters));
    // The attention's extra width: per layer 2 x 4,096 x (5,120 - 4,096) + 2 x 4,096 x 8 x 32
    // more parameters than at head_dim 128, an eighth per GPU, 2 bytes each.
    Scenario base = s;
    base.model.headDim = 0;
    const InferenceReport plain = evaluate(base);
    const double perLayer = 2.0 * 4096 * 1024 + 2.0 * 4096 * 8 * 32;
    QVERIFY(near(
        r.pools[0].weightBytesPerGpu - plain.pools[0].weightBytesPerGpu, 32 * perLayer / 8 * 2));
}

void TestInference::classification_data()
{
    QTest::addColumn<QString>("layout");
    QTest::addColumn<bool>("minimal");
    QTest::addColumn<QString>("reason");
    QTest::newRow("colocated TP8 on one server") << "colocated" << true << "";
    QTest::newRow("colocated TP8 x 2 replicas on 2 servers") << "replicas" << true << "";
    QTest::newRow("prefill/decode on one server") << "split-local" << true << "";
    QTest::newRow("prefill node000, decode node001")
        << "disaggregated" << false
        << "KV transfer prefill -> decode crosses hosts (pool 'prefill' on node000 -> pool "
           "'decode' on node001)";
    QTest::newRow("TP16 spans two servers")
        << "tp16" << false << "pool 'serve': TP all-reduce crosses hosts (node000, node001)";
    QTest::newRow("TP8 x PP2 spans two servers")
        << "pp2" << false << "pool 'serve': PP stage boundary crosses hosts (node000, node001)";
}

void TestInference::classification()
{
    QFETCH(QString, layout);
    QFETCH(bool, minimal);
    QFETCH(QString, reason);
    Scenario s = baseScenario("llama3-70b");
    s.inference->batch = 4;
    auto &pools = s.inference->pools;
    if (layout == "colocated")
        pools = { pool("serve", PoolRole::Colocated, 8, range(0, 8)) };
    else if (layout == "replicas")
        pools = { pool("serve", PoolRole::Colocated, 8, range(0, 16)) };
    else if (layout == "split-local")
        pools = { pool("prefill", PoolRole::Prefill, 4, range(0, 4)),
            pool("decode", PoolRole::Decode, 4, range(4, 4)) };
    else if (layout == "disaggregated")
        pools = { pool("prefill", PoolRole::Prefill, 8, range(0, 8)),
            pool("decode", PoolRole::Decode, 8, range(8, 8)) };
    else if (layout == "tp16") {
        s.model = *modelPreset("gpt3-175b"); // 96 heads and KV heads split over 16
        pools = { pool("serve", PoolRole::Colocated, 16, range(0, 16)) };
    } else if (layout == "pp2")
        pools = { pool("serve", PoolRole::Colocated, 8, range(0, 16), 2) };
    const InferenceReport r = evaluate(s);
    QCOMPARE(r.minimal, minimal);
    QCOMPARE(QString::fromStdString(r.classification()),
        minimal ? QStringLiteral("Minimal Inference") : QStringLiteral("Distributed Inference"));
    if (minimal) {
        QVERIFY(r.reasons.empty());
        for (const KvFlow &f : r.flows)
            QCOMPARE(int(f.tier), int(PathTier::ScaleUp));
    } else {
        QCOMPARE(r.reasons.size(), std::size_t { 1 });
        QCOMPARE(QString::fromStdString(r.reasons[0]), reason);
    }
}

void TestInference::loaderErrors_data()
{
    QTest::addColumn<QString>("patch"); // JSON merge patch onto the inference section
    QTest::addColumn<QString>("message");
    QTest::newRow("zero rate") << R"({"request_rate": 0})"
                               << "inference.request_rate:";
    QTest::newRow("negative rate") << R"({"request_rate": -2})"
                                   << "inference.request_rate:";
    QTest::newRow("zero prompt") << R"({"prompt_tokens": 0})"
                                 << "inference.prompt_tokens:";
    QTest::newRow("server out of range")
        << R"({"pools": [{"name": "p", "role": "colocated", "tp": 8, "servers": [5]}]})"
        << "inference.pools[0].servers[0]: server 5 does not exist (the fabric has 2 servers)";
    QTest::newRow("server shared")
        << R"({"pools": [{"name": "prefill", "role": "prefill", "tp": 8, "servers": [0]},
                         {"name": "decode", "role": "decode", "tp": 8, "servers": [0]}]})"
        << "inference.pools[1].servers[0]: server 0 is already used by pool 'prefill'";
    QTest::newRow("decode without prefill")
        << R"({"pools": [{"name": "decode", "role": "decode", "tp": 8, "servers": [0]}]})"
        << "inference.pools: a decode pool needs a prefill pool";
    QTest::newRow("prefill without decode")
        << R"({"pools": [{"name": "prefill", "role": "prefill", "tp": 8, "servers": [0]}]})"
        << "inference.pools: a prefill pool needs a decode pool";
    QTest::newRow("degrees vs GPUs")
        << R"({"pools": [{"name": "p", "role": "colocated", "tp": 4, "pp": 4, "servers": [0]}]})"
        << "inference.pools[0]: 8 GPUs do not hold whole replicas of tp 4 x pp 4 = 16 GPUs";
    QTest::newRow("KV heads vs tp")
        << R"({"pools": [{"name": "p", "role": "colocated", "tp": 16, "servers": [0, 1]}]})"
        << "inference.pools[0].tp: 8 key/value heads do not split over tp 16";
    QTest::newRow("weights do not fit")
        << R"({"pools": [{"name": "p", "role": "colocated", "tp": 1, "slots": [0]}]})"
        << "inference.pools[0]: pool 'p': 141.1 GB weights";
    QTest::newRow("KV cache does not fit")
        << R"({"batch": 4096, "pools": [{"name": "p", "role": "colocated", "tp": 8, "servers": [0]}]})"
        << "KV cache per GPU exceed the 80.0 GB of HBM (batch 4096)";
    QTest::newRow("servers and slots")
        << R"({"pools": [{"name": "p", "role": "colocated", "tp": 8, "servers": [0], "slots": [1]}]})"
        << "inference.pools[0]: give the pool's GPUs as either";
    QTest::newRow("colocated mixed with prefill")
        << R"({"pools": [{"name": "a", "role": "colocated", "tp": 8, "servers": [0]},
                         {"name": "b", "role": "prefill", "tp": 8, "servers": [1]}]})"
        << "inference.pools: colocated pools cannot be mixed";
    QTest::newRow("unknown role")
        << R"({"pools": [{"name": "p", "role": "decoder", "tp": 8, "servers": [0]}]})"
        << "inference.pools[0].role:";
    QTest::newRow("misspelt key") << R"({"prompt_token": 5})"
                                  << "inference.prompt_token: unknown field";
}

void TestInference::loaderErrors()
{
    QFETCH(QString, patch);
    QFETCH(QString, message);
    Scenario s = baseScenario("llama3-70b");
    s.inference->pools = { pool("serve", PoolRole::Colocated, 8, {}) };
    s.inference->pools[0].slots.clear();
    s.inference->pools[0].servers = { 0 };
    nlohmann::json j = nlohmann::json::parse(scenarioToText(s));
    QVERIFY(errorOf(j).empty()); // the base loads
    j["inference"].merge_patch(nlohmann::json::parse(patch.toStdString()));
    const QString error = QString::fromStdString(errorOf(j));
    QVERIFY2(error.contains(message), qPrintable(error));
    QVERIFY(!error.contains('\n'));
}

void TestInference::samplesRoundTripByteIdentical_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("disaggregated") << "inference-disaggregated.json";
    QTest::newRow("minimal") << "inference-minimal.json";
    QTest::newRow("mixed devices") << "inference-mixed-devices.json";
}

void TestInference::samplesRoundTripByteIdentical()
{
    QFETCH(QString, file);
    QFile f(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const std::string text = f.readAll().toStdString();
    const Scenario s = parseScenario(text);
    QVERIFY(s.inference.has_value());
    QCOMPARE(scenarioToText(s), text);
}

void TestInference::trainingScenarioHasNoInferenceSection()
{
    Scenario s = baseScenario();
    s.inference.reset();
    const std::string text = scenarioToText(s);
    QVERIFY(text.find("\"inference\":") == std::string::npos);
    QVERIFY(!parseScenario(text).inference.has_value());
}

void TestInference::poolsComputeOnTheirServersDevices()
{
    // Mixed devices (docs/mixed-devices.md): a TP8 prefill pool on node000 (H100) and a TP8
    // decode pool on node001 (H200). Each pool's compute is the compute model on its own
    // device's roofline; its TP all-reduces stay the fabric's NVLink. So the decode step differs
    // from the all-H100 deployment's by exactly decodeCompute(H200) - decodeCompute(H100) and
    // the prefill not at all.
    Scenario h100 = baseScenario("llama3-70b");
    h100.inference->pools = { pool("prefill", PoolRole::Prefill, 8, range(0, 8)),
        pool("decode", PoolRole::Decode, 8, range(8, 8)) };
    Scenario mixed = h100;
    DevicePool decodeServers;
    decodeServers.device = "h200";
    decodeServers.servers = { 1 };
    mixed.fabric.devicePools = { decodeServers };
    const InferenceReport a = evaluateInference(h100, Fabric::build(h100.fabric));
    const InferenceReport b = evaluateInference(mixed, Fabric::build(mixed.fabric));
    const InferenceSpec &spec = *h100.inference;
    const PoolSpec &decode = spec.pools[1];
    const double ctx = spec.promptTokens + 0.5 * spec.outputTokens; // inference.cpp's mean context
    const auto decodeOn = [&](const char *device) {
        return inference::decodeCompute(
            compute::deviceRoofline(*devicePreset(device), spec.precision), h100.model, decode,
            spec.precision, spec.kvPrecision, spec.batch, ctx);
    };
    const double expected = decodeOn("h200") - decodeOn("h100-sxm");
    QVERIFY(expected < 0.0); // memory-bound decode: 4.8 against 3.35 TB/s of HBM
    const double got = b.pools[1].stepTime - a.pools[1].stepTime;
    QVERIFY2(std::abs(got - expected) <= 1e-9 * a.pools[1].stepTime,
        qPrintable(QString::number(got) + " vs " + QString::number(expected)));
    QCOMPARE(b.pools[0].stepTime, a.pools[0].stepTime);
    QCOMPARE(b.pools[0].device, std::string("h100-sxm"));
    QCOMPARE(b.pools[1].device, std::string("h200"));
    QCOMPARE(b.pools[1].hbmDevice, std::string("h200"));
    QVERIFY(a.pools[1].device.empty()); // one device kind: no device named
    QCOMPARE(b.tpot, b.pools[1].stepTime);
}

QTEST_GUILESS_MAIN(TestInference)
#include "tst_inference.moc"
