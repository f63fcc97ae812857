#pragma once

#include "fabric/fabric.h"

#include <boost/graph/adjacency_list.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace railyard {

struct RouteLumps;

/** One link of a route and the share of the flow's bytes it carries (ECMP splits < 1). */
struct RouteHop
{
    int link = -1;
    double share = 1.0;
};

/**
 * The NICs a route between servers leaves and enters by when they are not simply the GPUs' own:
 * what NCCL logged for a ring hop (scenario nccl_observed). Each end: a NIC index of that end's
 * server, -1 = the router's own choice (the GPU's affinity NIC, or its PXN detour).
 */
struct RouteNics
{
    std::int16_t src = -1; ///< the NIC the sender's server sends over
    std::int16_t dst = -1; ///< the NIC the receiver's server receives on
    /// NCCL's PXN: the sender hands the data over NVLink to the GPU that owns `src`, which
    /// sends it; otherwise a NIC other than the GPU's own is reached over the host's PCIe.
    bool pxn = false;
    bool any() const { return src >= 0 || dst >= 0; }
    bool operator==(const RouteNics &) const = default;
};

/**
 * Slot-to-slot routes over a Fabric. Inside a server: GPU -> scale-up switch -> GPU. Across
 * servers: GPU -> NIC (PCIe) -> leaf -> (spine -> (super-spine -> spine ->)) leaf -> NIC -> GPU,
 * with equal-cost paths split evenly at every hop (per-hop ECMP hashing, as switches do).
 * With PXN (NCCL's PCI x NVLink), a cross-rail transfer first moves over the scale-up domain to
 * the GPU whose NIC sits on the destination's rail and then stays on that rail.
 * A route may be given the NICs it uses (RouteNics, what NCCL logged): a GPU sending over a NIC
 * other than its own reaches it over the host's PCIe (its own PCIe link, then the one into that
 * NIC: the two PCIe switches' ends of the host path; the CPU root complex between them is no
 * link of the fabric), or with PXN over NVLink to that NIC's GPU; receiving works the same way
 * round.
 *
 * Leaf-to-leaf ECMP splits are computed once (Boost.Graph BFS on the switch graph) and cached
 * as up and down halves per leaf and per pod, so routing a flow costs a few vector appends
 * (O(route length), no allocation once warm). Not thread-safe (the cache is filled lazily).
 */
class Router
{
public:
    /// `failedLeaves` (per leaf, 1 = failed; empty = none): with several network planes
    /// (FabricSpec::planes) a NIC's traffic avoids its ports on failed leaves and splits over
    /// the planes it has left. With one plane a failed leaf's slots hold no rank, so no route
    /// reaches it anyway.
    explicit Router(const Fabric &fabric, std::vector<char> failedLeaves = {});
    const std::vector<char> &failedLeaves() const { return m_failedLeaves; }

    /// The hops of the route from slot `src` to slot `dst`; empty when src == dst.
    /// The span stays valid until the next call.
    std::span<const RouteHop> route(int srcSlot, int dstSlot);
    /// The same from and to the NICs `nics` names (see RouteNics; a NIC whose port is not
    /// cabled, or none in the same scale-up domain, is the GPU's own).
    std::span<const RouteHop> route(int srcSlot, int dstSlot, RouteNics nics);

    /// One-way latency of the route (sum of link latencies along one shortest path), seconds.
    double latency(int srcSlot, int dstSlot);
    /// latency() and the highest tier the route reaches (ScaleUp for src == dst), without
    /// listing its hops.
    double latency(int srcSlot, int dstSlot, Tier &reach);
    /// The same over the NICs `nics` names.
    double latency(int srcSlot, int dstSlot, RouteNics nics, Tier &reach);

    const Fabric &fabric() const { return m_fabric; }
    /// Whether every route segment was built up front from the folded-Clos structure
    /// (routerclos.cpp) rather than by an ECMP sweep per leaf pair on demand.
    bool foldedClos() const { return m_foldedClos; }
    /// Several network planes, each a copy of plane 0 and none with a failed leaf: every
    /// segment holds the hops of all planes (routerplanes.cpp), and a NIC's ports up (down)
    /// are one segment of 1 / planes of the flow per port.
    bool planesMerged() const { return m_planesMerged; }

    /**
     * A route as its fixed end links (GPU, PCIe, NIC and PXN hops, each carrying the whole flow)
     * plus the ids of its cached leaf-to-leaf segments. Loads are linear, so a caller can add up
     * demand per segment and spread it over the segment's links once, instead of once per flow
     * (a cross-pod route spreads over hundreds of super-spine links).
     */
    struct Parts
    {
        /// Up to 4 links before the switch part, 3 after it (a NIC reached over the host path:
        /// NIC port, the PCIe into the NIC's switch, the GPU's own PCIe), and with several
        /// network planes one NIC port up and one down per plane (kMaxPlanes in
        /// fabricbuilder.h).
        static constexpr int kMaxEnds = 7 + 2 * 16;
        std::array<int, kMaxEnds> ends {};
        /// The share of the flow each end link carries: 1, or 1 / planes on a NIC port.
        std::array<double, kMaxEnds> endShares {};
        int endCount = 0;
        /// Up to 6 switch parts (four tiers, across zones) and, planes merged, the NIC's ports
        /// up and down (routerplanes.cpp).
        std::array<int, 8> segments {};
        int segmentCount = 0;
        double latency = 0.0; ///< of the whole route, seconds (as latency())
    };
    void routeParts(int srcSlot, int dstSlot, Parts &out);
    /// The same over the NICs `nics` names (routes that start or end at another NIC).
    void routeParts(int srcSlot, int dstSlot, RouteNics nics, Parts &out);
    /// The hops of a segment id from routeParts() (shares of one unit entering the segment).
    std::span<const RouteHop> segmentHops(int segment) const;
    /// Segment ids lie in [0, segmentIdLimit()).
    int segmentIdLimit() const;
    /// The lumps of links the segments load together (fabric/routelumps.h), found on first use
    /// and kept: every traffic model built on this router reads the same ones.
    const RouteLumps &lumps();

private:
    /// A cached run of hops: [offset, offset + count) of m_arena, and the latency of one of them.
    struct Segment
    {
        std::uint32_t offset = kUnset;
        std::uint32_t count = 0;
        double latency = 0.0;
        Tier reach = Tier::ScaleUp; ///< the highest tier of its hops (finishSegment())
    };
    /// Sets `seg.count` to the hops appended to the arena since `seg.offset`, and its reach:
    /// read once here rather than from the fabric's tier per hop on every latency() call.
    void finishSegment(Segment &seg);
    static constexpr std::uint32_t kUnset = 0xffffffffu;
    /// The parts of a leaf-to-leaf route (see router.cpp): up to the spines, up to the
    /// super-spines, up to the cores, down to the super-spines, down to the spines, down to the
    /// leaf (the core parts only with four tiers).
    enum Part { SpineUp = 0, SuperUp, CoreUp, CoreDown, SuperDown, SpineDown, kPartCount };
    /// How far apart two leaves are: the same pod, another pod of the zone, another zone.
    enum Reach { SamePod = 0, SameZone = 1, OtherZone = 2 };
    Reach reachOf(int srcLeaf, int dstLeaf) const
    {
        const auto s = static_cast<std::size_t>(srcLeaf), d = static_cast<std::size_t>(dstLeaf);
        if (m_leafPod[s] == m_leafPod[d])
            return SamePod;
        return m_leafZone[s] == m_leafZone[d] ? SameZone : OtherZone;
    }
    /// Four tiers: the first segment id of the parts only four tiers have (segmentHops()).
    int fourTierSegmentBase() const;

    /// Links of a route outside the leaf-to-leaf part (at most 4 before it, 3 after it).
    struct Ends
    {
        std::array<int, 4> head {};
        int headCount = 0;
        int srcLeaf = -1; ///< -1: no switch part (same server)
        int dstLeaf = -1;
        /// Several planes: the NICs (server * nics + nic) whose ports carry the flow, the
        /// NIC-to-NIC part being one segment (nicPairSegment()); -1 otherwise.
        int srcNic = -1;
        int dstNic = -1;
        std::array<int, 3> tail {};
        int tailCount = 0;
    };

    void ends(int srcSlot, int dstSlot, Ends &out) const { ends(srcSlot, dstSlot, {}, out); }
    void ends(int srcSlot, int dstSlot, RouteNics nics, Ends &out) const;
    /// The routes' ends by the general path (ends()) into `out`, its switch parts after them.
    void generalParts(int srcSlot, int dstSlot, RouteNics nics, Parts &out);
    /// The latency of the route ends() gave, its switch part included, raising `reach`.
    double endsLatency(const Ends &e, Tier &reach);
    /// `nics` with each end that names no usable NIC (out of range, its port not cabled, the
    /// GPU's own without PXN) left to the router: the GPUs' own ends take the fast paths.
    RouteNics usableNics(int srcSlot, int dstSlot, RouteNics nics) const;
    /// The switch part of a route: the factorised parts (regular Clos) or the leaf pair's one
    /// segment (any other fabric).
    int switchParts(int srcLeaf, int dstLeaf, std::array<const Segment *, kPartCount> &parts);
    /// Adds the switch part's latency to `sum` part by part, raising `reach` to its tiers.
    void addSwitchLatency(int srcLeaf, int dstLeaf, double &sum, Tier &reach);
    /// Appends the switch part's segment ids to `out` and adds their latencies.
    void addSwitchParts(int srcLeaf, int dstLeaf, Parts &out);
    /// Fabrics that are no regular Clos (Fabric::regularClos()): one cached segment per leaf
    /// pair, its index in m_pairs (computed on a miss).
    int pairSegment(int srcLeaf, int dstLeaf);
    int pairSegmentBase() const;
    /// Several planes: the cached segment (index in m_pairs) from NIC srcNic's ports to NIC
    /// dstNic's ports, an even split over the planes where both ports' leaves are healthy.
    int nicPairSegment(int srcNic, int dstNic);
    /// The ECMP sweep from srcLeaf to dstLeaf into m_pairHops (level by level).
    void sweep(int srcLeaf, int dstLeaf);
    /// The cached parts of the route srcLeaf -> dstLeaf (computed on a miss); srcLeaf != dstLeaf.
    int leafToLeaf(int srcLeaf, int dstLeaf, std::array<const Segment *, kPartCount> &parts);
    std::array<Segment *, kPartCount> slots(int srcLeaf, int dstLeaf, Reach reach);
    void computeLeafPair(int srcLeaf, int dstLeaf);
    const std::vector<int> &distancesTo(int dstLeaf);
    /// Whether the switch graph is a folded Clos (routerclos.cpp); then every segment is built
    /// up front by buildClosSegments() and no leaf pair needs an ECMP sweep.
    bool isFoldedClos() const;
    void buildClosSegments();
    /// The hops buildClosSegments() and, planes merged, the NIC ports' segments append to the
    /// arena, counted from the switch links so that the arena is allocated once.
    std::size_t closArenaHops() const;
    /// Whether planes 1.. are copies of plane 0, switch by switch and link by link, and every
    /// NIC port p sits on plane 0's leaf of its port 0 shifted by p planes (routerplanes.cpp).
    bool planesAreTwins() const;
    /// The switch of plane p that plays switch u's part in plane 0.
    int twinOf(int u, int plane) const
    {
        const auto kind = static_cast<std::size_t>(m_switchKind[static_cast<std::size_t>(u)])
            - static_cast<std::size_t>(NodeKind::Leaf);
        return u + plane * m_planeStride[kind];
    }
    /// Appends to `seg` the hop of adjacency entry i of switch u (plane 0) with `share`, or,
    /// planes merged, that hop in every plane with share / planes.
    void pushHop(Segment &seg, int u, int i, double share);
    /// Whether switch v takes part in the folded-Clos parts (with planes merged: plane 0 only).
    bool closSwitch(int v) const
    {
        return !m_planesMerged || m_switchPlane[static_cast<std::size_t>(v)] == 0;
    }
    /// Planes merged: appends the NIC ports (ends of 1 / planes each) and the switch parts of
    /// the route from NIC srcNic to NIC dstNic (server * nics + nic), and their latency.
    void addMergedPlanes(int srcNic, int dstNic, Parts &out);
    /// Planes merged: the latency and reach of the NIC-to-NIC part.
    double mergedPlanesLatency(int srcNic, int dstNic, Tier &reach);

    const Fabric &m_fabric;
    std::vector<RouteHop> m_scratch;
    // implementation-defined caches follow (see router.cpp)
    /// The switch subgraph for the BFS of a sweep (leaves 0..L-1, spines, super-spines, cores),
    /// built on first use from m_adj: its structure alone, which is all the BFS reads, each
    /// vertex's out-edges in m_adj's order.
    /// Held in an optional and emplaced: Boost 1.74's adjacency_list has no move assignment.
    using SwitchGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    std::optional<SwitchGraph> m_switches;
    std::vector<int> m_switchVertex; ///< per switch (compact index): its fabric vertex
    std::vector<int> m_adjOffset; ///< CSR copy of m_switches for the ECMP sweep
    std::vector<std::pair<int, int>> m_adj; ///< (neighbour, link id)
    std::vector<int> m_leafPod, m_leafZone;
    /// Per switch (index in m_switches): its kind and pod (super-spines: -1).
    std::vector<NodeKind> m_switchKind;
    std::vector<int> m_switchPod;
    std::vector<int> m_switchZone; ///< leaves, spines, super-spines: their zone (0 below 4 tiers)
    bool m_fourTier = false; ///< the fabric has cores (Fabric::coreCount())
    bool m_foldedClos = false;
    bool m_planesMerged = false;
    /// The leaf-to-leaf part is the factorised parts (a regular Clos, or merged planes); else
    /// one segment per leaf pair.
    bool m_closParts = false;
    std::vector<int> m_switchPlane; ///< per switch: its network plane
    std::array<int, 4> m_planeStride {}; ///< per switch kind from Leaf: switches per plane
    std::vector<std::vector<int>> m_distance; ///< per destination leaf (BFS hop counts), lazily
    std::size_t m_distanceEntries = 0;
    std::vector<RouteHop> m_arena; ///< hops of every cached segment
    std::array<std::vector<Segment>, 2> m_spineUp; ///< [within pod, across pods][leaf]
    std::array<std::vector<Segment>, 3> m_spineDown; ///< [Reach][leaf]
    std::vector<Segment> m_superUp; ///< [pod]
    std::array<std::vector<Segment>, 2> m_superDown; ///< [from the zone, from another zone][pod]
    std::vector<Segment> m_coreUp, m_coreDown; ///< [zone], four tiers
    std::vector<Segment> m_pairs; ///< per leaf pair, fabrics that are no regular Clos
    std::unordered_map<std::uint64_t, int> m_pairOf; ///< (src << 32 | dst) -> index in m_pairs
    std::unordered_map<std::uint64_t, int> m_nicPairOf; ///< the same for NIC pairs (planes)
    std::vector<char> m_failedLeaves;
    std::shared_ptr<const RouteLumps> m_lumps; ///< lumps(), once asked for
    std::vector<RouteHop> m_nicPairHops; ///< scratch of nicPairSegment()
    // Fixed links per slot / per server NIC, looked up once.
    /// per (plane * servers + server) * nics + nic: NIC port -> leaf, leaf -> NIC port
    std::vector<int> m_nicUp, m_nicDown;
    std::vector<int> m_proxyGpu; ///< per NIC index: PXN proxy GPU (affinity), -1
    /// Per slot, what ends() asks of the fabric for every flow (each a division or a lookup
    /// in the fabric): its server, scale-up domain, affinity NIC index and that NIC's leaf.
    /// The links out of and into the slot inside its scale-up domain (GPU <-> NVSwitch) and
    /// over PCIe to its NIC, for every fabric (ends() reads them). Then what a route's ends
    /// take on a single-plane fabric (m_slotEnds), read from this one record instead of a
    /// dozen arrays: its NIC's port to the leaf and back,
    /// their latencies as latency() and routeParts() add them (sums start at 0, so the first
    /// terms of a route's sum are the same number summed ahead of time), and the highest tier
    /// of each side.
    struct SlotPlace
    {
        int server = -1;
        int domain = -1;
        int nic = -1;
        int leaf = -1;
        int gpuUp = -1, gpuDown = -1;
        int pcieUp = -1, nicUp = -1, nicDown = -1, pcieDown = -1;
        double gpuUpLatency = 0.0; ///< 0 + GPU -> scale-up switch
        double gpuDownLatency = 0.0;
        double upLatency = 0.0; ///< 0 + PCIe up + NIC -> leaf
        double nicDownLatency = 0.0, pcieDownLatency = 0.0;
        Tier gpuUpReach = Tier::ScaleUp, gpuDownReach = Tier::ScaleUp;
        Tier upReach = Tier::ScaleUp, downReach = Tier::ScaleUp;
    };
    std::vector<SlotPlace> m_slots;
    /// Single plane with NICs: a route between two domains that takes no PXN detour runs
    /// PCIe, NIC port, switch parts, NIC port, PCIe, all from the two SlotPlaces.
    bool m_slotEnds = false;
    /// Whether the route from `src` to `dst` (distinct domains) hops to a PXN proxy first.
    bool pxnDetour(const SlotPlace &src, const SlotPlace &dst) const
    {
        return m_pxnRoutes && src.nic != dst.nic
            && m_proxyGpu[static_cast<std::size_t>(dst.nic)] >= 0;
    }
    bool m_pxnRoutes = false; ///< cross-rail sends hop to the destination rail's GPU first
    // ECMP sweep scratch (per switch flow, level frontiers, the hops of one leaf pair).
    std::vector<double> m_flow;
    std::vector<int> m_frontier, m_next;
    std::vector<RouteHop> m_pairHops;
    std::vector<int> m_pairLevelStart; ///< index in m_pairHops of each level's first hop
};

} // namespace railyard
