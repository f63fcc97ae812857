#pragma once

#include "fabric.h"

#include <span>
#include <vector>

namespace railyard {

/** One link of a route and the share of the flow's bytes it carries (ECMP splits < 1). */
struct RouteHop
{
    int link = -1;
    double share = 1.0;
};

/**
 * Slot-to-slot routes over a Fabric. Inside a server: GPU -> scale-up switch -> GPU. Across
 * servers: GPU -> NIC (PCIe) -> leaf -> (spine -> (super-spine -> spine ->)) leaf -> NIC -> GPU,
 * with equal-cost paths split evenly at every hop (per-hop ECMP hashing, as switches do).
 * With PXN (NCCL's PCI x NVLink), a cross-rail transfer first moves over the scale-up domain to
 * the GPU whose NIC sits on the destination's rail and then stays on that rail.
 *
 * Leaf-to-leaf ECMP splits are computed once (Boost.Graph BFS on the switch graph) and cached,
 * so routing a flow costs a few vector appends. Not thread-safe (the cache is filled lazily).
 */
class Router
{
public:
    explicit Router(const Fabric &fabric);

    /// The hops of the route from slot `src` to slot `dst`; empty when src == dst.
    /// The span stays valid until the next call.
    std::span<const RouteHop> route(int srcSlot, int dstSlot);

    /// One-way latency of the route (sum of link latencies along one shortest path), seconds.
    double latency(int srcSlot, int dstSlot);

    const Fabric &fabric() const { return m_fabric; }

private:
    const std::vector<RouteHop> &leafToLeaf(int srcLeaf, int dstLeaf);

    const Fabric &m_fabric;
    std::vector<RouteHop> m_scratch;
    // implementation-defined caches follow (see router.cpp)
    std::vector<std::vector<RouteHop>> m_leafRoutes;  ///< index srcLeaf*leaves+dstLeaf, lazily
    std::vector<char> m_leafRouteReady;
    std::vector<double> m_leafLatency;
};

} // namespace railyard
