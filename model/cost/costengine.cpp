#include "cost/costengine.h"

#include "base/scenarioerror.h"
#include "cost/evaluationinputs.h"
#include "cost/linkranking.h"
#include "cost/nccltuning.h"
#include "cost/trafficmodel.h"
#include "cost/trafficplan.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace railyard {

namespace {

/** Which communication the stage-time model includes; the exposure ablation drops one dim. */
struct DimMask
{
    std::array<bool, kDimCount> on{true, true, true, true, true};
    static DimMask without(Dim d)
    {
        DimMask m;
        m.on[index(d)] = false;
        return m;
    }
};

} // namespace

struct CostEngine::Impl
{
    Scenario scenario;
    std::shared_ptr<const Fabric> fabricPtr;
    const Fabric &fabric;
    ParallelLayout layout;
    WorkloadPlan plan;
    Mapping mapping;
    std::shared_ptr<Router> router;
    std::optional<TrafficModel> traffic;
    std::vector<DpOp> dpOps;
    std::vector<double> stageDpBytes;
    CostReport report;
    LinkRanking ranking; ///< busy time per link, for the bottleneck and the percentiles
    std::optional<std::vector<std::string>> mappingWarnings; ///< computed on demand

    Impl(const Scenario &s, EvaluationInputs in, std::shared_ptr<Router> r)
        : scenario(s)
        , fabricPtr(std::move(in.fabric))
        , fabric(*fabricPtr)
        , layout(std::move(in.layout))
        , plan(std::move(in.plan))
        , mapping(std::move(in.mapping))
        , router(r ? std::move(r) : std::make_shared<Router>(fabric))
    {}

    int chunks() const { return chunksPerRank(scenario.training); }

    void setUpTraffic();
    void recompute(bool allLinks);

    double opTime(int pattern, Collective c, double bytes) const;
    double epOpTime(int stage, Collective c, double bytes) const; ///< dispatch/combine mean
    double dpSyncTime() const;
    std::vector<double> stageTimes(OpPass pass, const DimMask &mask) const;
    std::vector<double> boundaryTimes(bool forward) const;
    PipelineTimeline schedule(const DimMask &mask) const;
    double iterationTime(const PipelineTimeline &t, bool withDp) const;
    double optimizerTime() const;
    void fillPhases();
    long long updateLink(int link);
    void fillLinks(bool all);
};

void CostEngine::Impl::setUpTraffic()
{
    TrafficPlan tp = planTraffic(scenario, plan);
    dpOps = std::move(tp.dpOps);
    stageDpBytes = tp.setup.stageDpBytes;
    traffic.emplace(fabric, layout, *router, tp.setup);
    const std::vector<double> weight = patternWeights(*traffic, plan, chunks());
    for (int p = 0; p < traffic->patternCount(); ++p)
        traffic->setWeight(p, weight[p]);
}

double CostEngine::Impl::opTime(int pattern, Collective c, double bytes) const
{
    if (pattern < 0)
        return 0.0;
    // Phase time = its alpha terms + its most loaded link's bytes over that link's bandwidth:
    // passes * steps * alpha + passes * S * max_l(load_l / B_l). For a ring all-reduce on p ranks
    // of one bandwidth B this is T = 2(p-1)a + 2(p-1)/p S/B (Thakur, Rabenseifner, Gropp,
    // "Optimization of Collective Communication Operations in MPICH", IJHPCA 2005).
    const TrafficPattern &p = traffic->pattern(pattern);
    const int passes = ringPasses(c);
    return passes * p.stepCount() * p.maxLatency() + passes * bytes * p.maxRatio;
}

double CostEngine::Impl::epOpTime(int stage, Collective c, double bytes) const
{
    const int dispatch = traffic->epPattern(stage);
    const int combine = traffic->epCombinePattern(stage);
    // A run of the EP op is a dispatch or a combine, as many of each: with skewed routing the
    // two directions load different links, so a run takes the mean of their phase times.
    if (combine < 0)
        return opTime(dispatch, c, bytes);
    return 0.5 * (opTime(dispatch, c, bytes) + opTime(combine, c, bytes));
}

double CostEngine::Impl::dpSyncTime() const
{
    // The DP loads are already in bytes (scaled by each stage's S): an op's S is its ratio.
    double total = 0.0;
    for (const DpOp &op : dpOps)
        total += traffic->dpChoice(op.collective, op.ratio).time;
    return total;
}

std::vector<double> CostEngine::Impl::stageTimes(OpPass pass, const DimMask &mask) const
{
    const int stages = scenario.degrees.pp;
    std::vector<double> t(stages, 0.0);
    std::vector<double> cp(stages, 0.0);
    for (int s = 0; s < stages; ++s) {
        const StageCompute &c = plan.stages[s];
        t[s] = pass == OpPass::Forward ? c.forwardTime : c.backwardTime;
    }
    for (const CommOp &op : plan.ops) {
        if (op.pass != pass || !mask.on[index(op.dim)])
            continue;
        switch (op.dim) {
        case Dim::Tp:
            // TP collectives sit between dependent ops of a layer: on the critical path. Each
            // runs the algorithm and protocol its family chooses (TrafficModel::tpChoice).
            t[op.stage] += op.count * traffic->tpChoice(op.stage, op.collective, op.bytes).time;
            continue;
        case Dim::Ep:
            t[op.stage] += op.count * epOpTime(op.stage, op.collective, op.bytes);
            continue;
        case Dim::Cp:
            cp[op.stage] += op.count * opTime(traffic->cpPattern(op.stage), op.collective, op.bytes);
            continue;
        case Dim::Pp:
        case Dim::Dp:
            continue;
        }
    }
    for (int s = 0; s < stages; ++s) {
        // Ring attention overlaps the K/V exchange with the attention core (Liu et al. 2023,
        // Megatron-LM context parallelism): only what the core cannot hide is exposed.
        const StageCompute &c = plan.stages[s];
        const double core =
            pass == OpPass::Forward ? c.attentionCoreForwardTime : c.attentionCoreBackwardTime;
        t[s] += std::max(0.0, cp[s] - core);
    }
    return t;
}

std::vector<double> CostEngine::Impl::boundaryTimes(bool forward) const
{
    std::vector<double> t;
    for (int b = 0; b + 1 < scenario.degrees.pp; ++b) {
        const int pattern = forward ? traffic->ppForwardPattern(b) : traffic->ppBackwardPattern(b);
        t.push_back(opTime(pattern, Collective::SendRecv, plan.boundaryActivationBytes));
    }
    return t;
}

PipelineTimeline CostEngine::Impl::schedule(const DimMask &mask) const
{
    PipelineInput in;
    in.kind = scenario.training.schedule;
    in.stages = scenario.degrees.pp;
    in.microbatches = plan.microbatches;
    in.chunks = chunks();
    in.forward = stageTimes(OpPass::Forward, mask);
    in.backward = stageTimes(OpPass::Backward, mask);
    if (mask.on[index(Dim::Pp)]) {
        in.sendForward = boundaryTimes(true);
        in.sendBackward = boundaryTimes(false);
    }
    return schedulePipeline(in);
}

double CostEngine::Impl::optimizerTime() const
{
    // The optimizer step runs after the gradient sync on every stage; the slowest stage's
    // (workloadplan.cpp: a memory-bound Adam update) ends the iteration.
    double worst = 0.0;
    for (const StageCompute &c : plan.stages)
        worst = std::max(worst, c.optimizerTime);
    return worst;
}

double CostEngine::Impl::iterationTime(const PipelineTimeline &t, bool withDp) const
{
    // Each stage may start its gradient sync while its last backward runs (Megatron-LM
    // --overlap-grad-reduce): stage s ends at max(E_s, E_s - window_s + T_dp), where E_s is
    // the end of its last compute. The overlappable window and this final sync point are what
    // decide the exposed wait, so the report keeps both (dpOverlapWindow, dpSyncTime).
    const int stages = scenario.degrees.pp;
    std::vector<double> lastEnd(stages, 0.0);
    for (const PipelineEvent &e : t.events)
        if (e.kind == PipelineEventKind::Forward || e.kind == PipelineEventKind::Backward)
            lastEnd[e.stage] = std::max(lastEnd[e.stage], e.end);
    const double dp = withDp ? report.dpSyncTime : 0.0;
    const std::vector<double> &bwd = report.stageBackward;
    double end = t.makespan;
    for (int s = 0; s < stages; ++s) {
        const double window =
            scenario.training.dpOverlap ? bwd[s] / static_cast<double>(chunks()) : 0.0;
        end = std::max(end, lastEnd[s] + std::max(0.0, dp - window));
    }
    return end + optimizerTime();
}

void CostEngine::Impl::fillPhases()
{
    report.phases.clear();
    auto add = [&](std::string name, Dim dim, Collective c, OpPass pass, int stage, double bytes,
                   double count, int pattern) {
        PhaseResult ph;
        ph.name = std::move(name);
        ph.dim = dim;
        ph.collective = c;
        ph.pass = pass;
        ph.stage = stage;
        ph.bytes = bytes;
        ph.count = count;
        if (pattern >= 0) {
            const TrafficPattern &p = traffic->pattern(pattern);
            ph.alphaTime = ringPasses(c) * p.stepCount() * p.maxLatency();
            ph.time = opTime(pattern, c, bytes);
            ph.bottleneckLink = p.argmax;
        }
        report.phases.push_back(std::move(ph));
    };
    // A collective family's op: the algorithm and protocol it runs, its time and busiest link.
    const auto chosen = [&](const CollectiveChoice &c) {
        PhaseResult &ph = report.phases.back();
        ph.alphaTime = c.alpha;
        ph.time = c.time;
        ph.bottleneckLink = c.pattern >= 0 ? traffic->pattern(c.pattern).argmax : -1;
        ph.algorithm = std::string(planAlgorithmName(c.algorithm));
        ph.protocol = std::string(protocolName(c.protocol));
    };
    for (const CommOp &op : plan.ops) {
        int pattern = -1;
        if (op.dim == Dim::Tp)
            pattern = traffic->tpPattern(op.stage);
        else if (op.dim == Dim::Ep)
            pattern = traffic->epPattern(op.stage);
        else if (op.dim == Dim::Cp)
            pattern = traffic->cpPattern(op.stage);
        else
            continue;
        const char *pass = op.pass == OpPass::Forward ? "fwd" : "bwd";
        add(std::string(dimName(op.dim)) + " " + pass + " stage " + std::to_string(op.stage) + ": "
                + op.what,
            op.dim, op.collective, op.pass, op.stage, op.bytes, op.count, pattern);
        if (op.dim == Dim::Tp)
            chosen(traffic->tpChoice(op.stage, op.collective, op.bytes));
        if (const int combine = op.dim == Dim::Ep ? traffic->epCombinePattern(op.stage) : -1;
            combine >= 0) {
            // Skewed routing: dispatch and combine load different links (epOpTime()).
            PhaseResult &ph = report.phases.back();
            ph.time = epOpTime(op.stage, op.collective, op.bytes);
            const TrafficPattern &c = traffic->pattern(combine);
            if (c.maxRatio > traffic->pattern(pattern).maxRatio)
                ph.bottleneckLink = c.argmax;
        }
    }
    for (int b = 0; b + 1 < scenario.degrees.pp; ++b) {
        add("pp fwd boundary " + std::to_string(b) + "->" + std::to_string(b + 1), Dim::Pp,
            Collective::SendRecv, OpPass::Forward, b, plan.boundaryActivationBytes, chunks(),
            traffic->ppForwardPattern(b));
        add("pp bwd boundary " + std::to_string(b + 1) + "->" + std::to_string(b), Dim::Pp,
            Collective::SendRecv, OpPass::Backward, b + 1, plan.boundaryActivationBytes, chunks(),
            traffic->ppBackwardPattern(b));
    }
    for (const DpOp &op : dpOps) {
        PhaseResult ph;
        ph.name = "dp sync: " + op.what;
        ph.dim = Dim::Dp;
        ph.collective = op.collective;
        ph.pass = OpPass::Iteration;
        ph.stage = -1;
        ph.bytes = stageDpBytes.empty() ? 0.0 : op.ratio * stageDpBytes[0];
        ph.count = 1;
        report.phases.push_back(std::move(ph));
        chosen(traffic->dpChoice(op.collective, op.ratio));
    }
}

long long CostEngine::Impl::updateLink(int i)
{
    const std::vector<double> &dimBytes = traffic->linkDimBytes();
    LinkLoad &l = report.links[i];
    double total = 0.0;
    for (int d = 0; d < kDimCount; ++d) {
        // Loads that cancelled out after moves may leave rounding residue below a byte.
        const double b = dimBytes[static_cast<std::size_t>(i) * kDimCount + d];
        l.dimBytes[d] = b > 0.5 ? b : 0.0;
        total += l.dimBytes[d];
    }
    l.bytes = total;
    l.busyTime = total / fabric.link(i).bandwidth;
    // Percentiles and the bottleneck compare busy times quantised to picoseconds, so that an
    // incremental update and a full evaluation rank links identically.
    return std::llround(l.busyTime * 1e12);
}

void CostEngine::Impl::fillLinks(bool all)
{
    const int n = fabric.linkCount();
    const std::vector<int> changed = traffic->takeChangedLinks();
    if (all) {
        report.links.assign(n, LinkLoad{});
        std::vector<long long> keys(static_cast<std::size_t>(n), 0);
        for (int i = 0; i < n; ++i)
            keys[static_cast<std::size_t>(i)] = updateLink(i);
        ranking.rank(std::move(keys));
    } else {
        for (int i : changed)
            ranking.change(i, updateLink(i));
        ranking.settle();
    }
    report.bottleneckLink = ranking.bottleneck();
    report.bottleneckDim =
        report.bottleneckLink >= 0 ? report.links[report.bottleneckLink].topDim() : Dim::Tp;

    // Nearest-rank percentiles of utilisation (busy / iteration time) over every directed link.
    const double toUtil = report.iterationTime > 0.0 ? 1e-12 / report.iterationTime : 0.0;
    report.linkStats.count = n;
    report.linkStats.p50 = ranking.percentile(0.50, toUtil);
    report.linkStats.p95 = ranking.percentile(0.95, toUtil);
    report.linkStats.p99 = ranking.percentile(0.99, toUtil);
    report.linkStats.max = ranking.max(toUtil);
}

void CostEngine::Impl::recompute(bool allLinks)
{
    const int stages = scenario.degrees.pp;
    const DimMask all;
    report.ranks = layout.worldSize();
    report.stageForward = stageTimes(OpPass::Forward, all);
    report.stageBackward = stageTimes(OpPass::Backward, all);
    report.boundaryForward = boundaryTimes(true);
    report.boundaryBackward = boundaryTimes(false);
    report.dpSyncTime = dpSyncTime();
    report.dpOverlapWindow =
        scenario.training.dpOverlap && !report.stageBackward.empty()
            ? *std::min_element(report.stageBackward.begin(), report.stageBackward.end())
                  / static_cast<double>(chunks())
            : 0.0;

    report.timeline = schedule(all);
    report.pipelineMakespan = report.timeline.makespan;
    report.bubbleFraction = report.timeline.bubbleFraction;
    report.iterationTime = iterationTime(report.timeline, true);

    // Exposed time per dimension: how much sooner the iteration would end if that dimension's
    // communication were free (everything else unchanged).
    report.dimExposed = {};
    report.dimExposed[index(Dim::Dp)] =
        report.iterationTime - iterationTime(report.timeline, false);
    const ParallelDegrees &deg = scenario.degrees;
    const std::array<std::pair<Dim, bool>, 4> others{
        {{Dim::Tp, deg.tp > 1}, {Dim::Pp, deg.pp > 1}, {Dim::Ep, deg.ep > 1}, {Dim::Cp, deg.cp > 1}}};
    for (const auto &[dim, present] : others) {
        if (!present)
            continue;
        const PipelineTimeline without = schedule(DimMask::without(dim));
        report.dimExposed[index(dim)] =
            std::max(0.0, report.iterationTime - iterationTime(without, true));
    }

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
    report.spineBytesShare =
        traffic->nicUpBytes() > 0.5 ? std::max(0.0, traffic->leafUpBytes()) / traffic->nicUpBytes()
                                    : 0.0;
    if (report.spineBytesShare < 1e-12)
        report.spineBytesShare = 0.0;

    fillPhases();
    fillLinks(allLinks);

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

    report.warnings.clear();
    mappingWarnings.reset();
    if (!report.memoryFits)
        report.warnings.push_back("memory: a rank needs "
                                  + std::to_string(report.maxMemoryPerRank / 1e9).substr(0, 6)
                                  + " GB but the device has "
                                  + std::to_string(scenario.device.hbmBytes / 1e9).substr(0, 6)
                                  + " GB");
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
    d->setUpTraffic();
    d->traffic->build(d->mapping);
    d->recompute(true);
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

void CostEngine::swapRanks(int a, int b)
{
    const int world = d->layout.worldSize();
    if (a < 0 || a >= world || b < 0 || b >= world)
        throw ScenarioError("swap", "rank " + std::to_string(a < 0 || a >= world ? a : b)
                                        + " is outside 0.." + std::to_string(world - 1));
    if (a == b)
        return;
    d->traffic->beginMove(d->mapping, {a, b});
    d->mapping.swapRanks(a, b);
    d->traffic->endMove(d->mapping);
    d->recompute(false);
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
    // Only the moved rank's groups change: re-route them from the old slot to the new one.
    d->traffic->beginMove(d->mapping, {rank});
    d->mapping.moveRank(rank, slot);
    d->traffic->endMove(d->mapping);
    d->recompute(false);
}

void CostEngine::setMapping(const Mapping &mapping)
{
    checkMapping(mapping, d->layout, d->fabric, d->scenario.failures);
    d->mapping = mapping;
    d->traffic->build(d->mapping);
    d->recompute(true);
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
                              bytes, algorithm, nccltuning::deviceTuning(s.device, s.collectives),
                              s.training.hierarchicalAllReduce);
}

PipelineInput CostEngine::pipelineInput() const
{
    PipelineInput in;
    in.kind = d->scenario.training.schedule;
    in.stages = d->scenario.degrees.pp;
    in.microbatches = d->plan.microbatches;
    in.chunks = d->chunks();
    in.forward = d->report.stageForward;
    in.backward = d->report.stageBackward;
    in.sendForward = d->report.boundaryForward;
    in.sendBackward = d->report.boundaryBackward;
    return in;
}

double CostEngine::iterationTime(const PipelineTimeline &timeline) const
{
    return d->iterationTime(timeline, true);
}

CostReport evaluate(const Scenario &scenario)
{
    CostEngine engine(scenario);
    return engine.report();
}

} // namespace railyard
