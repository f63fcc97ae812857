#pragma once

// Internal to the cabling builder (cablingbuilder.cpp, cablingfindings.cpp): the plan that turns
// a cabling inventory into a Fabric.

#include "fabric/fabric.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace railyard::cabling_detail {

inline constexpr int kTierLeaf = 0, kTierSpine = 1, kTierSuper = 2;
inline constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);
/// Findings of one kind listed by name before "... and N more".
inline constexpr std::size_t kListed = 8;

inline std::string rowPath(std::size_t row)
{
    return "fabric.cabling[" + std::to_string(row) + "]";
}

inline std::string speedText(double gbps)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g Gb/s", gbps);
    return text;
}

struct NicCable
{
    int server = 0, nic = 0, sw = 0;
    double gbps = 0.0, latencyUs = 0.0;
    std::size_t row = 0;
};

struct SwitchCable
{
    int a = 0, b = 0; ///< switch ids, a in the lower tier once tiers are known
    double gbps = 0.0, latencyUs = 0.0;
    std::size_t row = 0;
};

/// The most common value of `values` (the smallest on a tie); `values` is not empty.
template<typename T> T modeOf(const std::vector<T> &values)
{
    std::map<T, int> count;
    for (const T &v : values)
        ++count[v];
    return std::max_element(count.begin(), count.end(), [](const auto &x, const auto &y) {
        return x.second < y.second;
    })->first;
}

/** The cabling read, its switches put in tiers, groups and pods, then turned into a Fabric. */
class CablingPlan
{
public:
    explicit CablingPlan(const FabricSpec &spec)
        : m_spec(spec)
        , m_nics(spec.nicsPerServer > 0 ? spec.nicsPerServer : spec.gpusPerServer)
        , m_rail(spec.kind == FabricKind::RailOptimised)
    {
    }

    Fabric build()
    {
        readCables();
        findTiers();
        findRails();
        findGroups();
        findPods();
        orderSwitches();
        checkConnected();
        checkRegular();
        collectFindings();
        return assemble();
    }

private:
    int switchId(const std::string &name);
    int nicOfPort(const std::string &port, const std::string &server, std::size_t row) const;
    void readCables();
    void findTiers();
    void findRails();
    void findGroups();
    void findPods();
    void orderSwitches();
    void checkConnected();
    void checkRegular();
    void collectFindings();
    Fabric assemble();

    const std::string &name(int sw) const { return m_switchNames[sz(sw)]; }
    const std::string &serverName(int s) const { return m_serverNames[sz(s)]; }
    std::string nicName(int server, int nic) const
    {
        return serverName(server) + " NIC " + std::to_string(nic);
    }
    void listFindings(std::vector<std::string> lines, const std::string &more);

    const FabricSpec &m_spec;
    const int m_nics;
    const bool m_rail;

    std::vector<std::string> m_serverNames;
    std::vector<std::string> m_switchNames;
    std::unordered_map<std::string, int> m_switchOf;
    std::vector<std::size_t> m_firstRow; ///< per switch: the first cable naming it
    std::vector<NicCable> m_nicCables;
    std::vector<SwitchCable> m_switchCables; ///< between tiers (peer links are dropped)
    std::vector<std::size_t> m_nicRow; ///< per server * nics + nic, kNoRow = uncabled

    std::vector<int> m_tier; ///< per switch
    std::vector<int> m_leafRail; ///< per switch (leaves), -1 on top-of-rack fabrics
    std::vector<int> m_group; ///< per switch (leaves): scalable unit or the leaf itself
    std::vector<int> m_groupKey; ///< per group: its first server, for ordering
    std::vector<int> m_pod; ///< per switch (leaves, spines); -1 for super-spines
    int m_pods = 1;
    std::vector<int> m_order; ///< per switch: its index inside its tier (Fabric order)
    std::array<std::vector<int>, 3> m_byTier; ///< switch ids in Fabric order, per tier
    bool m_regular = true;
    std::vector<std::string> m_findings;
};

} // namespace railyard::cabling_detail
