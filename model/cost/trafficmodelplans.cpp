// The traffic model's collective families: each group planned by the collective planner, and
// what its plan emitted kept per (pattern, group), so that a move re-plans a group once (with
// the new mapping) and changes only the flows whose units differ. A rank moving in a
// 1,024-member data-parallel ring changes a handful of ring edges; re-emitting all of them (and
// re-planning the group for the old mapping to subtract it) was most of a swap at 131,072 GPUs.
#include "cost/trafficmodel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <tuple>

namespace railyard {

void TrafficModel::emitFamily(const Family &family, const GroupRef &group,
    std::span<const int> members, const Mapping &mapping, double scale, double sign)
{
    bool prepared = false; // the members' servers and NICs (m_prepared), found once
    FamilyPlans made;
    for (const int p : family.patterns)
        emitPlanned(p, group, members, mapping, scale, sign, prepared, made);
}

TrafficModel::EmittedPlan TrafficModel::pooledPlan()
{
    EmittedPlan out;
    if (!m_planPool.empty()) {
        out = std::move(m_planPool.back());
        m_planPool.pop_back();
    }
    return out;
}

void TrafficModel::recyclePlan(EmittedPlan &&plan)
{
    // A few hundred are kept, enough for a server's worth of groups.
    constexpr std::size_t kPoolLimit = 256;
    if (m_planPool.size() < kPoolLimit)
        m_planPool.push_back(std::move(plan));
}

void TrafficModel::setObservedRings(const std::vector<int> &slots, PlannerGroup &group)
{
    group.rings = nullptr;
    group.ringNics = nullptr;
    if (m_setup.observed.empty())
        return; // the usual case: nothing to look up
    if (m_observedOf.empty())
        for (std::size_t i = 0; i < m_setup.observed.size(); ++i) {
            std::vector<int> key = m_setup.observed[i].slots;
            std::sort(key.begin(), key.end());
            m_observedOf.emplace(std::move(key), i);
        }
    std::vector<int> key = slots;
    std::sort(key.begin(), key.end());
    const auto it = m_observedOf.find(key);
    if (it == m_observedOf.end())
        return;
    // Communicator ranks -> the group's member indexes, through the slots.
    const NcclObservedComm &c = m_setup.observed[it->second];
    std::map<int, int> memberOfSlot;
    for (std::size_t i = 0; i < slots.size(); ++i)
        memberOfSlot.emplace(slots[i], static_cast<int>(i));
    m_observedRings.resize(c.rings.size());
    for (std::size_t ch = 0; ch < c.rings.size(); ++ch) {
        m_observedRings[ch].clear();
        for (const int rank : c.rings[ch])
            m_observedRings[ch].push_back(memberOfSlot.at(c.slots[sz(rank)]));
    }
    group.rings = &m_observedRings;
    if (c.nics.empty())
        return;
    // Each logged hop's NICs, by channel and sending member; hops inside a scale-up domain use
    // no NIC and keep none. A NIC index no RouteNics holds is left to the router (as one the
    // fabric does not have: Router::usableNics()).
    const auto nic = [](int index) {
        return static_cast<std::int16_t>(
            index >= 0 && index <= std::numeric_limits<std::int16_t>::max() ? index : -1);
    };
    m_observedNics.assign(c.rings.size(), std::vector<RouteNics>(slots.size()));
    bool any = false;
    for (const NcclObservedNics &h : c.nics) {
        if (h.channel < 0 || sz(h.channel) >= c.rings.size() || h.rank < 0
            || sz(h.rank) >= c.slots.size())
            continue;
        const std::vector<int> &ring = c.rings[sz(h.channel)];
        const auto at = std::find(ring.begin(), ring.end(), h.rank);
        if (at == ring.end())
            continue;
        const int next = *(std::next(at) == ring.end() ? ring.begin() : std::next(at));
        const int src = c.slots[sz(h.rank)], dst = c.slots[sz(next)];
        if (m_fabric.sameScaleUpDomain(src, dst))
            continue;
        const RouteNics nics { nic(h.send), nic(h.receive), h.pxn };
        if (!nics.any())
            continue;
        m_observedNics[sz(h.channel)][sz(memberOfSlot.at(src))] = nics;
        any = true;
    }
    if (any)
        group.ringNics = &m_observedNics;
}

TrafficModel::EmittedPlan TrafficModel::planGroup(
    int pattern, const PlannerGroup &group, double scale)
{
    // A plan the last move replaced and no revert can want any more lends its vectors.
    EmittedPlan out = pooledPlan();
    out.nicFlows.clear();
    out.links.clear();
    std::vector<int> &slots = out.slots;
    slots.clear();
    for (const RingMember &m : group.members)
        slots.push_back(m.slot);
    const TrafficPattern &p = m_patterns[sz(pattern)];
    planCollective(p.algorithm, p.plannedFor, group, m_fabric, m_router,
        m_setup.device.nvlsEfficiency, m_planScratch);
    const CollectivePlan &plan = m_planScratch;
    for (const PlannedNicFlow &f : plan.nicFlows) // what NCCL logged: a few hops, as they are
        out.nicFlows.push_back({ { f.flow.from, f.flow.to, f.flow.unit * scale }, f.nics });
    // What the list below is made from: the planner's flows by member (and whether their slots
    // differ) and the scale. A list made from the same is taken again (IndexedFlows).
    const bool indexed
        = plan.algorithm == PlanAlgorithm::Pat || plan.algorithm == PlanAlgorithm::Pairwise;
    const auto sameFlow = [](const PlannedFlow &a, const PlannedFlow &b) {
        return a.from == b.from && a.to == b.to && a.unit == b.unit
            && (a.src == a.dst) == (b.src == b.dst);
    };
    if (indexed)
        for (const IndexedFlows &made : m_indexedFlows)
            if (made.scale == scale
                && std::equal(made.planned.begin(), made.planned.end(), plan.flows.begin(),
                    plan.flows.end(), sameFlow)) {
                out.flows = made.flows; // shared, not copied
                finishPlan(out, plan, scale);
                return out;
            }
    // Flows by (source, destination) member: a counting sort by source (the planner gives a
    // few flows per member: a ring's channels, PAT's log2 n steps), then each source's short
    // run by destination. A general sort of the 10,240 flows of a 1,024-member PAT plan was a
    // sixth of a swap at 131,072 GPUs.
    // The planner names each flow's members (PlannedFlow::from, to: indexes in group.members,
    // the order of `slots`).
    const std::size_t n = slots.size();
    m_flowStart.assign(n + 1, 0);
    for (const PlannedFlow &f : plan.flows)
        if (f.src != f.dst) // carries nothing (TrafficModel::emitFlow)
            ++m_flowStart[sz(f.from) + 1];
    for (std::size_t i = 0; i < n; ++i)
        m_flowStart[i + 1] += m_flowStart[i];
    m_flowScratch.resize(sz(m_flowStart[n]));
    for (const PlannedFlow &f : plan.flows) {
        if (f.src == f.dst)
            continue;
        m_flowScratch[sz(m_flowStart[sz(f.from)]++)] = { f.from, f.to, f.unit };
    }
    const auto byDestination = [](const GroupFlow &a, const GroupFlow &b) { return a.to < b.to; };
    // A pooled plan's own list lends its capacity (made by make_shared<FlowList>, never const);
    // one another plan or m_indexedFlows still shares is left to them.
    std::shared_ptr<FlowList> list = out.flows.use_count() == 1
        ? std::const_pointer_cast<FlowList>(std::move(out.flows))
        : std::make_shared<FlowList>();
    out.flows.reset();
    FlowList &flows = *list;
    flows.clear();
    flows.reserve(m_flowScratch.size());
    for (std::size_t i = 0, begin = 0; i < n; ++i) {
        // m_flowStart[i] is now the end of member i's run (the start of member i + 1's).
        const std::size_t end = sz(m_flowStart[i]);
        std::sort(m_flowScratch.begin() + static_cast<std::ptrdiff_t>(begin),
            m_flowScratch.begin() + static_cast<std::ptrdiff_t>(end), byDestination);
        for (std::size_t k = begin; k < end; ++k) {
            const GroupFlow &f = m_flowScratch[k];
            if (!flows.empty() && flows.back().from == f.from && flows.back().to == f.to)
                flows.back().unit += f.unit * scale;
            else
                flows.push_back({ f.from, f.to, f.unit * scale });
        }
        begin = end;
    }
    std::erase_if(flows, [](const GroupFlow &f) { return f.unit == 0.0; });
    out.flows = std::move(list);
    // A few sizes and scales (a family's groups, its stages' sync sizes) are all a layout has.
    constexpr std::size_t kIndexedLists = 16;
    if (indexed && m_indexedFlows.size() < kIndexedLists)
        m_indexedFlows.push_back({ plan.flows, scale, out.flows });
    finishPlan(out, plan, scale);
    return out;
}

void TrafficModel::finishPlan(EmittedPlan &out, const CollectivePlan &plan, double scale) const
{
    out.links.reserve(plan.links.size());
    for (const PlannedLinkLoad &l : plan.links)
        if (l.unit * scale != 0.0)
            out.links.push_back({ l.link, l.unit * scale });
    // The group's latency per protocol, for ops of one and of two passes. A group whose
    // geometry made the planner fall back (an NVLS group split over servers runs a ring) keeps
    // its own algorithm's latency; the pattern's bandwidth factor and link efficiency stay
    // those of the pattern's algorithm.
    for (const Protocol proto : kAllProtocols) {
        const std::array<double, 2> seconds
            = nccltuning::latencyOneAndTwoPasses(plan.algorithm, proto, plan.chain, m_setup.device);
        for (std::size_t passes = 0; passes < 2; ++passes)
            out.latency[passes][sz(static_cast<int>(proto))]
                = roundToInteger(seconds[passes] * 1e9);
    }
    out.servers = plan.chain.servers;
    out.channels = plan.channels;
}

void TrafficModel::emitPlan(int pattern, const EmittedPlan &plan, double sign, bool flows)
{
    // A plan's flows share their route ends: each of a PAT plan's log2 n steps leaves a member
    // by its NIC and enters its partner by the partner's, so a 1,024-member group sends ten
    // flows over each NIC link. In a build they are netted per link (the pattern's
    // pendingEnds, as a move nets them) and each link's load, maximum and bytes are updated
    // once per plan rather than once per flow: a tenth of the updates into arrays of a million
    // links at 131,072 GPUs. (A move nets them already, until its flush.) A small plan's links
    // stay in cache, where netting them first would only add a table: from 1,024 flows on.
    constexpr std::size_t kNetFrom = 1024;
    const FlowList &list = plan.flowList();
    const bool net = flows && m_movingRanks.empty() && list.size() > plan.slots.size()
        && list.size() >= kNetFrom;
    m_nettingEnds = net;
    m_logConnections = std::max(1, plan.channels);
    for (std::size_t i = 0; flows && i < list.size(); ++i) {
        const GroupFlow &f = list[i];
        emitFlow(pattern, plan.slots[sz(f.from)], plan.slots[sz(f.to)], f.unit, sign, false);
    }
    for (std::size_t i = 0; flows && i < plan.nicFlows.size(); ++i) {
        const NicGroupFlow &f = plan.nicFlows[i];
        emitFlow(pattern, plan.slots[sz(f.flow.from)], plan.slots[sz(f.flow.to)], f.flow.unit, sign,
            false, f.nics);
    }
    m_logConnections = 1;
    m_nettingEnds = false;
    if (m_flowLog && sign > 0.0)
        for (const PlannedLinkLoad &l : plan.links)
            m_flowLog->push_back({ pattern, -1, -1, l.unit, 0, l.link, {} });
    if (net)
        flushEnds(m_patterns[sz(pattern)]);
    m_touchedPatterns.add(pattern);
    for (const PlannedLinkLoad &l : plan.links)
        addEndLoad(m_patterns[sz(pattern)], l.link, sign * l.unit);
    TrafficPattern &q = m_patterns[sz(pattern)];
    for (int passes = 0; passes < 2; ++passes)
        for (int proto = 0; proto < kProtocolCount; ++proto)
            countIn(
                q.chainLatency[sz(passes)][sz(proto)], plan.latency[sz(passes)][sz(proto)], sign);
    countIn(q.groupServers, plan.servers, sign);
    countIn(q.groupChannels, plan.channels, sign);
}

void TrafficModel::emitPlanChange(int pattern, const EmittedPlan &before, const EmittedPlan &after)
{
    // Both flow lists are sorted by (from, to) member with one entry per pair: walk them
    // together. A pair whose members kept their slots changes by its units' difference; one
    // with a moved member leaves its old route and takes its new one.
    const auto key = [](const GroupFlow &f) { return std::tie(f.from, f.to); };
    const auto emit = [&](const EmittedPlan &plan, const GroupFlow &f, double unit) {
        emitFlow(pattern, plan.slots[sz(f.from)], plan.slots[sz(f.to)], unit, +1.0, false);
    };
    const FlowList &was = before.flowList();
    const FlowList &is = after.flowList();
    std::size_t i = 0, j = 0;
    // A re-plan mostly keeps every pair (PAT's pairs follow the member indexes, a ring's the
    // servers' order): while both lists hold the same pair at the same place, the walk below
    // would pair them off one by one, so they are paired off here with each member's move
    // found once (the same emits in the same order, for less work per pair).
    const std::size_t members = before.slots.size();
    if (members == after.slots.size()) {
        m_memberMoved.resize(members);
        for (std::size_t m = 0; m < members; ++m)
            m_memberMoved[m] = before.slots[m] != after.slots[m];
        const std::size_t common = std::min(was.size(), is.size());
        for (; i < common; ++i) {
            const GroupFlow &a = was[i];
            const GroupFlow &b = is[i];
            if (a.from != b.from || a.to != b.to)
                break;
            if (m_memberMoved[sz(a.from)] || m_memberMoved[sz(a.to)]) {
                emit(before, a, -a.unit);
                emit(after, b, b.unit);
            } else if (a.unit != b.unit) {
                emit(after, b, b.unit - a.unit);
            }
        }
        j = i;
    }
    while (i < was.size() || j < is.size()) {
        if (j == is.size() || (i < was.size() && key(was[i]) < key(is[j]))) {
            const GroupFlow &f = was[i++];
            emit(before, f, -f.unit);
        } else if (i == was.size() || key(is[j]) < key(was[i])) {
            const GroupFlow &f = is[j++];
            emit(after, f, f.unit);
        } else {
            const GroupFlow &a = was[i++];
            const GroupFlow &b = is[j++];
            const bool stayed = before.slots[sz(a.from)] == after.slots[sz(b.from)]
                && before.slots[sz(a.to)] == after.slots[sz(b.to)];
            if (!stayed) {
                emit(before, a, -a.unit);
                emit(after, b, b.unit);
            } else if (a.unit != b.unit) {
                emit(after, b, b.unit - a.unit);
            }
        }
    }
    // Flows over logged NICs (a communicator NCCL's log gave): out with the old, in with the new.
    if ((!before.nicFlows.empty() || !after.nicFlows.empty())
        && (before.nicFlows != after.nicFlows || before.slots != after.slots)) {
        for (const NicGroupFlow &f : before.nicFlows)
            emitFlow(pattern, before.slots[sz(f.flow.from)], before.slots[sz(f.flow.to)],
                -f.flow.unit, +1.0, false, f.nics);
        for (const NicGroupFlow &f : after.nicFlows)
            emitFlow(pattern, after.slots[sz(f.flow.from)], after.slots[sz(f.flow.to)], f.flow.unit,
                +1.0, false, f.nics);
    }
    // NVLS link loads (a few per member) and the multisets: out with the old, in with the new.
    if (before.links != after.links || before.latency != after.latency
        || before.servers != after.servers || before.channels != after.channels) {
        emitPlan(pattern, before, -1.0, false);
        emitPlan(pattern, after, +1.0, false);
    }
}

void TrafficModel::emitPlanned(int pattern, const GroupRef &group, std::span<const int> members,
    const Mapping &mapping, double scale, double sign, bool &prepared, FamilyPlans &made)
{
    if (members.size() < 2 || pattern < 0)
        return;
    const std::uint64_t id = static_cast<std::uint64_t>(pattern) << 40
        | static_cast<std::uint64_t>(group.kind) << 32 | static_cast<std::uint32_t>(group.index);
    const auto it = m_emitted.find(id);
    if (sign < 0 && it != m_emitted.end())
        return; // a move: the group is re-planned for the new mapping, then compared (below)
    EmittedPlan plan;
    bool kept = false;
    if (m_reverting && sign > 0 && it != m_emitted.end())
        for (auto &[replacedId, replaced] : m_replaced)
            if (replacedId == id) {
                plan = std::move(replaced); // the plan for exactly this mapping, made before
                kept = true;
                break;
            }
    if (!kept) {
        if (!prepared) {
            m_preparedSlots.clear();
            for (const int m : members)
                m_preparedSlots.push_back(mapping.slotOf(m));
            plannerGroup(m_fabric, m_preparedSlots, m_prepared);
            setObservedRings(m_preparedSlots, m_prepared);
            prepared = true;
        }
        const TrafficPattern &p = m_patterns[sz(pattern)];
        const PlanAlgorithm algorithm = plannedAlgorithm(
            p.algorithm, p.plannedFor, m_prepared, m_setup.device.nvlsEfficiency);
        // Only NVLS's link loads depend on the op (planCollective()); every other plan is the
        // same for any op. The scale is the family's, the same for each of its patterns.
        const bool opMatters
            = algorithm == PlanAlgorithm::Nvls || algorithm == PlanAlgorithm::NvlsTree;
        for (int i = 0; i < made.count && !kept; ++i) {
            const FamilyPlans::Made &m = made.made[sz(i)];
            if (m.plan && m.algorithm == algorithm && (!opMatters || m.op == p.plannedFor)) {
                plan = pooledPlan();
                plan = *m.plan; // into the pooled plan's vectors
                kept = true;
            }
        }
        if (!kept) {
            plan = planGroup(pattern, m_prepared, scale);
            if (made.count < static_cast<int>(made.made.size()))
                made.made[sz(made.count++)] = { algorithm, p.plannedFor, nullptr };
        }
    }
    if (sign < 0) {
        emitPlan(pattern, plan, -1.0); // never emitted through build(): remove what it adds
        recyclePlan(std::move(plan));
        return;
    }
    const EmittedPlan *now = nullptr; // this pattern's plan for the group, where it is kept
    if (it == m_emitted.end()) {
        emitPlan(pattern, plan, +1.0);
        now = &m_emitted.emplace(id, std::move(plan)).first->second;
    } else {
        emitPlanChange(pattern, it->second, plan);
        if (!m_reverting)
            m_replaced.emplace_back(id, std::move(it->second));
        else
            recyclePlan(std::move(it->second)); // the reverted move's plan: its vectors serve on
        it->second = std::move(plan);
        now = &it->second;
    }
    // Elements of an unordered_map keep their address until erased, whatever it inserts.
    if (made.count > 0 && made.made[sz(made.count - 1)].plan == nullptr)
        made.made[sz(made.count - 1)].plan = now;
}

} // namespace railyard
