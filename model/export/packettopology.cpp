/**
 * The fabric graph turned into the node/link lists of ns-3 based simulators: node ids in the
 * order those simulators need (NPUs first, in rank order, since both take NPU id = rank), the
 * cables of the Fabric graph one line each, failed hardware left out.
 */
#include "export/packettopology.h"

#include "cost/costengine.h"
#include "export/exportcommon.h"

#include <algorithm>
#include <cmath>

namespace railyard::exportdetail {

namespace {

/// Per fabric vertex: true when the scenario's failures take it out. A failed server takes its
/// GPUs, NICs and scale-up switch; gpu:N, nic:N and leaf:N take that one vertex.
std::vector<char> failedVertices(const Fabric &fabric, const std::vector<FailedComponent> &failures)
{
    std::vector<char> failed(boost::num_vertices(fabric.graph()), 0);
    const int gpus = fabric.gpusPerServer();
    const int nics = fabric.nicsPerServer();
    const auto mark = [&failed](int vertex) { failed[static_cast<std::size_t>(vertex)] = 1; };
    for (const FailedComponent &f : failures) {
        switch (f.kind) {
        case FailedComponent::Kind::Server:
            for (int g = 0; g < gpus; ++g)
                mark(fabric.gpuVertex(f.index * gpus + g));
            for (int n = 0; n < nics; ++n)
                mark(fabric.nicVertex(f.index, n));
            if (fabric.scaleUpDomainServers() == 1) // a rack's NVLink switch outlives a tray
                mark(fabric.scaleUpVertex(f.index));
            break;
        case FailedComponent::Kind::Gpu:
            mark(fabric.gpuVertex(f.index));
            break;
        case FailedComponent::Kind::Nic:
            mark(fabric.nicVertex(f.index / nics, f.index % nics));
            break;
        case FailedComponent::Kind::Leaf:
            mark(fabric.leafVertex(f.index));
            break;
        case FailedComponent::Kind::Plane:
            for (int l = 0; l < fabric.leafCount(); ++l)
                if (fabric.planeOfLeaf(l) == f.index)
                    mark(fabric.leafVertex(l));
            break;
        }
    }
    return failed;
}

} // namespace

PacketTopology packetTopology(const CostEngine &engine, NicModel nics)
{
    const Fabric &fabric = engine.fabric();
    const Mapping &mapping = engine.mapping();
    const std::vector<char> failed = failedVertices(fabric, engine.scenario().failures);
    const int world = mapping.rankCount();

    PacketTopology t;
    std::vector<int> idOf(failed.size(), -1);
    const auto add = [&](int vertex) {
        if (failed[static_cast<std::size_t>(vertex)] || idOf[static_cast<std::size_t>(vertex)] >= 0)
            return -1;
        const int id = t.nodeCount();
        idOf[static_cast<std::size_t>(vertex)] = id;
        t.names.push_back(fabric.node(vertex).name);
        return id;
    };

    // NPUs in rank order (a rank never sits on a failed slot: the engine refuses that mapping).
    for (int r = 0; r < world; ++r) {
        const int v = fabric.gpuVertex(mapping.slotOf(r));
        idOf[static_cast<std::size_t>(v)] = r;
        t.names.push_back(fabric.node(v).name);
    }
    t.npus = world;

    // Servers in the order of the lowest rank each holds: for a node-major mapping server k of
    // this order holds ranks [k*G, (k+1)*G), which is how SimAI pairs GPUs with NVSwitches.
    std::vector<int> serverOrder;
    std::vector<char> seen(static_cast<std::size_t>(fabric.servers()), 0);
    for (int r = 0; r < world; ++r) {
        const int s = fabric.serverOfSlot(mapping.slotOf(r));
        if (!seen[static_cast<std::size_t>(s)]) {
            seen[static_cast<std::size_t>(s)] = 1;
            serverOrder.push_back(s);
        }
    }
    t.servers = static_cast<int>(serverOrder.size());
    for (int s : serverOrder)
        if (const int id = add(fabric.scaleUpVertex(s)); id >= 0)
            t.scaleUp.push_back(id);
    if (nics == NicModel::Node)
        for (int s : serverOrder)
            for (int n = 0; n < fabric.nicsPerServer(); ++n)
                if (const int id = add(fabric.nicVertex(s, n)); id >= 0)
                    t.switches.push_back(id);
    for (int i = 0; i < fabric.leafCount(); ++i)
        if (const int id = add(fabric.leafVertex(i)); id >= 0)
            t.switches.push_back(id);
    for (int i = 0; i < fabric.spineCount(); ++i)
        if (const int id = add(fabric.spineVertex(i)); id >= 0)
            t.switches.push_back(id);
    for (int i = 0; i < fabric.superSpineCount(); ++i)
        if (const int id = add(fabric.superSpineVertex(i)); id >= 0)
            t.switches.push_back(id);
    for (int i = 0; i < fabric.coreCount(); ++i)
        if (const int id = add(fabric.coreVertex(i)); id >= 0)
            t.switches.push_back(id);

    const auto push = [&t](int x, int y, double bytesPerSecond, double latency, Tier tier) {
        t.links.push_back({ std::min(x, y), std::max(x, y), bytesPerSecond * 8.0, latency, tier });
    };
    for (const FabricLink &l : fabric.links()) {
        if (l.id > l.reverse)
            continue; // one line per cable: the direction the builder made first
        const int a = idOf[static_cast<std::size_t>(l.src)];
        const int b = idOf[static_cast<std::size_t>(l.dst)];
        if (a >= 0 && b >= 0)
            push(a, b, l.bandwidth, l.latency, l.tier);
    }
    if (nics == NicModel::FoldedIntoGpu) {
        // GPU -> leaf through its NIC: the slower of the PCIe path and the NIC's share of its
        // port, the two delays added (a packet crosses both links).
        std::vector<int> gpusOfNic(static_cast<std::size_t>(fabric.nicsPerServer()), 0);
        for (int g = 0; g < fabric.gpusPerServer(); ++g)
            ++gpusOfNic[static_cast<std::size_t>(fabric.nicOfGpu(g))];
        for (int r = 0; r < world; ++r) {
            const int slot = mapping.slotOf(r);
            const int server = fabric.serverOfSlot(slot);
            const int nic = fabric.nicOfGpu(fabric.gpuOfSlot(slot));
            const int nicV = fabric.nicVertex(server, nic);
            const int leafV = fabric.leafVertex(fabric.leafOfNic(server, nic));
            if (failed[static_cast<std::size_t>(nicV)] || idOf[static_cast<std::size_t>(leafV)] < 0)
                continue;
            const FabricLink &pcie = fabric.link(fabric.linkBetween(fabric.gpuVertex(slot), nicV));
            const FabricLink &port = fabric.link(fabric.linkBetween(nicV, leafV));
            const double share = port.bandwidth / gpusOfNic[static_cast<std::size_t>(nic)];
            push(r, idOf[static_cast<std::size_t>(leafV)], std::min(pcie.bandwidth, share),
                pcie.latency + port.latency, Tier::Leaf);
        }
    }
    std::sort(t.links.begin(), t.links.end(), [](const PacketLink &x, const PacketLink &y) {
        return x.a != y.a ? x.a < y.a : x.b < y.b;
    });
    return t;
}

long long rateBits(double bitsPerSecond)
{
    return std::llround(bitsPerSecond);
}

std::string ns3Rate(double bitsPerSecond)
{
    const long long bits = rateBits(bitsPerSecond);
    if (bits % 1000000000LL == 0)
        return std::to_string(bits / 1000000000LL) + "Gbps";
    if (bits % 1000000LL == 0)
        return std::to_string(bits / 1000000LL) + "Mbps";
    return std::to_string(bits) + "bps";
}

std::string ns3Delay(double seconds)
{
    // Milliseconds with 9 decimals (1 ps), trailing zeros dropped: the fabric's delays are
    // whole nanoseconds or tenths of microseconds, so this is exact and short.
    std::string text = strf("%.9f", seconds * 1e3);
    while (text.size() > 1 && text.back() == '0')
        text.pop_back();
    if (text.back() == '.')
        text.pop_back();
    return text + "ms";
}

std::string linkLine(const PacketLink &link)
{
    return std::to_string(link.a) + " " + std::to_string(link.b) + " " + ns3Rate(link.bitsPerSecond)
        + " " + ns3Delay(link.latency) + " 0";
}

} // namespace railyard::exportdetail
