#pragma once

#include "fabric/fabric.h"

#include <cstdint>
#include <string>
#include <vector>

namespace railyard {

/**
 * The steps both fabric builders share: the generated Clos networks (fabric.cpp) and the
 * fabrics read from a cabling inventory (cablingbuilder.cpp). It owns the vertex and link
 * numbering rules of fabric.h (per server its GPUs, NICs and, for the first server of a
 * scale-up domain, the domain's switch; then the switches; per cable the forward direction then
 * its reverse, so link id ^ 1 is the reverse).
 */
/// The default name of server `index` when the spec has no server_names ("node007").
std::string defaultServerName(int index);

class FabricAssembly
{
public:
    explicit FabricAssembly(Fabric &fabric)
        : m_f(fabric)
    {
    }

    /// Before begin(): addCable() records nothing (fabricWithoutLinks(), fabricwithoutlinks.h);
    /// attachNic() still records the NIC's leaf and port.
    void leaveOutLinks() { m_withoutLinks = true; }
    /// Sets the server model (names, GPU <-> NIC affinity) and sizes the graph; `rails` is 0
    /// for top-of-rack fabrics. Every NIC starts uncabled (leafOfNic() == -1).
    void begin(const FabricSpec &spec, int nics, int rails, int pods, std::int64_t vertices,
        std::int64_t links);
    /// The GPU and NIC vertices of every server and the scale-up switch of every scale-up
    /// domain (NIC i is on rail i when `rails` > 0).
    void addServers();
    /// A leaf, spine, super-spine or core vertex, appended to its tier's list.
    int addSwitch(FabricNode node);
    /// One cable a <-> b as two links; `ports` parallel cables make one bundle of ports x gbps.
    void addCable(int a, int b, Tier tier, double gbps, double latencyUs, double ports);
    /// GPU <-> its domain's scale-up switch and GPU <-> affinity NIC cables of one server.
    void addServerCables(int server);
    /// NIC `nic` of `server` cabled to leaf index `leaf` on its downlink port `port` (its port
    /// in network plane `plane`, FabricSpec::planes).
    void attachNic(int server, int nic, int leaf, int port, double gbps, double latencyUs);
    void attachNic(
        int server, int nic, int plane, int leaf, int port, double gbps, double latencyUs);
    /// Cabled fabrics: the deviations from the design, and whether the router may use the
    /// factorised Clos cache (Fabric::regularClos()).
    void setCablingResult(std::vector<std::string> findings, bool regularClos);
    /// Adds every cable's two links to the graph's edges, in link id order. addCable() records
    /// a cable in the per-link arrays only; the compressed graph (fabric.h) is made from them
    /// once, each vertex's out-edges in link id order (the router's adjacency relies on it,
    /// router.cpp). Call once, after the last addCable(), before anything reads the graph.
    void finish();

private:
    int addVertex(FabricNode node);

    Fabric &m_f;
    Fabric::LinkClassIndex m_classes { m_f.m_linkClasses };
    int m_nextVertex = 0;
    bool m_withoutLinks = false;
};

} // namespace railyard
