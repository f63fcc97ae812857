// Fabric specs and route helpers shared by the router's suites (tst_router, tst_routelatency).
#pragma once

#include "fabric/fabric.h"
#include "fabric/router.h"
#include "fixtures.h"

#include <span>
#include <vector>

namespace railyard::routertest {

inline FabricSpec railSpec(int servers, int gpus, int serversPerSu, int radix)
{
    FabricSpec s = fixtures::railFabric(servers, gpus, serversPerSu, radix);
    // Distinct latencies per tier make the latency sums tell the tiers apart.
    s.scaleUp = { 3600.0, 0.25 };
    s.pcie = { 512.0, 0.5 };
    s.nic = { 400.0, 1.0 };
    s.fabricPort = { 400.0, 2.0 };
    return s;
}

inline FabricSpec torSpec(int servers, int gpus, int radix)
{
    FabricSpec s = railSpec(servers, gpus, 32, radix);
    s.kind = FabricKind::Tor;
    return s;
}

/// A hop expanded with its endpoints.
struct Hop
{
    int src = -1;
    int dst = -1;
    Tier tier = Tier::ScaleUp;
    double share = 0.0;
};

inline std::vector<Hop> expand(const Fabric &f, std::span<const RouteHop> hops)
{
    std::vector<Hop> out;
    for (const RouteHop &h : hops) {
        const FabricLink &l = f.link(h.link);
        out.push_back({ l.src, l.dst, l.tier, h.share });
    }
    return out;
}

} // namespace railyard::routertest
