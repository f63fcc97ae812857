#include "fabric/cablingbuilder.h"

#include "base/physicalranges.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/units.h"
#include "fabric/cablingplan.h"
#include "fabric/fabricassembly.h"

#include <boost/pending/disjoint_sets.hpp>
#include <boost/property_map/property_map.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

namespace railyard {

namespace cabling_detail {

using i64 = std::int64_t;

/// Union-find over switch indexes. Its rank and parent maps are iterator property maps rather
/// than raw pointers: disjoint_sets.hpp calls get() unqualified from inside boost::detail, where
/// the compressed sparse row graph's header (fabric.h) declares get() overloads of its own that
/// hide the global one for pointers; an iterator_property_map's get() is found by
/// argument-dependent lookup wherever the headers come in a unity build.
using CablingSetMap
    = boost::iterator_property_map<std::size_t *, boost::typed_identity_property_map<std::size_t>>;
using CablingSets = boost::disjoint_sets<CablingSetMap, CablingSetMap>;
CablingSets cablingSets(std::vector<std::size_t> &rank, std::vector<std::size_t> &parent)
{
    return CablingSets(CablingSetMap(rank.data()), CablingSetMap(parent.data()));
}

int CablingPlan::switchId(const std::string &name)
{
    const auto [it, inserted]
        = m_switchOf.try_emplace(name, static_cast<int>(m_switchNames.size()));
    if (inserted) {
        if (static_cast<i64>(m_switchNames.size()) >= limits::kMaxSwitches)
            throw ScenarioError("fabric.cabling",
                "more than " + std::to_string(limits::kMaxSwitches) + " switches exceed the limit");
        m_switchNames.push_back(name);
    }
    return it->second;
}

int CablingPlan::nicOfPort(
    const std::string &port, const std::string &server, std::size_t row) const
{
    const int nic = cablingNicIndex(m_spec, port);
    if (nic < 0)
        throw ScenarioError(rowPath(row),
            server + " port \"" + port
                + "\" names no NIC: expected an RDMA device name of "
                  "nic_devices or a name ending in the NIC index, such as mlx5_3");
    if (nic >= m_nics)
        throw ScenarioError(rowPath(row),
            server + " port \"" + port + "\" is NIC " + std::to_string(nic)
                + ", but the servers have " + std::to_string(m_nics) + " NICs (0.."
                + std::to_string(m_nics - 1) + ")");
    return nic;
}

void CablingPlan::readCables()
{
    const FabricSpec &s = m_spec;
    if (static_cast<i64>(s.cabling.size()) > limits::kMaxLinks / 2)
        throw ScenarioError("fabric.cabling",
            std::to_string(s.cabling.size()) + " cables exceed the limit of "
                + std::to_string(limits::kMaxLinks / 2));
    std::unordered_map<std::string, int> serverOf;
    for (int i = 0; i < s.servers; ++i) {
        m_serverNames.push_back(
            s.serverNames.empty() ? defaultServerName(i) : s.serverNames[sz(i)]);
        serverOf.emplace(m_serverNames.back(), i);
    }
    m_nicRow.assign(sz(s.servers * m_nics), kNoRow);
    std::unordered_map<std::string, std::size_t> portRow;
    for (std::size_t row = 0; row < s.cabling.size(); ++row) {
        const Cable &c = s.cabling[row];
        const std::string where = rowPath(row);
        for (const auto &[text, field] :
            { std::pair { &c.aDevice, "a_device" }, std::pair { &c.aPort, "a_port" },
                std::pair { &c.bDevice, "b_device" }, std::pair { &c.bPort, "b_port" } })
            if (text->empty() || text->size() > limits::kMaxNameBytes)
                throw ScenarioError(where,
                    std::string(field) + " must be 1 to " + std::to_string(limits::kMaxNameBytes)
                        + " characters");
        // base/physicalranges.h; a latency below 0 means "the tier's default" (Cable).
        static_assert(ranges::kMinLinkGbps == 0.001 && ranges::kMaxLinkGbps == 1e6
                && ranges::kMaxLatencyUs == 1e6,
            "the messages below spell the ranges");
        if (!(c.gbps >= ranges::kMinLinkGbps && c.gbps <= ranges::kMaxLinkGbps))
            throw ScenarioError(where,
                cableText(c) + ": speed must be 0.001 to 1000000 Gbit/s (1 Mbit/s to 1 Pbit/s)");
        if (!std::isfinite(c.latencyUs) || c.latencyUs > ranges::kMaxLatencyUs)
            throw ScenarioError(where,
                cableText(c) + ": latency must be at most 1000000 microseconds (one second)");
        if (c.aDevice == c.bDevice)
            throw ScenarioError(where, cableText(c) + " joins " + c.aDevice + " to itself");
        for (const auto &[device, port] :
            { std::pair { &c.aDevice, &c.aPort }, std::pair { &c.bDevice, &c.bPort } }) {
            const auto [it, fresh] = portRow.try_emplace(*device + '\n' + *port, row);
            if (!fresh)
                throw ScenarioError(where,
                    *device + " port " + *port + " is already cabled by " + rowPath(it->second)
                        + " (" + cableText(s.cabling[it->second]) + ")");
        }
        const auto a = serverOf.find(c.aDevice), b = serverOf.find(c.bDevice);
        if (a != serverOf.end() && b != serverOf.end())
            throw ScenarioError(where,
                cableText(c)
                    + " joins two servers; a server's NICs "
                      "are cabled to leaf switches");
        if (a == serverOf.end() && b == serverOf.end()) {
            SwitchCable sc;
            sc.a = switchId(c.aDevice);
            sc.b = switchId(c.bDevice);
            sc.gbps = c.gbps;
            sc.latencyUs = c.latencyUs >= 0.0 ? c.latencyUs : s.fabricPort.latencyUs;
            sc.row = row;
            m_switchCables.push_back(sc);
            continue;
        }
        const bool aIsServer = a != serverOf.end();
        NicCable nc;
        nc.server = aIsServer ? a->second : b->second;
        nc.nic = nicOfPort(aIsServer ? c.aPort : c.bPort, aIsServer ? c.aDevice : c.bDevice, row);
        nc.sw = switchId(aIsServer ? c.bDevice : c.aDevice);
        nc.gbps = c.gbps;
        nc.latencyUs = c.latencyUs >= 0.0 ? c.latencyUs : s.nic.latencyUs;
        nc.row = row;
        std::size_t &seen = m_nicRow[sz(nc.server * m_nics + nc.nic)];
        if (seen != kNoRow)
            throw ScenarioError(where,
                nicName(nc.server, nc.nic) + " is cabled twice: by " + rowPath(seen) + " ("
                    + cableText(s.cabling[seen]) + ") and by this cable (" + cableText(c) + ")");
        seen = row;
        m_nicCables.push_back(nc);
    }
    m_firstRow.assign(m_switchNames.size(), kNoRow);
    for (const NicCable &c : m_nicCables)
        m_firstRow[sz(c.sw)] = std::min(m_firstRow[sz(c.sw)], c.row);
    for (const SwitchCable &c : m_switchCables)
        for (const int sw : { c.a, c.b })
            m_firstRow[sz(sw)] = std::min(m_firstRow[sz(sw)], c.row);
    if (m_nicCables.empty())
        throw ScenarioError("fabric.cabling",
            "no cable reaches a server NIC (the servers are " + m_serverNames.front()
                + "...; does server_names name them as the cabling does?)");
    for (int srv = 0; srv < s.servers; ++srv) {
        bool any = false;
        for (int n = 0; n < m_nics; ++n)
            any = any || m_nicRow[sz(srv * m_nics + n)] != kNoRow;
        if (!any)
            throw ScenarioError("fabric.cabling",
                "server " + serverName(srv)
                    + " has no cable: cable at least one of its NICs or leave it out of the "
                      "fabric");
    }
}

void CablingPlan::findTiers()
{
    const std::size_t switches = m_switchNames.size();
    std::vector<std::vector<int>> neighbours(switches);
    for (const SwitchCable &c : m_switchCables) {
        neighbours[sz(c.a)].push_back(c.b);
        neighbours[sz(c.b)].push_back(c.a);
    }
    // Breadth-first from every leaf at once: a switch's tier is its hop count from the NICs' side.
    m_tier.assign(switches, -1);
    std::vector<int> frontier;
    for (const NicCable &c : m_nicCables) {
        if (m_tier[sz(c.sw)] < 0)
            frontier.push_back(c.sw);
        m_tier[sz(c.sw)] = kTierLeaf;
    }
    for (int level = 1; !frontier.empty(); ++level) {
        std::vector<int> next;
        for (const int u : frontier)
            for (const int v : neighbours[sz(u)])
                if (m_tier[sz(v)] < 0) {
                    m_tier[sz(v)] = level;
                    next.push_back(v);
                }
        frontier.swap(next);
    }
    for (std::size_t sw = 0; sw < switches; ++sw) {
        if (m_tier[sw] < 0)
            throw ScenarioError(rowPath(m_firstRow[sw]),
                "switch " + m_switchNames[sw]
                    + " is not connected to any leaf switch (no path to a server NIC)");
        if (m_tier[sw] > kTierSuper)
            throw ScenarioError(rowPath(m_firstRow[sw]),
                "switch " + m_switchNames[sw] + " is " + std::to_string(m_tier[sw])
                    + " switch hops above the servers; Railyard "
                      "models three tiers at most (leaf, spine, super-spine)");
    }
    // Cables between tiers point upwards; peer links inside a tier carry no routed traffic.
    std::vector<SwitchCable> kept;
    std::vector<std::string> peers;
    for (SwitchCable c : m_switchCables) {
        if (m_tier[sz(c.a)] == m_tier[sz(c.b)]) {
            peers.push_back(name(c.a) + " - " + name(c.b) + " (" + rowPath(c.row) + ")");
            continue;
        }
        if (m_tier[sz(c.a)] > m_tier[sz(c.b)])
            std::swap(c.a, c.b);
        kept.push_back(c);
    }
    m_switchCables.swap(kept);
    if (!peers.empty())
        listFindings(peers,
            "cable(s) join two switches of one tier; peer links carry no routed "
            "traffic here and are left out:");
}

void CablingPlan::findRails()
{
    // A rail leaf's rail is the NIC index most of its NICs have (ties: the lowest).
    m_leafRail.assign(m_switchNames.size(), -1);
    if (!m_rail)
        return;
    std::vector<std::vector<int>> indexes(m_switchNames.size());
    for (const NicCable &c : m_nicCables)
        indexes[sz(c.sw)].push_back(c.nic);
    for (std::size_t sw = 0; sw < indexes.size(); ++sw)
        if (!indexes[sw].empty())
            m_leafRail[sw] = modeOf(indexes[sw]);
}

void CablingPlan::findGroups()
{
    // Rail-optimised: a scalable unit is the set of leaves the correctly wired NICs of the same
    // servers reach (union-find); a miswired NIC does not merge two SUs. Top of rack: each leaf.
    const std::size_t switches = m_switchNames.size();
    std::vector<std::size_t> rank(switches), parent(switches);
    CablingSets sets = cablingSets(rank, parent);
    for (std::size_t sw = 0; sw < switches; ++sw)
        sets.make_set(sw);
    std::vector<int> anchor(sz(m_spec.servers), -1); // per server: one correctly wired leaf
    for (const NicCable &c : m_nicCables) {
        const bool correct = !m_rail || m_leafRail[sz(c.sw)] == c.nic;
        if (!m_rail || !correct)
            continue;
        int &a = anchor[sz(c.server)];
        if (a < 0)
            a = c.sw;
        else
            sets.union_set(sz(a), sz(c.sw));
    }
    m_group.assign(switches, -1);
    std::map<std::size_t, int> groupOfRoot;
    std::vector<std::pair<int, int>> byServer; // (server, leaf) in server order
    for (const NicCable &c : m_nicCables)
        byServer.emplace_back(c.server, c.sw);
    std::sort(byServer.begin(), byServer.end());
    for (const auto &[server, leaf] : byServer) {
        if (m_group[sz(leaf)] >= 0)
            continue;
        const std::size_t root = m_rail ? sets.find_set(sz(leaf)) : sz(leaf);
        const auto [it, fresh] = groupOfRoot.try_emplace(root, static_cast<int>(m_groupKey.size()));
        if (fresh)
            m_groupKey.push_back(server);
        m_group[sz(leaf)] = it->second;
    }
}

void CablingPlan::findPods()
{
    // With super-spines a pod is a set of leaves and spines joined by leaf-spine cables.
    const std::size_t switches = m_switchNames.size();
    m_pod.assign(switches, -1);
    const bool threeTier = std::count(m_tier.begin(), m_tier.end(), kTierSuper) > 0;
    if (!threeTier) {
        for (std::size_t sw = 0; sw < switches; ++sw)
            if (m_tier[sw] != kTierSuper)
                m_pod[sw] = 0;
        return;
    }
    std::vector<std::size_t> rank(switches), parent(switches);
    CablingSets sets = cablingSets(rank, parent);
    for (std::size_t sw = 0; sw < switches; ++sw)
        sets.make_set(sw);
    for (const SwitchCable &c : m_switchCables)
        if (m_tier[sz(c.b)] == kTierSpine)
            sets.union_set(sz(c.a), sz(c.b));
    // Pods numbered by their first group (so by their first server).
    std::vector<std::pair<int, int>> leaves; // (group key, leaf)
    for (std::size_t sw = 0; sw < switches; ++sw)
        if (m_tier[sw] == kTierLeaf)
            leaves.emplace_back(m_groupKey[sz(m_group[sw])], static_cast<int>(sw));
    std::sort(leaves.begin(), leaves.end());
    std::map<std::size_t, int> podOfRoot;
    for (const auto &[key, leaf] : leaves)
        podOfRoot.try_emplace(sets.find_set(sz(leaf)), static_cast<int>(podOfRoot.size()));
    m_pods = static_cast<int>(podOfRoot.size());
    for (std::size_t sw = 0; sw < switches; ++sw)
        if (m_tier[sw] != kTierSuper)
            m_pod[sw] = podOfRoot.at(sets.find_set(sw));
}

void CablingPlan::orderSwitches()
{
    // Leaves by pod, group (first server) and rail; spines by pod; then by name.
    const std::size_t switches = m_switchNames.size();
    std::vector<int> ids(switches);
    for (std::size_t i = 0; i < switches; ++i)
        ids[i] = static_cast<int>(i);
    const auto key = [this](int sw) {
        const int group = m_tier[sz(sw)] == kTierLeaf ? m_groupKey[sz(m_group[sz(sw)])] : 0;
        return std::tuple(m_tier[sz(sw)], m_pod[sz(sw)], group, m_leafRail[sz(sw)], name(sw));
    };
    std::sort(ids.begin(), ids.end(), [&key](int x, int y) { return key(x) < key(y); });
    m_order.assign(switches, -1);
    for (const int sw : ids) {
        std::vector<int> &tier = m_byTier[sz(m_tier[sz(sw)])];
        m_order[sz(sw)] = static_cast<int>(tier.size());
        tier.push_back(sw);
    }
}

void CablingPlan::checkConnected()
{
    const std::size_t switches = m_switchNames.size();
    std::vector<std::size_t> rank(switches), parent(switches);
    CablingSets sets = cablingSets(rank, parent);
    for (std::size_t sw = 0; sw < switches; ++sw)
        sets.make_set(sw);
    for (const SwitchCable &c : m_switchCables)
        sets.union_set(sz(c.a), sz(c.b));
    const std::vector<int> &leaves = m_byTier[kTierLeaf];
    for (const int leaf : leaves)
        if (sets.find_set(sz(leaf)) != sets.find_set(sz(leaves.front())))
            throw ScenarioError("fabric.cabling",
                "leaf " + name(leaf) + " cannot reach leaf " + name(leaves.front())
                    + ": the cabling splits the fabric into parts with "
                      "no switch path between them");
}

Fabric CablingPlan::assemble()
{
    const FabricSpec &s = m_spec;
    // Parallel cables between two switches form one bundle (fabric.h), in switch order.
    struct Bundle
    {
        int count = 0;
        double gbps = 0.0, latencyUs = 0.0;
    };
    std::map<std::pair<int, int>, Bundle> bundles; // (lower vertex order, upper) -> bundle
    const auto rank = [this](int sw) { return std::pair(m_tier[sz(sw)], m_order[sz(sw)]); };
    std::map<std::tuple<int, int, int, int>, std::pair<int, int>> ordered;
    for (const SwitchCable &c : m_switchCables) {
        const auto [ta, oa] = rank(c.a);
        const auto [tb, ob] = rank(c.b);
        Bundle &b = bundles[{ c.a, c.b }];
        ++b.count;
        b.gbps += c.gbps;
        b.latencyUs = std::max(b.latencyUs, c.latencyUs);
        ordered.emplace(std::tuple(ta, oa, tb, ob), std::pair(c.a, c.b));
    }
    const i64 servers = s.servers, gpus = s.gpusPerServer;
    const i64 switches = static_cast<i64>(m_switchNames.size());
    const i64 domains = servers / std::max(1, s.scaleUpDomainServers);
    const i64 vertices = servers * (gpus + m_nics) + domains + switches;
    const i64 links = 2
        * (servers * gpus * 2 + static_cast<i64>(m_nicCables.size())
            + static_cast<i64>(bundles.size()));
    if (links > limits::kMaxLinks)
        throw ScenarioError("fabric.cabling",
            std::to_string(links) + " links exceed the limit of "
                + std::to_string(limits::kMaxLinks));

    Fabric fabric;
    FabricAssembly a(fabric);
    a.begin(s, m_nics, m_rail ? m_nics : 0, m_pods, vertices, links);
    a.addServers();
    std::vector<int> vertex(m_switchNames.size(), -1);
    std::map<int, int> suOfGroup; // SUs numbered in leaf order
    for (int tier = kTierLeaf; tier <= kTierSuper; ++tier) {
        for (const int sw : m_byTier[sz(tier)]) {
            FabricNode n;
            n.kind = tier == kTierLeaf
                ? NodeKind::Leaf
                : (tier == kTierSpine ? NodeKind::Spine : NodeKind::SuperSpine);
            n.local = m_order[sz(sw)];
            n.pod = m_pod[sz(sw)];
            n.name = name(sw);
            if (tier == kTierLeaf && m_rail) {
                n.rail = m_leafRail[sz(sw)];
                n.su = suOfGroup.try_emplace(m_group[sz(sw)], static_cast<int>(suOfGroup.size()))
                           .first->second;
            }
            vertex[sz(sw)] = a.addSwitch(std::move(n));
        }
    }
    // Per server its internal cables, then its NICs in index order (fabric.h's link order).
    std::vector<const NicCable *> nicCable(sz(servers * m_nics), nullptr);
    for (const NicCable &c : m_nicCables)
        nicCable[sz(c.server * m_nics + c.nic)] = &c;
    std::vector<int> nextPort(m_switchNames.size(), 0);
    for (int srv = 0; srv < s.servers; ++srv) {
        a.addServerCables(srv);
        for (int n = 0; n < m_nics; ++n) {
            const NicCable *c = nicCable[sz(srv * m_nics + n)];
            if (c)
                a.attachNic(
                    srv, n, m_order[sz(c->sw)], nextPort[sz(c->sw)]++, c->gbps, c->latencyUs);
        }
    }
    for (const auto &[key, ends] : ordered) {
        const Bundle &b = bundles.at(ends);
        const Tier tier = m_tier[sz(ends.second)] == kTierSpine ? Tier::Spine : Tier::SuperSpine;
        a.addCable(vertex[sz(ends.first)], vertex[sz(ends.second)], tier, b.gbps / b.count,
            b.latencyUs, b.count);
    }
    a.setCablingResult(std::move(m_findings), m_regular);
    a.finish();
    return fabric;
}

} // namespace cabling_detail

int cablingNicIndex(const FabricSpec &spec, const std::string &port)
{
    for (std::size_t i = 0; i < spec.nicDevices.size(); ++i)
        if (spec.nicDevices[i] == port)
            return static_cast<int>(i);
    std::size_t begin = port.size();
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(port[begin - 1])))
        --begin;
    const std::size_t digits = port.size() - begin;
    if (digits == 0 || digits > 6)
        return -1;
    return std::stoi(port.substr(begin));
}

std::string cableText(const Cable &cable)
{
    return cable.aDevice + " " + cable.aPort + " - " + cable.bDevice + " " + cable.bPort;
}

Fabric buildCabledFabric(const FabricSpec &spec)
{
    return cabling_detail::CablingPlan(spec).build();
}

} // namespace railyard
