// The traffic model's collective families: each group planned by the collective planner, and
// what its plan emitted kept per (pattern, group), so that a move re-plans a group once (with
// the new mapping) and changes only the flows whose units differ. A rank moving in a
// 1,024-member data-parallel ring changes a handful of ring edges; re-emitting all of them (and
// re-planning the group for the old mapping to subtract it) was most of a swap at 131,072 GPUs.
#include "cost/trafficmodel.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>

namespace railyard {

void TrafficModel::emitFamily(const Family &family, const GroupRef &group,
    const std::vector<int> &members, const Mapping &mapping, double scale, double sign)
{
    for (const int p : family.patterns)
        emitPlanned(p, group, members, mapping, scale, sign);
}

TrafficModel::EmittedPlan TrafficModel::planGroup(
    int pattern, const std::vector<int> &members, const Mapping &mapping, double scale)
{
    std::vector<int> slots;
    slots.reserve(members.size());
    for (const int m : members)
        slots.push_back(mapping.slotOf(m));
    const TrafficPattern &p = m_patterns[sz(pattern)];
    CollectivePlan plan = planCollective(
        p.algorithm, p.plannedFor, slots, m_fabric, m_router, m_setup.device.nvlsEfficiency);
    EmittedPlan out;
    // By (source, destination) slot, as one 64-bit key (slots are non-negative ints).
    const auto key = [](const PlannedFlow &f) {
        return static_cast<std::uint64_t>(static_cast<std::uint32_t>(f.src)) << 32
            | static_cast<std::uint32_t>(f.dst);
    };
    std::sort(plan.flows.begin(), plan.flows.end(),
        [&key](const PlannedFlow &a, const PlannedFlow &b) { return key(a) < key(b); });
    for (const PlannedFlow &f : plan.flows) {
        if (f.src == f.dst)
            continue; // carries nothing (TrafficModel::emitFlow)
        if (!out.flows.empty() && out.flows.back().src == f.src && out.flows.back().dst == f.dst)
            out.flows.back().unit += f.unit * scale;
        else
            out.flows.push_back({ f.src, f.dst, f.unit * scale });
    }
    std::erase_if(out.flows, [](const PlannedFlow &f) { return f.unit == 0.0; });
    for (const PlannedLinkLoad &l : plan.links)
        if (l.unit * scale != 0.0)
            out.links.push_back({ l.link, l.unit * scale });
    // The group's latency per protocol, for ops of one and of two passes. A group whose
    // geometry made the planner fall back (an NVLS group split over servers runs a ring) keeps
    // its own algorithm's latency; the pattern's bandwidth factor and link efficiency stay
    // those of the pattern's algorithm.
    for (int passes = 1; passes <= 2; ++passes)
        for (const Protocol proto : kAllProtocols)
            out.latency[sz(passes - 1)][sz(static_cast<int>(proto))] = std::llround(
                nccltuning::latency(plan.algorithm, proto, plan.chain, passes, m_setup.device)
                * 1e9);
    out.servers = plan.chain.servers;
    out.channels = plan.channels;
    return out;
}

void TrafficModel::emitPlan(int pattern, const EmittedPlan &plan, double sign, bool flows)
{
    for (std::size_t i = 0; flows && i < plan.flows.size(); ++i)
        emitFlow(pattern, plan.flows[i].src, plan.flows[i].dst, plan.flows[i].unit, sign, false);
    for (const PlannedLinkLoad &l : plan.links)
        addLoad(m_patterns[sz(pattern)], l.link, sign * l.unit);
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
    // Both flow lists are sorted by (src, dst) with one entry per pair: walk them together.
    const auto key = [](const PlannedFlow &f) { return std::tie(f.src, f.dst); };
    std::size_t i = 0, j = 0;
    while (i < before.flows.size() || j < after.flows.size()) {
        if (j == after.flows.size()
            || (i < before.flows.size() && key(before.flows[i]) < key(after.flows[j]))) {
            const PlannedFlow &f = before.flows[i++];
            emitFlow(pattern, f.src, f.dst, f.unit, -1.0, false);
        } else if (i == before.flows.size() || key(after.flows[j]) < key(before.flows[i])) {
            const PlannedFlow &f = after.flows[j++];
            emitFlow(pattern, f.src, f.dst, f.unit, +1.0, false);
        } else {
            const PlannedFlow &a = before.flows[i++];
            const PlannedFlow &b = after.flows[j++];
            if (a.unit != b.unit)
                emitFlow(pattern, b.src, b.dst, b.unit - a.unit, +1.0, false);
        }
    }
    // NVLS link loads (a few per member) and the multisets: out with the old, in with the new.
    if (before.links != after.links || before.latency != after.latency
        || before.servers != after.servers || before.channels != after.channels) {
        emitPlan(pattern, before, -1.0, false);
        emitPlan(pattern, after, +1.0, false);
    }
}

void TrafficModel::emitPlanned(int pattern, const GroupRef &group, const std::vector<int> &members,
    const Mapping &mapping, double scale, double sign)
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
    if (!kept)
        plan = planGroup(pattern, members, mapping, scale);
    if (sign < 0) {
        emitPlan(pattern, plan, -1.0); // never emitted through build(): remove what it adds
        return;
    }
    if (it == m_emitted.end()) {
        emitPlan(pattern, plan, +1.0);
        m_emitted.emplace(id, std::move(plan));
        return;
    }
    emitPlanChange(pattern, it->second, plan);
    if (!m_reverting)
        m_replaced.emplace_back(id, std::move(it->second));
    it->second = std::move(plan);
}

} // namespace railyard
