#include "fabric/cablingplan.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

// The checks a cabling inventory gets beyond "can it be built": each one a finding that names
// the devices (cablingbuilder.h lists them).

namespace railyard::cabling_detail {

void CablingPlan::checkRegular()
{
    // The router's factorised cache (router.cpp) needs: every leaf cabled to every spine of
    // its pod, and every super-spine to exactly one spine of every pod.
    std::vector<std::set<int>> up(m_switchNames.size());
    for (const SwitchCable &c : m_switchCables)
        up[sz(c.a)].insert(c.b);
    std::vector<std::set<int>> podSpines(sz(m_pods));
    for (const int s : m_byTier[kTierSpine])
        podSpines[sz(m_pod[sz(s)])].insert(s);
    std::vector<std::string> partial;
    for (const int leaf : m_byTier[kTierLeaf]) {
        const std::set<int> &all = podSpines[sz(m_pod[sz(leaf)])];
        if (up[sz(leaf)] == all)
            continue;
        m_regular = false;
        std::string missing;
        for (const int s : all)
            if (!up[sz(leaf)].count(s))
                missing += (missing.empty() ? "" : ", ") + name(s);
        partial.push_back(name(leaf) + " reaches " + std::to_string(up[sz(leaf)].size()) + " of "
            + std::to_string(all.size()) + " spines (none to " + missing + ")");
    }
    if (!partial.empty())
        listFindings(partial,
            "leaf(s) are not cabled to every spine of their pod (routes use "
            "the spines they reach):");
    for (const int super : m_byTier[kTierSuper]) {
        std::vector<std::set<int>> perPod(sz(m_pods)); // distinct spines (a bundle is one)
        for (const SwitchCable &c : m_switchCables)
            if (c.b == super)
                perPod[sz(m_pod[sz(c.a)])].insert(c.a);
        if (std::any_of(
                perPod.begin(), perPod.end(), [](const std::set<int> &s) { return s.size() != 1; }))
            m_regular = false;
    }
}

void CablingPlan::listFindings(std::vector<std::string> lines, const std::string &what)
{
    std::string text = std::to_string(lines.size()) + " " + what + " ";
    for (std::size_t i = 0; i < lines.size() && i < kListed; ++i)
        text += (i ? "; " : "") + lines[i];
    if (lines.size() > kListed)
        text += "; and " + std::to_string(lines.size() - kListed) + " more";
    m_findings.push_back(text);
}

void CablingPlan::collectFindings()
{
    // Missing NIC cables: the GPUs bound to the NIC cannot hold a rank.
    std::vector<std::string> uncabled;
    for (int srv = 0; srv < m_spec.servers; ++srv)
        for (int n = 0; n < m_nics; ++n)
            if (m_nicRow[sz(srv * m_nics + n)] == kNoRow)
                uncabled.push_back(nicName(srv, n));
    if (!uncabled.empty())
        listFindings(
            uncabled, "NIC(s) have no cable, so the GPUs bound to them cannot hold a rank:");

    if (m_rail) {
        // A NIC on another rail's leaf, and two NICs of one server on one leaf.
        std::vector<int> railCount(m_switchNames.size(), 0), nicCount(m_switchNames.size(), 0);
        for (const NicCable &c : m_nicCables) {
            ++nicCount[sz(c.sw)];
            railCount[sz(c.sw)] += c.nic == m_leafRail[sz(c.sw)];
        }
        std::vector<std::string> wrong, doubled;
        std::map<std::pair<int, int>, std::vector<int>> perServerLeaf;
        for (const NicCable &c : m_nicCables) {
            perServerLeaf[{ c.server, c.sw }].push_back(c.nic);
            if (c.nic != m_leafRail[sz(c.sw)])
                wrong.push_back(nicName(c.server, c.nic) + " is on " + name(c.sw) + ", a rail-"
                    + std::to_string(m_leafRail[sz(c.sw)]) + " leaf ("
                    + std::to_string(railCount[sz(c.sw)]) + " of its "
                    + std::to_string(nicCount[sz(c.sw)]) + " NICs are NIC "
                    + std::to_string(m_leafRail[sz(c.sw)]) + ")");
        }
        for (const auto &[key, nics] : perServerLeaf) {
            if (nics.size() < 2)
                continue;
            std::string list;
            for (const int n : nics)
                list += (list.empty() ? "" : " and ") + std::to_string(n);
            doubled.push_back(serverName(key.first) + " NICs " + list + " on " + name(key.second));
        }
        if (!wrong.empty())
            listFindings(wrong, "NIC(s) are cabled to another rail's leaf:");
        if (!doubled.empty())
            listFindings(doubled,
                "server(s) have two NICs on one leaf (a rail-optimised server "
                "puts each NIC on its own rail):");
    }

    // Unequal uplink counts per tier (each cable one port).
    for (const int tier : { kTierLeaf, kTierSpine }) {
        const std::vector<int> &list = m_byTier[sz(tier)];
        if (list.empty() || (tier == kTierSpine && m_byTier[kTierSuper].empty()))
            continue;
        std::vector<int> uplinks(m_switchNames.size(), 0);
        for (const SwitchCable &c : m_switchCables)
            ++uplinks[sz(c.a)];
        std::vector<int> counts;
        for (const int sw : list)
            counts.push_back(uplinks[sz(sw)]);
        const int usual = modeOf(counts);
        std::vector<std::string> odd;
        for (const int sw : list)
            if (uplinks[sz(sw)] != usual)
                odd.push_back(name(sw) + " has " + std::to_string(uplinks[sz(sw)]));
        if (!odd.empty())
            listFindings(odd,
                std::string(tier == kTierLeaf ? "leaf" : "spine")
                    + "(s) have another uplink count than the " + std::to_string(usual)
                    + " most of their tier have:");
    }

    // Mixed speeds: cables slower or faster than most of their kind.
    std::vector<double> nicSpeeds;
    for (const NicCable &c : m_nicCables)
        nicSpeeds.push_back(c.gbps);
    const double nicUsual = modeOf(nicSpeeds);
    std::vector<std::string> odd;
    for (const NicCable &c : m_nicCables)
        if (c.gbps != nicUsual)
            odd.push_back(nicName(c.server, c.nic) + " at " + speedText(c.gbps));
    if (!odd.empty())
        listFindings(
            odd, "NIC cable(s) run at another speed than the " + speedText(nicUsual) + " of most:");
    if (!m_switchCables.empty()) {
        std::vector<double> speeds;
        for (const SwitchCable &c : m_switchCables)
            speeds.push_back(c.gbps);
        const double usual = modeOf(speeds);
        odd.clear();
        for (const SwitchCable &c : m_switchCables)
            if (c.gbps != usual)
                odd.push_back(name(c.a) + " - " + name(c.b) + " at " + speedText(c.gbps));
        if (!odd.empty())
            listFindings(odd,
                "switch cable(s) run at another speed than the " + speedText(usual) + " of most:");
    }
}

} // namespace railyard::cabling_detail
