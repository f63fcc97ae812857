#pragma once

#include "base/units.h"
#include "fabric/fabricspec.h"

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace railyard {

struct Degradation;

/// Core: the fourth switch tier, above the super-spines of a four-tier Clos (fabric.cpp).
enum class NodeKind : std::uint8_t { Gpu, Nic, ScaleUpSwitch, Leaf, Spine, SuperSpine, Core };

/** A vertex of the fabric graph. Fields that do not apply to a kind are -1. */
struct FabricNode
{
    NodeKind kind = NodeKind::Gpu;
    int server = -1; ///< GPU, NIC, scale-up switch (its domain's first server)
    int local = -1; ///< GPU or NIC index inside its server; switch index inside its tier
    int rail = -1; ///< NIC and rail-optimised leaf: the rail; -1 for ToR leaves
    int su = -1; ///< leaf: scalable unit (rail-optimised) or -1
    int pod = -1; ///< leaf and spine: pod index; super-spine: plane index; core: core group
    /// Four tiers: the zone (group of pods under one set of super-spines) of a leaf, spine or
    /// super-spine; 0 with fewer tiers; -1 for cores and anything else.
    int zone = -1;
    int netPlane = -1; ///< switch: the network plane it belongs to (FabricSpec::planes), else -1
    std::string name;
};

/**
 * One direction of a physical connection (every cable is two FabricLinks, one per direction,
 * each with its own capacity and load). `ports` > 1 when parallel cables between the same two
 * switches are bundled into one logical link; `bandwidth` is then the bundle's total.
 */
struct FabricLink
{
    // The ints first, then the one-byte tier, then the doubles: 40 bytes a link, where the
    // order id, reverse, tier, src, dst, bandwidth, latency, ports padded it to 48 (85 MB at a
    // million GPUs' 10.6 million links, docs/performance.md).
    int id = -1; ///< dense index, 0..linkCount()-1: engine results are indexed by it
    int reverse = -1; ///< id of the opposite direction
    int src = -1; ///< vertex index
    int dst = -1;
    int ports = 1;
    Tier tier = Tier::ScaleUp;
    double bandwidth = 0.0; ///< bytes per second, this direction
    double latency = 0.0; ///< seconds
};
static_assert(sizeof(FabricLink) == 40, "FabricLink: keep the fields packed (see above)");

/**
 * A graph edge's bundle: the link's id only; its figures are Fabric::link(id). The edge once
 * carried a whole FabricLink, a second copy of Fabric::links() kept in step by every edit:
 * 32 bytes more per directed link, 340 MB to fault in at a million GPUs (docs/performance.md).
 */
struct FabricEdge
{
    int id = -1; ///< FabricLink::id
};

/// The graph typedef every part of the engine uses (vertex and edge bundles above): Boost's
/// compressed sparse row graph, the fabric being built once and never edited. Per directed
/// link it keeps the target (4 bytes) and the bundle (4) in two flat arrays, and per vertex
/// where its out-edges start (4): vertex and edge indexes are 32-bit, as the link ids already
/// are (Boost's default std::size_t took 50 MB more at a million GPUs' 10.6 million links and
/// 2.3 million vertices). The adjacency_list it replaces (bidirectionalS, edges in a
/// vector) kept per link a 24-byte edge record, a 16-byte out-edge and a 16-byte in-edge entry
/// nobody read, and two edge vectors per vertex: 56 bytes a link, 590 MB at a million GPUs
/// against 95 MB now (docs/performance.md). A vertex's out-edges are in link id order
/// (FabricAssembly::finish()); there are no in-edge lists.
using FabricGraph = boost::compressed_sparse_row_graph<boost::directedS, FabricNode, FabricEdge,
    boost::no_property, std::uint32_t, std::uint32_t>;
/// A vertex of FabricGraph (boost::out_edges() and the rest take exactly this type).
using FabricVertex = FabricGraph::vertex_descriptor;

/**
 * A FabricGraph held by pointer, copied deeply. Boost 1.74's adjacency_list declared a copy
 * constructor but no move constructor, so a Fabric holding the graph by value copied every
 * vertex and edge each time it was moved (out of Fabric::build(), into a shared_ptr): a
 * measurable share of a 131,072-GPU evaluation. Moving this moves the pointer, whatever the
 * graph type does.
 */
class FabricGraphBox
{
public:
    FabricGraphBox()
        : m_graph(std::make_unique<FabricGraph>())
    {
    }
    explicit FabricGraphBox(std::size_t vertices)
        : m_graph(
            std::make_unique<FabricGraph>(static_cast<FabricGraph::vertices_size_type>(vertices)))
    {
    }
    FabricGraphBox(const FabricGraphBox &o)
        : m_graph(std::make_unique<FabricGraph>(*o.m_graph))
    {
    }
    FabricGraphBox &operator=(const FabricGraphBox &o)
    {
        if (this != &o)
            m_graph = std::make_unique<FabricGraph>(*o.m_graph);
        return *this;
    }
    FabricGraphBox(FabricGraphBox &&) noexcept = default;
    FabricGraphBox &operator=(FabricGraphBox &&) noexcept = default;
    ~FabricGraphBox() = default;

    FabricGraph &operator*() { return *m_graph; }
    const FabricGraph &operator*() const { return *m_graph; }

private:
    std::unique_ptr<FabricGraph> m_graph;
};

/**
 * The hardware graph: servers with G GPU slots, NICs, one scale-up switch per scale-up domain
 * (the NVLink/NVSwitch domain: one server, or FabricSpec::scaleUpDomainServers servers such as
 * the 18 trays of an NVL72 rack), leaves, spines and optional super-spines, joined by
 * full-duplex links.
 * Built once from a FabricSpec; immutable afterwards. Slot s*G+g is GPU g of server s.
 */
class Fabric
{
public:
    /// Builds the graph; throws ScenarioError naming the field for impossible specs.
    static Fabric build(const FabricSpec &spec);
    /// This fabric with link l's bandwidth times `scale[l]` (0 < scale <= 1), in the graph and
    /// the per-link arrays alike: the share of each link one job gets on a shared fabric
    /// (cost/costenginejobs.h). Defined in fabric/fabricshare.cpp.
    Fabric withBandwidthScaled(const std::vector<double> &scale) const;

    const FabricSpec &spec() const { return m_spec; }
    const FabricGraph &graph() const { return *m_graph; }

    int servers() const { return m_spec.servers; }
    int gpusPerServer() const { return m_spec.gpusPerServer; }
    int nicsPerServer() const { return m_nicsPerServer; }
    int slotCount() const { return m_spec.servers * m_spec.gpusPerServer; }
    int serverOfSlot(int slot) const { return slot / m_spec.gpusPerServer; }
    int gpuOfSlot(int slot) const { return slot % m_spec.gpusPerServer; }
    const std::string &serverName(int server) const { return m_serverNames[server]; }

    /// Scale-up (NVLink) domains: consecutive blocks of scaleUpDomainServers() servers.
    int scaleUpDomainServers() const { return m_domainServers; }
    int scaleUpDomainCount() const { return m_spec.servers / m_domainServers; }
    int scaleUpDomainGpus() const { return m_domainServers * m_spec.gpusPerServer; }
    int scaleUpDomainOfServer(int server) const { return server / m_domainServers; }
    int scaleUpDomainOfSlot(int slot) const { return scaleUpDomainOfServer(serverOfSlot(slot)); }
    /// The one answer to "may these two GPUs talk over NVLink": the same scale-up domain. Every
    /// routing, planning, placement and warning rule asks this; "same server" stays for what is
    /// really about the host (PCIe, NUMA, launcher hosts).
    bool sameScaleUpDomain(int slotA, int slotB) const
    {
        return scaleUpDomainOfSlot(slotA) == scaleUpDomainOfSlot(slotB);
    }
    /// "rack0" style name of a domain (domains of one server are named after the server).
    std::string scaleUpDomainName(int domain) const;

    int nicOfGpu(int gpu) const { return m_gpuToNic[gpu]; } ///< GPU<->NIC affinity (per server)
    int railOfSlot(int slot) const; ///< rail of the slot's NIC
    int leafOfNic(int server, int nic) const; ///< leaf switch index (0-based)
    int leafPortOfNic(int server, int nic) const; ///< downlink port on that leaf
    /// Network planes (FabricSpec::planes): every NIC has one port per plane.
    int planeCount() const { return m_planes; }
    /// The leaf of NIC `nic`'s port in plane `plane` (plane 0 = leafOfNic()).
    int leafOfNicPort(int server, int nic, int plane) const;
    /// Leaves, spines and super-spines per plane (the switch lists are plane-major).
    int leavesPerPlane() const { return leafCount() / m_planes; }
    int planeOfLeaf(int leaf) const { return leaf / leavesPerPlane(); }
    /// Rail-only (FabricKind::RailOnly): rail switches, no spine.
    bool railOnly() const { return m_spec.kind == FabricKind::RailOnly; }

    int leafCount() const { return static_cast<int>(m_leafVertex.size()); }
    int spineCount() const { return static_cast<int>(m_spineVertex.size()); }
    int superSpineCount() const { return static_cast<int>(m_superVertex.size()); }
    /// Four-tier Clos: the core switches above the super-spines (0 with fewer tiers).
    int coreCount() const { return static_cast<int>(m_coreVertex.size()); }
    /// Zones (groups of pods sharing super-spines): 1 below four tiers.
    int zoneCount() const { return m_zones; }
    int podCount() const { return m_pods; }
    int railCount() const { return m_rails; } ///< rail-optimised: NICs per server; tor: 0

    int gpuVertex(int slot) const { return m_gpuVertex[slot]; }
    int nicVertex(int server, int nic) const { return m_nicVertex[server * m_nicsPerServer + nic]; }
    /// The NVLink switch of the scale-up domain `server` belongs to.
    int scaleUpVertex(int server) const { return m_scaleUpVertex[scaleUpDomainOfServer(server)]; }
    int scaleUpDomainVertex(int domain) const { return m_scaleUpVertex[domain]; }
    int leafVertex(int leaf) const { return m_leafVertex[leaf]; }
    int spineVertex(int spine) const { return m_spineVertex[spine]; }
    int superSpineVertex(int s) const { return m_superVertex[s]; }
    int coreVertex(int c) const { return m_coreVertex[c]; }
    const FabricNode &node(int vertex) const
    {
        return (*m_graph)[static_cast<std::size_t>(vertex)];
    }

    int linkCount() const { return static_cast<int>(m_links.size()); }
    const FabricLink &link(int id) const { return m_links[id]; }
    /// link(id)'s latency, bandwidth and tier from arrays of their own: routing and the load
    /// accounting read them for one link after another in no order, and a 48-byte FabricLink
    /// per read filled the cache with the fields they do not need (1.18 million links at 131k).
    double linkLatency(int id) const { return m_linkLatency[static_cast<std::size_t>(id)]; }
    double linkBandwidth(int id) const { return m_linkBandwidth[static_cast<std::size_t>(id)]; }
    Tier linkTier(int id) const { return m_linkTier[static_cast<std::size_t>(id)]; }
    /// The kind of link(id)'s source node, from an array of its own like the three above.
    NodeKind linkSourceKind(int id) const { return m_linkSourceKind[static_cast<std::size_t>(id)]; }
    const std::vector<FabricLink> &links() const { return m_links; }
    /// Link id from vertex a to vertex b, or -1 when they are not adjacent.
    int linkBetween(int a, int b) const;
    /// "node003/gpu5 -> node003/nvswitch" style name for reports and tooltips.
    std::string linkName(int id) const;

    /// false for a NIC a cabling inventory leaves without a cable (leafOfNic() is then -1).
    bool nicCabled(int server, int nic) const { return leafOfNic(server, nic) >= 0; }
    /// false when a slot's GPU sends through an uncabled NIC: no rank may sit there.
    bool slotCabled(int slot) const
    {
        return nicCabled(serverOfSlot(slot), nicOfGpu(gpuOfSlot(slot)));
    }
    /// Built from a cabling inventory (FabricSpec::cabling) rather than generated.
    bool cabled() const { return !m_spec.cabling.empty(); }
    /// Cabled fabrics: what deviates from the design, one line each (cablingbuilder.h).
    const std::vector<std::string> &cablingFindings() const { return m_cablingFindings; }
    /// Every leaf of a pod reaches every spine of its pod, and every super-spine exactly one
    /// spine of every pod: the folded-Clos property the router's route cache relies on
    /// (router.cpp). Always true for generated fabrics.
    bool regularClos() const { return m_regularClos; }
    /// "" for a fabric as its spec builds it; degradedFabric() (fabric/degradation.h) sets the
    /// key of the link degradations it applied, so an evaluation reuses it only for those.
    const std::string &degradationKey() const { return m_degradationKey; }

private:
    FabricSpec m_spec;
    FabricGraphBox m_graph;
    std::vector<FabricLink> m_links; ///< copy of the edge bundles, indexed by id (fast access)
    std::vector<double> m_linkLatency, m_linkBandwidth; ///< per link id, as in m_links
    std::vector<Tier> m_linkTier;
    std::vector<NodeKind> m_linkSourceKind;
    std::vector<int> m_gpuToNic;
    std::vector<std::string> m_serverNames;
    std::vector<int> m_gpuVertex, m_nicVertex, m_scaleUpVertex;
    std::vector<int> m_leafVertex, m_spineVertex, m_superVertex, m_coreVertex;
    std::vector<int> m_nicLeaf, m_nicLeafPort; ///< per plane*servers*nics + server*nics + nic
    std::vector<std::string> m_cablingFindings;
    int m_nicsPerServer = 0;
    int m_domainServers = 1;
    int m_pods = 1;
    int m_zones = 1;
    int m_rails = 0;
    int m_planes = 1;
    bool m_regularClos = true;
    std::string m_degradationKey;

    friend class FabricBuilder;
    friend class FabricAssembly;
    friend Fabric degradedFabric(const Fabric &fabric, const std::vector<Degradation> &parts);
};

} // namespace railyard
