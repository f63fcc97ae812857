#include "cost/collectivewatch.h"

#include "base/quantityformat.h"
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/trafficplan.h"
#include "workload/workload.h"

#include <algorithm>
#include <cctype>

namespace railyard {

namespace {

PlanAlgorithm algorithmNamed(const std::string &name, PlanAlgorithm fallback)
{
    for (int a = 0; a < kPlanAlgorithmCount; ++a)
        if (planAlgorithmName(static_cast<PlanAlgorithm>(a)) == name)
            return static_cast<PlanAlgorithm>(a);
    return fallback;
}

/// The group kind each dimension's traffic runs on (TrafficModel::emitGroup): the gradient
/// sync on the dp-cp group.
GroupKind watchedKind(Dim dim)
{
    switch (dim) {
    case Dim::Tp:
        return GroupKind::Tp;
    case Dim::Pp:
        return GroupKind::Pp;
    case Dim::Dp:
        return GroupKind::DpCp;
    case Dim::Ep:
        return GroupKind::Ep;
    case Dim::Cp:
        break;
    }
    return GroupKind::Cp;
}

int degreeOf(const ParallelDegrees &d, Dim dim)
{
    switch (dim) {
    case Dim::Tp:
        return d.tp;
    case Dim::Pp:
        return d.pp;
    case Dim::Dp:
        return d.dp * d.cp; // the dp-cp group
    case Dim::Ep:
        return d.ep;
    case Dim::Cp:
        break;
    }
    return d.cp;
}

std::string upperName(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

std::vector<WatchableOp> watchableOps(const CostEngine &engine, Dim dim, int rank)
{
    std::vector<WatchableOp> out;
    const ParallelLayout &layout = engine.layout();
    if (rank < 0 || rank >= layout.worldSize() || degreeOf(layout.degrees(), dim) < 2)
        return out;
    const int stage = layout.coord(rank).p;
    const CostReport &report = engine.report();
    if (dim == Dim::Pp) {
        out.push_back({ "pp: one micro-batch across every boundary", Collective::SendRecv,
            PlanAlgorithm::PointToPoint, engine.plan().boundaryActivationBytes });
        return out;
    }
    if (dim == Dim::Dp) {
        const TrafficPlan traffic = planTraffic(engine.scenario(), engine.plan());
        const std::vector<double> &sizes = traffic.setup.stageDpBytes;
        const double stageBytes
            = stage < static_cast<int>(sizes.size()) ? sizes[static_cast<std::size_t>(stage)] : 0.0;
        std::size_t i = 0;
        for (const PhaseResult &ph : report.phases) {
            if (ph.dim != Dim::Dp || i >= traffic.dpOps.size())
                continue;
            out.push_back(
                { ph.name, ph.collective, algorithmNamed(ph.algorithm, PlanAlgorithm::Ring),
                    traffic.dpOps[i].ratio * stageBytes, traffic.dpOps[i].replica });
            ++i;
        }
        return out;
    }
    for (const PhaseResult &ph : report.phases) {
        if (ph.dim != dim || ph.stage != stage)
            continue;
        const PlanAlgorithm fallback = dim == Dim::Ep ? PlanAlgorithm::Pairwise
            : dim == Dim::Cp                          ? PlanAlgorithm::MemberOrder
                                                      : PlanAlgorithm::Ring;
        // EP and CP are no planned families: all-to-all pairwise, ring attention in member
        // order (TrafficModel::emitAllToAll, emitRing).
        const PlanAlgorithm a = dim == Dim::Tp ? algorithmNamed(ph.algorithm, fallback) : fallback;
        out.push_back({ ph.name, ph.collective, a, ph.bytes });
    }
    return out;
}

WatchedCollective watchCollective(
    const CostEngine &engine, Router &router, const WatchTarget &target)
{
    const ParallelLayout &layout = engine.layout();
    if (target.rank < 0 || target.rank >= layout.worldSize())
        throw ScenarioError("watch",
            "rank " + std::to_string(target.rank) + " is outside 0.."
                + std::to_string(layout.worldSize() - 1));
    const std::string dim(dimName(target.dim));
    if (degreeOf(layout.degrees(), target.dim) < 2)
        throw ScenarioError(
            "watch", dim + " has degree 1: its groups have one rank and move nothing");
    const std::vector<WatchableOp> ops = watchableOps(engine, target.dim, target.rank);
    if (target.op < 0 || target.op >= static_cast<int>(ops.size()))
        throw ScenarioError("watch",
            "op " + std::to_string(target.op) + " of " + dim + " is outside 0.."
                + std::to_string(static_cast<int>(ops.size()) - 1));
    WatchedCollective out;
    out.target = target;
    out.op = ops[static_cast<std::size_t>(target.op)];

    const GroupKind kind = watchedKind(target.dim);
    const GroupList &all = layout.groups(kind);
    const int own = layout.groupOf(kind, target.rank);
    if (target.wholeDimension) {
        out.groups = all.copies();
    } else {
        out.groups = { toVector(all[static_cast<std::size_t>(own)]) };
    }
    // Hybrid sharding: the gradient sync's ops run on the shard or replica sub-groups
    // (TrafficModel::emitGroup), so those are what is played.
    if (const int shard = engine.scenario().training.fsdpShard;
        target.dim == Dim::Dp && shard > 0) {
        std::vector<std::vector<int>> subgroups;
        for (const std::vector<int> &group : out.groups)
            for (std::vector<int> &sub : hybridSubgroups(group, shard, out.op.replica))
                if (target.wholeDimension
                    || std::find(sub.begin(), sub.end(), target.rank) != sub.end())
                    subgroups.push_back(std::move(sub));
        out.groups = std::move(subgroups);
    }

    const Scenario &s = engine.scenario();
    const double nvls
        = nccltuning::deviceTuning(s.device, s.collectives, s.calibration).nvlsEfficiency;
    const TrafficPlan traffic = planTraffic(s, engine.plan());
    const int stage = layout.coord(target.rank).p;
    std::vector<CollectiveSteps> played;
    played.reserve(out.groups.size());
    for (const std::vector<int> &group : out.groups) {
        std::vector<int> slots;
        slots.reserve(group.size());
        for (const int r : group)
            slots.push_back(engine.mapping().slotOf(r));
        // S follows the group's own stage where it differs by stage (the DP sync size).
        double bytes = out.op.bytes;
        const int groupStage = layout.coord(group.front()).p;
        if (target.dim == Dim::Dp && groupStage != stage) {
            const std::vector<double> &sizes = traffic.setup.stageDpBytes;
            const double ownBytes = sizes[static_cast<std::size_t>(stage)];
            bytes = ownBytes > 0.0
                ? out.op.bytes * sizes[static_cast<std::size_t>(groupStage)] / ownBytes
                : 0.0;
        }
        if (target.dim == Dim::Pp)
            played.push_back(pipelineSteps(slots, bytes, traffic.setup.ppWrap, router));
        else
            played.push_back(collectiveSteps(out.op.algorithm, out.op.collective, slots, bytes,
                engine.fabric(), router, nvls,
                target.dim == Dim::Ep ? traffic.setup.epShares : std::vector<double> {}));
    }
    out.steps = concurrentSteps(std::move(played));

    const std::size_t n = out.groups.front().size();
    std::string what = upperName(dim) + " " + std::string(collectiveName(out.op.collective));
    if (target.dim == Dim::Pp)
        what = "PP sends";
    out.title = what + " of "
        + (target.wholeDimension ? "every " + dim + " group (" + std::to_string(out.groups.size())
                    + " x " + std::to_string(n) + " ranks)"
                                 : "rank " + std::to_string(target.rank) + "'s group ("
                    + std::to_string(n) + " ranks)")
        + ": " + formatBytes(out.op.bytes) + ", " + out.steps.algorithmText + ", "
        + std::to_string(out.steps.stepCount()) + " steps";
    return out;
}

} // namespace railyard
