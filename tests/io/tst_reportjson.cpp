// The report's JSON (model/io/reportjson.cpp), the stable output of `railyard-cli evaluate
// --json`: every field the README documents is present and holds the engine's number, the
// optional sections appear exactly when they apply, and the text helpers format as documented.
#include "cost/costengine.h"
#include "cost/epsummary.h"
#include "fabric/failedcomponent.h"
#include "fixtures.h"
#include "io/reportjson.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

using namespace railyard;
using nlohmann::json;

namespace {

/// The value at a dotted path ("links.p99"), or nullptr.
const json *at(const json &j, const std::string &path)
{
    const json *node = &j;
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t dot = path.find('.', start);
        const std::string key
            = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!node->is_object() || !node->contains(key))
            return nullptr;
        node = &(*node)[key];
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    return node;
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-12 * std::max({ 1.0, std::abs(a), std::abs(b) });
}

double total(const DimArray &values)
{
    double sum = 0.0;
    for (double v : values)
        sum += v;
    return sum;
}

} // namespace

class TestReportJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void documentedFieldsPresent();
    void valuesEqualTheReport();
    void detailFieldsEqualTheReport();
    void linkLoadsOnlyWithLinks();
    void followsASwap();
    void expertSectionForMoeOnly();
    void failuresOnlyWhenDegraded();
    void byteAndSecondFormats();
    void textReport();
};

void TestReportJson::documentedFieldsPresent()
{
    // The README's "Top-level JSON fields" and "Detail fields" of `railyard-cli evaluate`.
    const CostEngine engine(fixtures::seed128());
    const json j = reportToJson(engine);
    QStringList paths { "ranks", "iteration_time_s", "bubble_fraction", "pipeline_makespan_s",
        "mfu", "spine_bytes_share", "links.count", "links.p50", "links.p95", "links.p99",
        "links.max", "bottleneck.link", "bottleneck.name", "bottleneck.tier",
        "bottleneck.dimension", "bottleneck.bytes", "bottleneck.utilisation",
        "memory.max_bytes_per_rank", "memory.device_bytes", "memory.fits",
        "memory.allowance_bytes.total", "memory.allowance_bytes.cuda_context",
        "memory.allowance_bytes.nccl", "memory.allowance_bytes.fragmentation",
        "memory.allowance_bytes.fragmentation_share", "switches.leaf",
        "switches.spine", "switches.superspine", "stages", "boundaries", "dp_sync.time_s",
        "dp_sync.overlap_window_s", "dp_sync.reduce_s", "dp_sync.gather_s",
        "dp_sync.reduce_overlapped_s", "dp_sync.gather_overlapped_s", "overlap.tp_comm_overlap",
        "overlap.overlap_grad_reduce", "overlap.overlap_param_gather", "link_bound.time_s",
        "link_bound.binding", "phases", "warnings" };
    const QStringList dims { "tp", "pp", "dp", "ep", "cp" };
    const QStringList tiers { "scale_up", "pcie", "leaf", "spine", "superspine" };
    for (const QString &dim : dims) {
        paths << "dimensions." + dim + ".bytes_sent" << "dimensions." + dim + ".link_bytes"
              << "dimensions." + dim + ".exposed_time_s";
        for (const QString &tier : tiers)
            paths << "tiers." + tier + "." + dim;
    }
    for (const QString &p : paths)
        QVERIFY2(at(j, p.toStdString()) != nullptr, qPrintable(p));
    for (const char *key : { "forward_s", "backward_s", "parameters_bytes", "gradients_bytes",
             "optimizer_bytes", "activations_bytes", "allowance_bytes", "total_bytes", "peak_inflight", "layers",
             "chunk_layers", "embedding", "output_layer", "compute_forward_s",
             "compute_backward_s", "comm_forward_s", "comm_backward_s", "boundary_forward_s",
             "boundary_backward_s", "last_compute_s", "dp_window_s", "dp_reduce_end_s",
             "dp_exposed_s", "param_gather_wait_s" })
        QVERIFY2(j["stages"][0].contains(key), key);
    for (const char *key : { "from", "to", "forward_s", "backward_s" })
        QVERIFY2(j["boundaries"][0].contains(key), key);
    for (const char *key : { "name", "dimension", "collective", "stage", "bytes", "count",
             "alpha_s", "time_s", "bottleneck_link" })
        QVERIFY2(j["phases"][0].contains(key), key);
}

void TestReportJson::valuesEqualTheReport()
{
    const CostEngine engine(fixtures::seed128());
    const CostReport &r = engine.report();
    const json j = reportToJson(engine);
    QCOMPARE(j["ranks"].get<int>(), 128);
    QCOMPARE(j["ranks"].get<int>(), r.ranks);
    QCOMPARE(j["microbatches"].get<int>(), engine.plan().microbatches);
    QCOMPARE(j["iteration_time_s"].get<double>(), r.iterationTime);
    QCOMPARE(j["pipeline_makespan_s"].get<double>(), r.pipelineMakespan);
    QCOMPARE(j["bubble_fraction"].get<double>(), r.bubbleFraction);
    QCOMPARE(j["mfu"].get<double>(), r.mfu);
    for (Dim d : kAllDims) {
        const std::string dim(dimName(d));
        QCOMPARE(j["dimensions"][dim]["link_bytes"].get<double>(), r.dimBytes[index(d)]);
        QCOMPARE(j["dimensions"][dim]["bytes_sent"].get<double>(), r.dimBytesSent[index(d)]);
        QCOMPARE(j["dimensions"][dim]["exposed_time_s"].get<double>(), r.dimExposed[index(d)]);
        for (Tier t : kAllTiers)
            QCOMPARE(j["tiers"][std::string(tierName(t))][dim].get<double>(),
                r.tierBytes[index(t)][index(d)]);
    }
    QCOMPARE(j["spine_bytes_share"].get<double>(), r.spineBytesShare);
    QCOMPARE(j["links"]["count"].get<int>(), engine.fabric().linkCount());
    QCOMPARE(j["links"]["p50"].get<double>(), r.linkStats.p50);
    QCOMPARE(j["links"]["p95"].get<double>(), r.linkStats.p95);
    QCOMPARE(j["links"]["p99"].get<double>(), r.linkStats.p99);
    QCOMPARE(j["links"]["max"].get<double>(), r.linkStats.max);

    const int b = r.bottleneckLink;
    QVERIFY(b >= 0);
    QCOMPARE(j["bottleneck"]["link"].get<int>(), b);
    QCOMPARE(j["bottleneck"]["name"].get<std::string>(), engine.fabric().linkName(b));
    QCOMPARE(j["bottleneck"]["tier"].get<std::string>(),
        std::string(tierName(engine.fabric().link(b).tier)));
    QCOMPARE(
        j["bottleneck"]["dimension"].get<std::string>(), std::string(dimName(r.bottleneckDim)));
    QCOMPARE(j["bottleneck"]["bytes"].get<double>(), r.links[b].bytes);
    QCOMPARE(j["bottleneck"]["utilisation"].get<double>(), r.utilisation(b));
    // The bottleneck's utilisation is the largest: the "max" of the link statistics.
    QVERIFY(near(j["bottleneck"]["utilisation"].get<double>(), r.linkStats.max));

    QCOMPARE(j["memory"]["max_bytes_per_rank"].get<double>(), r.maxMemoryPerRank);
    QCOMPARE(j["memory"]["device_bytes"].get<double>(), 80e9);
    QCOMPARE(j["memory"]["fits"].get<bool>(), r.memoryFits);
    QCOMPARE(j["switches"]["leaf"].get<int>(), engine.fabric().leafCount());
    QCOMPARE(j["switches"]["spine"].get<int>(), engine.fabric().spineCount());
    QCOMPARE(j["switches"]["superspine"].get<int>(), engine.fabric().superSpineCount());
}

void TestReportJson::detailFieldsEqualTheReport()
{
    const CostEngine engine(fixtures::seed128());
    const CostReport &r = engine.report();
    const json j = reportToJson(engine);
    QCOMPARE(j["stages"].size(), std::size_t(4)); // pp 4
    for (std::size_t s = 0; s < 4; ++s) {
        const json &st = j["stages"][s];
        QCOMPARE(st["stage"].get<std::size_t>(), s);
        QCOMPARE(st["forward_s"].get<double>(), r.stageForward[s]);
        QCOMPARE(st["backward_s"].get<double>(), r.stageBackward[s]);
        QCOMPARE(st["total_bytes"].get<double>(), r.memory[s].total());
        // The ledger adds up: parameters + gradients + optimizer + activations + the allowance
        // (CUDA context, NCCL buffers, fragmentation).
        QVERIFY(st["allowance_bytes"].get<double>() > 0.0);
        QVERIFY(near(st["parameters_bytes"].get<double>() + st["gradients_bytes"].get<double>()
                + st["optimizer_bytes"].get<double>() + st["activations_bytes"].get<double>()
                + st["allowance_bytes"].get<double>(),
            st["total_bytes"].get<double>()));
    }
    QCOMPARE(j["boundaries"].size(), std::size_t(3)); // pp - 1
    for (std::size_t b = 0; b < 3; ++b) {
        QCOMPARE(j["boundaries"][b]["from"].get<std::size_t>(), b);
        QCOMPARE(j["boundaries"][b]["to"].get<std::size_t>(), b + 1);
        QCOMPARE(j["boundaries"][b]["forward_s"].get<double>(), r.boundaryForward[b]);
        QCOMPARE(j["boundaries"][b]["backward_s"].get<double>(), r.boundaryBackward[b]);
    }
    QCOMPARE(j["dp_sync"]["time_s"].get<double>(), r.dpSyncTime);
    QCOMPARE(j["dp_sync"]["overlap_window_s"].get<double>(), r.dpOverlapWindow);
    QCOMPARE(j["phases"].size(), r.phases.size());
    for (std::size_t i = 0; i < r.phases.size(); ++i) {
        QCOMPARE(j["phases"][i]["name"].get<std::string>(), r.phases[i].name);
        QCOMPARE(j["phases"][i]["time_s"].get<double>(), r.phases[i].time);
        QCOMPARE(j["phases"][i]["bytes"].get<double>(), r.phases[i].bytes);
        QCOMPARE(j["phases"][i]["bottleneck_link"].get<int>(), r.phases[i].bottleneckLink);
    }
    // The packed placement of the sample is clean: no mapping warnings, no memory warning.
    QVERIFY(j["warnings"].is_array());
    QCOMPARE(j["warnings"].size(), engine.mappingWarnings().size() + r.warnings.size());
}

void TestReportJson::linkLoadsOnlyWithLinks()
{
    const CostEngine engine(fixtures::seed128());
    const CostReport &r = engine.report();
    QVERIFY(!reportToJson(engine).contains("link_loads"));
    const json j = reportToJson(engine, true);
    int loaded = 0;
    for (const LinkLoad &l : r.links)
        loaded += l.bytes > 0.0;
    QCOMPARE(static_cast<int>(j["link_loads"].size()), loaded);
    // Every listed link holds the engine's numbers, and per tier they add up to tiers.*.
    std::array<double, kTierCount> perTier {};
    for (const json &l : j["link_loads"]) {
        const int id = l["id"].get<int>();
        QCOMPARE(l["bytes"].get<double>(), r.links[id].bytes);
        QCOMPARE(l["busy_s"].get<double>(), r.links[id].busyTime);
        QCOMPARE(l["utilisation"].get<double>(), r.utilisation(id));
        QCOMPARE(l["name"].get<std::string>(), engine.fabric().linkName(id));
        QCOMPARE(l["top_dimension"].get<std::string>(), std::string(dimName(r.links[id].topDim())));
        perTier[index(engine.fabric().link(id).tier)] += l["bytes"].get<double>();
    }
    for (Tier t : kAllTiers)
        QVERIFY2(std::abs(perTier[index(t)] - total(r.tierBytes[index(t)]))
                <= 1e-9 * std::max(1.0, perTier[index(t)]),
            tierName(t).data());
}

void TestReportJson::followsASwap()
{
    // Swapping ranks 0 and 9 sends TP and DP traffic to other NICs and leaves: the JSON
    // follows the incremental report, and the sample's zero spine share is gone.
    CostEngine engine(fixtures::seed128());
    QCOMPARE(reportToJson(engine)["spine_bytes_share"].get<double>(), 0.0);
    engine.swapRanks(0, 9);
    const json j = reportToJson(engine);
    QCOMPARE(j["iteration_time_s"].get<double>(), engine.report().iterationTime);
    QVERIFY(j["spine_bytes_share"].get<double>() > 0.0);
    QCOMPARE(j["bottleneck"]["link"].get<int>(), engine.report().bottleneckLink);
    QVERIFY(!j["warnings"].empty()); // a TP group now spans two servers
}

void TestReportJson::expertSectionForMoeOnly()
{
    QVERIFY(!reportToJson(CostEngine(fixtures::seed128())).contains("ep"));
    const CostEngine engine(fixtures::smallMoe(2, 4, fixtures::degrees(1, 1, 8, 1, 8)));
    const json j = reportToJson(engine);
    QVERIFY(j.contains("ep"));
    const EpSummary ep = epSummary(engine);
    const json &e = j["ep"];
    for (const char *key :
        { "routing", "member_shares", "skew_max_mean", "hottest", "dispatch_bytes_per_layer",
            "spine_dispatch_bytes_per_layer", "spine_bytes", "tiers", "locality", "matrix" })
        QVERIFY2(e.contains(key), key);
    QCOMPARE(e["ep"].get<int>(), 8);
    QCOMPARE(e["routing"]["kind"].get<std::string>(), std::string("uniform"));
    QCOMPARE(e["skew_max_mean"].get<double>(), ep.skew);
    QCOMPARE(e["dispatch_bytes_per_layer"].get<double>(), ep.dispatchBytesPerLayer);
    QCOMPARE(e["matrix"].size(), std::size_t(8));
    for (std::size_t i = 0; i < 8; ++i) {
        QCOMPARE(e["matrix"][i].size(), std::size_t(8));
        for (std::size_t k = 0; k < 8; ++k)
            QCOMPARE(e["matrix"][i][k].get<double>(), ep.matrix[i * 8 + k]);
    }
}

void TestReportJson::failuresOnlyWhenDegraded()
{
    QVERIFY(!reportToJson(CostEngine(fixtures::seed128())).contains("failures"));
    // The sample job on 17 servers with the last (unused) one failed evaluates unchanged.
    Scenario s = fixtures::seed128();
    s.fabric.servers = 17;
    s.failures = { FailedComponent { FailedComponent::Kind::Server, 16 } };
    const json j = reportToJson(CostEngine(s));
    QVERIFY(j["failures"] == json::array({ "server:16" }));
}

void TestReportJson::byteAndSecondFormats()
{
    // Decimal units with three significant digits for bytes, four for seconds.
    QCOMPARE(formatBytes(162e9), std::string("162 GB"));
    QCOMPARE(formatBytes(671e6), std::string("671 MB"));
    QCOMPARE(formatBytes(327680.0), std::string("328 kB"));
    QCOMPARE(formatBytes(999.0), std::string("999 B"));
    QCOMPARE(formatBytes(2.5e12), std::string("2.5 TB"));
    QCOMPARE(formatSeconds(4.493), std::string("4.493 s"));
    QCOMPARE(formatSeconds(1.681e-3), std::string("1.681 ms"));
    QCOMPARE(formatSeconds(3e-6), std::string("3 µs"));
    QCOMPARE(formatSeconds(2e-9), std::string("2 ns"));
}

void TestReportJson::textReport()
{
    // The readable report states the same numbers, formatted by the helpers above.
    const CostEngine engine(fixtures::seed128());
    const CostReport &r = engine.report();
    const std::string text = reportToText(engine);
    const std::string iteration = "Iteration      " + formatSeconds(r.iterationTime)
        + "  (pipeline " + formatSeconds(r.pipelineMakespan) + ", 16 micro-batches)\n";
    QVERIFY2(text.find(iteration) != std::string::npos, text.c_str());
    QVERIFY(text.find("Layout         128 ranks = tp 8 x pp 4 x dp 4 x cp 1 (ep 1)")
        != std::string::npos);
    QVERIFY(text.find("Bottleneck     " + engine.fabric().linkName(r.bottleneckLink))
        != std::string::npos);
    QVERIFY(text.find("warning:") == std::string::npos);
}

QTEST_GUILESS_MAIN(TestReportJson)
#include "tst_reportjson.moc"
