/**
 * The expert-parallel traffic of an evaluated mapping: the dispatch matrix of one MoE layer from
 * the routing's member shares (workload/eprouting.cpp), its skew, the routes that cross a
 * spine, the engine's EP bytes per tier, and the EP/DP locality conflict.
 *
 * Sources cited below:
 *  [Fedus22]    Fedus, Zoph, Shazeer, "Switch Transformers", JMLR 2022, §2.2: tokens are not
 *               spread evenly over experts (the load-balancing loss pushes towards uniform).
 *  [Rajbhandari22] Rajbhandari et al., "DeepSpeed-MoE", ICML 2022: the expert-parallel
 *               all-to-all dispatch and combine of every MoE layer.
 *  [Hwang23]    Hwang et al., "Tutel: Adaptive Mixture-of-Experts at Scale", MLSys 2023, §2:
 *               the busiest expert's rank sets the layer's pace.
 *  [MegatronMoE] Megatron-Core MoE (megatron/core/transformer/moe): EP rank j holds the local
 *               experts [j E/ep, (j+1) E/ep); the alltoall dispatcher sends each rank's
 *               sequence-parallel shard of routed tokens; EP groups are carved out of DP.
 */
#include "cost/epsummary.h"

#include "cost/costengine.h"
#include "workload/workloadnames.h"

#include <algorithm>
#include <memory>
#include <set>

namespace railyard {

namespace {

/// Whether a route reaches a spine: it has a leaf-to-leaf segment, or (several network planes,
/// where every cross-server route is one NIC-to-NIC segment) a segment holding a spine hop.
bool routeReachesSpine(const Router &router, const Fabric &fabric, const Router::Parts &parts)
{
    if (fabric.planeCount() == 1)
        return parts.segmentCount > 0;
    for (int i = 0; i < parts.segmentCount; ++i)
        for (const RouteHop &h : router.segmentHops(parts.segments[static_cast<std::size_t>(i)]))
            if (fabric.link(h.link).tier == Tier::Spine
                || fabric.link(h.link).tier == Tier::SuperSpine)
                return true;
    return false;
}

} // namespace

EpSummary epSummary(const CostEngine &engine, int group)
{
    EpSummary out;
    const Scenario &s = engine.scenario();
    const ModelSpec &m = s.model;
    if (m.experts <= 0 || m.topK <= 0)
        return out;
    const ParallelLayout &layout = engine.layout();
    const Fabric &fabric = engine.fabric();
    const Mapping &mapping = engine.mapping();
    const CostReport &report = engine.report();
    const GroupList &groups = layout.groups(GroupKind::Ep);
    if (groups.empty())
        return out;

    out.present = true;
    out.kind = m.routing.kind;
    out.zipfExponent = m.routing.kind == RoutingKind::Zipf ? m.routing.zipfExponent : 0.0;
    out.ep = s.degrees.ep;
    out.experts = m.experts;
    out.topK = m.topK;
    out.groupCount = static_cast<int>(groups.size());
    out.group = std::clamp(group, 0, out.groupCount - 1);
    out.groupRanks = toVector(groups[static_cast<std::size_t>(out.group)]);
    const int ep = out.ep;
    const auto n = static_cast<std::size_t>(ep);

    // The all-to-all buffer per rank, as workloadplan.cpp sizes the EP op: T = b s / c tokens,
    // the sequence-parallel shard T / t with SP ([MegatronMoE] dispatches the SP shard),
    // S = T topK h e, e the exchanged activation's width: bf16 also in fp8 runs (Transformer
    // Engine casts to fp8 inside the GEMMs; the dispatcher moves bf16 hidden states).
    const bool sp = s.training.sequenceParallel && s.degrees.tp > 1;
    const double tokens = static_cast<double>(s.training.microBatch) * m.seq / s.degrees.cp;
    out.tokensPerRank = sp ? tokens / s.degrees.tp : tokens;
    out.sendBytesPerRank
        = out.tokensPerRank * m.topK * m.hidden * activationMessageBytes(s.training.precision);
    const double S = out.sendBytesPerRank;

    out.expertShare = expertShares(m.routing, m.experts, m.topK);
    out.memberShare = memberShares(m.routing, m.experts, ep, m.topK);
    out.hottestExpert = static_cast<int>(
        std::max_element(out.expertShare.begin(), out.expertShare.end()) - out.expertShare.begin());

    // Dispatch matrix [Rajbhandari22]: source i sends destination j the routed copies of its
    // tokens whose expert lives on j, S H_j (every source routes alike); combine returns them.
    out.matrix.assign(n * n, 0.0);
    out.receivedBytes.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const double b = S * out.memberShare[j];
            out.matrix[i * n + j] = b;
            if (i != j) {
                out.dispatchBytesPerLayer += b;
                out.receivedBytes[j] += b;
            }
        }
    out.dispatchBytesPerLayerJob = out.dispatchBytesPerLayer * out.groupCount;
    out.hottestMember
        = static_cast<int>(std::max_element(out.receivedBytes.begin(), out.receivedBytes.end())
            - out.receivedBytes.begin());
    out.receivedMax = out.receivedBytes[static_cast<std::size_t>(out.hottestMember)];
    out.receivedMean = out.dispatchBytesPerLayer / ep;
    // Load skew max/mean [Fedus22] §2.2, [Hwang23]: = ep max_j H_j; 1 with a single member.
    out.skew = out.receivedMean > 0.0 ? out.receivedMax / out.receivedMean : 1.0;
    out.hottestRank = out.groupRanks[static_cast<std::size_t>(out.hottestMember)];
    const int local = m.experts / std::max(1, ep);
    out.hottestFirstExpert = out.hottestMember * local;
    out.hottestLastExpert = out.hottestFirstExpert + local - 1;

    // Which pairs meet only through a spine: the router's route has a leaf-to-leaf part.
    std::shared_ptr<Router> router = engine.sharedRouter();
    Router::Parts parts;
    out.crossesSpine.assign(n * n, false);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const std::span<const int> members = groups[g];
        double crossing = 0.0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                if (i == j)
                    continue;
                router->routeParts(mapping.slotOf(members[i]), mapping.slotOf(members[j]), parts);
                if (!routeReachesSpine(*router, engine.fabric(), parts))
                    continue;
                crossing += out.matrix[i * n + j];
                if (static_cast<int>(g) == out.group)
                    out.crossesSpine[i * n + j] = true;
            }
        if (static_cast<int>(g) == out.group)
            out.spineDispatchBytesPerLayer = crossing;
        out.spineDispatchBytesPerLayerJob += crossing;
    }

    for (Tier t : kAllTiers)
        out.tierBytes[static_cast<std::size_t>(index(t))]
            = report.tierBytes[index(t)][index(Dim::Ep)];
    out.spineBytes = out.tierBytes[static_cast<std::size_t>(index(Tier::Spine))]
        + out.tierBytes[static_cast<std::size_t>(index(Tier::SuperSpine))];
    out.exposedTime = report.dimExposed[index(Dim::Ep)];

    // Locality: experts spread over rail leaves push dispatch onto the spine, against the
    // same-rail locality DP enjoys. A group needs a spine iff its members use > 1 scale-up
    // domain and > 1 leaf: then some pair differs in both (no PXN considered here). A domain is
    // a server, or a rack of trays sharing one NVLink switch system (NVL72).
    struct Span
    {
        std::size_t servers = 0;
        std::size_t leaves = 0;
        bool spansLeaves() const { return servers > 1 && leaves > 1; }
    };
    auto spanOf = [&](std::span<const int> members) {
        std::set<int> servers;
        std::set<int> leaves;
        for (int r : members) {
            const int slot = mapping.slotOf(r);
            const int server = fabric.serverOfSlot(slot);
            servers.insert(fabric.scaleUpDomainOfSlot(slot));
            leaves.insert(fabric.leafOfNic(server, fabric.nicOfGpu(fabric.gpuOfSlot(slot))));
        }
        return Span { servers.size(), leaves.size() };
    };
    if (s.degrees.dp * s.degrees.cp > 1) {
        for (const std::span<const int> members : layout.groups(GroupKind::DpCp)) {
            ++out.dpGroups;
            out.dpGroupsOneLeaf += spanOf(members).spansLeaves() ? 0 : 1;
        }
    }
    for (const std::span<const int> members : groups) {
        const Span span = spanOf(members);
        out.epGroupsOneServer += span.servers == 1 ? 1 : 0;
        out.epGroupsSpanningLeaves += span.spansLeaves() ? 1 : 0;
    }
    const bool epLocal = out.epGroupsOneServer == out.groupCount;
    const bool dpLocal = out.dpGroupsOneLeaf == out.dpGroups;
    out.locality = epLocal && dpLocal ? "both-local"
        : epLocal ? (fabric.scaleUpDomainServers() > 1 ? "ep-in-scaleup" : "ep-in-server")
        : out.epGroupsSpanningLeaves == 0 ? "dp-on-leaf"
                                          : "ep-spans-leaves";
    return out;
}

} // namespace railyard
