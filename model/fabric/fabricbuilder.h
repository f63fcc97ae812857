#pragma once

// The generator's builder, shared by fabric.cpp (sizing and construction) and
// fabricvalidation.cpp (the spec's checks). Not part of the engine's interface.

#include "fabric/cablingbuilder.h"
#include "fabric/fabric.h"

#include "base/physicalranges.h"
#include "base/scenarioerror.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

namespace railyard {

class FabricAssembly;

/** Validates a FabricSpec, sizes the fabric without allocating, then builds the graph. */
class FabricBuilder
{
    using i64 = std::int64_t;

public:
    static Fabric build(const FabricSpec &spec)
    {
        FabricBuilder b(spec);
        b.validate();
        if (!spec.cabling.empty())
            return buildCabledFabric(spec);
        b.plan();
        b.construct();
        return std::move(b.m_fabric);
    }
    /// fabricWithoutLinks() (fabricwithoutlinks.h).
    static Fabric buildWithoutLinks(const FabricSpec &spec)
    {
        FabricBuilder b(spec);
        b.validate();
        if (!spec.cabling.empty())
            return buildCabledFabric(spec);
        b.plan();
        b.m_withoutLinks = true;
        b.construct();
        return std::move(b.m_fabric);
    }

private:
    static i64 ceilDiv(i64 a, i64 b) { return (a + b - 1) / b; }

    /// ceil() of a ratio computed in floating point, tolerant of rounding (32 / 1.0 stays 32).
    static i64 ceilRatio(double x) { return static_cast<i64>(std::ceil(x - 1e-9)); }

    static std::string str(i64 v) { return std::to_string(v); }
    static std::string numText(double v)
    {
        char text[32];
        std::snprintf(text, sizeof text, "%g", v);
        return text;
    }
    static std::string rangeText(double low, double high)
    {
        return numText(low) + " to " + numText(high);
    }

    static void checkLink(const LinkSpec &link, const char *gbpsField, const char *latencyField)
    {
        // The ranges of base/physicalranges.h, for specs built in code (the GUI, importers).
        if (!(link.gbps >= ranges::kMinLinkGbps && link.gbps <= ranges::kMaxLinkGbps))
            throw ScenarioError(gbpsField,
                "bandwidth must be " + rangeText(ranges::kMinLinkGbps, ranges::kMaxLinkGbps)
                    + " Gbit/s, got " + numText(link.gbps));
        if (!(link.latencyUs >= 0.0 && link.latencyUs <= ranges::kMaxLatencyUs))
            throw ScenarioError(latencyField,
                "latency must be " + rangeText(0.0, ranges::kMaxLatencyUs) + " microseconds, got "
                    + numText(link.latencyUs));
    }

    explicit FabricBuilder(const FabricSpec &spec)
        : m_spec(spec)
    {
    }

    void validate();
    void validateScaleUpDomain();
    void validatePlanes();
    static constexpr i64 kMaxPlanes = 16;
    void plan();
    /// Pods beyond what three tiers join: zones of pods under their own super-spines and a
    /// core tier above them (fabric.cpp).
    void planFourTiers(i64 radix);
    void construct();
    void constructSuperSpines(FabricAssembly &a, int planes);
    void constructCores(FabricAssembly &a, int planes);

    /// Servers in group g (an SU, or a ToR leaf's rack); the last group may be partial.
    i64 serversInGroup(i64 g) const
    {
        return std::min(m_serversPerGroup, m_servers - g * m_serversPerGroup);
    }
    /// Downlink ports of a leaf of group g (one per NIC it terminates).
    i64 leafDownlinks(i64 g) const
    {
        return m_rail ? serversInGroup(g) : serversInGroup(g) * m_nics;
    }
    /// Uplink ports of a leaf of group g: ceil(D / leafOversubscription), at least 1 (none on a
    /// rail-only rail switch).
    i64 leafUplinks(i64 g) const
    {
        if (m_railOnly)
            return 0;
        return std::max<i64>(
            1, ceilRatio(static_cast<double>(leafDownlinks(g)) / m_spec.leafOversubscription));
    }
    /// Sum of leaf uplinks over the groups [first, last).
    i64 uplinksOfGroups(i64 first, i64 last) const
    {
        i64 sum = 0;
        for (i64 g = first; g < last; ++g)
            sum += m_leavesPerGroup * leafUplinks(g);
        return sum;
    }

    const FabricSpec &m_spec;
    Fabric m_fabric;

    bool m_withoutLinks = false; ///< buildWithoutLinks(): vertices and NIC attachments only

    // The plan, all in 64-bit so absurd specs are refused before anything is allocated.
    bool m_rail = true;
    bool m_railOnly = false;
    i64 m_planes = 1;
    i64 m_servers = 0, m_gpus = 0, m_nics = 0;
    i64 m_domainServers = 1; ///< servers per scale-up domain
    i64 m_serversPerGroup = 0; ///< per SU (rail) or per ToR leaf
    i64 m_groups = 0; ///< SUs or ToR leaves
    i64 m_leavesPerGroup = 0; ///< rails or 1
    i64 m_leaves = 0;
    bool m_threeTier = false;
    i64 m_groupsPerPod = 0;
    i64 m_pods = 1;
    i64 m_spinesPerPod = 0; ///< two tiers: all spines
    i64 m_spineUplinks = 0; ///< three tiers: ports from one spine to its plane
    i64 m_superPerPlane = 0; ///< four tiers: per spine plane and per zone
    bool m_fourTier = false;
    i64 m_podsPerZone = 0; ///< four tiers: pods under one zone's super-spines
    i64 m_zones = 1;
    i64 m_superUplinks = 0; ///< four tiers: ports from one super-spine to the cores
    i64 m_coresPerGroup = 0; ///< four tiers: cores per core group (one super-spine of a zone)
    i64 m_vertices = 0;
    i64 m_links = 0;
};

} // namespace railyard
