/**
 * Failure remap: after a server, GPU, NIC or leaf fails, build the degraded scenario with one of three strategies, save it as
 * a new mapping *version* and evaluate it exactly as `railyard-cli evaluate` does, so that the
 * healthy baseline and the degraded one compare side by side.
 *
 * Placement rules, shared by the strategies (on a rail-optimised fabric with GPU i <-> NIC i):
 *  - every new rank has a *predecessor* in the healthy mapping (the rank whose shards or layers
 *    it continues) and stays on the predecessor's slot when that slot is still usable, so that
 *    as few ranks as possible move (each move reloads shards from a checkpoint);
 *  - a TP group with any member on an unusable slot moves as a whole onto a free "lane" (tp
 *    consecutive GPU indexes of one server, shard t on GPU t + tp*lane, as Mapping::place's
 *    rail-aligned layout does), preferring the lane with the predecessors' GPU indexes: with
 *    GPU i <-> NIC i <-> rail i the moved shards keep their rails, so DP groups stay same-rail
 *    and off the spines;
 *  - only when no whole lane is free are single ranks moved (same GPU index first), which
 *    forces the TP group across servers; the result says so.
 */
#include "studies/failureremap.h"

#include "cost/costengine.h"
#include "studies/remapplacement.h"
#include "studies/remaptext.h"
#include "io/reportjson.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "workload/workloadplan.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <optional>
#include <tuple>

namespace railyard {

namespace {

using remap_detail::Placed;
using remap_detail::placeRanks;


/** What the strategies share: the healthy evaluation and the usable slots. */
struct Context
{
    const Scenario &healthy;
    const CostEngine &engine;
    std::vector<FailedComponent> added; ///< the failures this remap adds
    std::vector<FailedComponent> failures; ///< all of them: healthy's + added
    std::vector<char> usable; ///< per slot
    int usableCount = 0;
    std::vector<char> rankHit; ///< per healthy rank: its slot became unusable
    int hitCount = 0;
    HotSpare spare; ///< the spares strategy as a hot-spare swap (remap --spare)
};

/** A strategy's choice before evaluation. */
struct Plan
{
    ParallelDegrees degrees;
    TrainingSpec training;
    std::vector<int> predecessor; ///< per new rank: the healthy rank it continues
    Placed placed;
    std::vector<std::string> notes;
};

/// The candidate's workload must plan (divisibility rules of planWorkload) and its layout build.
std::optional<std::string> workloadProblem(
    const Scenario &h, const ParallelDegrees &deg, const TrainingSpec &training)
{
    try {
        ParallelLayout layout(deg, h.order);
        planWorkload(h.model, training, h.device, deg);
    } catch (const ScenarioError &e) {
        return std::string(e.what());
    }
    return std::nullopt;
}

/// One micro-batch's forward + backward compute per stage under `training`'s split.
std::vector<double> stageCompute(
    const Scenario &h, const ParallelDegrees &deg, const TrainingSpec &training)
{
    const WorkloadPlan plan = planWorkload(h.model, training, h.device, deg);
    std::vector<double> out;
    for (const StageCompute &c : plan.stages)
        out.push_back(c.forwardTime + c.backwardTime);
    return out;
}

/**
 * Layers per stage for `deg.pp` stages, balanced by compute time: the slowest stage sets the
 * pipeline's pace (Narayanan et al. SC'21 §2.2: every stage runs every micro-batch), and the
 * end stages also carry the embedding and the LM head with the loss. From the even split
 * (the remainder to the middle stages), a layer (one per model chunk when interleaved) moves
 * from the slowest stage to the fastest while that lowers the slowest stage's time. Throws
 * ScenarioError for a workload the new degrees cannot hold. Empty = the even split.
 */
std::vector<int> balancedSplit(const Scenario &h, const ParallelDegrees &deg, TrainingSpec training)
{
    const int pp = deg.pp;
    const int step = chunksPerRank(training); // layers move a model chunk's worth at a time
    training.layersPerStage.clear();
    if (pp == 1)
        return {};
    const int units = h.model.layers / step;
    if (units < pp || h.model.layers % step != 0)
        throw ScenarioError("model.layers", std::to_string(h.model.layers)
                + " layers do not fill pp " + std::to_string(pp) + " x interleave "
                + std::to_string(step) + " model chunks");
    std::vector<int> split(static_cast<std::size_t>(pp), units / pp * step);
    for (int extra = units % pp, s = 1; extra > 0; --extra, s = s % pp + 1)
        split[static_cast<std::size_t>(s % pp)] += step; // middle stages first
    training.layersPerStage = split;
    std::vector<double> time = stageCompute(h, deg, training);
    for (int round = 0; round < 4 * pp; ++round) {
        const auto slow = std::max_element(time.begin(), time.end()) - time.begin();
        const auto fast = std::min_element(time.begin(), time.end()) - time.begin();
        if (split[static_cast<std::size_t>(slow)] <= step)
            break;
        std::vector<int> moved = split;
        moved[static_cast<std::size_t>(slow)] -= step;
        moved[static_cast<std::size_t>(fast)] += step;
        training.layersPerStage = moved;
        std::vector<double> next = stageCompute(h, deg, training);
        if (*std::max_element(next.begin(), next.end())
            >= *std::max_element(time.begin(), time.end()))
            break;
        split = std::move(moved);
        time = std::move(next);
    }
    const bool even = h.model.layers % (pp * step) == 0
        && std::all_of(split.begin(), split.end(),
            [&](int l) { return l == h.model.layers / pp; });
    return even ? std::vector<int> {} : split;
}

/// The healthy scenario's layers per pipeline stage (empty = the even split).
std::vector<int> perStage(const Scenario &h, const ParallelDegrees &deg)
{
    const std::vector<int> &given = h.training.layersPerStage;
    if (given.empty() || static_cast<int>(given.size()) == deg.pp)
        return given;
    // Given per virtual stage (entry c*pp + s): sum each stage's chunks.
    std::vector<int> out(static_cast<std::size_t>(deg.pp), 0);
    for (std::size_t k = 0; k < given.size(); ++k)
        out[k % static_cast<std::size_t>(deg.pp)] += given[k];
    return out;
}

/// "8" for an even split, "7, 9, 9, 7" otherwise.
std::string splitText(const std::vector<int> &split, int layers, int pp)
{
    if (split.empty())
        return std::to_string(layers / pp);
    std::string out;
    for (int l : split)
        out += (out.empty() ? "" : ", ") + std::to_string(l);
    return out;
}

/// The stage of `split` (layers per stage; empty = even over `pp`) that holds `layer`.
int stageOfLayer(const std::vector<int> &split, int pp, int layers, int layer)
{
    if (split.empty())
        return std::min(pp - 1, layer / std::max(1, layers / pp));
    int first = 0;
    for (int s = 0; s < static_cast<int>(split.size()); ++s) {
        first += split[static_cast<std::size_t>(s)];
        if (layer < first)
            return s;
    }
    return pp - 1;
}

/// The placement for new degrees, each new rank continuing `predecessorOf(coord)`.
template<typename Pred>
Plan planFor(const Context &ctx, const ParallelDegrees &deg, const TrainingSpec &training,
    Pred predecessorOf)
{
    Plan plan;
    plan.degrees = deg;
    plan.training = training;
    const ParallelLayout layout(deg, ctx.healthy.order);
    const std::vector<int> &old = ctx.engine.mapping().slots();
    // push_back rather than resize: GCC 12 at -O3 warns of a null dereference inside
    // vector::resize here (a false -Wnull-dereference positive).
    std::vector<int> preferred;
    preferred.reserve(static_cast<std::size_t>(layout.worldSize()));
    plan.predecessor.clear();
    plan.predecessor.reserve(preferred.capacity());
    for (int r = 0; r < layout.worldSize(); ++r) {
        const int p = predecessorOf(layout.coord(r));
        plan.predecessor.push_back(p);
        preferred.push_back(old[static_cast<std::size_t>(p)]);
    }
    plan.placed = placeRanks(layout, ctx.engine.fabric(), ctx.usable, preferred);
    return plan;
}

/// "dp 4 -> 3 needs ..." batch rule: keep the micro-batches per replica (the pipeline and its
/// bubble stay as they were); Megatron-LM needs global_batch % (micro_batch x dp) == 0
/// (workloadplan.cpp). Returns the note, or "" when the global batch is unchanged.
std::string keepMicrobatches(const Context &ctx, int dp, TrainingSpec &training)
{
    const int m = ctx.engine.plan().microbatches;
    const int before = training.globalBatch;
    training.globalBatch = m * training.microBatch * dp;
    if (training.globalBatch == before)
        return "";
    return "global batch " + std::to_string(before) + " -> " + std::to_string(training.globalBatch)
        + ": " + std::to_string(m) + " micro-batches of " + std::to_string(training.microBatch)
        + " per replica kept for dp " + std::to_string(dp)
        + " (global_batch must be a multiple of micro_batch x dp; keeping " + std::to_string(before)
        + " would change each replica's pipeline)";
}

std::optional<Plan> dropDp(const Context &ctx, std::string &reason)
{
    const Scenario &h = ctx.healthy;
    const ParallelDegrees &deg = h.degrees;
    const ParallelLayout &oldLayout = ctx.engine.layout();
    const int perReplica = deg.tp * deg.pp * deg.cp;
    const int dpMax = std::min(deg.dp, ctx.usableCount / perReplica);
    if (dpMax < 1) {
        reason = "not even one data-parallel replica (tp x pp x cp = " + std::to_string(perReplica)
            + " ranks) fits the " + std::to_string(ctx.usableCount) + " usable GPU slots";
        return std::nullopt;
    }
    // Replicas the failures hit least are kept; ties keep the lower d.
    std::vector<int> hits(static_cast<std::size_t>(deg.dp), 0);
    for (int r = 0; r < oldLayout.worldSize(); ++r)
        hits[static_cast<std::size_t>(oldLayout.coord(r).d)]
            += ctx.rankHit[static_cast<std::size_t>(r)];
    std::vector<int> byHits(static_cast<std::size_t>(deg.dp));
    std::iota(byHits.begin(), byHits.end(), 0);
    std::stable_sort(byHits.begin(), byHits.end(), [&](int a, int b) {
        return hits[static_cast<std::size_t>(a)] < hits[static_cast<std::size_t>(b)];
    });

    std::vector<std::string> rejected;
    for (int dp = dpMax; dp >= 1; --dp) {
        ParallelDegrees nd = deg;
        nd.dp = dp;
        if ((dp * deg.cp) % deg.ep != 0) {
            rejected.push_back("dp " + std::to_string(dp) + ": ep " + std::to_string(deg.ep)
                + " must divide dp x cp");
            continue;
        }
        TrainingSpec training = h.training;
        const std::string batchNote = keepMicrobatches(ctx, dp, training);
        if (const auto problem = workloadProblem(h, nd, training)) {
            rejected.push_back("dp " + std::to_string(dp) + ": " + *problem);
            continue;
        }
        std::vector<int> kept(byHits.begin(), byHits.begin() + dp);
        std::sort(kept.begin(), kept.end());
        Plan plan = planFor(ctx, nd, training, [&](const RankCoord &c) {
            return oldLayout.rankOf(c.t, c.p, kept[static_cast<std::size_t>(c.d)], c.c);
        });
        if (plan.placed.shortfall > 0 || plan.placed.forcedSplits > 0) {
            rejected.push_back("dp " + std::to_string(dp) + " would force "
                + std::to_string(plan.placed.forcedSplits) + " TP groups across servers");
            continue;
        }
        if (dp < deg.dp) {
            std::string dropped;
            for (int d = 0; d < deg.dp; ++d)
                if (!std::binary_search(kept.begin(), kept.end(), d))
                    dropped += (dropped.empty() ? "" : ", ") + std::to_string(d);
            plan.notes.push_back("dp " + std::to_string(deg.dp) + " -> " + std::to_string(dp)
                + ": replica" + (deg.dp - dp > 1 ? "s " : " ") + dropped
                + " dropped (the replicas the failure hit), the others keep"
                  " their slots; tp and pp unchanged");
        } else {
            plan.notes.push_back("no replica had to be dropped: enough spare slots hold the "
                                 "TP groups the failure hit (as the spares strategy)");
        }
        if (!batchNote.empty())
            plan.notes.push_back(batchNote);
        for (const std::string &r : rejected)
            plan.notes.push_back("rejected " + r);
        return plan;
    }
    reason = "no dp from " + std::to_string(dpMax)
        + " down to 1 keeps every TP group whole on a"
          " server";
    if (!rejected.empty())
        reason += " (" + rejected.back() + ")";
    return std::nullopt;
}

/// The hot-spare swap (HotSpare): only the hit ranks move, each onto the spare under the
/// NVLink-domain and rail rules (remap_detail::swapOntoSpares()).
std::optional<Plan> hotSpare(const Context &ctx, std::string &reason)
{
    const Fabric &fabric = ctx.engine.fabric();
    std::vector<int> candidates;
    std::string name = "the first free slot";
    if (const std::optional<FailedComponent> &p = ctx.spare.part) {
        name = describeFailure(fabric, *p);
        if (p->kind == FailedComponent::Kind::Server)
            for (int g = 0; g < fabric.gpusPerServer(); ++g)
                candidates.push_back(p->index * fabric.gpusPerServer() + g);
        else
            candidates.push_back(p->index);
    } else {
        candidates.resize(static_cast<std::size_t>(fabric.slotCount()));
        std::iota(candidates.begin(), candidates.end(), 0);
    }
    Plan plan;
    plan.degrees = ctx.healthy.degrees;
    plan.training = ctx.healthy.training;
    const std::vector<int> &old = ctx.engine.mapping().slots();
    plan.predecessor.resize(old.size());
    std::iota(plan.predecessor.begin(), plan.predecessor.end(), 0);
    std::string why;
    plan.placed = remap_detail::swapOntoSpares(
        ctx.engine.layout(), fabric, ctx.usable, old, candidates, why);
    if (plan.placed.shortfall > 0) {
        reason = "hot spare " + name + " cannot take every rank the failure hit: " + why;
        return std::nullopt;
    }
    plan.notes.push_back("hot spare " + name + ": the " + std::to_string(ctx.hitCount)
        + " ranks on failed slots moved onto it, each TP group inside one NVLink domain and each "
          "rank on its rail (DP groups stay same-rail); every other rank stayed");
    return plan;
}

std::optional<Plan> spares(const Context &ctx, std::string &reason)
{
    if (ctx.spare.use)
        return hotSpare(ctx, reason);
    const int world = ctx.engine.layout().worldSize();
    const int freeUsable = ctx.usableCount - (world - ctx.hitCount);
    if (ctx.hitCount > freeUsable) {
        reason = std::to_string(ctx.hitCount) + " ranks sat on failed slots but only "
            + std::to_string(freeUsable) + " usable GPU slots are unused (short by "
            + std::to_string(ctx.hitCount - freeUsable)
            + "); add spare servers or use drop-dp / shrink-pp";
        return std::nullopt;
    }
    Plan plan = planFor(ctx, ctx.healthy.degrees, ctx.healthy.training,
        [&](const RankCoord &c) { return ctx.engine.layout().rankOf(c.t, c.p, c.d, c.c); });
    if (plan.placed.shortfall > 0) {
        reason = std::to_string(plan.placed.shortfall) + " ranks found no usable free slot";
        return std::nullopt;
    }
    if (plan.placed.forcedSplits > 0)
        plan.notes.push_back(std::to_string(plan.placed.forcedSplits)
            + " TP groups had to be split across servers: no free lane of "
            + std::to_string(ctx.healthy.degrees.tp) + " usable GPUs on one server was left");
    plan.notes.push_back("degrees and global batch unchanged; the TP groups the failure hit moved "
                         "whole to spare slots, on the same GPU indexes (rails) where possible");
    return plan;
}

std::optional<Plan> shrinkPp(const Context &ctx, std::string &reason)
{
    const Scenario &h = ctx.healthy;
    const ParallelDegrees &deg = h.degrees;
    const ParallelLayout &oldLayout = ctx.engine.layout();
    if (deg.pp == 1) {
        reason = "pp is already 1: there is no pipeline to shrink";
        return std::nullopt;
    }
    std::vector<std::string> rejected;
    for (int pp = deg.pp - 1; pp >= 1; --pp) {
        ParallelDegrees nd = deg;
        nd.pp = pp;
        TrainingSpec training = h.training;
        std::string scheduleNote;
        if (training.schedule == ScheduleKind::Interleaved && pp == 1) {
            training.schedule = ScheduleKind::OneFOneB;
            training.interleave = 1;
            scheduleNote = "schedule interleaved -> 1f1b: pp 1 has no virtual stages";
        }
        // DualPipe pairs the ranks (pp even) and needs m >= 2 pp; ZB-H1 keeps the deferred W
        // passes on a pipeline that cannot pair up.
        const std::int64_t m
            = training.globalBatch / (std::int64_t { training.microBatch } * std::max(1, deg.dp));
        if (training.schedule == ScheduleKind::DualPipe && (pp % 2 != 0 || m < 2 * pp)) {
            training.schedule = ScheduleKind::ZbH1;
            scheduleNote = "schedule dualpipe -> zb-h1: pp " + std::to_string(pp)
                + (pp % 2 != 0 ? " is odd" : " needs at least 2 pp micro-batches");
        }
        try {
            training.layersPerStage = balancedSplit(h, nd, training);
        } catch (const ScenarioError &e) {
            rejected.push_back("pp " + std::to_string(pp) + ": " + e.what());
            continue;
        }
        const int ranks = deg.tp * pp * deg.dp * deg.cp;
        if (ranks > ctx.usableCount) {
            rejected.push_back("pp " + std::to_string(pp) + " needs " + std::to_string(ranks)
                + " ranks, only " + std::to_string(ctx.usableCount) + " GPU slots are usable");
            continue;
        }
        if (const auto problem = workloadProblem(h, nd, training)) {
            rejected.push_back("pp " + std::to_string(pp) + ": " + *problem);
            continue;
        }
        // New stage q continues the old stage that held its first layer: that rank's slot
        // already holds the first of its layers.
        std::vector<int> firstLayer(static_cast<std::size_t>(pp), 0);
        for (int q = 1; q < pp; ++q)
            firstLayer[static_cast<std::size_t>(q)] = firstLayer[static_cast<std::size_t>(q - 1)]
                + (training.layersPerStage.empty()
                        ? h.model.layers / pp
                        : training.layersPerStage[static_cast<std::size_t>(q - 1)]);
        const std::vector<int> oldSplit = perStage(h, deg);
        Plan plan = planFor(ctx, nd, training, [&](const RankCoord &c) {
            const int old = stageOfLayer(
                oldSplit, deg.pp, h.model.layers, firstLayer[static_cast<std::size_t>(c.p)]);
            return oldLayout.rankOf(c.t, old, c.d, c.c);
        });
        if (plan.placed.shortfall > 0 || plan.placed.forcedSplits > 0) {
            rejected.push_back("pp " + std::to_string(pp) + " would force "
                + std::to_string(plan.placed.forcedSplits) + " TP groups across servers");
            continue;
        }
        plan.notes.push_back("pp " + std::to_string(deg.pp) + " -> " + std::to_string(pp) + ": "
            + splitText(training.layersPerStage, h.model.layers, pp) + " layers per stage instead of "
            + splitText(perStage(h, deg), h.model.layers, deg.pp)
            + " (balanced by compute time: the end stages also hold the embedding and the LM "
              "head); tp, dp and the global batch unchanged");
        if (!scheduleNote.empty())
            plan.notes.push_back(scheduleNote);
        for (const std::string &r : rejected)
            plan.notes.push_back("rejected " + r);
        return plan;
    }
    reason = "no pp below " + std::to_string(deg.pp) + " fits";
    if (!rejected.empty())
        reason += " (" + rejected.back() + ")";
    return std::nullopt;
}

std::string nameFor(const Context &ctx)
{
    std::string suffix = "-failed";
    for (const FailedComponent &f : ctx.added)
        suffix += "-" + std::string(failureKindName(f.kind)) + std::to_string(f.index);
    std::string name = (ctx.healthy.name.empty() ? "scenario" : ctx.healthy.name) + suffix;
    if (name.size() > limits::kMaxNameBytes)
        name.resize(limits::kMaxNameBytes);
    return name;
}

RemapResult run(const Context &ctx, RemapStrategy strategy)
{
    RemapResult result;
    result.strategy = strategy;
    result.healthy = remapSummary(ctx.engine);
    result.ranksOnFailedSlots = ctx.hitCount;
    std::optional<Plan> plan;
    switch (strategy) {
    case RemapStrategy::DropDp:
        plan = dropDp(ctx, result.reason);
        break;
    case RemapStrategy::Spares:
        plan = spares(ctx, result.reason);
        break;
    case RemapStrategy::ShrinkPp:
        plan = shrinkPp(ctx, result.reason);
        break;
    }
    if (!plan)
        return result;

    const Scenario &h = ctx.healthy;
    Scenario s = h;
    s.degrees = plan->degrees;
    s.training = plan->training;
    s.slots = plan->placed.slots;
    s.mappingVersion = h.mappingVersion + 1;
    s.failures = ctx.failures;
    s.name = nameFor(ctx);
    s.description = "Mapping version " + std::to_string(s.mappingVersion) + " of '" + h.name
        + "' after " + failureListText(ctx.added) + " failed (railyard remap, strategy "
        + std::string(remapStrategyName(strategy)) + "): " + degreeText(h.degrees) + " -> "
        + degreeText(s.degrees) + ", " + std::to_string(h.training.globalBatch) + " -> "
        + std::to_string(s.training.globalBatch) + " samples per iteration.";
    if (ctx.hitCount == 0)
        plan->notes.insert(plan->notes.begin(),
            "no rank sat on a failed slot: the failures only removed spare slots");

    std::optional<CostEngine> engine;
    try {
        engine.emplace(s, ctx.engine.sharedFabric(), ctx.engine.sharedRouter());
    } catch (const ScenarioError &e) {
        result.reason = std::string("the degraded scenario does not evaluate: ") + e.what();
        return result;
    }
    const CostEngine &e = *engine;
    result.possible = true;
    result.degraded = s;
    result.result = remapSummary(e);
    result.notes = std::move(plan->notes);

    const CostReport &r = e.report();
    for (std::size_t st = 0; st < r.memory.size(); ++st) {
        result.stageMemory.push_back(r.memory[st].total());
        result.stageLayers.push_back(e.plan().stages[st].layers);
    }
    result.memoryGrowth = result.healthy.maxMemoryPerRank > 0.0
        ? result.result.maxMemoryPerRank / result.healthy.maxMemoryPerRank
        : 1.0;
    std::vector<double> layers(result.stageLayers.begin(), result.stageLayers.end());
    result.layerImbalance = maxOverMean(layers);
    result.computeImbalance = result.result.stageImbalance;
    result.tpGroupsAcross = splitTpGroups(e);

    // The diff, keyed by the healthy ranks' coordinates.
    const ParallelLayout &oldLayout = ctx.engine.layout();
    std::vector<int> successor(static_cast<std::size_t>(oldLayout.worldSize()), -1);
    for (std::size_t n = 0; n < plan->predecessor.size(); ++n)
        successor[static_cast<std::size_t>(plan->predecessor[n])] = static_cast<int>(n);
    for (int o = 0; o < oldLayout.worldSize(); ++o) {
        RemappedRank m;
        m.oldRank = o;
        m.oldCoord = oldLayout.coord(o);
        m.oldSlot = ctx.engine.mapping().slotOf(o);
        m.oldSlotFailed = ctx.rankHit[static_cast<std::size_t>(o)];
        const int n = successor[static_cast<std::size_t>(o)];
        if (n < 0) {
            m.kind = RemappedRank::Kind::Dropped;
            ++result.ranksDropped;
        } else {
            m.newRank = n;
            m.newCoord = e.layout().coord(n);
            m.newSlot = e.mapping().slotOf(n);
            if (m.newSlot != m.oldSlot) {
                m.kind = RemappedRank::Kind::Moved;
                ++result.ranksMoved;
            } else if (!(m.newCoord == m.oldCoord)) {
                m.kind = RemappedRank::Kind::Renumbered;
                ++result.ranksRenumbered;
            } else {
                ++result.ranksUnchanged;
                continue;
            }
        }
        result.moves.push_back(m);
    }
    return result;
}

Context makeContext(
    const Scenario &healthy, const CostEngine &engine, const std::vector<FailedComponent> &added)
{
    if (added.empty())
        throw ScenarioError("failure",
            "name at least one failed component (server:3, gpu:17, "
            "nic:5 or leaf:2)");
    const Fabric &fabric = engine.fabric();
    Context ctx { healthy, engine, added, healthy.failures, {}, 0, {}, 0, {} };
    for (const FailedComponent &f : added) {
        if (std::find(ctx.failures.begin(), ctx.failures.end(), f) != ctx.failures.end())
            throw ScenarioError("failure",
                failureText(f)
                    + (std::find(healthy.failures.begin(), healthy.failures.end(), f)
                                != healthy.failures.end()
                            ? " already failed in the scenario"
                            : " is given twice"));
        checkFailureRange(f, fabric.spec(), "failure");
        if (f.kind == FailedComponent::Kind::Leaf && f.index >= fabric.leafCount())
            throw ScenarioError("failure",
                failureText(f) + " does not exist (the fabric has "
                    + std::to_string(fabric.leafCount()) + " leaf switches, 0.."
                    + std::to_string(fabric.leafCount() - 1) + ")");
        ctx.failures.push_back(f);
    }
    ctx.usable = usableSlots(fabric, ctx.failures);
    ctx.usableCount = static_cast<int>(std::count(ctx.usable.begin(), ctx.usable.end(), 1));
    const Mapping &m = engine.mapping();
    ctx.rankHit.assign(static_cast<std::size_t>(m.rankCount()), 0);
    for (int r = 0; r < m.rankCount(); ++r) {
        ctx.rankHit[static_cast<std::size_t>(r)]
            = !ctx.usable[static_cast<std::size_t>(m.slotOf(r))];
        ctx.hitCount += ctx.rankHit[static_cast<std::size_t>(r)];
    }
    return ctx;
}

} // namespace

RemapResult remap(
    const Scenario &healthy, const std::vector<FailedComponent> &failures, RemapStrategy strategy)
{
    const CostEngine engine(healthy);
    return run(makeContext(healthy, engine, failures), strategy);
}

RemapResult remap(const Scenario &healthy, const std::vector<FailedComponent> &failures,
    RemapStrategy strategy, const HotSpare &spare)
{
    if (const std::optional<FailedComponent> &p = spare.part) {
        if (p->kind != FailedComponent::Kind::Server && p->kind != FailedComponent::Kind::Gpu)
            throw ScenarioError("--spare",
                "a hot spare is a server (server:S) or a GPU slot (gpu:N), not " + failureText(*p));
        checkFailureRange(*p, healthy.fabric, "--spare");
    }
    const CostEngine engine(healthy);
    Context ctx = makeContext(healthy, engine, failures);
    ctx.spare = spare;
    return run(ctx, strategy);
}

std::vector<RemapResult> remapAll(
    const Scenario &healthy, const std::vector<FailedComponent> &failures)
{
    const CostEngine engine(healthy);
    const Context ctx = makeContext(healthy, engine, failures);
    std::vector<RemapResult> out;
    for (RemapStrategy s : allRemapStrategies())
        out.push_back(run(ctx, s));
    return out;
}

int bestRemap(const std::vector<RemapResult> &results)
{
    int best = -1;
    const auto key = [](const RemapResult &r) {
        return std::make_tuple(r.result.samplesPerSecond, -r.ranksDropped, -r.ranksMoved);
    };
    for (std::size_t i = 0; i < results.size(); ++i) {
        const RemapResult &r = results[i];
        if (!r.possible || !r.result.memoryFits)
            continue;
        if (best < 0 || key(r) > key(results[static_cast<std::size_t>(best)]))
            best = static_cast<int>(i);
    }
    return best;
}

} // namespace railyard
