#include "studies/blastradius.h"

#include "fabric/fabric.h"
#include "fabric/failedcomponent.h"
#include "fabric/router.h"
#include "scenario/jobssection.h"

#include <algorithm>
#include <memory>
#include <set>

namespace railyard {

namespace {

/// The group kinds whose collectives a rank joins (Megatron-LM's parallel_state names).
constexpr GroupKind kBlastKinds[]
    = { GroupKind::Tp, GroupKind::Cp, GroupKind::Ep, GroupKind::Dp, GroupKind::Pp };

int degreeOf(GroupKind kind, const ParallelDegrees &d)
{
    switch (kind) {
    case GroupKind::Tp:
        return d.tp;
    case GroupKind::Cp:
        return d.cp;
    case GroupKind::Ep:
        return d.ep;
    case GroupKind::Dp:
        return d.dp;
    case GroupKind::Pp:
        return d.pp;
    default:
        return 1;
    }
}

/// The slots a gpu or server part slows.
std::vector<int> slowSlots(const Fabric &fabric, const Degradation &part)
{
    std::vector<int> slots;
    if (part.kind == Degradation::Kind::Gpu)
        slots.push_back(part.index);
    if (part.kind == Degradation::Kind::Server)
        for (int g = 0; g < fabric.gpusPerServer(); ++g)
            slots.push_back(part.index * fabric.gpusPerServer() + g);
    return slots;
}

/// Whether the route between two slots (either way) crosses one of `links`.
bool crosses(Router &router, int a, int b, const std::vector<char> &links)
{
    for (const auto &[from, to] : { std::pair { a, b }, std::pair { b, a } })
        for (const RouteHop &hop : router.route(from, to))
            if (links[static_cast<std::size_t>(hop.link)])
                return true;
    return false;
}

/// Whether a group's traffic crosses the links: ring neighbours (TP, CP, DP rings), adjacent
/// stages (PP), every pair (EP's all-to-all).
bool groupCrosses(GroupKind kind, std::span<const int> ranks, const Mapping &mapping,
    Router &router, const std::vector<char> &links)
{
    const std::size_t n = ranks.size();
    const auto slot = [&](std::size_t i) { return mapping.slotOf(ranks[i]); };
    if (kind == GroupKind::Ep) {
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 1; j < n; ++j)
                if (crosses(router, slot(i), slot(j), links))
                    return true;
        return false;
    }
    const std::size_t pairs = kind == GroupKind::Pp ? n - 1 : n;
    for (std::size_t i = 0; i < pairs; ++i)
        if (crosses(router, slot(i), slot((i + 1) % n), links))
            return true;
    return false;
}

std::vector<WaitingGroup> waitingGroups(
    const CostEngine &engine, const Degradation &part, std::size_t at, Router &router)
{
    const ParallelLayout &layout = engine.layout();
    const Mapping &mapping = engine.mapping();
    std::vector<WaitingGroup> out;
    if (part.slowsCompute()) {
        std::set<std::pair<int, int>> seen;
        for (const int slot : slowSlots(engine.fabric(), part)) {
            const int rank = mapping.rankAt(slot);
            if (rank < 0)
                continue; // a free slot slows no one
            for (const GroupKind kind : kBlastKinds)
                if (degreeOf(kind, layout.degrees()) > 1) {
                    const int g = layout.groupOf(kind, rank);
                    if (seen.insert({ static_cast<int>(kind), g }).second)
                        out.push_back({ kind, g,
                            toVector(layout.groups(kind)[static_cast<std::size_t>(g)]) });
                }
        }
        return out;
    }
    std::vector<char> links(static_cast<std::size_t>(engine.fabric().linkCount()), 0);
    for (const int l : degradedLinks(engine.fabric(), part, degradationPath(at)))
        links[static_cast<std::size_t>(l)] = 1;
    for (const GroupKind kind : kBlastKinds) {
        if (degreeOf(kind, layout.degrees()) <= 1)
            continue;
        const GroupList &groups = layout.groups(kind);
        for (std::size_t g = 0; g < groups.size(); ++g)
            if (groupCrosses(kind, groups[g], mapping, router, links))
                out.push_back({ kind, static_cast<int>(g), toVector(groups[g]) });
    }
    return out;
}

/// When a stage's iteration work ends: its last compute or its gradient sync, the later.
double stageEnd(const StageReport &s)
{
    return std::max({ s.lastCompute, s.dpReduceEnd, s.tiedEmbeddingEnd });
}

std::string describePart(const Fabric &fabric, const Degradation &part)
{
    switch (part.kind) {
    case Degradation::Kind::Gpu:
        return describeFailure(fabric, { FailedComponent::Kind::Gpu, part.index });
    case Degradation::Kind::Server:
        return describeFailure(fabric, { FailedComponent::Kind::Server, part.index });
    case Degradation::Kind::Nic:
        return describeFailure(fabric, { FailedComponent::Kind::Nic, part.index });
    case Degradation::Kind::Link:
        break;
    }
    return degradationId(part) + " (" + fabric.linkName(part.index) + ")";
}

} // namespace

std::string waitingGroupName(const WaitingGroup &group)
{
    return std::string(groupKindName(group.kind)) + " " + std::to_string(group.index);
}

BlastRadius blastRadius(const CostEngine &engine)
{
    BlastRadius out;
    const std::vector<Degradation> &parts = engine.scenario().degradations.parts;
    out.degradedIterationTime = engine.report().iterationTime;
    if (parts.empty())
        return out;
    // The same mapping (swaps included) with every part healthy, then each part alone; all on
    // one healthy fabric, from which each part's engine derives its degraded copy.
    Scenario healthy = engine.scenario();
    healthy.degradations = {};
    healthy.slots = engine.mapping().slots();
    const auto fabric = std::make_shared<const Fabric>(Fabric::build(healthy.fabric));
    const CostEngine base(healthy, fabric);
    const CostReport &h = base.report();
    out.healthyIterationTime = h.iterationTime;
    Router router(engine.fabric(), routedFailures(engine.fabric(), engine.scenario().failures));
    for (std::size_t i = 0; i < parts.size(); ++i) {
        PartImpact impact;
        impact.part = parts[i];
        impact.name = describePart(engine.fabric(), parts[i]);
        impact.groups = waitingGroups(engine, parts[i], i, router);
        if (i < kMaxBlastRadiusParts) {
            Scenario alone = healthy;
            alone.degradations.parts = { parts[i] };
            const CostEngine one(alone, fabric);
            const CostReport &r = one.report();
            impact.delay = std::max(0.0, r.iterationTime - h.iterationTime);
            // A stage waits when its work ends later by more than rounding (a picosecond, the
            // resolution the engine ranks link busy times at).
            for (std::size_t s = 0; s < r.stages.size() && s < h.stages.size(); ++s) {
                const double d = stageEnd(r.stages[s]) - stageEnd(h.stages[s]);
                if (d > 1e-12)
                    impact.stages.push_back({ static_cast<int>(s), d });
            }
        }
        out.parts.push_back(std::move(impact));
    }
    return out;
}

std::vector<JobWait> jobsWaitingOn(const Scenario &shared, std::size_t index)
{
    std::vector<JobWait> out;
    if (index >= shared.degradations.parts.size())
        return out;
    for (std::size_t j = 0; j < shared.jobs.size(); ++j) {
        Scenario job = jobScenario(shared, j);
        job.degradations.parts = { shared.degradations.parts[index] };
        const BlastRadius radius = blastRadius(CostEngine(job));
        const PartImpact &p = radius.parts.front();
        if (p.groups.empty() && p.stages.empty() && p.delay <= 0.0)
            continue;
        out.push_back({ shared.jobs[j].name, p.delay, p.groups.size() });
    }
    return out;
}

} // namespace railyard
