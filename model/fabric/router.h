#pragma once

#include "fabric/fabric.h"

#include <array>
#include <cstdint>
#include <memory>
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
 * Slot-to-slot routes over a Fabric. Inside a server: GPU -> scale-up switch -> GPU. Across
 * servers: GPU -> NIC (PCIe) -> leaf -> (spine -> (super-spine -> spine ->)) leaf -> NIC -> GPU,
 * with equal-cost paths split evenly at every hop (per-hop ECMP hashing, as switches do).
 * With PXN (NCCL's PCI x NVLink), a cross-rail transfer first moves over the scale-up domain to
 * the GPU whose NIC sits on the destination's rail and then stays on that rail.
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

    /// One-way latency of the route (sum of link latencies along one shortest path), seconds.
    double latency(int srcSlot, int dstSlot);
    /// latency() and the highest tier the route reaches (ScaleUp for src == dst), without
    /// listing its hops.
    double latency(int srcSlot, int dstSlot, Tier &reach);

    const Fabric &fabric() const { return m_fabric; }
    /// Whether every route segment was built up front from the folded-Clos structure
    /// (routerclos.cpp) rather than by an ECMP sweep per leaf pair on demand.
    bool foldedClos() const { return m_foldedClos; }

    /**
     * A route as its fixed end links (GPU, PCIe, NIC and PXN hops, each carrying the whole flow)
     * plus the ids of its cached leaf-to-leaf segments. Loads are linear, so a caller can add up
     * demand per segment and spread it over the segment's links once, instead of once per flow
     * (a cross-pod route spreads over hundreds of super-spine links).
     */
    struct Parts
    {
        std::array<int, 6> ends {};
        int endCount = 0;
        std::array<int, 4> segments {};
        int segmentCount = 0;
        double latency = 0.0; ///< of the whole route, seconds (as latency())
    };
    void routeParts(int srcSlot, int dstSlot, Parts &out);
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
    /// super-spines, down to the spines, down to the leaf.
    enum Part { SpineUp = 0, SuperUp, SuperDown, SpineDown, kPartCount };

    /// Links of a route outside the leaf-to-leaf part (at most 4 before it, 2 after it).
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
        std::array<int, 2> tail {};
        int tailCount = 0;
    };

    void ends(int srcSlot, int dstSlot, Ends &out) const;
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
    std::array<Segment *, kPartCount> slots(int srcLeaf, int dstLeaf, bool acrossPods);
    void computeLeafPair(int srcLeaf, int dstLeaf);
    const std::vector<int> &distancesTo(int dstLeaf);
    /// Whether the switch graph is a folded Clos (routerclos.cpp); then every segment is built
    /// up front by buildClosSegments() and no leaf pair needs an ECMP sweep.
    bool isFoldedClos() const;
    void buildClosSegments();

    const Fabric &m_fabric;
    std::vector<RouteHop> m_scratch;
    // implementation-defined caches follow (see router.cpp)
    FabricGraph m_switches; ///< switch subgraph: leaves 0..L-1, spines, super-spines
    std::vector<int> m_adjOffset; ///< CSR copy of m_switches for the ECMP sweep
    std::vector<std::pair<int, int>> m_adj; ///< (neighbour, link id)
    std::vector<int> m_leafPod;
    /// Per switch (index in m_switches): its kind and pod (super-spines: -1).
    std::vector<NodeKind> m_switchKind;
    std::vector<int> m_switchPod;
    bool m_foldedClos = false;
    std::vector<std::vector<int>> m_distance; ///< per destination leaf (BFS hop counts), lazily
    std::size_t m_distanceEntries = 0;
    std::vector<RouteHop> m_arena; ///< hops of every cached segment
    std::array<std::vector<Segment>, 2> m_spineUp, m_spineDown; ///< [within pod, across pods][leaf]
    std::vector<Segment> m_superUp, m_superDown; ///< [pod]
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
