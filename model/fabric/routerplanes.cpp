// The router's merged network planes: a generated fabric of several planes (FabricSpec::planes)
// whose planes are copies of plane 0 routes every flow over all of them at once.
//
// router.cpp splits a NIC's flow evenly over its ports, one per plane (Alibaba HPN, SIGCOMM
// 2024; DeepSeek-V3, arXiv 2412.19437, section 3.4), and routes it inside each plane. When no
// leaf has failed, every plane carries 1 / planes of every flow along the same relative path,
// so a route segment of plane 0 (routerclos.cpp) stands for all planes: its hops are plane 0's
// and their twins in planes 1.., each with 1 / planes of the share. A route is then its fixed
// ends, the NIC's ports in every plane (one segment per NIC and direction, 1 / planes per
// port), and the parts of one folded Clos, as with one plane: no per NIC pair segment (which at a
// million GPUs held every plane's ECMP sweep for every pair of servers that exchange traffic).
#include "fabric/router.h"

#include <algorithm>

namespace railyard {

bool Router::planesAreTwins() const
{
    const Fabric &f = m_fabric;
    const int planes = f.planeCount();
    if (planes <= 1 || f.cabled() || f.nicsPerServer() == 0)
        return false;
    if (std::find(m_failedLeaves.begin(), m_failedLeaves.end(), 1) != m_failedLeaves.end())
        return false; // a NIC then splits over the planes it has left (nicPairSegment())
    for (const int count : { f.leafCount(), f.spineCount(), f.superSpineCount(), f.coreCount() })
        if (count % planes != 0)
            return false;
    const int switches = static_cast<int>(m_switchKind.size());
    for (int u = 0; u < switches; ++u) {
        if (m_switchPlane[sz(u)] != 0)
            continue;
        const int first = m_adjOffset[sz(u)];
        const int degree = m_adjOffset[sz(u) + 1] - first;
        for (int i = first; i < first + degree; ++i)
            if (m_switchPlane[sz(m_adj[sz(i)].first)] != 0)
                return false;
        for (int p = 1; p < planes; ++p) {
            const int v = twinOf(u, p);
            if (v >= switches || m_switchPlane[sz(v)] != p
                || m_switchKind[sz(v)] != m_switchKind[sz(u)]
                || m_switchPod[sz(v)] != m_switchPod[sz(u)]
                || m_switchZone[sz(v)] != m_switchZone[sz(u)]
                || m_adjOffset[sz(v) + 1] - m_adjOffset[sz(v)] != degree)
                return false;
            for (int k = 0; k < degree; ++k) {
                const auto [a, linkA] = m_adj[sz(first + k)];
                const auto [b, linkB] = m_adj[sz(m_adjOffset[sz(v)] + k)];
                if (b != twinOf(a, p) || f.linkBandwidth(linkA) != f.linkBandwidth(linkB)
                    || f.linkLatency(linkA) != f.linkLatency(linkB))
                    return false;
            }
        }
    }
    const int leavesPerPlane = f.leavesPerPlane();
    for (int server = 0; server < f.servers(); ++server)
        for (int nic = 0; nic < f.nicsPerServer(); ++nic) {
            const int leaf = f.leafOfNicPort(server, nic, 0);
            if (leaf < 0 || leaf >= leavesPerPlane)
                return false;
            for (int p = 1; p < planes; ++p)
                if (f.leafOfNicPort(server, nic, p) != leaf + p * leavesPerPlane)
                    return false;
        }
    return true;
}

void Router::pushHop(Segment &seg, int u, int i, double share)
{
    const auto add = [this, &seg](int link, double s) {
        if (m_arena.size() == seg.offset)
            seg.latency = m_fabric.link(link).latency; // every hop of a part is one tier
        m_arena.push_back({ link, s });
    };
    if (!m_planesMerged) {
        add(m_adj[sz(i)].second, share);
        return;
    }
    // The same even split over the planes as nicPairSegment() (shares times 1 / planes).
    const int planes = m_fabric.planeCount();
    const double w = 1.0 / planes;
    const int position = i - m_adjOffset[sz(u)];
    for (int p = 0; p < planes; ++p)
        add(m_adj[sz(m_adjOffset[sz(twinOf(u, p))] + position)].second, share * w);
}

void Router::addMergedPlanes(int srcNic, int dstNic, Parts &out)
{
    const Fabric &f = m_fabric;
    const int nics = f.nicsPerServer();
    // The NIC's ports up and down: segments the router made (its constructor), then the switch
    // parts between them.
    out.segments[sz(out.segmentCount++)] = pairSegmentBase() + srcNic;
    // The latency of one plane's path, summed as nicPairSegment() does.
    double planeLatency
        = f.link(m_nicUp[sz(srcNic)]).latency + f.link(m_nicDown[sz(dstNic)]).latency;
    const int a = f.leafOfNicPort(srcNic / nics, srcNic % nics, 0);
    const int b = f.leafOfNicPort(dstNic / nics, dstNic % nics, 0);
    const double before = out.latency;
    if (a != b) {
        out.latency = 0.0;
        addSwitchParts(a, b, out);
        planeLatency += out.latency;
    }
    out.latency = before + planeLatency;
    out.segments[sz(out.segmentCount++)] = pairSegmentBase() + f.servers() * nics + dstNic;
}

double Router::mergedPlanesLatency(int srcNic, int dstNic, Tier &reach)
{
    const Fabric &f = m_fabric;
    const int nics = f.nicsPerServer();
    const int up = m_nicUp[sz(srcNic)], down = m_nicDown[sz(dstNic)];
    double planeLatency = f.link(up).latency + f.link(down).latency;
    reach = std::max({ reach, f.linkTier(up), f.linkTier(down) });
    const int a = f.leafOfNicPort(srcNic / nics, srcNic % nics, 0);
    const int b = f.leafOfNicPort(dstNic / nics, dstNic % nics, 0);
    if (a != b) {
        double parts = 0.0;
        addSwitchLatency(a, b, parts, reach);
        planeLatency += parts;
    }
    return planeLatency;
}

} // namespace railyard
