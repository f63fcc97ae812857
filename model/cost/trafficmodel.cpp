#include "cost/trafficmodel.h"

#include "base/writeahead.h"
#include "cost/collectiveestimate.h"
#include "cost/collectiveplanner.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace railyard {

int TrafficPattern::stepCount() const
{
    return ringSteps.empty() ? steps : std::max(steps, ringSteps.rbegin()->first);
}

double TrafficPattern::maxLatency() const
{
    return latencies.empty() ? 0.0 : static_cast<double>(latencies.rbegin()->first) * 1e-9;
}

double TrafficPattern::alpha(Protocol p, int passes) const
{
    const std::map<long long, int> &m = chainLatency[passes > 1 ? 1 : 0][static_cast<int>(p)];
    return m.empty() ? 0.0 : static_cast<double>(m.rbegin()->first) * 1e-9;
}

int TrafficPattern::maxServers() const
{
    return groupServers.empty() ? 0 : groupServers.rbegin()->first;
}

int TrafficPattern::minChannels() const
{
    return groupChannels.empty() ? 1 : groupChannels.begin()->first;
}

namespace {

bool isAllReduce(Collective c)
{
    return c == Collective::AllReduce;
}

} // namespace

TrafficModel::TrafficModel(
    const Fabric &fabric, const ParallelLayout &layout, Router &router, const Setup &setup)
    : m_fabric(fabric)
    , m_layout(layout)
    , m_router(router)
    , m_setup(setup)
    , m_lumps(router.lumps().lumps)
    , m_lumpLinks(router.lumps().links)
    , m_lumpOfLink(router.lumps().lumpOfLink)
    , m_segmentLumpStart(router.lumps().segmentLumpStart)
    , m_segmentLooseStart(router.lumps().segmentLooseStart)
    , m_segmentLumps(router.lumps().segmentLumps)
    , m_segmentLoose(router.lumps().segmentLoose)
{
    const ParallelDegrees &deg = layout.degrees();
    const int stages = deg.pp;
    m_tp.assign(stages, Family {});
    m_cp.assign(stages, -1);
    m_ep.assign(stages, -1);
    // Names are built with append: GCC 12 warns falsely (-Wrestrict, PR105651) on
    // "literal" + std::string at -O3.
    auto named = [](const char *prefix, int a, int b = -1) {
        std::string n(prefix);
        n.append(std::to_string(a));
        if (b >= 0)
            n.append("->").append(std::to_string(b));
        return n;
    };
    for (int s = 0; s < stages; ++s) {
        if (deg.tp > 1)
            m_tp[s] = addFamily(named("tp stage ", s), Dim::Tp, s,
                s < static_cast<int>(m_setup.tpOps.size()) ? m_setup.tpOps[s]
                                                           : std::vector<FamilyOp> {});
        if (deg.cp > 1)
            m_cp[s] = addPattern(named("cp stage ", s), Dim::Cp, s, 0);
        if (deg.ep > 1)
            m_ep[s] = addPattern(named("ep stage ", s), Dim::Ep, s, deg.ep - 1);
        if (deg.ep > 1 && !m_setup.epShares.empty()) {
            m_epCombine.resize(static_cast<std::size_t>(stages), -1);
            m_epCombine[s] = addPattern(named("ep combine stage ", s), Dim::Ep, s, deg.ep - 1);
        }
    }
    for (int b = 0; b + 1 < stages; ++b) {
        m_ppForward.push_back(addPattern(named("pp fwd ", b, b + 1), Dim::Pp, b, 1));
        m_ppBackward.push_back(addPattern(named("pp bwd ", b, b + 1), Dim::Pp, b + 1, 1));
    }
    if (stages > 1 && (m_setup.ppWrap || m_setup.ppTied)) {
        const char *fwd = m_setup.ppWrap ? "pp wrap fwd " : "pp tied embedding ";
        const char *bwd = m_setup.ppWrap ? "pp wrap bwd " : "pp tied embedding ";
        m_ppWrapForward = addPattern(named(fwd, stages - 1, 0), Dim::Pp, stages - 1, 1);
        m_ppWrapBackward = addPattern(named(bwd, 0, stages - 1), Dim::Pp, 0, 1);
    }
    const int dpSize = deg.dp * deg.cp;
    const bool expertDp = !m_setup.stageExpertDpBytes.empty();
    const int edpSize = dpSize / std::max(1, deg.ep);
    if (dpSize > 1 || (expertDp && edpSize > 1))
        m_dp = addFamily("dp", Dim::Dp, -1, m_setup.dpOps);
    if (m_setup.dpShard > 0 && m_setup.dpShard < dpSize && !m_setup.dpReplicaOps.empty())
        m_dpReplica = addFamily("dp replica", Dim::Dp, -1, m_setup.dpReplicaOps);
    m_tpStageOfPattern.assign(m_patterns.size(), -1);
    for (int s = 0; s < stages; ++s)
        for (const int p : m_tp[sz(s)].patterns)
            m_tpStageOfPattern[sz(p)] = s;
    m_tpVersion.assign(sz(stages), 1);

    const int links = fabric.linkCount();
    // A column of per-link bytes for each dimension some pattern carries, in Dim order.
    std::array<bool, kDimCount> carried {};
    for (const TrafficPattern &p : m_patterns)
        carried[sz(index(p.dim))] = true;
    m_dimColumns = 0;
    for (int d = 0; d < kDimCount; ++d)
        m_dimColumn[sz(d)] = carried[sz(d)] ? static_cast<int>(m_dimColumns++) : -1;
    m_linkDimBytes.reserve(static_cast<std::size_t>(links) * m_dimColumns);
    aboutToWriteReserved(m_linkDimBytes);
    m_linkDimBytes.assign(static_cast<std::size_t>(links) * m_dimColumns, 0.0);
    m_linkRole.assign(sz(links), 0);
    m_changedLinks.assign(sz(links));
    // From the fabric's per-link arrays: reading each link's record and its source node from
    // the graph missed the cache once or twice per link (1.2 million of them at 131,072 GPUs).
    for (int id = 0; id < links; ++id) {
        const Tier tier = fabric.linkTier(id);
        const NodeKind from = fabric.linkSourceKind(id);
        m_linkRole[sz(id)] = static_cast<std::uint8_t>(index(tier)
            | (tier == Tier::Leaf && from == NodeKind::Nic ? kNicUp : 0)
            | (tier == Tier::Spine && from == NodeKind::Leaf ? kLeafUp : 0));
    }
    // Every rank a pattern covers loads at least two links of its own: its GPU's port out and
    // in (a route starts and ends at a GPU's own link). The DP family covers every rank, the
    // others one stage's. Sizing the loads for that up front keeps a large pattern from
    // growing its table a dozen times, or from filling one it then drops for the array.
    // A pipeline boundary's send between servers loads four (PCIe and NIC out at the sender,
    // NIC and PCIe in at the receiver): sized for two, each boundary's table grew once.
    const std::size_t world = static_cast<std::size_t>(layout.worldSize());
    for (TrafficPattern &p : m_patterns) {
        const std::size_t perRank = p.dim == Dim::Pp ? 4 : 2;
        p.load.reserve(perRank * (p.stage < 0 ? world : world / static_cast<std::size_t>(stages)));
    }
    m_lumpBytes.assign(m_lumps.size(), DimArray {});
    m_lumpTouched.assign(m_lumps.size());
}

int TrafficModel::addPattern(std::string name, Dim dim, int stage, int steps)
{
    TrafficPattern p;
    p.name = std::move(name);
    p.dim = dim;
    p.stage = stage;
    p.steps = steps;
    p.load.setLinkCount(m_fabric.linkCount());
    m_patterns.push_back(std::move(p));
    m_touchedPatterns.grow(m_patterns.size());
    return static_cast<int>(m_patterns.size()) - 1;
}

std::vector<PlanAlgorithm> TrafficModel::familyAlgorithms(Collective op, Dim dim) const
{
    const bool dp = dim == Dim::Dp;
    const CollectiveAlgorithm option = m_setup.algorithm;
    if (option != CollectiveAlgorithm::Auto) {
        const PlanAlgorithm a = planAlgorithmFor(option);
        // NVLS all-gather / reduce-scatter load a GPU's up and down links differently; the
        // families share one pattern for both ops, so they take the ring (which NVLS loses to
        // on one server anyway: NVIDIA/nccl issue #1083).
        const bool runs = algorithmRuns(a, op) && (a != PlanAlgorithm::Nvls || isAllReduce(op));
        return { runs ? a : PlanAlgorithm::Ring };
    }
    if (dp && isAllReduce(op) && m_setup.hierarchicalDp)
        return { PlanAlgorithm::Hierarchical };
    std::vector<PlanAlgorithm> out;
    for (const PlanAlgorithm a : autoCandidates(op)) {
        if (a == PlanAlgorithm::Nvls && (m_setup.device.nvlsEfficiency <= 0.0 || !isAllReduce(op)))
            continue; // no NVLS on this device; NVLS all-gather / reduce-scatter: see above
        // TP groups belong inside a server, where a tree is a chain: trees are for the DP
        // groups across servers.
        if (!dp && a == PlanAlgorithm::Tree)
            continue;
        out.push_back(a);
    }
    return out;
}

TrafficModel::Family TrafficModel::addFamily(
    const std::string &name, Dim dim, int stage, std::vector<FamilyOp> ops)
{
    Family f;
    bool allReduce = false;
    bool gatherScatter = false;
    for (const FamilyOp &op : ops) {
        allReduce = allReduce || isAllReduce(op.collective);
        gatherScatter = gatherScatter || !isAllReduce(op.collective);
    }
    f.ops = std::move(ops);
    const auto patternFor = [&](PlanAlgorithm a) {
        for (const int p : f.patterns)
            if (m_patterns[p].algorithm == a)
                return p;
        // The ring keeps the family's plain name ("tp stage 0", "dp"); tpPattern() and
        // dpPatterns() list the patterns in the order of the candidates.
        std::string n(name);
        if (a != PlanAlgorithm::Ring)
            n.append(" ").append(planAlgorithmName(a));
        const int p = addPattern(std::move(n), dim, stage, 0);
        TrafficPattern &tp = m_patterns[p];
        tp.planned = true;
        tp.algorithm = a;
        tp.plannedFor = a == PlanAlgorithm::Pat ? Collective::AllGather : Collective::AllReduce;
        tp.efficiency = nccltuning::linkEfficiency(a, m_setup.device);
        f.patterns.push_back(p);
        return p;
    };
    if (f.ops.empty()) { // one ring whose weight is set by hand (setWeight())
        f.allReduce.push_back(patternFor(PlanAlgorithm::Ring));
        f.gatherScatter = f.allReduce;
        return f;
    }
    if (allReduce)
        for (const PlanAlgorithm a : familyAlgorithms(Collective::AllReduce, dim))
            f.allReduce.push_back(patternFor(a));
    if (gatherScatter)
        for (const PlanAlgorithm a : familyAlgorithms(Collective::AllGather, dim))
            f.gatherScatter.push_back(patternFor(a));
    return f;
}

void TrafficModel::setWeight(int pattern, double bytesPerIteration)
{
    m_patterns[pattern].weight = bytesPerIteration;
}

int TrafficModel::tpPattern(int stage) const
{
    const Family &f = m_tp[stage];
    return f.patterns.empty() ? -1 : f.patterns.front();
}

CollectiveChoice TrafficModel::choose(const Family &family, Collective c, double bytes) const
{
    CollectiveChoice best;
    const std::vector<int> &candidates = isAllReduce(c) ? family.allReduce : family.gatherScatter;
    // An op of a kind the family was not built for (none in a plan's ops) takes its patterns.
    const std::vector<int> &pool = candidates.empty() ? family.patterns : candidates;
    const int passes = ringPasses(c);
    for (const int pi : pool) {
        const TrafficPattern &p = m_patterns[pi];
        CollectiveChain chain;
        chain.servers = p.maxServers();
        chain.channels = p.minChannels();
        // Each protocol's latency is the slowest group's (TrafficPattern::chainLatency); the
        // bandwidth part is the busiest link's, both at once as in nccltuning::fastestProtocol.
        for (const Protocol proto : { Protocol::Simple, Protocol::LL128, Protocol::LL }) {
            const double factor = nccltuning::bandwidthFactor(p.algorithm, proto, chain.servers);
            if (factor <= 0.0)
                continue;
            const double alpha = p.alpha(proto, passes);
            const double t = alpha
                + std::max(passes * bytes * p.maxRatio / factor,
                    nccltuning::bandwidthFloor(p.algorithm, proto, chain, m_setup.device, bytes));
            // A candidate must be faster by more than rounding to replace the earlier one, so
            // an incremental and a fresh evaluation choose alike.
            if (best.pattern < 0 || t < best.time * (1.0 - 1e-9)) {
                best.pattern = pi;
                best.algorithm = p.algorithm;
                best.protocol = proto;
                best.time = t;
                best.alpha = alpha;
            }
        }
    }
    return best;
}

CollectiveChoice TrafficModel::tpChoice(int stage, Collective c, double bytes) const
{
    if (stage < 0 || stage >= static_cast<int>(m_tp.size()) || m_tp[stage].patterns.empty())
        return {};
    return choose(m_tp[stage], c, bytes);
}

CollectiveChoice TrafficModel::dpChoice(Collective c, double ratio, bool replica) const
{
    const Family &f = replica ? m_dpReplica : m_dp;
    if (f.patterns.empty())
        return {};
    return choose(f, c, ratio);
}

void TrafficModel::refreshChoices()
{
    const auto refresh = [this](const Family &f) {
        if (f.ops.empty())
            return; // weights set by hand
        // A family none of whose patterns changed chooses as it did: the same weights.
        if (std::none_of(f.patterns.begin(), f.patterns.end(),
                [this](int p) { return m_touchedPatterns.contains(p); }))
            return;
        std::vector<double> weight(f.patterns.size(), 0.0); // per entry of f.patterns
        for (const FamilyOp &op : f.ops) {
            const CollectiveChoice c = choose(f, op.collective, op.bytes);
            const auto at = std::find(f.patterns.begin(), f.patterns.end(), c.pattern);
            if (at != f.patterns.end())
                weight[sz(static_cast<int>(at - f.patterns.begin()))] += op.iterationBytes;
        }
        for (std::size_t i = 0; i < f.patterns.size(); ++i)
            reweight(f.patterns[i], weight[i]);
    };
    for (const Family &f : m_tp)
        refresh(f);
    refresh(m_dp);
    refresh(m_dpReplica);
}

void TrafficModel::reweight(int pattern, double weight)
{
    TrafficPattern &p = m_patterns[pattern];
    const double delta = weight - p.weight;
    if (delta == 0.0)
        return;
    for (const auto &[link, load] : p.load)
        applyWeightedLoad(p, link, load, delta);
    for (std::size_t lump = 0; lump < p.lumped.size(); ++lump)
        if (p.lumped[lump] != 0.0)
            addLumpBytes(static_cast<int>(lump), p.dim, p.lumped[lump] * delta);
    p.weight = weight;
}

int TrafficModel::stageOfGroup(GroupKind kind, int index) const
{
    return m_layout.coord(m_layout.groups(kind)[index].front()).p;
}

void TrafficModel::build(const Mapping &mapping)
{
    // A model built before is cleared; a new one holds nothing yet (and clearing its per-link
    // arrays, which the constructor zeroed, would write them all again: 64 MB of link bytes and
    // 13 MB per dense pattern at 131,072 GPUs).
    if (m_built) {
        m_emitted.clear();
        m_replaced.clear();
        for (TrafficPattern &p : m_patterns) {
            p.load.clear();
            p.ringSteps.clear();
            p.pendingSegments.clear();
            p.pendingEnds.clear();
            p.latencies.clear();
            for (auto &byPasses : p.chainLatency)
                for (auto &m : byPasses)
                    m.clear();
            p.groupServers.clear();
            p.groupChannels.clear();
            p.maxRatio = p.linkMax = p.lumpMax = 0.0;
            p.argmax = p.linkArgmax = p.lumpArgmax = -1;
            p.rescan = p.lumpChanged = false;
            std::fill(p.lumped.begin(), p.lumped.end(), 0.0);
            if (p.ratios.size() > 0)
                p.ratios.assign(p.ratios.size());
        }
        for (const int lump : m_lumpTouched.list())
            m_lumpBytes[sz(lump)] = {};
        m_lumpTouched.clear();
        std::fill(m_linkDimBytes.begin(), m_linkDimBytes.end(), 0.0);
        m_tierBytes = {};
        m_nicUpBytes = m_leafUpBytes = 0.0;
    }
    m_built = true;
    // A dense pattern keeps block maxima from its first load on; addLoad() starts them then by
    // a scan of the whole array (1.2 million links at 131,072 GPUs) for the one load it holds.
    // Started here, on loads all zero, there is nothing to scan.
    for (TrafficPattern &p : m_patterns)
        if (p.load.dense() && p.ratios.size() == 0)
            p.ratios.assign(sz(m_fabric.linkCount()));
    // Every link is new after a build, and a full evaluation reads them all: listing each one
    // that changes (a million at 131,072 GPUs) would be thrown away.
    m_changedLinks.clear();
    m_building = true;
    for (int p = 0; p < static_cast<int>(m_patterns.size()); ++p)
        m_touchedPatterns.add(p); // every maximum and choice is found afresh

    const ParallelDegrees &deg = m_layout.degrees();
    // One plan per TP and DP group and pattern of its family (emitPlanned()), 33,000 at
    // 131,072 GPUs: the table of plans is sized for them rather than rehashed on its way up.
    std::size_t plans = 0;
    const std::size_t stages = m_tp.size();
    for (const Family &f : m_tp)
        plans += f.patterns.size() * m_layout.groups(GroupKind::Tp).size()
            / std::max<std::size_t>(1, stages);
    plans += (m_dp.patterns.size() + m_dpReplica.patterns.size())
        * (m_layout.groups(GroupKind::DpCp).size() + m_layout.groups(GroupKind::ExpertDp).size());
    m_emitted.reserve(plans);
    auto emitAll = [&](GroupKind kind, bool wanted) {
        if (!wanted)
            return;
        const int n = static_cast<int>(m_layout.groups(kind).size());
        for (int g = 0; g < n; ++g)
            emitGroup({ kind, g }, mapping, +1.0);
    };
    emitAll(GroupKind::Tp, deg.tp > 1);
    emitAll(GroupKind::Cp, deg.cp > 1);
    emitAll(GroupKind::Ep, deg.ep > 1);
    if (deg.pp > 1)
        emitPipelineSends(mapping);
    emitAll(GroupKind::DpCp, deg.dp * deg.cp > 1);
    emitAll(GroupKind::ExpertDp,
        !m_setup.stageExpertDpBytes.empty() && deg.dp * deg.cp / std::max(1, deg.ep) > 1);
    refreshMaxima();
    m_building = false;
}

void TrafficModel::emitPipelineSends(const Mapping &mapping)
{
    const GroupList &groups = m_layout.groups(GroupKind::Pp);
    // The sends emitGroup() makes group by group, boundary by boundary instead: each boundary's
    // two patterns then fill their tables in turn, where group by group every pipeline touched
    // all of them (30 tables of 1 MB at 131,072 GPUs, each insert a cache miss). Each pattern
    // takes its sends in the groups' order either way; across patterns the order changes, so
    // this runs only where every boundary pattern has one weight: then each link's and each
    // tier's bytes add equal terms, in whatever order.
    std::vector<int> boundaries = m_ppForward;
    boundaries.insert(boundaries.end(), m_ppBackward.begin(), m_ppBackward.end());
    if (m_ppWrapForward >= 0) {
        boundaries.push_back(m_ppWrapForward);
        boundaries.push_back(m_ppWrapBackward);
    }
    const bool oneWeight = std::all_of(boundaries.begin(), boundaries.end(), [&](int p) {
        return m_patterns[sz(p)].weight == m_patterns[sz(boundaries.front())].weight;
    });
    if (!oneWeight) {
        for (int g = 0; g < static_cast<int>(groups.size()); ++g)
            emitGroup({ GroupKind::Pp, g }, mapping, +1.0);
        return;
    }
    for (std::size_t s = 0; s < m_ppForward.size(); ++s)
        for (const std::span<const int> members : groups)
            if (s + 1 < members.size())
                emitBoundarySend(s, members, mapping, +1.0);
    if (m_ppWrapForward < 0)
        return;
    for (const std::span<const int> members : groups)
        if (members.size() > 1)
            emitWrapSend(members, mapping, +1.0);
}

void TrafficModel::emitBoundarySend(
    std::size_t s, std::span<const int> members, const Mapping &mapping, double sign)
{
    // Megatron's pp group lists the stages in order: member s sends activations to s+1 and
    // receives gradients back (point-to-point, S per sending rank).
    const int a = mapping.slotOf(members[s]);
    const int b = mapping.slotOf(members[s + 1]);
    emitFlow(m_ppForward[s], a, b, 1.0, sign);
    emitFlow(m_ppBackward[s], b, a, 1.0, sign);
}

void TrafficModel::emitWrapSend(std::span<const int> members, const Mapping &mapping, double sign)
{
    // Interleaved 1F1B: chunk c of the last stage feeds chunk c+1 of stage 0 (Narayanan et al.
    // SC'21 §2.2.2), a point-to-point send like any boundary; gradients return.
    const int last = mapping.slotOf(members.back());
    const int first = mapping.slotOf(members.front());
    emitFlow(m_ppWrapForward, last, first, 1.0, sign);
    emitFlow(m_ppWrapBackward, first, last, 1.0, sign);
}

std::vector<TrafficModel::GroupRef> TrafficModel::groupsOf(const std::vector<int> &ranks) const
{
    const ParallelDegrees &deg = m_layout.degrees();
    std::vector<GroupRef> refs; // sorted and made unique below (a set allocated per group)
    refs.reserve(ranks.size() * 6);
    for (int r : ranks) {
        if (deg.tp > 1)
            refs.push_back({ GroupKind::Tp, m_layout.groupOf(GroupKind::Tp, r) });
        if (deg.cp > 1)
            refs.push_back({ GroupKind::Cp, m_layout.groupOf(GroupKind::Cp, r) });
        if (deg.ep > 1)
            refs.push_back({ GroupKind::Ep, m_layout.groupOf(GroupKind::Ep, r) });
        if (deg.pp > 1)
            refs.push_back({ GroupKind::Pp, m_layout.groupOf(GroupKind::Pp, r) });
        if (deg.dp * deg.cp > 1)
            refs.push_back({ GroupKind::DpCp, m_layout.groupOf(GroupKind::DpCp, r) });
        if (!m_setup.stageExpertDpBytes.empty() && deg.dp * deg.cp / std::max(1, deg.ep) > 1)
            refs.push_back({ GroupKind::ExpertDp, m_layout.groupOf(GroupKind::ExpertDp, r) });
    }
    std::sort(refs.begin(), refs.end());
    refs.erase(std::unique(refs.begin(), refs.end(),
                   [](const GroupRef &a, const GroupRef &b) { return !(a < b) && !(b < a); }),
        refs.end());
    return refs;
}

void TrafficModel::beginMove(const Mapping &before, const std::vector<int> &ranks, bool revert)
{
    m_reverting = revert;
    if (!revert)
        recycleReplaced();
    m_moving = groupsOf(ranks);
    m_movingRanks.grow(sz(m_layout.worldSize()));
    for (const int r : ranks)
        m_movingRanks.add(r);
    for (const GroupRef &g : m_moving)
        emitGroup(g, before, -1.0);
}

void TrafficModel::recycleReplaced()
{
    // The last move's replaced plans can no longer be reverted to: their vectors serve the
    // next plans (planGroup()).
    for (auto &[id, plan] : m_replaced)
        recyclePlan(std::move(plan));
    m_replaced.clear();
}

void TrafficModel::endMove(const Mapping &after, bool refresh)
{
    for (const GroupRef &g : m_moving)
        emitGroup(g, after, +1.0);
    m_moving.clear();
    m_movingRanks.clear();
    if (m_reverting)
        m_replaced.clear(); // put back: nothing left to revert to
    m_reverting = false;
    if (refresh)
        refreshMaxima();
}

void TrafficModel::emitGroup(const GroupRef &group, const Mapping &mapping, double sign)
{
    const std::span<const int> members = m_layout.groups(group.kind)[group.index];
    const int stage = stageOfGroup(group.kind, group.index);
    switch (group.kind) {
    case GroupKind::Tp:
        emitFamily(m_tp[stage], group, members, mapping, 1.0, sign);
        break;
    case GroupKind::Cp:
        emitRing(m_cp[stage], members, mapping, 1.0, sign);
        break;
    case GroupKind::Ep:
        if (m_epCombine.empty()) {
            emitAllToAll(m_ep[stage], members, mapping, sign);
            break;
        }
        // Skewed routing (model/workload/eprouting.cpp): dispatch sends i -> j the S H_j routed
        // copies for j's experts, combine returns the same bytes j -> i.
        emitAllToAll(m_ep[stage], members, mapping, sign, &m_setup.epShares, false);
        emitAllToAll(m_epCombine[stage], members, mapping, sign, &m_setup.epShares, true);
        break;
    case GroupKind::Pp:
        // A move re-emits only the sends of the members it places: the others keep their
        // routes and loads.
        for (std::size_t s = 0; s + 1 < members.size(); ++s)
            if (sendMoves(members[s], members[s + 1]))
                emitBoundarySend(s, members, mapping, sign);
        if (m_ppWrapForward >= 0 && members.size() > 1
            && sendMoves(members.back(), members.front()))
            emitWrapSend(members, mapping, sign);
        break;
    case GroupKind::DpCp:
    case GroupKind::ExpertDp: {
        const std::vector<double> &sizes
            = group.kind == GroupKind::DpCp ? m_setup.stageDpBytes : m_setup.stageExpertDpBytes;
        const double bytes = stage < static_cast<int>(sizes.size()) ? sizes[stage] : 0.0;
        const int shard = m_setup.dpShard;
        const int n = static_cast<int>(members.size());
        if (group.kind == GroupKind::ExpertDp || shard <= 0 || shard >= n) {
            emitFamily(m_dp, group, members, mapping, bytes, sign);
            break;
        }
        // Hybrid sharding (hybridSubgroups): each shard and replica sub-group is planned under
        // an index of its own within its family.
        const std::vector<std::vector<int>> shards = hybridSubgroups(members, shard, false);
        const int shardCount = static_cast<int>(shards.size());
        for (int k = 0; k < shardCount; ++k)
            emitFamily(m_dp, { group.kind, group.index * shardCount + k }, shards[sz(k)], mapping,
                bytes, sign);
        const std::vector<std::vector<int>> replicas = hybridSubgroups(members, shard, true);
        for (int j = 0; j < shard; ++j)
            emitFamily(m_dpReplica, { group.kind, group.index * shard + j }, replicas[sz(j)],
                mapping, bytes, sign);
        break;
    }
    case GroupKind::Dp:
    case GroupKind::TpPp:
        break; // no traffic of their own: DP sync runs on the dp-cp groups
    }
}

void TrafficModel::emitRing(int pattern, std::span<const int> members, const Mapping &mapping,
    double bytesPerPass, double sign)
{
    const std::size_t n = members.size();
    if (n < 2 || pattern < 0)
        return;
    TrafficPattern &p = m_patterns[pattern];
    m_touchedPatterns.add(pattern);
    const int ringSteps = static_cast<int>(n) - 1;
    if (m_movingRanks.empty()) { // a move keeps the ring's size, and its entry here
        if (sign > 0)
            ++p.ringSteps[ringSteps];
        else if (auto it = p.ringSteps.find(ringSteps);
                 it != p.ringSteps.end() && --it->second == 0)
            p.ringSteps.erase(it);
    }
    // Ring collectives (Patarasuk & Yuan 2009; NCCL): in each of the n-1 steps of a pass every
    // rank sends S/n to its successor, so one pass puts (n-1)/n * S on each ring edge. A move
    // re-emits the edges of the members it places.
    const double unit = bytesPerPass * static_cast<double>(n - 1) / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i)
        if (sendMoves(members[i], members[(i + 1) % n]))
            emitFlow(pattern, mapping.slotOf(members[i]), mapping.slotOf(members[(i + 1) % n]),
                unit, sign);
}

void TrafficModel::emitAllToAll(int pattern, std::span<const int> members, const Mapping &mapping,
    double sign, const std::vector<double> *shares, bool reverse)
{
    const std::size_t n = members.size();
    if (n < 2 || pattern < 0)
        return;
    // Pairwise all-to-all (nccl-tests alltoall): each rank sends S/n to every other rank; with
    // per-destination shares (sum 1) S * shares[j] to member j instead, the same bytes back
    // from j to i when `reverse` (an MoE combine).
    const bool weighted = shares && shares->size() == n;
    const double unit = 1.0 / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            if (i == j || !sendMoves(members[i], members[j]))
                continue; // a move re-emits the pairs of the members it places
            const int a = mapping.slotOf(members[i]);
            const int b = mapping.slotOf(members[j]);
            const double u = weighted ? (*shares)[j] : unit;
            emitFlow(pattern, reverse ? b : a, reverse ? a : b, u, sign);
        }
}

void TrafficModel::emitFlow(int pattern, int srcSlot, int dstSlot, double unit, double sign,
    bool trackLatency, RouteNics nics)
{
    if (srcSlot == dstSlot || unit == 0.0)
        return;
    TrafficPattern &p = m_patterns[pattern];
    m_touchedPatterns.add(pattern);
    if (nics.any())
        m_router.routeParts(srcSlot, dstSlot, nics, m_parts); // a hop NCCL's log gave
    else
        m_router.routeParts(srcSlot, dstSlot, m_parts);
    if (trackLatency)
        countIn(p.latencies, roundToInteger(m_parts.latency * 1e9), sign);
    const double delta = sign * unit;
    if (m_flowLog && sign > 0.0)
        m_flowLog->push_back({ pattern, srcSlot, dstSlot, unit, m_logConnections, -1, nics });
    for (int i = 0; i < m_parts.endCount; ++i)
        addEndLoad(p, m_parts.ends[static_cast<std::size_t>(i)],
            delta * m_parts.endShares[static_cast<std::size_t>(i)]);
    for (int i = 0; i < m_parts.segmentCount; ++i)
        p.pendingSegments.add(m_parts.segments[static_cast<std::size_t>(i)], delta);
}

void TrafficModel::setRatioScales(const std::vector<double> &scales)
{
    if (m_unscaledRatio.empty() && scales.empty())
        return;
    if (m_unscaledRatio.empty()) {
        m_unscaledRatio.reserve(m_patterns.size());
        for (const TrafficPattern &p : m_patterns)
            m_unscaledRatio.push_back(p.maxRatio);
    }
    for (std::size_t i = 0; i < m_patterns.size(); ++i)
        m_patterns[i].maxRatio = m_unscaledRatio[i] * (i < scales.size() ? scales[i] : 1.0);
    if (scales.empty())
        m_unscaledRatio.clear();
    // Every stage's TP choice may differ now: whatever kept one (CostEngine's tpOpTime) asks
    // again.
    for (std::uint64_t &v : m_tpVersion)
        ++v;
}

} // namespace railyard
