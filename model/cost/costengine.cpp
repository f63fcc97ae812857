#include "cost/costengine.h"

#include "base/scenarioerror.h"
#include "base/writeahead.h"
#include "cost/bytessent.h"
#include "cost/costengineimpl.h"
#include "cost/evaluationinputs.h"
#include "cost/linkranking.h"
#include "cost/nccltuning.h"
#include "cost/overlapchannels.h"
#include "cost/reportfinite.h"
#include "cost/reportwarnings.h"
#include "cost/stagetiming.h"
#include "cost/trafficmodel.h"
#include "cost/trafficplan.h"
#include "fabric/degradation.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <optional>
#include <utility>

namespace railyard {

void CostEngine::Impl::setUpTraffic()
{
    TrafficPlan tp = planTraffic(scenario, plan);
    dpOps = std::move(tp.dpOps);
    stageDpBytes = tp.setup.stageDpBytes;
    traffic.emplace(fabric, layout, *router, tp.setup);
    tpRun.assign(plan.ops.size(), 0.0);
    tpRunVersion.assign(plan.ops.size(), 0); // a new model: nothing found yet
    const std::vector<double> weight = patternWeights(*traffic, plan, chunks());
    for (int p = 0; p < traffic->patternCount(); ++p)
        traffic->setWeight(p, weight[p]);
    bytesSent = railyard::bytesSent(plan, scenario.degrees, chunks(), scenario.training.fsdpShard);

    // What turns a link's bytes into the overlap windows' traffic: the backward and forward
    // shares of each dimension's per-micro-batch bytes, and the DP bytes' reduction and
    // all-gather shares (from the ops and their ring passes, as patternWeights() counts them).
    const ParallelDegrees &deg = scenario.degrees;
    OverlapChannels::Shares sh;
    present = {deg.tp > 1, deg.pp > 1, !dpOps.empty() && !traffic->dpPatterns().empty(),
               deg.ep > 1, deg.cp > 1};
    sh.present = present;
    DimArray fwd{}, bwd{};
    for (const CommOp &op : plan.ops) {
        const double b = ringPasses(op.collective) * op.bytes * op.count;
        if (op.pass == OpPass::Forward)
            fwd[index(op.dim)] += b;
        else if (op.pass == OpPass::Backward)
            bwd[index(op.dim)] += b;
    }
    for (int d = 0; d < kDimCount; ++d) {
        const double total = fwd[d] + bwd[d];
        sh.forward[d] = total > 0.0 ? fwd[d] / total : 0.0;
        sh.backward[d] = total > 0.0 ? bwd[d] / total : 0.0;
    }
    double all = 0.0;
    for (const DpOp &op : dpOps) {
        const double w = ringPasses(op.collective) * op.ratio;
        all += w;
        (op.collective == Collective::AllGather ? sh.gather : sh.reduce) += w;
    }
    sh.reduce = all > 0.0 ? sh.reduce / all : 0.0;
    sh.gather = all > 0.0 ? sh.gather / all : 0.0;
    sh.microbatches = plan.microbatches;
    sh.reduceOverlapped = scenario.training.dpOverlap;
    sh.gatherOverlapped = scenario.training.overlapParamGather
                          && scenario.training.distributedOptimizer;
    channels.setUp(sh, fabric.linkCount());
}

long long CostEngine::Impl::updateLink(int i, LinkLoad &l, bool full)
{
    double total = 0.0;
    for (int d = 0; d < kDimCount; ++d) {
        // Loads that cancelled out after moves may leave rounding residue below a byte.
        const double b = traffic->linkDimBytes(i, kAllDims[static_cast<std::size_t>(d)]);
        l.dimBytes[d] = b > 0.5 ? b : 0.0;
        total += l.dimBytes[d];
    }
    l.bytes = total;
    const double bandwidth = fabric.linkBandwidth(i);
    l.busyTime = total / bandwidth;
    channels.update(i, l.dimBytes, bandwidth,
        full ? OverlapChannels::Variants::All : OverlapChannels::Variants::WithEveryDim);
    // Percentiles and the bottleneck compare busy times quantised to picoseconds, so that an
    // incremental update and a full evaluation rank links identically.
    return roundToInteger(l.busyTime * 1e12);
}

CostEngine::Impl::Squares CostEngine::Impl::square(long long key)
{
    const auto k = static_cast<Squares>(key);
    return k * k;
}

void CostEngine::Impl::refreshLinks(bool all, bool full)
{
    const int n = fabric.linkCount();
    const std::vector<int> &changed = traffic->changedLinks();
    if (all) {
        // Filled link by link below (LinkLoadTable: a link that repeats the one before it
        // shares its entry).
        report.links.clear();
        report.links.reserve(static_cast<std::size_t>(n));
        std::vector<long long> keys;
        keys.reserve(static_cast<std::size_t>(n));
        aboutToWriteReserved(keys);
        keys.assign(static_cast<std::size_t>(n), 0);
        // Most links carry exactly what the link before them does at the same bandwidth (a
        // GPU's port out and in, the links of an ECMP lump: 96 % of them at 131,072 GPUs):
        // such a link takes that one's figures and keys instead of computing them again.
        busySquares = 0;
        // Every link is set once below: the overlap channels keep their maxima alone until a
        // link changes on its own (340 MB of keys at a million GPUs that `evaluate` never
        // reads).
        channels.beginFull();
        for (int i = 0; i < n; ++i) {
            const auto at = static_cast<std::size_t>(i);
            if (i > 0 && fabric.linkBandwidth(i) == fabric.linkBandwidth(i - 1)
                && traffic->sameLinkDimBytes(i, i - 1)) {
                report.links.pushRepeat();
                keys[at] = keys[at - 1];
                channels.copyKeys(i, i - 1);
            } else {
                LinkLoad l;
                keys[at] = updateLink(i, l);
                report.links.push_back(l);
            }
            busySquares += square(keys[at]);
        }
        ranking.rank(std::move(keys));
    } else {
        if (!changed.empty())
            channels.keepKeys([this](int link) {
                return std::pair<DimArray, double>(
                    report.links[sz(link)].dimBytes, fabric.linkBandwidth(link));
            });
        for (int i : changed) {
            LinkLoad l;
            const long long key = updateLink(i, l, full);
            report.links.set(sz(i), l);
            // Unsigned: the difference may wrap, the sum it leaves does not.
            busySquares += square(key) - square(ranking.key(i));
            ranking.change(i, key);
        }
        ranking.settle();
    }
    traffic->clearChangedLinks();
    // The exposure variants' keys a search's moves left behind, before a full evaluation
    // reads them: each link's as it is now.
    if (full)
        channels.catchUp([this](int link) {
            return std::pair<DimArray, double>(
                report.links[sz(link)].dimBytes, fabric.linkBandwidth(link));
        });
    channels.settle();
    report.bottleneckLink = ranking.bottleneck();
    report.bottleneckDim =
        report.bottleneckLink >= 0 ? report.links[report.bottleneckLink].topDim() : Dim::Tp;
}

void CostEngine::Impl::fillLinkStats()
{
    // Nearest-rank percentiles of utilisation (busy / iteration time) over every directed link.
    const double toUtil = report.iterationTime > 0.0 ? 1e-12 / report.iterationTime : 0.0;
    report.linkStats.count = fabric.linkCount();
    report.linkStats.p50 = ranking.percentile(0.50, toUtil);
    report.linkStats.p95 = ranking.percentile(0.95, toUtil);
    report.linkStats.p99 = ranking.percentile(0.99, toUtil);
    report.linkStats.max = ranking.max(toUtil);
}

void CostEngine::Impl::fillStages()
{
    const int stages = scenario.degrees.pp;
    report.stages.assign(stages, StageReport{});
    for (int s = 0; s < stages; ++s) {
        StageReport &r = report.stages[s];
        const StageCompute &c = plan.stages[s];
        const StageSync &sync = main.iteration.stages[s];
        r.layers = c.layers;
        r.chunkLayers = c.chunkLayers;
        r.embedding = s == 0;
        r.outputLayer = s == stages - 1;
        r.computeForward = main.forward[s].compute;
        r.computeBackward = main.backward[s].compute;
        r.commForward = main.forward[s].comm;
        r.commBackward = main.backward[s].comm;
        r.lastCompute = sync.lastCompute;
        r.dpWindow = sync.window;
        r.dpReduceEnd = sync.reduceEnd;
        r.dpExposed = std::max(0.0, sync.reduceEnd - sync.lastCompute);
        if (sync.syncEnd > sync.reduceEnd) {
            r.tiedEmbeddingEnd = sync.syncEnd;
            r.tiedEmbeddingStart = sync.syncEnd - main.sync.tiedEmbedding;
        }
        const std::vector<double> &ready = main.input.forwardReady;
        r.paramGatherWait = static_cast<std::size_t>(s) < ready.size() ? ready[s] : 0.0;
    }
}

void CostEngine::Impl::fillExposed()
{
    const int stages = scenario.degrees.pp;
    // Exposed time per dimension: how much sooner the iteration would end if that dimension's
    // communication were free (everything else unchanged, its bytes gone from the links).
    report.dimExposed = {};
    for (Dim dim : kAllDims) {
        if (!present[index(dim)])
            continue;
        double end = 0.0;
        if (dim == Dim::Dp && main.input.forwardReady.empty() && !times.gatherPrefetch) {
            // The DP sync does not move the pipeline: the same timeline, without the sync (not
            // so with FSDP's prefetched gathers, which sit in the passes).
            end = timeIteration(main.timeline, stages, chunks(),
                                syncPlanFor(scenario, plan, times, channels, dim))
                      .end;
        } else {
            end = timeVariant(scenario, plan, times, channels, dim).iteration.end;
        }
        report.dimExposed[index(dim)] = std::max(0.0, report.iterationTime - end);
    }
    // Physical invariant: nothing exposed beyond the iteration.
    assert(std::all_of(report.dimExposed.begin(), report.dimExposed.end(),
                       [&](double e) { return e >= 0.0 && e <= report.iterationTime; }));
}

void CostEngine::Impl::applySlowdown()
{
    std::vector<StagePace> pace = slowdown.stagePaces(mapping, layout);
    if (pace != stagePace) {
        plan = slowdown.paced(basePlan, pace);
        stagePace = std::move(pace);
    }
}

void CostEngine::Impl::recompute(bool allLinks, bool full)
{
    if (slowdown.active()) // a slow GPU's stage is the one its rank sits in now
        applySlowdown();
    if (trafficBehind) { // a revert's maxima, left for the next move (revertMove())
        traffic->refreshMaxima();
        trafficBehind = false;
    }
    const int stages = scenario.degrees.pp;
    report.ranks = layout.worldSize();
    // Links first: the overlap windows' contention and the link bound come from their bytes.
    refreshLinks(allLinks, full);
    times = phaseTimes();
    // A search's step leaves the events in the order they ran (nothing it reads depends on
    // it); refresh() sorts them.
    // Into main's buffers (a search's step leaves the previous step's timeline there, below).
    timeVariant(scenario, plan, times, channels, std::nullopt,
        full ? EventOrder::Sorted : EventOrder::AsRun, main);
    report.stageForward = main.input.forward;
    report.stageBackward = main.input.backward;
    report.boundaryForward = times.sendForward;
    report.boundaryBackward = times.sendBackward;
    report.wrapForward = times.wrapForward;
    report.wrapBackward = times.wrapBackward;
    report.dpReduceTime = times.dpPresent ? times.reduceAlpha + times.reduceBeta : 0.0;
    report.dpGatherTime = times.dpPresent ? times.gatherAlpha + times.gatherBeta : 0.0;
    report.dpSyncTime = report.dpReduceTime + report.dpGatherTime;
    report.dpReduceOverlapped =
        present[index(Dim::Dp)] ? main.sync.reduceAlpha + main.sync.reduceBeta : 0.0;
    // With FSDP's prefetch the gathers run layer by layer in the passes (stagePasses()), not in
    // the sync: their time as the passes charge it, uncontended.
    report.dpGatherOverlapped = report.dpGatherTime > 0.0
        ? (times.gatherPrefetch ? report.dpGatherTime
                                : main.sync.gatherAlpha + main.sync.gatherBeta)
        : 0.0;
    report.dpOverlapWindow = 0.0;
    if (present[index(Dim::Dp)] && scenario.training.dpOverlap && !main.iteration.stages.empty()) {
        report.dpOverlapWindow = main.iteration.stages.front().window;
        for (const StageSync &st : main.iteration.stages)
            report.dpOverlapWindow = std::min(report.dpOverlapWindow, st.window);
    }

    if (full)
        report.timeline = main.timeline; // fillExposed() reads main's below
    else
        std::swap(report.timeline, main.timeline); // a search step: main.timeline, the step
                                                   // before's, takes the next one (reused)
    report.pipelineMakespan = report.timeline.makespan;
    report.bubbleFraction = report.timeline.bubbleFraction;
    report.iterationTime = main.iteration.end;
    report.linkBoundTime = main.sync.linkBound;
    report.linkBound = main.iteration.beforeBound < main.sync.linkBound;

    report.tierBytes = traffic->tierBytes();
    report.dimBytes = {};
    for (const DimArray &tier : report.tierBytes)
        for (int d = 0; d < kDimCount; ++d)
            report.dimBytes[d] += tier[d];
    for (DimArray &tier : report.tierBytes)
        for (double &b : tier)
            b = b > 0.5 ? b : 0.0;
    for (double &b : report.dimBytes)
        b = b > 0.5 ? b : 0.0;
    report.dimBytesSent = bytesSent;
    report.spineBytesShare =
        traffic->nicUpBytes() > 0.5 ? std::max(0.0, traffic->leafUpBytes()) / traffic->nicUpBytes()
                                    : 0.0;
    if (report.spineBytesShare < 1e-12)
        report.spineBytesShare = 0.0;

    fillLinkStats();
    // Physical invariant: no link busy longer than the iteration.
    assert(report.bottleneckLink < 0
           || report.links[report.bottleneckLink].busyTime <= report.iterationTime);

    report.memory = plan.memory;
    report.maxMemoryPerRank = 0.0;
    for (int s = 0; s < stages; ++s) {
        MemoryLedger &m = report.memory[s];
        const double inflight =
            s < static_cast<int>(report.timeline.peakInflight.size()) ? report.timeline.peakInflight[s] : 1.0;
        m.activations = m.activationsPerMicrobatch * inflight;
        report.maxMemoryPerRank = std::max(report.maxMemoryPerRank, m.total());
    }
    report.memoryFits = report.maxMemoryPerRank <= scenario.device.hbmBytes;

    const double peak = peakTflops(scenario.device, scenario.training.precision) * 1e12;
    report.mfu = report.iterationTime > 0.0
                     ? plan.modelFlopsPerIteration / (report.iterationTime * report.ranks * peak)
                     : 0.0;
    if (devices) // per-device memory fit and peaks, the stages' devices, the layer suggestion
        devices->fill(report, slowdown, mapping, layout, stagePace, plan);

    mappingWarnings.reset();
    partial = !full;
    if (!full)
        return; // a search's step: the figures above are current, the rest waits for refresh()
    // What a search does not read: the phase table (every op's name, time and busiest link),
    // the exposed time of each dimension (one more timeline each), the per-stage table and the
    // warnings.
    fillPhases();
    fillExposed();
    fillStages();
    report.warnings =
        iterationWarnings(report, fabric, scenario.device.hbmBytes, main.iteration.beforeBound);
    for (const std::string &finding : fabric.cablingFindings())
        report.warnings.push_back("cabling: " + finding);
}

CostEngine::CostEngine(const Scenario &scenario, std::shared_ptr<const Fabric> fabric,
                       std::shared_ptr<Router> router)
{
    // A router routes over one fabric: keep the given one only with the given fabric.
    const std::shared_ptr<const Fabric> given = fabric;
    EvaluationInputs inputs = prepareEvaluation(scenario, std::move(fabric));
    if (inputs.fabric != given)
        router.reset();
    d = std::make_unique<Impl>(scenario, std::move(inputs), std::move(router));
    if (anyComputeDegradation(scenario.degradations.parts))
        d->slowdown = ComputeSlowdown(slotComputeSpeeds(d->fabric, scenario.degradations.parts));
    d->devices = MixedDevices::build(scenario, d->fabric, d->plan, d->slowdown);
    if (d->slowdown.active())
        d->basePlan = d->plan;
    d->setUpTraffic();
    d->traffic->build(d->mapping);
    d->recompute(true);
    // The readers keep every input in range (base/physicalranges.h); this is the second line:
    // a report with inf or nan is refused rather than printed.
    checkReportFinite(d->report);
}

CostEngine::~CostEngine() = default;

std::shared_ptr<const Fabric> CostEngine::sharedFabric() const { return d->fabricPtr; }
std::shared_ptr<Router> CostEngine::sharedRouter() const { return d->router; }

const std::vector<std::string> &CostEngine::mappingWarnings() const
{
    if (!d->mappingWarnings) {
        std::vector<std::string> out;
        for (const MappingIssue &issue : d->mapping.validate(d->layout, d->fabric))
            out.push_back(issue.message);
        d->mappingWarnings = std::move(out);
    }
    return *d->mappingWarnings;
}

const Scenario &CostEngine::scenario() const { return d->scenario; }
const Fabric &CostEngine::fabric() const { return d->fabric; }
const ParallelLayout &CostEngine::layout() const { return d->layout; }
const WorkloadPlan &CostEngine::plan() const { return d->plan; }
const Mapping &CostEngine::mapping() const { return d->mapping; }
const CostReport &CostEngine::report() const { return d->report; }

double CostEngine::linkBusySquares() const
{
    return static_cast<double>(d->busySquares) * 1e-24;
}

void CostEngine::swapRanks(int a, int b)
{
    const int world = d->layout.worldSize();
    if (a < 0 || a >= world || b < 0 || b >= world)
        throw ScenarioError("swap", "rank " + std::to_string(a < 0 || a >= world ? a : b)
                                        + " is outside 0.." + std::to_string(world - 1));
    if (a == b)
        return;
    moveRanks({ { a, d->mapping.slotOf(b) }, { b, d->mapping.slotOf(a) } });
}

void CostEngine::moveRank(int rank, int slot)
{
    const int world = d->layout.worldSize();
    if (rank < 0 || rank >= world)
        throw ScenarioError("move", "rank " + std::to_string(rank) + " is outside 0.."
                                        + std::to_string(world - 1));
    if (slot < 0 || slot >= d->fabric.slotCount())
        throw ScenarioError("move", "slot " + std::to_string(slot) + " is outside 0.."
                                        + std::to_string(d->fabric.slotCount() - 1));
    if (const int other = d->mapping.rankAt(slot); other >= 0) {
        swapRanks(rank, other);
        return;
    }
    if (!d->scenario.failures.empty()) {
        Mapping moved = d->mapping; // refuse a move onto a failed slot before touching anything
        moved.moveRank(rank, slot);
        checkRanksOnUsableSlots(moved, d->layout, d->fabric, d->scenario.failures);
    }
    moveRanks({ { rank, slot } });
}

void CostEngine::setMapping(const Mapping &mapping)
{
    checkMapping(mapping, d->layout, d->fabric, d->scenario.failures);
    d->mapping = mapping;
    d->lastUndo.clear();
    d->traffic->build(d->mapping);
    d->trafficBehind = false; // build() settles everything
    d->recompute(true);
    checkReportFinite(d->report);
    d->stale = false;
}

CollectiveResult CostEngine::collective(Collective op, const std::vector<int> &ranks, double bytes)
{
    return collective(op, ranks, bytes, d->scenario.collectives.algorithm);
}

CollectiveResult CostEngine::collective(Collective op, const std::vector<int> &ranks, double bytes,
                                        CollectiveAlgorithm algorithm)
{
    // training.hierarchical_allreduce makes the all-reduce hierarchical under auto, as in
    // the training traffic.
    const Scenario &s = d->scenario;
    return estimateCollective(d->fabric, *d->router, d->mapping, d->layout.worldSize(), op, ranks,
        bytes, algorithm, nccltuning::deviceTuning(s.device, s.collectives, s.calibration),
        s.training.hierarchicalAllReduce, s.fabric.routing);
}

PipelineInput CostEngine::pipelineInput() const
{
    return d->main.input;
}

double CostEngine::iterationTime(const PipelineTimeline &timeline) const
{
    // The link bound depends on the micro-batch count the timeline was scheduled with.
    int microbatches = 0;
    for (const PipelineEvent &e : timeline.events)
        microbatches = std::max(microbatches, e.microbatch + 1);
    SyncPlan sync = d->main.sync;
    sync.linkBound = d->linkBoundAt(microbatches > 0 ? microbatches : d->plan.microbatches);
    return timeIteration(timeline, d->scenario.degrees.pp, d->chunks(), sync).end;
}

CostReport evaluate(const Scenario &scenario)
{
    CostEngine engine(scenario);
    return engine.report();
}

} // namespace railyard
