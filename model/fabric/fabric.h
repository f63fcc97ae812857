#pragma once

#include "base/units.h"
#include "fabric/fabricspec.h"

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <unordered_map>
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
    // A value composed by Fabric::link() from what the fabric keeps per link (its ends and its
    // class, see Fabric's private part); no container of the engine holds FabricLinks.
    int id = -1; ///< dense index, 0..linkCount()-1: engine results are indexed by it
    int reverse = -1; ///< id of the opposite direction
    int src = -1; ///< vertex index
    int dst = -1;
    int ports = 1;
    Tier tier = Tier::ScaleUp;
    double bandwidth = 0.0; ///< bytes per second, this direction
    double latency = 0.0; ///< seconds
};

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

    int linkCount() const { return static_cast<int>(m_linkEnds.size()); }
    /// Link `id` whole. A link's two directions are ids 2k and 2k + 1 (reverse = id ^ 1).
    FabricLink link(int id) const
    {
        const LinkEnds &e = m_linkEnds[static_cast<std::size_t>(id)];
        const LinkClass &c = linkClass(id);
        return FabricLink { id, id ^ 1, e.src, e.dst, c.ports, c.tier, c.bandwidth, c.latency };
    }
    /// link(id)'s figures one at a time: routing and the load accounting read them for one
    /// link after another in no order, through the 4-byte class index per link.
    double linkLatency(int id) const { return linkClass(id).latency; }
    double linkBandwidth(int id) const { return linkClass(id).bandwidth; }
    Tier linkTier(int id) const { return linkClass(id).tier; }
    /// The kind of link(id)'s source node.
    NodeKind linkSourceKind(int id) const { return linkClass(id).sourceKind; }
    int linkSource(int id) const { return m_linkEnds[static_cast<std::size_t>(id)].src; }
    int linkTarget(int id) const { return m_linkEnds[static_cast<std::size_t>(id)].dst; }

    /// Every link in id order, each a FabricLink composed by link(): a forward range (range-for,
    /// the standard algorithms, a vector's assign()), with size() and [i].
    class LinkRange
    {
    public:
        class iterator
        {
        public:
            using iterator_category = std::forward_iterator_tag; // a value, not a reference
            using value_type = FabricLink;
            using difference_type = std::ptrdiff_t;
            using pointer = void;
            using reference = FabricLink;
            iterator() = default;
            FabricLink operator*() const { return m_fabric->link(m_id); }
            iterator &operator++()
            {
                ++m_id;
                return *this;
            }
            iterator operator++(int)
            {
                iterator was = *this;
                ++m_id;
                return was;
            }
            bool operator==(const iterator &o) const { return m_id == o.m_id; }

        private:
            friend class LinkRange;
            iterator(const Fabric *fabric, int id)
                : m_fabric(fabric)
                , m_id(id)
            {
            }
            const Fabric *m_fabric = nullptr;
            int m_id = 0;
        };
        iterator begin() const { return iterator(m_fabric, 0); }
        iterator end() const { return iterator(m_fabric, m_fabric->linkCount()); }
        std::size_t size() const { return static_cast<std::size_t>(m_fabric->linkCount()); }
        bool empty() const { return size() == 0; }
        FabricLink operator[](std::size_t id) const { return m_fabric->link(static_cast<int>(id)); }

    private:
        friend class Fabric;
        explicit LinkRange(const Fabric *fabric)
            : m_fabric(fabric)
        {
        }
        const Fabric *m_fabric;
    };
    LinkRange links() const { return LinkRange(this); }
    /// How many distinct sets of link figures the fabric keeps (see m_linkClasses).
    std::size_t linkClassCount() const { return m_linkClasses.size(); }
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
    // Per link only its ends (8 bytes) and the index of its class (4): the figures links share
    // - bandwidth, latency, ports, tier, the source's kind - are kept once per class, a handful
    // in a generated fabric. A FabricLink per link with columns of its latency, bandwidth, tier
    // and source kind beside it took 58 bytes a link, 610 MB to fault in at a million GPUs'
    // 10.6 million links against 130 MB (docs/performance.md).
    struct LinkEnds
    {
        int src = -1;
        int dst = -1;
    };
    struct LinkClass
    {
        double bandwidth = 0.0; ///< bytes per second, this direction
        double latency = 0.0; ///< seconds
        int ports = 1;
        Tier tier = Tier::ScaleUp;
        NodeKind sourceKind = NodeKind::Gpu;
        bool operator==(const LinkClass &) const = default;
    };
    /// Finds a link class in m_linkClasses or appends it: the assembly's 10 million lookups hit
    /// the last two classes found (a cable's two directions), the rest search a hash index.
    class LinkClassIndex
    {
    public:
        explicit LinkClassIndex(std::vector<LinkClass> &classes);
        std::uint32_t find(const LinkClass &c);

    private:
        struct Hash
        {
            std::size_t operator()(const LinkClass &c) const noexcept;
        };
        std::vector<LinkClass> &m_classes;
        std::unordered_map<LinkClass, std::uint32_t, Hash> m_index;
        std::array<std::uint32_t, 2> m_recent { kNone, kNone };
        static constexpr std::uint32_t kNone = 0xffffffffu;
    };
    const LinkClass &linkClass(int id) const
    {
        return m_linkClasses[m_linkClass[static_cast<std::size_t>(id)]];
    }
    /// Gives link `id` new figures (its own class, shared with links alike): the edits of
    /// withBandwidthScaled() and degradedFabric().
    void setLinkFigures(int id, double bandwidth, double latency, LinkClassIndex &index);

    std::vector<LinkEnds> m_linkEnds; ///< per link id
    std::vector<std::uint32_t> m_linkClass; ///< per link id: its index in m_linkClasses
    std::vector<LinkClass> m_linkClasses;
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
