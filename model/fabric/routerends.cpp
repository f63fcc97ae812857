/**
 * Router's route ends: which NICs a slot pair's route may use (its own, or the ones NCCL logged
 * for a ring hop, when usable) and the hops from a GPU to its NIC's leaf and back down, with
 * their latency. The switch tiers between the leaves are router.cpp's.
 */
#include "fabric/router.h"

#include "base/units.h"

namespace railyard {

RouteNics Router::usableNics(int srcSlot, int dstSlot, RouteNics nics) const
{
    const Fabric &f = m_fabric;
    const SlotPlace &src = m_slots[static_cast<std::size_t>(srcSlot)];
    const SlotPlace &dst = m_slots[static_cast<std::size_t>(dstSlot)];
    const int count = f.nicsPerServer();
    const auto cabled
        = [&](int server, int nic) { return nic >= 0 && nic < count && f.nicCabled(server, nic); };
    if (!cabled(src.server, nics.src))
        nics.src = -1;
    if (!cabled(dst.server, nics.dst) || nics.dst == dst.nic)
        nics.dst = -1; // the receiver's own NIC is the router's choice already
    if (nics.src < 0 || nics.src == src.nic)
        nics.pxn = false;
    return nics;
}

void Router::ends(int srcSlot, int dstSlot, RouteNics nics, Ends &out) const
{
    const Fabric &f = m_fabric;
    const SlotPlace &src = m_slots[static_cast<std::size_t>(srcSlot)];
    const SlotPlace &dst = m_slots[static_cast<std::size_t>(dstSlot)];
    const int srcServer = src.server;
    const int dstServer = dst.server;
    out = Ends {};
    if (src.domain == dst.domain) { // Fabric::sameScaleUpDomain()
        out.head[0] = src.gpuUp;
        out.head[1] = dst.gpuDown;
        out.headCount = 2;
        return;
    }
    const int count = f.nicsPerServer();
    const int dstNic = nics.dst >= 0 ? nics.dst : dst.nic;
    int srcNic = src.nic;
    int sendSlot = srcSlot; // the GPU whose PCIe link into the NIC the data takes last
    // The GPU of a server that owns NIC `nic` (its affinity NIC; the lowest index), or -1.
    const auto ownerSlot = [&](int server, int nic) {
        const int g = m_proxyGpu[static_cast<std::size_t>(nic)];
        return g < 0 ? -1 : server * f.gpusPerServer() + g;
    };
    if (nics.src >= 0) {
        // The NIC NCCL logged. Another GPU's: with PXN over NVLink to that GPU, else over the
        // host's PCIe (the GPU's own link up, then the link into that NIC).
        srcNic = nics.src;
        if (srcNic != src.nic) {
            sendSlot = ownerSlot(srcServer, srcNic);
            if (nics.pxn && sendSlot >= 0) {
                out.head[out.headCount++] = src.gpuUp;
                out.head[out.headCount++] = m_slots[static_cast<std::size_t>(sendSlot)].gpuDown;
            } else {
                out.head[out.headCount++] = src.pcieUp;
            }
        }
    } else if (m_pxnRoutes && srcNic != dstNic) {
        // Rail-optimised: rail == NIC index. Every server has the destination rail's NIC; PXN
        // needs a GPU whose affinity NIC it is (on the sender's own tray: the NVLink hop stays
        // inside the domain, and the host's NIC is the one the GPU's tray owns).
        const int proxy = m_proxyGpu[static_cast<std::size_t>(dstNic)];
        if (proxy >= 0) {
            sendSlot = srcServer * f.gpusPerServer() + proxy;
            out.head[out.headCount++] = src.gpuUp;
            out.head[out.headCount++] = m_slots[static_cast<std::size_t>(sendSlot)].gpuDown;
            srcNic = dstNic;
        }
    }
    if (sendSlot >= 0)
        out.head[out.headCount++] = m_slots[static_cast<std::size_t>(sendSlot)].pcieUp;
    // Received on another GPU's NIC: over the link out of that NIC, then the GPU's own link.
    const int receiveSlot = dstNic != dst.nic ? ownerSlot(dstServer, dstNic) : -1;
    if (f.planeCount() > 1) {
        out.srcNic = srcServer * count + srcNic;
        out.dstNic = dstServer * count + dstNic;
        if (receiveSlot >= 0)
            out.tail[sz(out.tailCount++)] = m_slots[static_cast<std::size_t>(receiveSlot)].pcieDown;
        out.tail[sz(out.tailCount++)] = dst.pcieDown;
        return;
    }
    out.head[out.headCount++] = m_nicUp[static_cast<std::size_t>(srcServer * count + srcNic)];
    out.srcLeaf = srcNic == src.nic ? src.leaf : f.leafOfNic(srcServer, srcNic);
    out.dstLeaf = dstNic == dst.nic ? dst.leaf : f.leafOfNic(dstServer, dstNic);
    out.tail[sz(out.tailCount++)] = m_nicDown[static_cast<std::size_t>(dstServer * count + dstNic)];
    if (receiveSlot >= 0)
        out.tail[sz(out.tailCount++)] = m_slots[static_cast<std::size_t>(receiveSlot)].pcieDown;
    out.tail[sz(out.tailCount++)] = dst.pcieDown;
}

double Router::endsLatency(const Ends &e, Tier &reach)
{
    double sum = 0.0;
    const auto fixed = [&](int link) {
        sum += m_fabric.linkLatency(link);
        reach = std::max(reach, m_fabric.linkTier(link));
    };
    for (int i = 0; i < e.headCount; ++i)
        fixed(e.head[static_cast<std::size_t>(i)]);
    if (e.srcNic >= 0 && m_planesMerged) {
        Tier planesReach = Tier::ScaleUp;
        sum += mergedPlanesLatency(e.srcNic, e.dstNic, planesReach);
        reach = std::max(reach, planesReach);
    } else if (e.srcNic >= 0) {
        // Multi-plane: the NIC pair's segment holds every plane's hops (nicPairSegment()).
        const Segment &seg = m_pairs[static_cast<std::size_t>(nicPairSegment(e.srcNic, e.dstNic))];
        sum += seg.latency;
        reach = std::max(reach, seg.reach);
    }
    if (e.srcLeaf >= 0 && e.srcLeaf != e.dstLeaf)
        addSwitchLatency(e.srcLeaf, e.dstLeaf, sum, reach);
    for (int i = 0; i < e.tailCount; ++i)
        fixed(e.tail[static_cast<std::size_t>(i)]);
    return sum;
}

} // namespace railyard
