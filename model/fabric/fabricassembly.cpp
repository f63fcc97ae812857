#include "fabric/fabricassembly.h"

#include "base/units.h"
#include "base/writeahead.h"

#include <boost/iterator/counting_iterator.hpp>
#include <boost/iterator/transform_iterator.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <utility>

namespace railyard {

namespace {

/// "node007/gpu3": built in one string (two million of them at a million GPUs, where the
/// temporaries of `host + "/gpu" + std::to_string(g)` were a tenth of building the fabric).
std::string deviceName(const std::string &host, std::string_view device, int index)
{
    char digits[16];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, index);
    (void)ec; // an int always fits 16 characters
    std::string name;
    name.reserve(host.size() + device.size() + static_cast<std::size_t>(end - digits));
    name.append(host).append(device).append(digits, end);
    return name;
}

} // namespace

std::string defaultServerName(int index)
{
    std::string digits = std::to_string(index);
    if (digits.size() < 3)
        digits.insert(0, 3 - digits.size(), '0');
    return "node" + digits;
}

void FabricAssembly::begin(
    const FabricSpec &s, int nics, int rails, int pods, std::int64_t vertices, std::int64_t links)
{
    Fabric &f = m_f;
    f.m_spec = s; // as given (0 = derived stays 0); nicsPerServer() answers the derived count
    f.m_nicsPerServer = nics;
    f.m_domainServers = std::max(1, s.scaleUpDomainServers);
    f.m_rails = rails;
    f.m_pods = pods;
    const int gpus = s.gpusPerServer;
    f.m_gpuToNic.resize(sz(gpus));
    for (int g = 0; g < gpus; ++g)
        f.m_gpuToNic[sz(g)] = s.gpuToNic.empty() ? g % nics : s.gpuToNic[sz(g)];
    f.m_serverNames.clear();
    f.m_serverNames.reserve(sz(s.servers));
    for (int i = 0; i < s.servers; ++i)
        f.m_serverNames.push_back(
            s.serverNames.empty() ? defaultServerName(i) : s.serverNames[sz(i)]);

    // The vertices' records (64 bytes each, 147 MB at a million GPUs in four tiers), written
    // whole as they are made: announced (base/writeahead.h) before they are. The graph is made
    // empty and given its vertices as its constructor with a count would (one record each, a
    // row start each and one more); its edges come in finish().
    f.m_graph = FabricGraphBox(0);
    FabricGraph &g = *f.m_graph;
    g.m_vertex_properties.reserve(static_cast<std::size_t>(vertices));
    aboutToWriteReserved(g.m_vertex_properties);
    g.m_vertex_properties.resize(static_cast<std::size_t>(vertices));
    g.m_forward.m_rowstart.assign(static_cast<std::size_t>(vertices) + 1, 0);
    f.m_linkEnds.reserve(static_cast<std::size_t>(links));
    f.m_linkClass.reserve(static_cast<std::size_t>(links));
    // `links` is the count addCable() reaches (FabricBuilder counts the cables first): both
    // columns are written whole.
    aboutToWriteReserved(f.m_linkEnds);
    aboutToWriteReserved(f.m_linkClass);
    f.m_gpuVertex.reserve(sz(s.servers * gpus));
    f.m_nicVertex.reserve(sz(s.servers * nics));
    f.m_scaleUpVertex.reserve(sz(s.servers / f.m_domainServers));
    f.m_planes = std::max(1, s.planes);
    f.m_nicLeaf.assign(sz(f.m_planes * s.servers * nics), -1);
    f.m_nicLeafPort.assign(sz(f.m_planes * s.servers * nics), -1);
    m_nextVertex = 0;
}

int FabricAssembly::addVertex(FabricNode node)
{
    const int v = m_nextVertex++;
    (*m_f.m_graph)[sz(v)] = std::move(node);
    return v;
}

void FabricAssembly::addServers()
{
    Fabric &f = m_f;
    const int gpus = f.m_spec.gpusPerServer;
    for (int srv = 0; srv < f.m_spec.servers; ++srv) {
        const std::string &host = f.m_serverNames[sz(srv)];
        for (int g = 0; g < gpus; ++g) {
            FabricNode n;
            n.kind = NodeKind::Gpu;
            n.server = srv;
            n.local = g;
            n.name = deviceName(host, "/gpu", g);
            f.m_gpuVertex.push_back(addVertex(std::move(n)));
        }
        for (int i = 0; i < f.m_nicsPerServer; ++i) {
            FabricNode n;
            n.kind = NodeKind::Nic;
            n.server = srv;
            n.local = i;
            n.rail = f.m_rails > 0 ? i : -1;
            n.name = deviceName(host, "/nic", i);
            f.m_nicVertex.push_back(addVertex(std::move(n)));
        }
        // One NVLink switch per domain, after its first server's GPUs and NICs (with one server
        // per domain: per server its GPUs, NICs and switch, the numbering of fabric.h).
        if (srv % f.m_domainServers != 0)
            continue;
        FabricNode n;
        n.kind = NodeKind::ScaleUpSwitch;
        n.server = srv;
        const int domain = srv / f.m_domainServers;
        n.local = domain;
        n.name = f.m_domainServers == 1 ? host + "/nvswitch"
                                        : "rack" + std::to_string(domain) + "/nvswitch";
        f.m_scaleUpVertex.push_back(addVertex(std::move(n)));
    }
}

int FabricAssembly::addSwitch(FabricNode node)
{
    const NodeKind kind = node.kind;
    const int v = addVertex(std::move(node));
    if (kind == NodeKind::Leaf)
        m_f.m_leafVertex.push_back(v);
    else if (kind == NodeKind::Spine)
        m_f.m_spineVertex.push_back(v);
    else if (kind == NodeKind::SuperSpine)
        m_f.m_superVertex.push_back(v);
    else
        m_f.m_coreVertex.push_back(v);
    return v;
}

void FabricAssembly::addCable(int a, int b, Tier tier, double gbps, double latencyUs, double ports)
{
    if (m_withoutLinks)
        return;
    // Two directions, ids 2k (a -> b) and 2k + 1 (b -> a): Fabric::link() takes the reverse
    // of id as id ^ 1. The graph's edges are added by finish().
    Fabric::LinkClass c;
    c.bandwidth = gbpsToBytesPerSecond(gbps * ports);
    c.latency = microseconds(latencyUs);
    c.ports = std::max(1, static_cast<int>(std::lround(ports)));
    c.tier = tier;
    c.sourceKind = m_f.node(a).kind;
    m_f.m_linkEnds.push_back({ a, b });
    m_f.m_linkClass.push_back(m_classes.find(c));
    c.sourceKind = m_f.node(b).kind;
    m_f.m_linkEnds.push_back({ b, a });
    m_f.m_linkClass.push_back(m_classes.find(c));
}

void FabricAssembly::addServerCables(int server)
{
    const Fabric &f = m_f;
    const FabricSpec &s = f.m_spec;
    const int gpus = s.gpusPerServer;
    const int scaleUp = f.scaleUpVertex(server);
    for (int g = 0; g < gpus; ++g)
        addCable(f.gpuVertex(server * gpus + g), scaleUp, Tier::ScaleUp, s.scaleUp.gbps,
            s.scaleUp.latencyUs, 1.0);
    for (int g = 0; g < gpus; ++g)
        addCable(f.gpuVertex(server * gpus + g), f.nicVertex(server, f.m_gpuToNic[sz(g)]),
            Tier::Pcie, s.pcie.gbps, s.pcie.latencyUs, 1.0);
}

void FabricAssembly::attachNic(
    int server, int nic, int leaf, int port, double gbps, double latencyUs)
{
    attachNic(server, nic, 0, leaf, port, gbps, latencyUs);
}

void FabricAssembly::attachNic(
    int server, int nic, int plane, int leaf, int port, double gbps, double latencyUs)
{
    const auto at = sz((plane * m_f.m_spec.servers + server) * m_f.m_nicsPerServer + nic);
    m_f.m_nicLeaf[at] = leaf;
    m_f.m_nicLeafPort[at] = port;
    addCable(m_f.nicVertex(server, nic), m_f.leafVertex(leaf), Tier::Leaf, gbps, latencyUs, 1.0);
}

void FabricAssembly::finish()
{
    FabricGraph &g = *m_f.m_graph;
    using Ends = std::pair<std::size_t, std::size_t>;
    const auto ends = [](const Fabric::LinkEnds &l) { return Ends(sz(l.src), sz(l.dst)); };
    const auto bundle = [](int id) { return FabricEdge { id }; };
    const auto first = boost::make_transform_iterator(m_f.m_linkEnds.cbegin(), ends);
    const auto last = boost::make_transform_iterator(m_f.m_linkEnds.cend(), ends);
    // What the graph's edges_are_unsorted_multi_pass constructor does, on the graph in place so
    // that the vertices' bundles stay where addVertex() put them: a counting pass for each
    // vertex's start, then a stable histogram sort (boost/graph/detail/histogram_sort.hpp) that
    // keeps each vertex's out-edges in the order of the links, their id order.
    g.m_forward.assign_unsorted_multi_pass_edges(first, last,
        boost::make_transform_iterator(boost::counting_iterator<int>(0), bundle),
        boost::num_vertices(g), boost::typed_identity_property_map<std::size_t>(),
        boost::keep_all());
}

void FabricAssembly::setCablingResult(std::vector<std::string> findings, bool regularClos)
{
    m_f.m_cablingFindings = std::move(findings);
    m_f.m_regularClos = regularClos;
}

} // namespace railyard
