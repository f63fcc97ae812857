#include "cost/ringorder.h"

#include "fabric/fabric.h"

#include <algorithm>
#include <unordered_map>

namespace railyard {

std::vector<RingMember> ringMembers(const Fabric &fabric, const std::vector<int> &slots)
{
    std::vector<RingMember> out;
    out.reserve(slots.size());
    for (const int slot : slots) {
        const int gpu = fabric.gpuOfSlot(slot);
        out.push_back({ slot, fabric.serverOfSlot(slot), gpu, fabric.nicOfGpu(gpu),
            fabric.scaleUpDomainOfSlot(slot) });
    }
    return out;
}

std::vector<ServerMembers> membersByServer(const std::vector<RingMember> &members)
{
    std::vector<ServerMembers> out;
    std::unordered_map<int, std::size_t> at;
    for (std::size_t i = 0; i < members.size(); ++i) {
        const auto [it, inserted] = at.try_emplace(members[i].domain, out.size());
        if (inserted)
            out.push_back({ members[i].server, {}, {} });
        out[it->second].members.push_back(static_cast<int>(i));
    }
    for (ServerMembers &s : out) {
        std::stable_sort(s.members.begin(), s.members.end(),
            [&](int a, int b) { return members[a].slot < members[b].slot; });
        for (const int m : s.members)
            s.nics.push_back(members[m].nic);
        std::sort(s.nics.begin(), s.nics.end());
        s.nics.erase(std::unique(s.nics.begin(), s.nics.end()), s.nics.end());
    }
    return out;
}

bool uniformPerServer(const std::vector<ServerMembers> &servers)
{
    return std::all_of(servers.begin(), servers.end(),
        [&](const ServerMembers &s) { return s.members.size() == servers.front().members.size(); });
}

namespace {

bool contains(const std::vector<int> &v, int x)
{
    return std::find(v.begin(), v.end(), x) != v.end();
}

/// One server's stretch of a channel: entry member, the others by GPU index, exit member.
std::vector<int> stretch(
    const ServerMembers &s, const std::vector<RingMember> &members, int entryNic, int exitNic)
{
    const std::vector<int> &m = s.members;
    if (m.size() == 1)
        return m;
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
    std::vector<int> out { entry };
    for (const int i : m)
        if (i != entry && i != exit)
            out.push_back(i);
    out.push_back(exit);
    return out;
}

} // namespace

std::vector<std::vector<int>> buildRings(const std::vector<RingMember> &members)
{
    const std::vector<ServerMembers> servers = membersByServer(members);
    if (servers.size() <= 1) {
        std::vector<int> ring = servers.empty() ? std::vector<int> {} : servers.front().members;
        return { ring };
    }
    std::size_t channels = 1;
    for (const ServerMembers &s : servers)
        channels = std::max(channels, s.nics.size());
    std::vector<std::vector<int>> rings;
    rings.reserve(channels);
    for (std::size_t c = 0; c < channels; ++c) {
        std::vector<int> ring;
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
            const std::vector<int> part = stretch(s, members, entry, exit);
            ring.insert(ring.end(), part.begin(), part.end());
            previousExit = members[part.back()].nic;
        }
        rings.push_back(std::move(ring));
    }
    return rings;
}

std::vector<int> chainOrder(
    const ServerMembers &s, const std::vector<RingMember> &members, int channel)
{
    const int nic = s.nics[static_cast<std::size_t>(channel) % s.nics.size()];
    std::vector<int> out;
    out.reserve(s.members.size());
    for (const int i : s.members)
        if (members[i].nic == nic && out.empty())
            out.push_back(i);
    for (const int i : s.members)
        if (out.front() != i)
            out.push_back(i);
    return out;
}

} // namespace railyard
