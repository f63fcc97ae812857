#include "cost/ringorder.h"

#include "base/flatintmap.h"
#include "base/units.h"
#include "fabric/fabric.h"

#include <algorithm>

namespace railyard {

std::vector<RingMember> ringMembers(const Fabric &fabric, const std::vector<int> &slots)
{
    std::vector<RingMember> out;
    ringMembers(fabric, slots, out);
    return out;
}

void ringMembers(const Fabric &fabric, const std::vector<int> &slots, std::vector<RingMember> &out)
{
    out.clear();
    out.reserve(slots.size());
    for (const int slot : slots) {
        const int gpu = fabric.gpuOfSlot(slot);
        out.push_back({ slot, fabric.serverOfSlot(slot), gpu, fabric.nicOfGpu(gpu),
            fabric.scaleUpDomainOfSlot(slot) });
    }
}

std::vector<ServerMembers> membersByServer(const std::vector<RingMember> &members)
{
    std::vector<ServerMembers> out;
    membersByServer(members, out);
    return out;
}

void membersByServer(const std::vector<RingMember> &members, std::vector<ServerMembers> &out)
{
    out.clear();
    out.reserve(members.size()); // at most one domain per member; no regrowth
    // Domain -> index in out: a scan of the few domains seen so far for a small group (a TP
    // group, a DP group of a few dozen), a hash map beyond (a DP group of 1,024 servers).
    constexpr std::size_t kScanUpTo = 32;
    boost::container::small_vector<int, kScanUpTo> domains;
    FlatIntMap<int> at; // domain -> index in out, plus one (0: not seen yet); large groups only
    const auto indexOf = [&](int domain) {
        if (out.size() < kScanUpTo) {
            for (std::size_t k = 0; k < domains.size(); ++k)
                if (domains[k] == domain)
                    return k;
        } else {
            if (at.empty())
                for (std::size_t k = 0; k < domains.size(); ++k)
                    at[domains[k]] = static_cast<int>(k + 1);
            if (const int *index = at.find(domain))
                return static_cast<std::size_t>(*index - 1);
        }
        return out.size(); // not seen yet
    };
    int previousDomain = -1;
    std::size_t previous = 0;
    for (std::size_t i = 0; i < members.size(); ++i) {
        // Members of one domain usually come in a run (Megatron's rank order keeps a server's
        // GPUs together), which skips the lookup.
        if (members[i].domain != previousDomain || out.empty()) {
            const int domain = members[i].domain;
            previous = indexOf(domain);
            if (previous == out.size()) {
                out.emplace_back().server = members[i].server; // in place: no move of a temporary
                domains.push_back(domain);
                if (!at.empty())
                    at[domain] = static_cast<int>(out.size());
            }
            previousDomain = domain;
        }
        out[previous].members.push_back(static_cast<int>(i));
    }
    for (ServerMembers &s : out) {
        if (s.members.size() == 1) { // one member per server, as in most DP groups
            s.nics.push_back(members[sz(s.members.front())].nic);
            continue;
        }
        // Members hold distinct slots, so the plain sort is stable (and needs no buffer).
        if (s.members.size() > 1)
            std::sort(s.members.begin(), s.members.end(),
                [&](int a, int b) { return members[a].slot < members[b].slot; });
        s.nics.reserve(s.members.size());
        for (const int m : s.members)
            s.nics.push_back(members[m].nic);
        std::sort(s.nics.begin(), s.nics.end());
        s.nics.erase(std::unique(s.nics.begin(), s.nics.end()), s.nics.end());
    }
}

bool uniformPerServer(const std::vector<ServerMembers> &servers)
{
    return std::all_of(servers.begin(), servers.end(),
        [&](const ServerMembers &s) { return s.members.size() == servers.front().members.size(); });
}

namespace {

bool contains(const ServerMembers::Indexes &v, int x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

/// Appends one server's stretch of a channel to `ring`: entry member, the others by GPU index,
/// exit member (in place: a vector per server and channel was most of the planner's allocations).
void appendStretch(std::vector<int> &ring, const ServerMembers &s,
    const std::vector<RingMember> &members, int entryNic, int exitNic)
{
    const ServerMembers::Indexes &m = s.members;
    if (m.size() == 1) {
        ring.push_back(m.front());
        return;
    }
    int entry = -1;
    for (const int i : m)
        if (members[i].nic == entryNic) {
            entry = i;
            break;
        }
    int exit = -1;
    for (auto it = m.rbegin(); it != m.rend(); ++it)
        if (*it != entry && members[*it].nic == exitNic) {
            exit = *it;
            break;
        }
    if (exit < 0) // every other member shares the entry NIC: leave from the last of them
        for (auto it = m.rbegin(); it != m.rend(); ++it)
            if (*it != entry) {
                exit = *it;
                break;
            }
    ring.push_back(entry);
    for (const int i : m)
        if (i != entry && i != exit)
            ring.push_back(i);
    ring.push_back(exit);
}

} // namespace

std::vector<std::vector<int>> buildRings(const std::vector<RingMember> &members)
{
    return buildRings(members, membersByServer(members));
}

std::vector<std::vector<int>> buildRings(
    const std::vector<RingMember> &members, const std::vector<ServerMembers> &servers)
{
    std::vector<std::vector<int>> rings;
    buildRings(members, servers, rings);
    return rings;
}

void buildRings(const std::vector<RingMember> &members, const std::vector<ServerMembers> &servers,
    std::vector<std::vector<int>> &rings)
{
    if (servers.size() <= 1) {
        rings.resize(1);
        if (servers.empty())
            rings.front().clear();
        else
            rings.front().assign(servers.front().members.begin(), servers.front().members.end());
        return;
    }
    std::size_t channels = 1;
    for (const ServerMembers &s : servers)
        channels = std::max(channels, s.nics.size());
    rings.resize(channels);
    for (std::size_t c = 0; c < channels; ++c) {
        std::vector<int> &ring = rings[c];
        ring.clear();
        ring.reserve(members.size());
        int previousExit = -1;
        for (const ServerMembers &s : servers) {
            const std::size_t k = s.nics.size();
            // Channel c pairs NIC c with NIC c+1 of the server; entering on the NIC the
            // previous server left on keeps that hop on one rail (on equal NIC sets this is
            // exactly NCCL's swap of the pair on every other node).
            const int a = s.nics[c % k];
            const int b = s.nics[(c + 1) % k];
            const int entry
                = previousExit >= 0 && contains(s.nics, previousExit) ? previousExit : a;
            const int exit = entry == a ? b : entry == b ? a : b;
            appendStretch(ring, s, members, entry, exit);
            previousExit = members[ring.back()].nic;
        }
    }
}

void chainOrder(const ServerMembers &s, const std::vector<RingMember> &members, int channel,
    std::vector<int> &out)
{
    const int nic = s.nics[static_cast<std::size_t>(channel) % s.nics.size()];
    out.clear();
    for (const int i : s.members)
        if (members[i].nic == nic && out.empty())
            out.push_back(i);
    for (const int i : s.members)
        if (out.front() != i)
            out.push_back(i);
}

} // namespace railyard
