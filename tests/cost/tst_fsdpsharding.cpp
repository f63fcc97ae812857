// FSDP's switches (issue 34): hybrid sharding (training.fsdp "hybrid:R", PyTorch HSDP) against
// full sharding, bytes per GPU and memory per GPU derived by hand; and the prefetch switch
// (training.fsdp_prefetch), the exposed parameter all-gathers derived by hand.
#include "base/scenarioerror.h"
#include "cost/collectivewatch.h"
#include "cost/costengine.h"
#include "cost/partnerroutes.h"
#include "cost/stagetiming.h"
#include "export/exportoptions.h"
#include "export/ncclplan.h"
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "scenario/scenariofile.h"
#include "workload/workloadplan.h"

#include <nlohmann/json.hpp>

#include <QTest>

#include <cmath>
#include <set>
#include <string>
#include <vector>

using namespace railyard;

namespace {

// Llama 3.1 8B (presets.cpp): h 4096, 8 KV heads of 128, ffn 14336, vocab 128256 (a multiple of
// 128, so Megatron's padding leaves it). Per layer W_qkv h (h + 2 kv) + W_o h^2 + SwiGLU 3 h ffn
// + two RMSNorms 2h; 32 layers, untied embedding and output layer, final norm: 8,030,261,248.
constexpr double kH = 4096.0;
constexpr double kKv = 1024.0;
constexpr double kFfn = 14336.0;
constexpr double kVocab = 128256.0;
constexpr double kLayerParams = kH * (kH + 2.0 * kKv) + kH * kH + 3.0 * kH * kFfn + 2.0 * kH;
constexpr double kParams = 32.0 * kLayerParams + 2.0 * kVocab * kH + kH;

/// Llama 3.1 8B, pure data parallelism over `servers` x 8 H100, ZeRO-3 (FSDP full shard),
/// two micro-batches per replica, no overlap switches (the sync after the last backward), the
/// ring forced so that the link bytes follow the ring formulas; `extra` is merged into training.
Scenario fsdpRun(int servers, const nlohmann::json &extra = nlohmann::json::object())
{
    nlohmann::json doc = nlohmann::json::parse(R"({"format_version": 1,
        "fabric": {"kind": "rail-optimised", "servers": 2, "gpus_per_server": 8},
        "parallel": {"tp": 1, "pp": 1, "dp": 16, "cp": 1, "ep": 1}, "model": "llama3-8b",
        "training": {"micro_batch": 1, "global_batch": 32, "distributed_optimizer": true,
                     "dp_sharding": "optim_grads_params", "stack": "fsdp2"},
        "collectives": {"algorithm": "ring"},
        "device": "h100-sxm"})");
    doc["fabric"]["servers"] = servers;
    doc["parallel"]["dp"] = servers * 8;
    doc["training"]["global_batch"] = servers * 8 * 2;
    for (const auto &[key, value] : extra.items())
        doc["training"][key] = value;
    return scenarioFromJson(doc);
}

bool near(double a, double b, double tolerance = 1e-9)
{
    return std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b));
}

const PhaseResult *phaseNamed(const CostReport &r, const std::string &part)
{
    for (const PhaseResult &ph : r.phases)
        if (ph.name.find(part) != std::string::npos)
            return &ph;
    return nullptr;
}

} // namespace

class TestFsdpSharding : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void memoryPerGpuFullAndHybrid();
    void bytesPerGpuFullAndHybrid();
    void hybridRunsInItsGroups();
    void hybridRoundTripAndRefusals();
    void hybridSubgroupsByHand();
    void hybridWatchAndPartnersUseTheSubgroups();
    void ncclPlanRunsInTheShardAndReplicaGroups();
    void movesMatchAFreshEvaluation();
    void gatherExposedByHand();
    void prefetchExposesOnlyWhatComputeCannotHide();
};

void TestFsdpSharding::memoryPerGpuFullAndHybrid()
{
    // 16 GPUs. FSDP2 keeps the fp32 shard (the optimizer's master copy), fp32 gradients and
    // Adam's m and v, each 1/16 of the model under full sharding and 1/8 under hybrid:8.
    const Scenario full = fsdpRun(2);
    const Scenario hybrid = fsdpRun(2, { { "fsdp", "hybrid:8" } });
    const MemoryLedger f
        = planWorkload(full.model, full.training, full.device, full.degrees).memory.front();
    const MemoryLedger h
        = planWorkload(hybrid.model, hybrid.training, hybrid.device, hybrid.degrees).memory.front();
    QVERIFY(near(f.gradients, 4.0 * kParams / 16.0)); // 2.01 GB
    QVERIFY(near(f.optimizer, 12.0 * kParams / 16.0)); // 6.02 GB
    QVERIFY(near(h.gradients, 4.0 * kParams / 8.0)); // 4.02 GB
    QVERIFY(near(h.optimizer, 12.0 * kParams / 8.0)); // 12.05 GB
    // The gathered bf16 parameters (root module and two layers) do not depend on the shard.
    QVERIFY(near(f.parameters, h.parameters));

    // Megatron's rules (no stack): a bf16 parameter shard beside the gathered ones, 2 P / R.
    Scenario plainFull = full;
    Scenario plainHybrid = hybrid;
    plainFull.training.stack.reset();
    plainHybrid.training.stack.reset();
    const double pf
        = planWorkload(plainFull.model, plainFull.training, plainFull.device, plainFull.degrees)
              .memory.front()
              .parameters;
    const double ph = planWorkload(
        plainHybrid.model, plainHybrid.training, plainHybrid.device, plainHybrid.degrees)
                          .memory.front()
                          .parameters;
    QVERIFY(near(ph - pf, 2.0 * kParams / 8.0 - 2.0 * kParams / 16.0));
}

void TestFsdpSharding::bytesPerGpuFullAndHybrid()
{
    // Per GPU and iteration, nccl-tests' definition (bytes each rank sends), m = 2 micro-batches,
    // fp32 gradients (4 bytes, FSDP2's reduce_dtype), bf16 gathers (2 bytes):
    //  full over D = 16: a gradient reduce-scatter per micro-batch, 15/16 x 4 P each, and two
    //    parameter all-gathers per micro-batch, 15/16 x 2 P each: 15/16 x (8 + 8) P = 15 P;
    //  hybrid:8: the same in groups of 8, 7/8 x 16 P = 14 P, plus the all-reduce of each rank's
    //    1/8 gradient shard over its replica group of 2: 2 x 1/2 x 4 P / 8 = 0.5 P: 14.5 P.
    CostEngine full(fsdpRun(2));
    CostEngine hybrid(fsdpRun(2, { { "fsdp", "hybrid:8" } }));
    const double perGpuFull = full.report().dimBytesSent[index(Dim::Dp)] / 16.0;
    const double perGpuHybrid = hybrid.report().dimBytesSent[index(Dim::Dp)] / 16.0;
    QVERIFY2(near(perGpuFull, 15.0 * kParams), qPrintable(QString::number(perGpuFull / kParams)));
    QVERIFY2(
        near(perGpuHybrid, 14.5 * kParams), qPrintable(QString::number(perGpuHybrid / kParams)));

    // Between the servers: under hybrid:8 only the replica all-reduce leaves a server. Replica
    // group j is GPU j of each server, on the same rail leaf: a ring of 2, each member sending
    // 2 x 1/2 x S = S = 4 P / 8 to the other over its NIC up and the peer's NIC down, two leaf-tier
    // links: 16 members x 0.5 P x 2 = 16 P on the leaf tier.
    const double leafHybrid
        = hybrid.report().tierBytes[static_cast<int>(Tier::Leaf)][index(Dim::Dp)];
    QVERIFY2(
        near(leafHybrid, 16.0 * kParams, 1e-6), qPrintable(QString::number(leafHybrid / kParams)));
    const double leafFull = full.report().tierBytes[static_cast<int>(Tier::Leaf)][index(Dim::Dp)];
    QVERIFY2(leafFull > 2.0 * leafHybrid, qPrintable(QString::number(leafFull / kParams)));
}

void TestFsdpSharding::hybridRunsInItsGroups()
{
    // The shard group's reduce-scatter and gathers stay on NVLink; the replica all-reduce is the
    // only DP phase on the network. (Not faster here: on a rail-optimised fabric the full ring
    // spreads its channels over the eight NICs of each server, about as fast as the NVLink ring
    // of the shard group, and hybrid adds the replica all-reduce; docs/scenario-format.md.)
    CostEngine full(fsdpRun(2));
    CostEngine hybrid(fsdpRun(2, { { "fsdp", "hybrid:8" } }));
    const Fabric &fabric = hybrid.fabric();
    const PhaseResult *scatter
        = phaseNamed(hybrid.report(), "dp sync: dense gradient reduce-scatter");
    const PhaseResult *replica = phaseNamed(hybrid.report(), "replica groups");
    QVERIFY(scatter && replica);
    QVERIFY(scatter->bottleneckLink >= 0 && replica->bottleneckLink >= 0);
    QCOMPARE(fabric.linkTier(scatter->bottleneckLink), Tier::ScaleUp);
    QVERIFY(fabric.linkTier(replica->bottleneckLink) != Tier::ScaleUp);
    const PhaseResult *gather = phaseNamed(hybrid.report(), "dp sync: dense parameter all-gather");
    QVERIFY(gather && gather->bottleneckLink >= 0);
    QCOMPARE(fabric.linkTier(gather->bottleneckLink), Tier::ScaleUp);
    QCOMPARE(fabric.linkTier(replica->bottleneckLink), Tier::Leaf);
    // The replica all-reduce moves each rank's 1/8 shard once per iteration, where the
    // reduce-scatter moves the whole gradients every micro-batch (2): 1/16 of its bytes.
    QVERIFY(near(replica->bytes, scatter->bytes / 16.0));
    QCOMPARE(replica->collective, Collective::AllReduce);
    QVERIFY(!phaseNamed(full.report(), "replica groups"));
    // The sync is the three phases, one after the other.
    QVERIFY(near(hybrid.report().dpSyncTime, scatter->time + gather->time + replica->time));
    // hybrid:16 over 16 ranks is full sharding.
    CostEngine whole(fsdpRun(2, { { "fsdp", "hybrid:16" } }));
    QCOMPARE(whole.report().iterationTime, full.report().iterationTime);
    QVERIFY(!phaseNamed(whole.report(), "replica groups"));
}

void TestFsdpSharding::hybridSubgroupsByHand()
{
    // 12 members, R = 4: shard groups of 4 consecutive members, replica groups j, j + 4, j + 8.
    const std::vector<int> m { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
    using Groups = std::vector<std::vector<int>>;
    QCOMPARE(hybridSubgroups(m, 4, false),
        (Groups { { 0, 1, 2, 3 }, { 4, 5, 6, 7 }, { 8, 9, 10, 11 } }));
    QCOMPARE(hybridSubgroups(m, 4, true),
        (Groups { { 0, 4, 8 }, { 1, 5, 9 }, { 2, 6, 10 }, { 3, 7, 11 } }));
    // No hybrid, or a shard group as large as the group: the whole group.
    QCOMPARE(hybridSubgroups(m, 0, false), (Groups { m }));
    QCOMPARE(hybridSubgroups(m, 12, true), (Groups { m }));
}

void TestFsdpSharding::hybridWatchAndPartnersUseTheSubgroups()
{
    // hybrid:8 on 2 servers x 8 GPUs: rank 3's shard group is ranks 0-7 (its server), its
    // replica group {3, 11} (the same GPU of the other server). The collective watch plays
    // those groups, and the partner routes the GUI draws for rank 3 leave the server only on
    // the replica pair's route - not on the 16-rank ring the whole dp-cp group would run.
    CostEngine hybrid(fsdpRun(2, { { "fsdp", "hybrid:8" } }));
    Router router(hybrid.fabric());
    const int rank = 3;
    const std::vector<WatchableOp> ops = watchableOps(hybrid, Dim::Dp, rank);
    int scatterOp = -1, replicaOp = -1;
    for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
        const WatchableOp &op = ops[static_cast<std::size_t>(i)];
        if (op.replica)
            replicaOp = i;
        else if (op.collective == Collective::ReduceScatter)
            scatterOp = i;
    }
    QVERIFY(scatterOp >= 0 && replicaOp >= 0);
    using Groups = std::vector<std::vector<int>>;
    const WatchedCollective scatter
        = watchCollective(hybrid, router, { Dim::Dp, rank, false, scatterOp });
    QCOMPARE(scatter.groups, (Groups { { 0, 1, 2, 3, 4, 5, 6, 7 } }));
    const WatchedCollective replica
        = watchCollective(hybrid, router, { Dim::Dp, rank, false, replicaOp });
    QCOMPARE(replica.groups, (Groups { { 3, 11 } }));
    QVERIFY(replica.title.find("(2 ranks)") != std::string::npos);
    const WatchedCollective everyReplica
        = watchCollective(hybrid, router, { Dim::Dp, rank, true, replicaOp });
    QCOMPARE(everyReplica.groups.size(), std::size_t { 8 });
    QCOMPARE(everyReplica.groups[5], (std::vector<int> { 5, 13 }));
    // The scatter's steps stay on NVLink; the replica all-reduce crosses the leaf.
    for (const StepLink &l : scatter.steps.totals())
        QCOMPARE(hybrid.fabric().linkTier(l.link), Tier::ScaleUp);

    // Rank 3's DP links: the shard group's ring in member order (receive from rank 2, send to
    // rank 4, over NVLink) and the replica pair's all-reduce with rank 11 (both ways, rail 3).
    const auto dpLinks = [&](int dpShard) {
        PartnerRouteContext context;
        context.fabric = &hybrid.fabric();
        context.report = &hybrid.report();
        context.dpShard = dpShard;
        std::set<int> out;
        for (const auto &[link, dims] :
            partnerRoutes(hybrid.layout(), hybrid.mapping(), router, rank, context).links)
            if (dims & (1u << index(Dim::Dp)))
                out.insert(link);
        return out;
    };
    const auto slot = [&](int r) { return hybrid.mapping().slotOf(r); };
    std::set<int> expected;
    for (const auto &[a, b] :
        { std::pair { 2, 3 }, std::pair { 3, 4 }, std::pair { 3, 11 }, std::pair { 11, 3 } })
        for (const RouteHop &hop : router.route(slot(a), slot(b)))
            expected.insert(hop.link);
    QCOMPARE(expected.size(), std::size_t { 12 }); // 2 + 2 NVLink, 2 x 4 PCIe-NIC-leaf-NIC-PCIe
    QCOMPARE(dpLinks(8), expected);
    // What was drawn before hybrid sharding reached the partner routes: the 16-rank ring's
    // channels, to NVLink neighbours the shard group's ring does not have.
    QVERIFY(dpLinks(0) != expected);
}

void TestFsdpSharding::hybridRoundTripAndRefusals()
{
    const Scenario s = fsdpRun(2, { { "fsdp", "hybrid:4" }, { "fsdp_prefetch", 0.5 } });
    QCOMPARE(s.training.fsdpShard, 4);
    QCOMPARE(s.training.fsdpPrefetch, std::optional<double>(0.5));
    const Scenario again = parseScenario(scenarioToText(s));
    QCOMPARE(again.training, s.training);
    QCOMPARE(fsdpRun(2, { { "fsdp", "full" } }).training.fsdpShard, 0);
    QCOMPARE(fsdpRun(2, { { "fsdp_prefetch", true } }).training.fsdpPrefetch,
        std::optional<double>(1.0));

    const auto refused = [](const nlohmann::json &extra, const std::string &field,
                             const std::string &words) {
        try {
            CostEngine e(fsdpRun(2, extra));
        } catch (const ScenarioError &e) {
            const std::string what = e.what();
            return what.find(field) != std::string::npos && what.find(words) != std::string::npos;
        }
        return false;
    };
    QVERIFY(refused({ { "fsdp", "hybrid:3" } }, "training.fsdp", "must divide dp x cp = 16"));
    QVERIFY(refused({ { "fsdp", "hybrid:0" } }, "training.fsdp", "expected \"full\" or"));
    QVERIFY(refused({ { "fsdp", "half" } }, "training.fsdp", "expected \"full\" or"));
    QVERIFY(refused({ { "fsdp_prefetch", 1.5 } }, "training.fsdp_prefetch", "1"));
    QVERIFY(refused({ { "dp_sharding", "optim_grads" }, { "fsdp_prefetch", 1 } },
        "training.fsdp_prefetch", "optim_grads_params"));
    QVERIFY(refused(
        { { "fsdp", "hybrid:8" }, { "dp_sharding", "optim" }, { "distributed_optimizer", false } },
        "training.fsdp", "distributed_optimizer"));
}

void TestFsdpSharding::ncclPlanRunsInTheShardAndReplicaGroups()
{
    // The measurement plan (export nccl-plan) runs each DP op in the groups the engine routes it
    // in: under hybrid:8 on 16 GPUs, the reduce-scatter and the all-gather in ranks 0-7 (and
    // 8-15), the shard's all-reduce in the replica pairs {0, 8}, {1, 9}, ...
    CostEngine hybrid(fsdpRun(2, { { "fsdp", "hybrid:8" } }));
    ExportOptions options;
    options.jsonPlan = true;
    const nlohmann::json plan
        = nlohmann::json::parse(exportdetail::exportNcclPlan(hybrid, options));
    int seen = 0;
    for (const nlohmann::json &t : plan.at("tests")) {
        if (t.at("kind") != "dp" || t.at("groups") != 1)
            continue;
        const std::vector<int> ranks = t.at("ranks").get<std::vector<int>>();
        if (t.at("collective") == "all-reduce")
            QCOMPARE(ranks, (std::vector<int> { 0, 8 }));
        else
            QCOMPARE(ranks, (std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7 }));
        ++seen;
    }
    QCOMPARE(seen, 3); // reduce-scatter, all-gather, the replicas' all-reduce
}

void TestFsdpSharding::movesMatchAFreshEvaluation()
{
    // Swaps re-route the moved ranks' shard and replica groups incrementally (the sub-groups of
    // their dp-cp group, TrafficModel::emitGroup); a move across servers breaks a shard group's
    // NVLink ring. The result equals an engine built on the final mapping.
    const Scenario s = fsdpRun(2, { { "fsdp", "hybrid:4" } });
    CostEngine moved(s);
    moved.swapRanks(0, 9);
    moved.swapRanks(3, 12);
    moved.revertMove();
    moved.swapRanks(5, 14);
    CostEngine fresh(s);
    fresh.setMapping(moved.mapping());
    QVERIFY(near(moved.report().iterationTime, fresh.report().iterationTime));
    QVERIFY(near(moved.report().dpSyncTime, fresh.report().dpSyncTime));
    for (Dim d : kAllDims)
        QVERIFY(near(moved.report().dimBytes[index(d)], fresh.report().dimBytes[index(d)], 1e-9)
            || (moved.report().dimBytes[index(d)] == 0.0
                && fresh.report().dimBytes[index(d)] == 0.0));
    CostEngine unmoved(s);
    QVERIFY(moved.report().dpSyncTime > unmoved.report().dpSyncTime);
}

void TestFsdpSharding::gatherExposedByHand()
{
    // 4 layers, each gather 2 ms, the pass's compute 4 ms (1 ms a layer).
    //  off: every gather exposed, 4 x 2 = 8 ms;
    //  on: the first 2 ms, then each later gather beside the previous layer's 1 ms: 2 + 3 x 1;
    //  half: 2 + 3 x (0.5 x 2 + 0.5 x 1) = 6.5 ms.
    QVERIFY(near(fsdpGatherExposed(4, 2e-3, 4e-3, 0.0), 8e-3));
    QVERIFY(near(fsdpGatherExposed(4, 2e-3, 4e-3, 1.0), 5e-3));
    QVERIFY(near(fsdpGatherExposed(4, 2e-3, 4e-3, 0.5), 6.5e-3));
    // Compute longer than the gather: prefetched, only the first layer's gather shows.
    QVERIFY(near(fsdpGatherExposed(4, 1e-3, 8e-3, 1.0), 1e-3));
    QCOMPARE(fsdpGatherExposed(0, 1e-3, 8e-3, 1.0), 0.0);
}

void TestFsdpSharding::prefetchExposesOnlyWhatComputeCannotHide()
{
    // 2 servers, full sharding, one pipeline stage: the iteration is m x (forward + backward)
    // plus the sync, so prefetch on against off saves, per micro-batch and pass, (L - 1) x
    // min(g, c) with g one layer's gather (its latency + its share of the bandwidth term) and c
    // one layer's compute.
    CostEngine unset(fsdpRun(2));
    CostEngine off(fsdpRun(2, { { "fsdp_prefetch", 0.0 } }));
    CostEngine on(fsdpRun(2, { { "fsdp_prefetch", 1.0 } }));
    const Scenario s = fsdpRun(2);
    const WorkloadPlan plan = planWorkload(s.model, s.training, s.device, s.degrees);
    const int m = plan.microbatches;
    QCOMPARE(m, 2);
    const int layers = plan.stages.front().layers;
    QCOMPARE(layers, 32);
    const PhaseResult *gather = phaseNamed(unset.report(), "parameter all-gather");
    QVERIFY(gather);
    const double alpha = gather->alphaTime;
    const double beta = gather->time - alpha;
    const double g = alpha + beta / (2.0 * m * layers);
    const double cf = plan.stages.front().forwardTime / layers;
    const double cb = plan.stages.front().backwardTime / layers;
    const double saved = m * (layers - 1) * (std::min(g, cf) + std::min(g, cb));
    QVERIFY2(near(off.report().iterationTime - on.report().iterationTime, saved, 1e-6),
        qPrintable(QString::number(off.report().iterationTime - on.report().iterationTime) + " vs "
            + QString::number(saved)));
    // Off charges every layer's gather with its own latency: 2 m L runs against the sync's one.
    QVERIFY(near(off.report().iterationTime - unset.report().iterationTime,
        (2.0 * m * layers - 1.0) * alpha, 1e-6));
    // The gathers count as data-parallel exposure, prefetched or not.
    QVERIFY(on.report().dimExposed[index(Dim::Dp)] > 0.0);
    QVERIFY(off.report().dimExposed[index(Dim::Dp)] > on.report().dimExposed[index(Dim::Dp)]);
}

QTEST_APPLESS_MAIN(TestFsdpSharding)
#include "tst_fsdpsharding.moc"
