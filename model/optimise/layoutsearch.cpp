/**
 * The parallel-layout search (layoutsearch.h).
 *
 * The base scenario is built the way `railyard-cli generate` builds its file: a scenario
 * document (fabric kind and counts, the device's NIC and scale-up defaults from
 * deviceFabricDefaults(), model and device presets) read by the scenario loader, so every range
 * check and every preset default is the loader's.
 *
 * Each candidate is that scenario with other degrees, training switches and placement. Before
 * any routing it is checked by the engine's own code: checkWorkload() (heads, key/value heads,
 * MLP size over tp; layers over pp x interleave; experts over ep; the batch over micro-batch x
 * dp; ...), then planWorkload() and schedulePipeline() on the compute times alone, whose peak
 * in-flight micro-batches size the activations exactly as CostEngine does. On one stage the
 * ops run one after another in the schedule's program order, so how many micro-batches are in
 * flight at any instant follows from that order alone, not from the send times the engine adds:
 * the pre-check's ledger equals the engine's. A candidate over the device's HBM is pruned there.
 *
 * Survivors are evaluated by a full CostEngine sharing one fabric graph and one router (the
 * engine's documented reuse: equal fabric specs build identical fabrics).
 */
#include "optimise/layoutsearch.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/pipelineschedule.h"
#include "scenario/devicepools.h"
#include "scenario/scenariofile.h"
#include "workload/presets.h"
#include "workload/workloadcheck.h"
#include "workload/workloadnames.h"
#include "workload/workloadplan.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <set>
#include <utility>

namespace railyard {

namespace {

std::vector<int> searchDivisors(int n, int limit)
{
    std::vector<int> out;
    for (int d = 1; d <= n && d <= limit; ++d)
        if (n % d == 0)
            out.push_back(d);
    return out;
}

} // namespace

std::string_view fabricKindText(FabricKind kind)
{
    switch (kind) {
    case FabricKind::Tor:
        return "tor";
    case FabricKind::RailOnly:
        return "rail-only";
    case FabricKind::RailOptimised:
        break;
    }
    return "rail-optimised";
}

bool parseFabricKindText(std::string_view name, FabricKind &out)
{
    for (FabricKind k : { FabricKind::RailOptimised, FabricKind::Tor, FabricKind::RailOnly })
        if (fabricKindText(k) == name) {
            out = k;
            return true;
        }
    return false;
}

namespace {

int serverGpus(const LayoutSearchOptions &o)
{
    if (o.gpusPerServer > 0)
        return o.gpusPerServer;
    const DeviceFabricDefaults d = deviceFabricDefaults(o.device);
    return d.trayGpus > 0 ? d.trayGpus : 8;
}

/// The scale-up domain's GPUs: the default ceiling of tp.
int domainGpus(const LayoutSearchOptions &o)
{
    return serverGpus(o) * std::max(1, o.scaleUpDomainServers);
}

double clockSeconds()
{
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

} // namespace

std::string candidateName(const std::string &model, const LayoutCandidate &c)
{
    const ParallelDegrees &d = c.degrees;
    std::string name = (model.empty() ? std::string("scenario") : model) + "-tp"
        + std::to_string(d.tp) + "-pp" + std::to_string(d.pp) + "-dp" + std::to_string(d.dp);
    if (d.cp > 1)
        name += "-cp" + std::to_string(d.cp);
    if (d.ep > 1)
        name += "-ep" + std::to_string(d.ep);
    name += "-mb" + std::to_string(c.microBatch) + "-" + std::string(scheduleName(c.schedule));
    if (c.schedule == ScheduleKind::Interleaved)
        name += std::to_string(c.interleave);
    name += "-" + std::string(recomputeName(c.recompute));
    name += c.sequenceParallel ? "-sp" : "";
    name += c.distributedOptimizer ? "-do" : "";
    name += "-" + std::string(placementName(c.placement));
    return name;
}

Scenario searchBaseScenario(const LayoutSearchOptions &o)
{
    if (!modelPreset(o.model))
        throw ScenarioError("model", "unknown model preset '" + o.model + "'");
    if (!devicePreset(o.device))
        throw ScenarioError("device", "unknown device preset '" + o.device + "'");
    if (o.gpus < 1)
        throw ScenarioError("gpus", "must be at least 1, got " + std::to_string(o.gpus));
    const int perServer = serverGpus(o);
    if (o.gpus % perServer != 0)
        throw ScenarioError("gpus",
            std::to_string(o.gpus) + " GPUs do not fill whole servers of "
                + std::to_string(perServer) + " GPUs");
    if (o.top < 1)
        throw ScenarioError("top", "must be at least 1, got " + std::to_string(o.top));
    if (o.shardCount < 1 || o.shardIndex < 0 || o.shardIndex >= o.shardCount)
        throw ScenarioError("shard",
            "index " + std::to_string(o.shardIndex) + " of " + std::to_string(o.shardCount)
                + " shards: needs 0 <= index < count");
    if (o.maxPp < 1 || o.maxCp < 1 || o.maxMicroBatch < 1 || o.maxTp < 0 || o.maxEp < 0)
        throw ScenarioError("limits", "every enumeration limit must be at least 1");
    if (o.schedules.empty() || o.recomputes.empty() || o.placements.empty())
        throw ScenarioError("limits", "the schedules, recomputes and placements must not be empty");
    for (int v : o.interleaves)
        if (v < 2)
            throw ScenarioError(
                "interleave", "virtual stages must be at least 2, got " + std::to_string(v));

    // The document generate writes for the same flags (app/cli/cmd_generate.cpp).
    using nlohmann::json;
    const DeviceFabricDefaults defaults = deviceFabricDefaults(o.device);
    const int servers = o.gpus / perServer;
    json fabric = json::object();
    fabric["kind"] = std::string(fabricKindText(o.fabricKind));
    fabric["servers"] = servers;
    fabric["gpus_per_server"] = perServer;
    if (o.serversPerSu > 0)
        fabric["servers_per_su"] = o.serversPerSu;
    if (o.serversPerLeaf > 0)
        fabric["servers_per_leaf"] = o.serversPerLeaf;
    if (o.switchRadix > 0)
        fabric["switch_radix"] = o.switchRadix;
    if (o.scaleUpDomainServers > 0)
        fabric["scaleup_domain_servers"] = o.scaleUpDomainServers;
    if (o.planes > 0)
        fabric["planes"] = o.planes;
    fabric["nic_gbps"] = o.nicGbps > 0.0 ? o.nicGbps : defaults.nicGbps;
    fabric["scaleup_gbps"] = defaults.scaleUpGbps;
    fabric["name"] = std::string(fabricKindText(o.fabricKind)) + "-" + std::to_string(servers) + "x"
        + std::to_string(perServer);
    json model = { { "preset", o.model } };
    if (o.seq != 0) // 0 = the preset's; anything else the loader checks
        model["seq"] = o.seq;
    json training = json::object();
    if (o.globalBatch != 0)
        training["global_batch"] = o.globalBatch;
    json doc;
    doc["format_version"] = kScenarioFormatVersion;
    doc["fabric"] = std::move(fabric);
    doc["parallel"] = { { "tp", 1 }, { "pp", 1 }, { "dp", o.gpus }, { "cp", 1 } };
    doc["model"] = std::move(model);
    doc["training"] = std::move(training);
    doc["device"] = { { "preset", o.device } };
    Scenario base = scenarioFromJson(doc);
    base.name = base.model.name;
    base.description = "railyard-cli search base scenario";
    return base;
}

std::vector<LayoutCandidate> enumerateLayouts(const LayoutSearchOptions &o)
{
    const std::optional<ModelSpec> model = modelPreset(o.model);
    const int experts = model ? model->experts : 0;
    const int maxTp = o.maxTp > 0 ? o.maxTp : domainGpus(o);
    const int maxEp = experts == 0 ? 1 : (o.maxEp > 0 ? o.maxEp : experts);
    std::vector<int> microBatches;
    for (int mb = 1; mb <= o.maxMicroBatch; mb *= 2)
        microBatches.push_back(mb);

    std::vector<LayoutCandidate> out;
    LayoutCandidate c;
    for (int tp : searchDivisors(o.gpus, maxTp))
        for (int pp : searchDivisors(o.gpus / tp, o.maxPp))
            for (int cp : searchDivisors(o.gpus / (tp * pp), o.maxCp)) {
                const int dp = o.gpus / (tp * pp * cp);
                for (int ep : searchDivisors(dp * cp, maxEp)) {
                    c.degrees = { tp, pp, dp, cp, ep };
                    // One stage: every schedule is the same single program; 1F1B stands for all.
                    std::vector<std::pair<ScheduleKind, int>> schedules;
                    if (pp == 1)
                        schedules.push_back({ ScheduleKind::OneFOneB, 1 });
                    else
                        for (ScheduleKind k : o.schedules) {
                            if (k != ScheduleKind::Interleaved)
                                schedules.push_back({ k, 1 });
                            else
                                for (int v : o.interleaves)
                                    schedules.push_back({ k, v });
                        }
                    // Sequence parallelism needs tp > 1; the distributed optimizer shards over
                    // dp x cp (Megatron-LM): with one replica neither switch changes anything.
                    const std::vector<bool> sps
                        = tp > 1 ? std::vector<bool> { true, false } : std::vector<bool> { false };
                    const std::vector<bool> dos = dp * cp > 1 ? std::vector<bool> { true, false }
                                                              : std::vector<bool> { false };
                    for (int mb : microBatches)
                        for (const auto &[kind, v] : schedules)
                            for (Recompute r : o.recomputes)
                                for (bool sp : sps)
                                    for (bool dopt : dos)
                                        for (Placement pl : o.placements) {
                                            c.microBatch = mb;
                                            c.schedule = kind;
                                            c.interleave = v;
                                            c.recompute = r;
                                            c.sequenceParallel = sp;
                                            c.distributedOptimizer = dopt;
                                            c.placement = pl;
                                            c.index = static_cast<std::int64_t>(out.size());
                                            out.push_back(c);
                                        }
                }
            }
    return out;
}

Scenario candidateScenario(const Scenario &base, const LayoutCandidate &c)
{
    Scenario s = base;
    s.degrees = c.degrees;
    s.training.microBatch = c.microBatch;
    s.training.schedule = c.schedule;
    s.training.interleave = c.schedule == ScheduleKind::Interleaved ? c.interleave : 1;
    s.training.recompute = c.recompute;
    s.training.sequenceParallel = c.sequenceParallel;
    s.training.distributedOptimizer = c.distributedOptimizer;
    s.placement = c.placement;
    s.slots.clear();
    s.name = candidateName(base.model.name, c);
    return s;
}

Scenario candidateScenario(const LayoutSearchOptions &options, const LayoutCandidate &candidate)
{
    return candidateScenario(searchBaseScenario(options), candidate);
}

std::string pruneReason(const Scenario &s)
{
    WorkloadPlan plan;
    PipelineTimeline timeline;
    try {
        checkWorkload(s.model, s.training, s.device, s.degrees);
        plan = planWorkload(s.model, s.training, s.device, s.degrees);
        // The schedule on the compute times alone: its peak in-flight micro-batches per stage
        // are the engine's (see the top of this file), and its checks are the engine's.
        PipelineInput in;
        in.kind = s.training.schedule;
        in.stages = s.degrees.pp;
        in.microbatches = plan.microbatches;
        in.chunks = chunksPerRank(s.training);
        for (const StageCompute &st : plan.stages) {
            in.forward.push_back(st.forwardTime);
            in.backward.push_back(st.backwardTime);
            if (splitsWeightGrad(in.kind))
                in.weightGrad.push_back(std::min(st.weightGradTime, st.backwardTime));
        }
        if (in.chunks > 1)
            for (int c = 0; c < in.chunks; ++c)
                for (const StageCompute &st : plan.stages) {
                    const auto at = static_cast<std::size_t>(c);
                    in.chunkForward.push_back(at < st.chunkForwardTime.size()
                            ? st.chunkForwardTime[at]
                            : st.forwardTime / in.chunks);
                    in.chunkBackward.push_back(at < st.chunkBackwardTime.size()
                            ? st.chunkBackwardTime[at]
                            : st.backwardTime / in.chunks);
                }
        timeline = schedulePipeline(in);
    } catch (const ScenarioError &e) {
        return e.field().empty() ? std::string("workload") : e.field();
    }
    // The ledger as CostEngine fills it: activations per micro-batch x peak in flight. With
    // mixed devices (fabric.device_pools) which device holds a stage is the mapping's, known
    // only to the engine: the pre-check prunes what fits none of the devices (the largest HBM),
    // and the engine decides the rest (its memoryFits, below).
    double hbm = s.device.hbmBytes;
    for (const DeviceSpec &d : serverDevices(s.fabric, s.device).devices)
        hbm = std::max(hbm, d.hbmBytes);
    for (std::size_t st = 0; st < plan.memory.size(); ++st) {
        MemoryLedger m = plan.memory[st];
        const double inflight = st < timeline.peakInflight.size() ? timeline.peakInflight[st] : 1.0;
        m.activations = m.activationsPerMicrobatch * inflight;
        if (m.total() > hbm)
            return "memory";
    }
    return {};
}

bool rankedBefore(const LayoutCandidate &a, const LayoutCandidate &b)
{
    if (a.tokensPerSecond != b.tokensPerSecond)
        return a.tokensPerSecond > b.tokensPerSecond;
    return a.index < b.index;
}

ShownObjectives shownObjectives(const LayoutCandidate &c)
{
    return { std::llround(c.tokensPerSecond), std::llround(c.memoryHeadroomGB * 10.0),
        std::llround(c.spineShare * 1000.0) };
}

bool dominates(const LayoutCandidate &a, const LayoutCandidate &b)
{
    const ShownObjectives x = shownObjectives(a), y = shownObjectives(b);
    const bool noWorse = x.tokensPerSecond >= y.tokensPerSecond
        && x.headroomTenthsGB >= y.headroomTenthsGB && x.spinePermille <= y.spinePermille;
    return noWorse && !(x == y);
}

std::vector<LayoutCandidate> paretoFront(std::vector<LayoutCandidate> candidates)
{
    // Lexicographic order of the shown figures (throughput desc, headroom desc, spine share
    // asc), then the ranking: whatever dominates a candidate, or shows its figures and ranks
    // before it, comes before it, and both relations are transitive, so comparing each
    // candidate with the front found so far suffices (Kung, Luccio and Preparata, J. ACM 1975).
    std::sort(candidates.begin(), candidates.end(),
        [](const LayoutCandidate &a, const LayoutCandidate &b) {
            const ShownObjectives x = shownObjectives(a), y = shownObjectives(b);
            if (x.tokensPerSecond != y.tokensPerSecond)
                return x.tokensPerSecond > y.tokensPerSecond;
            if (x.headroomTenthsGB != y.headroomTenthsGB)
                return x.headroomTenthsGB > y.headroomTenthsGB;
            if (x.spinePermille != y.spinePermille)
                return x.spinePermille < y.spinePermille;
            return rankedBefore(a, b);
        });
    std::vector<LayoutCandidate> front;
    for (LayoutCandidate &c : candidates) {
        // A candidate showing a front row's figures is that row's twin (the same mapping
        // under two placement names, a flag that changes nothing here): the row first in
        // the ranking stands for the point.
        const ShownObjectives mine = shownObjectives(c);
        const bool covered = std::any_of(front.begin(), front.end(), [&](const LayoutCandidate &f) {
            return dominates(f, c) || shownObjectives(f) == mine;
        });
        if (!covered) {
            c.pareto = true;
            front.push_back(c);
        }
    }
    std::sort(front.begin(), front.end(), rankedBefore);
    return front;
}

namespace {

/// Keeps the top rows and the front, and marks the top rows on the front.
void finishResult(LayoutSearchResult &r, std::vector<LayoutCandidate> all)
{
    r.front = paretoFront(all);
    std::sort(all.begin(), all.end(), rankedBefore);
    if (all.size() > static_cast<std::size_t>(r.options.top))
        all.resize(static_cast<std::size_t>(r.options.top));
    std::set<std::int64_t> onFront;
    for (const LayoutCandidate &f : r.front)
        onFront.insert(f.index);
    for (LayoutCandidate &c : all)
        c.pareto = onFront.count(c.index) > 0;
    r.top = std::move(all);
}

} // namespace

LayoutSearchResult searchLayouts(
    const LayoutSearchOptions &options, const LayoutSearchMonitor &monitor)
{
    const double start = clockSeconds();
    LayoutSearchResult r;
    r.options = options;
    const Scenario base = searchBaseScenario(options);
    r.baseName = base.model.name;
    const std::vector<LayoutCandidate> list = enumerateLayouts(options);
    r.enumerated = static_cast<std::int64_t>(list.size());
    r.shards = { options.shardIndex };
    const auto count = static_cast<std::size_t>(options.shardCount);
    const auto first = static_cast<std::size_t>(options.shardIndex);
    std::int64_t mine = 0;
    for (std::size_t i = first; i < list.size(); i += count)
        ++mine;

    std::shared_ptr<const Fabric> fabric;
    std::shared_ptr<Router> router;
    std::vector<LayoutCandidate> evaluated;
    LayoutSearchProgress progress;
    progress.total = mine;
    double lastReport = start;
    for (std::size_t i = first; i < list.size(); i += count) {
        LayoutCandidate c = list[i];
        ++r.considered;
        const Scenario s = candidateScenario(base, c);
        std::string reason = pruneReason(s);
        if (reason.empty()) {
            try {
                CostEngine engine(s, fabric, router);
                if (!fabric) {
                    fabric = engine.sharedFabric();
                    router = engine.sharedRouter();
                }
                const CostReport &report = engine.report();
                ++r.evaluated;
                if (!report.memoryFits) {
                    reason = "memory"; // the pre-check and the engine agree; kept as a guard
                } else {
                    c.iterationTime = report.iterationTime;
                    c.tokensPerSecond = report.iterationTime > 0.0 ? double(s.training.globalBatch)
                            * double(s.model.seq) / report.iterationTime
                                                                   : 0.0;
                    c.memoryHeadroomGB = memoryHeadroom(report, s.device.hbmBytes) / 1e9;
                    c.spineShare = report.spineBytesShare;
                    evaluated.push_back(c);
                    progress.bestTokensPerSecond
                        = std::max(progress.bestTokensPerSecond, c.tokensPerSecond);
                }
            } catch (const ScenarioError &e) {
                reason = e.field().empty() ? std::string("engine") : e.field();
            }
        }
        if (!reason.empty())
            ++r.pruned[reason];
        progress.evaluated = r.considered;
        const double now = clockSeconds();
        if (monitor && (now - lastReport >= 0.2 || r.considered == 1 || r.considered == mine)) {
            lastReport = now;
            progress.seconds = now - start;
            progress.rate = progress.seconds > 0.0 ? double(r.evaluated) / progress.seconds : 0.0;
            if (!monitor(progress)) {
                r.cancelled = true;
                break;
            }
        }
    }
    finishResult(r, std::move(evaluated));
    r.seconds = clockSeconds() - start;
    return r;
}

LayoutSearchResult mergeSearchResults(const std::vector<LayoutSearchResult> &parts, int top)
{
    if (parts.empty())
        throw ScenarioError("merge", "no parts to merge");
    const LayoutSearchResult &one = parts.front();
    const int count = one.options.shardCount;
    const int partTop = one.options.top;
    if (top <= 0)
        top = partTop;
    if (top > partTop)
        throw ScenarioError("top",
            std::to_string(top) + " rows asked for, but each part kept only its top "
                + std::to_string(partTop) + " (search the shards with --top " + std::to_string(top)
                + ")");
    std::vector<int> seen(static_cast<std::size_t>(count), 0);
    std::vector<LayoutCandidate> all;
    LayoutSearchResult r;
    r.options = one.options;
    r.options.shardIndex = 0;
    r.options.shardCount = 1;
    r.options.top = top;
    r.baseName = one.baseName;
    r.enumerated = one.enumerated;
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const LayoutSearchResult &part = parts[p];
        LayoutSearchOptions a = part.options;
        LayoutSearchOptions b = one.options;
        a.shardIndex = b.shardIndex = 0;
        const bool same = a.model == b.model && a.device == b.device && a.fabricKind == b.fabricKind
            && a.gpus == b.gpus && a.gpusPerServer == b.gpusPerServer
            && a.serversPerSu == b.serversPerSu && a.serversPerLeaf == b.serversPerLeaf
            && a.switchRadix == b.switchRadix && a.scaleUpDomainServers == b.scaleUpDomainServers
            && a.planes == b.planes && a.nicGbps == b.nicGbps && a.globalBatch == b.globalBatch
            && a.seq == b.seq && a.maxTp == b.maxTp && a.maxPp == b.maxPp && a.maxCp == b.maxCp
            && a.maxEp == b.maxEp && a.maxMicroBatch == b.maxMicroBatch
            && a.interleaves == b.interleaves && a.schedules == b.schedules
            && a.recomputes == b.recomputes && a.placements == b.placements && a.top == b.top
            && a.shardCount == b.shardCount && part.enumerated == one.enumerated;
        if (!same)
            throw ScenarioError("part " + std::to_string(p + 1),
                "is a shard of a different search than part 1 (model, device, fabric, GPUs, "
                "batch, limits, --top or the shard count differ)");
        if (part.cancelled)
            throw ScenarioError("part " + std::to_string(p + 1), "is a cancelled search");
        for (int s : part.shards) {
            if (s < 0 || s >= count)
                throw ScenarioError("part " + std::to_string(p + 1),
                    "names shard " + std::to_string(s) + " of " + std::to_string(count));
            if (seen[static_cast<std::size_t>(s)]++ > 0)
                throw ScenarioError("merge",
                    "shard " + std::to_string(s) + "/" + std::to_string(count)
                        + " is given twice (part " + std::to_string(p + 1) + ")");
        }
        r.considered += part.considered;
        r.evaluated += part.evaluated;
        for (const auto &[reason, n] : part.pruned)
            r.pruned[reason] += n;
        // A candidate in the serial top rows is in its own shard's top rows; one on the serial
        // front is on its shard's front (whatever dominates it globally dominates it anywhere).
        all.insert(all.end(), part.top.begin(), part.top.end());
        all.insert(all.end(), part.front.begin(), part.front.end());
    }
    std::string missing;
    for (int s = 0; s < count; ++s)
        if (seen[static_cast<std::size_t>(s)] == 0)
            missing
                += (missing.empty() ? "" : ", ") + std::to_string(s) + "/" + std::to_string(count);
    if (!missing.empty())
        throw ScenarioError("merge", "missing shard(s) " + missing);
    std::sort(all.begin(), all.end(),
        [](const LayoutCandidate &x, const LayoutCandidate &y) { return x.index < y.index; });
    all.erase(
        std::unique(all.begin(), all.end(),
            [](const LayoutCandidate &x, const LayoutCandidate &y) { return x.index == y.index; }),
        all.end());
    for (LayoutCandidate &c : all)
        c.pareto = false;
    r.shards.clear();
    for (int s = 0; s < count; ++s)
        r.shards.push_back(s);
    finishResult(r, std::move(all));
    return r;
}

} // namespace railyard
