#include "cost/partnerroutes.h"

#include "cost/collectiveplanner.h"
#include "fabric/fabric.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string_view>

namespace railyard {

std::set<PlanAlgorithm> reportedAlgorithms(const CostReport *report, Dim dim, int stage)
{
    std::set<PlanAlgorithm> out;
    if (report)
        for (const PhaseResult &ph : report->phases) {
            if (ph.dim != dim || ph.algorithm.empty() || (ph.stage >= 0 && ph.stage != stage))
                continue;
            for (int a = 0; a < kPlanAlgorithmCount; ++a)
                if (planAlgorithmName(static_cast<PlanAlgorithm>(a)) == ph.algorithm)
                    out.insert(static_cast<PlanAlgorithm>(a));
        }
    if (out.empty())
        out.insert(PlanAlgorithm::Ring);
    return out;
}

PartnerRoutes partnerRoutes(const ParallelLayout &layout, const Mapping &mapping, Router &router,
    int rank, const PartnerRouteContext &context)
{
    PartnerRoutes out;
    if (rank < 0 || rank >= mapping.rankCount() || rank >= layout.worldSize())
        return out;
    const ParallelDegrees &deg = layout.degrees();
    std::map<int, unsigned> slots, links;
    const int from = mapping.slotOf(rank);
    const int stage = layout.coord(rank).p;
    const auto members = [&](GroupKind kind) -> std::span<const int> {
        return layout.groups(kind)[static_cast<std::size_t>(layout.groupOf(kind, rank))];
    };
    const auto route = [&](int src, int dst, unsigned bit) {
        for (const RouteHop &hop : router.route(src, dst))
            links[hop.link] |= bit;
    };
    const auto partners = [&](std::span<const int> group, unsigned bit) {
        for (const int r : group)
            if (r != rank)
                slots[mapping.slotOf(r)] |= bit;
    };
    // A planned collective (TP, DP): the flows of the engine's plan that start or end at this
    // rank's slot, and the NVLS switch ports of its GPU.
    const auto planned = [&](std::span<const int> group, Dim dim, unsigned bit) {
        if (group.size() < 2)
            return;
        partners(group, bit);
        if (!context.fabric) { // no fabric to plan on: direct routes to every member
            for (const int r : group)
                if (r != rank)
                    route(from, mapping.slotOf(r), bit);
            return;
        }
        std::vector<int> groupSlots;
        groupSlots.reserve(group.size());
        for (const int r : group)
            groupSlots.push_back(mapping.slotOf(r));
        const int gpu = context.fabric->gpuVertex(from);
        for (const PlanAlgorithm a : reportedAlgorithms(context.report, dim, stage)) {
            // As TrafficModel::addFamily plans its patterns: PAT for all-gather, else all-reduce.
            const Collective op
                = a == PlanAlgorithm::Pat ? Collective::AllGather : Collective::AllReduce;
            const CollectivePlan plan = planCollective(
                a, op, groupSlots, *context.fabric, router, context.nvlsEfficiency);
            for (const PlannedFlow &f : plan.flows)
                if (f.src != f.dst && (f.src == from || f.dst == from))
                    route(f.src, f.dst, bit);
            for (const PlannedLinkLoad &l : plan.links) {
                const FabricLink &link = context.fabric->link(l.link);
                if (link.src == gpu || link.dst == gpu)
                    links[l.link] |= bit;
            }
        }
    };

    if (deg.tp > 1)
        planned(members(GroupKind::Tp), Dim::Tp, 1u << index(Dim::Tp));
    if (deg.dp > 1 || deg.cp > 1) {
        // The gradient sync runs on the dp-cp group (TrafficModel::emitGroup); a MoE's expert
        // parameters sync on the expert-dp group.
        const unsigned bit = 1u << index(Dim::Dp);
        if (deg.dp > 1)
            partners(members(GroupKind::Dp), bit);
        const std::span<const int> dpCp = members(GroupKind::DpCp);
        if (context.dpShard > 0 && context.dpShard < static_cast<int>(dpCp.size())) {
            // Hybrid sharding (TrafficModel::emitGroup): the rank's shard and replica groups.
            for (const bool replica : { false, true })
                for (const std::vector<int> &sub : hybridSubgroups(dpCp, context.dpShard, replica))
                    if (std::find(sub.begin(), sub.end(), rank) != sub.end())
                        planned(sub, Dim::Dp, bit);
        } else {
            planned(dpCp, Dim::Dp, bit);
        }
        if (deg.ep > 1)
            planned(members(GroupKind::ExpertDp), Dim::Dp, bit);
    }
    if (deg.cp > 1) { // ring attention: a ring in member order (TrafficModel::emitRing)
        const unsigned bit = 1u << index(Dim::Cp);
        const std::span<const int> group = members(GroupKind::Cp);
        partners(group, bit);
        const auto self = std::find(group.begin(), group.end(), rank) - group.begin();
        const auto n = static_cast<std::ptrdiff_t>(group.size());
        route(from, mapping.slotOf(group[static_cast<std::size_t>((self + 1) % n)]), bit);
        route(mapping.slotOf(group[static_cast<std::size_t>((self + n - 1) % n)]), from, bit);
    }
    if (deg.pp > 1) { // boundary activations and gradients: the adjacent stages only
        const unsigned bit = 1u << index(Dim::Pp);
        const std::span<const int> group = members(GroupKind::Pp);
        partners(group, bit);
        const auto self = std::find(group.begin(), group.end(), rank);
        for (auto it = group.begin(); it != group.end(); ++it)
            if (std::abs(it - self) == 1)
                route(from, mapping.slotOf(*it), bit);
    }
    if (deg.ep > 1) { // all-to-all: every member
        const unsigned bit = 1u << index(Dim::Ep);
        const std::span<const int> group = members(GroupKind::Ep);
        partners(group, bit);
        for (const int r : group)
            if (r != rank)
                route(from, mapping.slotOf(r), bit);
    }
    out.slots.assign(slots.begin(), slots.end());
    out.links.assign(links.begin(), links.end());
    return out;
}

} // namespace railyard
