#include "io/reportjson.h"

#include "io/devicereport.h"

#include "cost/epsummary.h"
#include "workload/memoryledger.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace railyard {

namespace {

nlohmann::json perDim(const DimArray &values)
{
    nlohmann::json j = nlohmann::json::object();
    for (Dim d : kAllDims)
        j[std::string(dimName(d))] = values[index(d)];
    return j;
}

std::string format(const char *fmt, double v, const char *unit)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf) + unit;
}

/// The "ep" section of `evaluate --json` (cost/epsummary.h documents every number).
nlohmann::json epJson(const EpSummary &ep)
{
    nlohmann::json routing = {{"kind", std::string(routingKindName(ep.kind))}};
    if (ep.kind == RoutingKind::Zipf)
        routing["zipf_exponent"] = ep.zipfExponent;
    nlohmann::json tiers = nlohmann::json::object();
    for (Tier t : kAllTiers)
        tiers[std::string(tierName(t))] = ep.tierBytes[static_cast<std::size_t>(index(t))];
    const auto n = static_cast<std::size_t>(ep.ep);
    nlohmann::json matrix = nlohmann::json::array();
    for (std::size_t i = 0; i < n; ++i)
        matrix.push_back(std::vector<double>(ep.matrix.begin() + static_cast<std::ptrdiff_t>(i * n),
                                             ep.matrix.begin() + static_cast<std::ptrdiff_t>((i + 1) * n)));
    return {{"routing", routing},
            {"ep", ep.ep},
            {"experts", ep.experts},
            {"top_k", ep.topK},
            {"groups", ep.groupCount},
            {"group", ep.group},
            {"group_ranks", ep.groupRanks},
            {"tokens_per_rank", ep.tokensPerRank},
            {"send_bytes_per_rank", ep.sendBytesPerRank},
            {"dispatch_bytes_per_layer", ep.dispatchBytesPerLayer},
            {"dispatch_bytes_per_layer_job", ep.dispatchBytesPerLayerJob},
            {"received_max_bytes", ep.receivedMax},
            {"received_mean_bytes", ep.receivedMean},
            {"skew_max_mean", ep.skew},
            {"hottest", {{"member", ep.hottestMember},
                         {"rank", ep.hottestRank},
                         {"experts", {ep.hottestFirstExpert, ep.hottestLastExpert}},
                         {"expert", ep.hottestExpert}}},
            {"member_shares", ep.memberShare},
            {"expert_shares", ep.expertShare},
            {"spine_dispatch_bytes_per_layer", ep.spineDispatchBytesPerLayer},
            {"spine_dispatch_bytes_per_layer_job", ep.spineDispatchBytesPerLayerJob},
            {"spine_bytes", ep.spineBytes},
            {"tiers", tiers},
            {"exposed_time_s", ep.exposedTime},
            {"locality", {{"dp_groups", ep.dpGroups},
                          {"dp_groups_one_leaf", ep.dpGroupsOneLeaf},
                          {"ep_groups", ep.groupCount},
                          {"ep_groups_one_server", ep.epGroupsOneServer},
                          {"ep_groups_spanning_leaves", ep.epGroupsSpanningLeaves},
                          {"placement", ep.locality}}},
            {"matrix", matrix}};
}

} // namespace

nlohmann::json reportToJson(const CostEngine &engine, bool withLinks)
{
    const CostReport &r = engine.report();
    const Fabric &fabric = engine.fabric();
    nlohmann::json j;
    j["scenario"] = engine.scenario().name;
    j["ranks"] = r.ranks;
    j["microbatches"] = engine.plan().microbatches;
    j["iteration_time_s"] = r.iterationTime;
    j["pipeline_makespan_s"] = r.pipelineMakespan;
    j["bubble_fraction"] = r.bubbleFraction;
    j["mfu"] = r.mfu;

    // bytes_sent: what the ranks send (nccl-tests definition); link_bytes: the same bytes
    // counted once per directed link they cross (what loads the fabric, as the tiers count).
    nlohmann::json dims = nlohmann::json::object();
    for (Dim d : kAllDims)
        dims[std::string(dimName(d))] = {{"bytes_sent", r.dimBytesSent[index(d)]},
                                         {"link_bytes", r.dimBytes[index(d)]},
                                         {"exposed_time_s", r.dimExposed[index(d)]}};
    j["dimensions"] = dims;

    nlohmann::json tiers = nlohmann::json::object();
    for (Tier t : kAllTiers)
        tiers[std::string(tierName(t))] = perDim(r.tierBytes[index(t)]);
    j["tiers"] = tiers;
    j["spine_bytes_share"] = r.spineBytesShare;
    j["links"] = {{"count", r.linkStats.count}, {"p50", r.linkStats.p50},
                  {"p95", r.linkStats.p95},     {"p99", r.linkStats.p99},
                  {"max", r.linkStats.max}};
    if (r.bottleneckLink >= 0) {
        const LinkLoad &l = r.links[r.bottleneckLink];
        j["bottleneck"] = {{"link", r.bottleneckLink},
                           {"name", fabric.linkName(r.bottleneckLink)},
                           {"tier", std::string(tierName(fabric.link(r.bottleneckLink).tier))},
                           {"dimension", std::string(dimName(r.bottleneckDim))},
                           {"bytes", l.bytes},
                           {"utilisation", r.utilisation(r.bottleneckLink)}};
    } else {
        j["bottleneck"] = nullptr;
    }

    nlohmann::json stages = nlohmann::json::array();
    for (std::size_t s = 0; s < r.memory.size(); ++s) {
        const MemoryLedger &m = r.memory[s];
        nlohmann::json stage = {{"stage", s},
                                {"forward_s", r.stageForward[s]},
                                {"backward_s", r.stageBackward[s]},
                                {"parameters_bytes", m.parameters},
                                {"gradients_bytes", m.gradients},
                                {"optimizer_bytes", m.optimizer},
                                {"activations_bytes", m.activations},
                                {"recompute_workspace_bytes", m.recomputeWorkspace},
                                {"optimizer_step_bytes", m.optimizerStep},
                                {"allowance_bytes", m.allowance()},
                                {"total_bytes", m.total()},
                                {"peak_inflight", s < r.timeline.peakInflight.size()
                                                      ? r.timeline.peakInflight[s]
                                                      : 0.0}};
        if (s < r.stages.size()) {
            const StageReport &st = r.stages[s];
            stage["layers"] = st.layers;
            stage["chunk_layers"] = st.chunkLayers;
            stage["embedding"] = st.embedding;
            stage["output_layer"] = st.outputLayer;
            stage["compute_forward_s"] = st.computeForward;
            stage["compute_backward_s"] = st.computeBackward;
            stage["comm_forward_s"] = st.commForward;
            stage["comm_backward_s"] = st.commBackward;
            stage["boundary_forward_s"] = s < r.boundaryForward.size()
                                              ? nlohmann::json(r.boundaryForward[s])
                                              : nlohmann::json(nullptr);
            stage["boundary_backward_s"] = s > 0 && s - 1 < r.boundaryBackward.size()
                                               ? nlohmann::json(r.boundaryBackward[s - 1])
                                               : nlohmann::json(nullptr);
            stage["last_compute_s"] = st.lastCompute;
            stage["dp_window_s"] = st.dpWindow;
            stage["dp_reduce_end_s"] = st.dpReduceEnd;
            stage["dp_exposed_s"] = st.dpExposed;
            if (st.tiedEmbeddingEnd > 0.0) {
                stage["tied_embedding_start_s"] = st.tiedEmbeddingStart;
                stage["tied_embedding_end_s"] = st.tiedEmbeddingEnd;
            }
            stage["param_gather_wait_s"] = st.paramGatherWait;
        }
        stages.push_back(std::move(stage));
    }
    j["stages"] = stages;
    nlohmann::json boundaries = nlohmann::json::array();
    for (std::size_t b = 0; b < r.boundaryForward.size(); ++b)
        boundaries.push_back({{"from", b},
                              {"to", b + 1},
                              {"forward_s", r.boundaryForward[b]},
                              {"backward_s", r.boundaryBackward[b]}});
    j["boundaries"] = boundaries;
    const int pp = engine.scenario().degrees.pp;
    if (chunksPerRank(engine.scenario().training) > 1 && pp > 1)
        j["wrap"] = {{"from", pp - 1},
                     {"to", 0},
                     {"forward_s", r.wrapForward},
                     {"backward_s", r.wrapBackward}};
    j["dp_sync"] = {{"time_s", r.dpSyncTime},
                    {"reduce_s", r.dpReduceTime},
                    {"gather_s", r.dpGatherTime},
                    {"reduce_overlapped_s", r.dpReduceOverlapped},
                    {"gather_overlapped_s", r.dpGatherOverlapped},
                    {"overlap_window_s", r.dpOverlapWindow}};
    j["overlap"] = {{"tp_comm_overlap", engine.scenario().training.tpCommOverlap},
                    {"overlap_grad_reduce", engine.scenario().training.dpOverlap},
                    {"overlap_param_gather", engine.scenario().training.overlapParamGather}};
    j["link_bound"] = {{"time_s", r.linkBoundTime}, {"binding", r.linkBound}};
    // The allowance of the fullest stage (what the ledger does not see: CUDA context, NCCL
    // buffers, allocator fragmentation), with its parts.
    nlohmann::json allowance = nullptr;
    nlohmann::json items = nlohmann::json::object();
    nlohmann::json deciding = nlohmann::json::array();
    nlohmann::json fullestStage = nullptr;
    double fullest = -1.0;
    const double deviceBytes = engine.scenario().device.hbmBytes;
    for (std::size_t s = 0; s < r.memory.size(); ++s) {
        const MemoryLedger &m = r.memory[s];
        if (m.total() <= fullest)
            continue;
        fullest = m.total();
        fullestStage = s;
        items = nlohmann::json::object();
        for (const MemoryItem &item : memoryItems(m))
            items[item.name] = item.bytes;
        deciding = decidingMemoryItems(
            m, s < r.stageHbmBytes.size() ? r.stageHbmBytes[s] : deviceBytes);
        allowance = {{"total", m.allowance()},
                     {"cuda_context", m.cudaContext},
                     {"nccl", m.nccl},
                     {"fragmentation", m.fragmentation()},
                     {"fragmentation_share", m.fragmentationShare}};
    }
    // The fullest stage's items, and the ones that decide the fit: without them a stage that
    // does not fit would; for one that fits, the largest (memoryledger.h).
    // Mixed devices: the fullest stage's smallest device.
    const double fullestDevice = fullestStage.is_number() && !r.stageHbmBytes.empty()
                                     ? r.stageHbmBytes[fullestStage.get<std::size_t>()]
                                     : deviceBytes;
    j["memory"] = {{"max_bytes_per_rank", r.maxMemoryPerRank},
                   {"device_bytes", fullestDevice},
                   {"fits", r.memoryFits},
                   {"allowance_bytes", allowance},
                   {"fullest_stage", fullestStage},
                   {"items_bytes", items},
                   {"deciding_items", deciding}};
    addDevicesJson(r, j); // mixed devices only
    j["switches"] = {{"leaf", fabric.leafCount()},
                     {"spine", fabric.spineCount()},
                     {"superspine", fabric.superSpineCount()}};
    if (fabric.coreCount() > 0) // four tiers only: other reports keep their bytes
        j["switches"]["core"] = fabric.coreCount();
    if (!engine.scenario().failures.empty()) { // degraded scenarios only (railyard-cli remap)
        std::vector<std::string> failed;
        for (const FailedComponent &f : engine.scenario().failures)
            failed.push_back(failureText(f));
        j["failures"] = failed;
    }

    nlohmann::json phases = nlohmann::json::array();
    for (const PhaseResult &p : r.phases) {
        phases.push_back({{"name", p.name},
                          {"dimension", std::string(dimName(p.dim))},
                          {"collective", std::string(collectiveName(p.collective))},
                          {"stage", p.stage},
                          {"bytes", p.bytes},
                          {"count", p.count},
                          {"alpha_s", p.alphaTime},
                          {"time_s", p.time},
                          {"hidden_s", p.hidden},
                          {"bottleneck_link", p.bottleneckLink}});
        if (!p.algorithm.empty()) { // TP and DP collectives: what NCCL's cost model chose
            phases.back()["algorithm"] = p.algorithm;
            phases.back()["protocol"] = p.protocol;
        }
    }
    j["phases"] = phases;
    std::vector<std::string> warnings = engine.mappingWarnings();
    warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
    j["warnings"] = warnings;
    if (const EpSummary ep = epSummary(engine); ep.present) // MoE models only
        j["ep"] = epJson(ep);

    if (withLinks) {
        nlohmann::json links = nlohmann::json::array();
        for (int i = 0; i < fabric.linkCount(); ++i) {
            const LinkLoad &l = r.links[i];
            if (l.bytes <= 0.0)
                continue;
            links.push_back({{"id", i},
                             {"name", fabric.linkName(i)},
                             {"tier", std::string(tierName(fabric.link(i).tier))},
                             {"bytes", l.bytes},
                             {"busy_s", l.busyTime},
                             {"utilisation", r.utilisation(i)},
                             {"top_dimension", std::string(dimName(l.topDim()))},
                             {"dimensions", perDim(l.dimBytes)}});
        }
        j["link_loads"] = links;
    }
    return j;
}

std::string reportToText(const CostEngine &engine)
{
    const CostReport &r = engine.report();
    const Fabric &fabric = engine.fabric();
    const Scenario &s = engine.scenario();
    std::ostringstream out;
    char line[256];
    out << "Scenario       " << (s.name.empty() ? "(unnamed)" : s.name) << "\n";
    std::snprintf(line, sizeof line,
                  "Layout         %d ranks = tp %d x pp %d x dp %d x cp %d (ep %d), order %s\n",
                  r.ranks, s.degrees.tp, s.degrees.pp, s.degrees.dp, s.degrees.cp, s.degrees.ep,
                  s.order.c_str());
    out << line;
    std::snprintf(line, sizeof line,
                  "Fabric         %d servers x %d GPUs, %d leaves, %d spines, %d super-spines\n",
                  fabric.servers(), fabric.gpusPerServer(), fabric.leafCount(),
                  fabric.spineCount(), fabric.superSpineCount());
    out << line;
    if (fabric.coreCount() > 0) {
        // Four tiers: the cores and zones on a line of their own (fabric.cpp).
        std::snprintf(line, sizeof line, "               %d cores above %d zones of pods\n",
                      fabric.coreCount(), fabric.zoneCount());
        out << line;
    }
    if (!s.failures.empty()) { // degraded scenarios only (railyard-cli remap)
        const std::vector<char> usable = usableSlots(fabric, s.failures);
        out << "Failed         ";
        for (std::size_t i = 0; i < s.failures.size(); ++i)
            out << (i ? ", " : "") << describeFailure(fabric, s.failures[i]);
        out << ": " << std::count(usable.begin(), usable.end(), 0) << " of " << fabric.slotCount()
            << " GPU slots unusable, mapping version " << s.mappingVersion << "\n";
    }
    out << "Iteration      " << formatSeconds(r.iterationTime) << "  (pipeline "
        << formatSeconds(r.pipelineMakespan) << ", " << engine.plan().microbatches
        << " micro-batches)\n";
    std::snprintf(line, sizeof line, "Bubble         %.1f %%   MFU %.1f %%\n",
                  100.0 * r.bubbleFraction, 100.0 * r.mfu);
    out << line;
    std::snprintf(line, sizeof line, "Spine share    %.2f %% of NIC->leaf bytes go up to a spine\n",
                  100.0 * r.spineBytesShare);
    out << line;
    const TrainingSpec &tr = s.training;
    out << "Overlap        tp_comm_overlap " << (tr.tpCommOverlap ? "on" : "off")
        << ", overlap_grad_reduce " << (tr.dpOverlap ? "on" : "off") << ", overlap_param_gather "
        << (tr.overlapParamGather ? "on" : "off") << "\n";
    if (r.dpSyncTime > 0.0) {
        out << "DP sync        " << formatSeconds(r.dpSyncTime) << " (reduce "
            << formatSeconds(r.dpReduceTime) << ", gather " << formatSeconds(r.dpGatherTime)
            << ")";
        if (tr.dpOverlap)
            out << "; overlapped reduce " << formatSeconds(r.dpReduceOverlapped) << " in a "
                << formatSeconds(r.dpOverlapWindow) << " window";
        out << "\n";
    }
    out << "\nPer dimension  sent/iteration  link bytes/iteration  exposed\n";
    for (Dim d : kAllDims) {
        std::snprintf(line, sizeof line, "  %-4s         %-14s  %-20s  %s\n",
                      std::string(dimName(d)).c_str(), formatBytes(r.dimBytesSent[index(d)]).c_str(),
                      formatBytes(r.dimBytes[index(d)]).c_str(),
                      formatSeconds(r.dimExposed[index(d)]).c_str());
        out << line;
    }
    out << "  (sent: what the ranks send, nccl-tests' definition; link bytes: counted once per "
           "link crossed)\n";
    if (r.stages.size() > 1) {
        out << "\nStages         layers  forward     backward    memory/rank\n";
        for (std::size_t st = 0; st < r.stages.size(); ++st) {
            const StageReport &sr = r.stages[st];
            std::string layers = std::to_string(sr.layers);
            if (sr.embedding)
                layers += "+E";
            if (sr.outputLayer)
                layers += "+H";
            std::snprintf(line, sizeof line, "  %-12zu %-7s %-11s %-11s %s\n", st, layers.c_str(),
                          formatSeconds(r.stageForward[st]).c_str(),
                          formatSeconds(r.stageBackward[st]).c_str(),
                          formatBytes(r.memory[st].total()).c_str());
            out << line;
        }
        out << "  (per micro-batch; E = embedding, H = LM head and loss)\n";
    }
    writeDevicesText(r, out); // mixed devices only
    out << "\nPer tier       tp / pp / dp / ep / cp link bytes\n";
    for (Tier t : kAllTiers) {
        const DimArray &b = r.tierBytes[index(t)];
        out << "  " << tierName(t) << ":";
        for (Dim d : kAllDims)
            out << " " << formatBytes(b[index(d)]);
        out << "\n";
    }
    std::snprintf(line, sizeof line,
                  "\nLinks          %d directed; utilisation p50 %.3f  p95 %.3f  p99 %.3f  max %.3f\n",
                  r.linkStats.count, r.linkStats.p50, r.linkStats.p95, r.linkStats.p99,
                  r.linkStats.max);
    out << line;
    if (r.bottleneckLink >= 0)
        out << "Bottleneck     " << fabric.linkName(r.bottleneckLink) << " ("
            << tierName(fabric.link(r.bottleneckLink).tier) << ", mostly "
            << dimName(r.bottleneckDim) << ", "
            << formatBytes(r.links[r.bottleneckLink].bytes) << "/iteration)\n";
    // Mixed devices: the fullest stage against its smallest device (the Devices block lists
    // every stage's).
    const MemoryLedger *fullestLedger = nullptr;
    double deviceHbm = s.device.hbmBytes;
    for (std::size_t st = 0; st < r.memory.size(); ++st)
        if (!fullestLedger || r.memory[st].total() > fullestLedger->total()) {
            fullestLedger = &r.memory[st];
            if (st < r.stageHbmBytes.size())
                deviceHbm = r.stageHbmBytes[st];
        }
    out << "Memory         " << formatBytes(r.maxMemoryPerRank) << " per rank at most, device "
        << formatBytes(deviceHbm) << (r.memoryFits ? " (fits)" : " (DOES NOT FIT)")
        << "\n";
    // The fullest stage's largest items, and which decide the fit.
    {
        if (fullestLedger) {
            std::string parts;
            for (const MemoryItem &item : memoryItems(*fullestLedger)) {
                if (item.bytes <= 0.0)
                    continue;
                parts += (parts.empty() ? "" : ", ") + std::string(item.name) + " "
                         + formatBytes(item.bytes);
            }
            std::string decide;
            for (const std::string &name : decidingMemoryItems(*fullestLedger, deviceHbm))
                decide += (decide.empty() ? "" : ", ") + name;
            out << "  fullest rank  " << parts << "\n";
            if (!decide.empty())
                out << (r.memoryFits ? "  largest item  " : "  over by      ")
                    << (r.memoryFits ? decide
                                     : formatBytes(r.maxMemoryPerRank - deviceHbm)
                                           + "; without " + decide + " it would fit")
                    << "\n";
        }
    }
    if (const EpSummary ep = epSummary(engine); ep.present) {
        std::string kind(routingKindName(ep.kind));
        if (ep.kind == RoutingKind::Zipf)
            kind += format(" (s = %g)", ep.zipfExponent, "");
        std::snprintf(line, sizeof line, "Expert routing %s, ep %d, %d experts, top-%d\n",
                      kind.c_str(), ep.ep, ep.experts, ep.topK);
        out << line;
        char hottest[96] = "flat";
        if (ep.skew > 1.0 + 1e-9)
            std::snprintf(hottest, sizeof hottest, "hottest: rank %d, experts %d..%d",
                          ep.hottestRank, ep.hottestFirstExpert, ep.hottestLastExpert);
        std::snprintf(line, sizeof line,
                      "  dispatch     %s per MoE layer per EP group, skew max/mean %.3g (%s)\n",
                      formatBytes(ep.dispatchBytesPerLayer).c_str(), ep.skew, hottest);
        out << line;
        std::snprintf(line, sizeof line,
                      "  spine        %s EP bytes/iteration (%s per layer crosses a spine)\n",
                      formatBytes(ep.spineBytes).c_str(),
                      formatBytes(ep.spineDispatchBytesPerLayerJob).c_str());
        out << line;
        std::snprintf(line, sizeof line,
                      "  locality     %s: %d of %d EP groups on one %s, %d span leaves; "
                      "%d of %d DP groups on one leaf\n",
                      ep.locality.c_str(), ep.epGroupsOneServer, ep.groupCount,
                      engine.fabric().scaleUpDomainServers() > 1 ? "scale-up domain" : "server",
                      ep.epGroupsSpanningLeaves, ep.dpGroupsOneLeaf, ep.dpGroups);
        out << line;
    }
    for (const std::string &w : engine.mappingWarnings())
        out << "warning: " << w << "\n";
    for (const std::string &w : r.warnings)
        out << "warning: " << w << "\n";
    return out.str();
}

} // namespace railyard
