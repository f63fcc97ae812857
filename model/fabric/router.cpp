#include "fabric/router.h"

#include "base/scenarioerror.h"
#include "base/writeahead.h"
#include "fabric/routelumps.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>
#include <string>

/*
 * Routing model.
 *
 * Fixed parts: GPU -> NIC over PCIe, NIC -> leaf, leaf -> NIC, NIC -> GPU each carry the whole
 * flow (share 1); inside a scale-up domain the flow crosses its NVLink switch (GPU -> NVSwitch ->
 * GPU), also between two trays of one rack-scale domain (GB200 NVL72: the 72 GPUs of 18 trays
 * share one NVLink switch system, so tray-to-tray traffic never reaches a NIC).
 *
 * Leaf to leaf: shortest paths on the switch subgraph (leaves, spines, super-spines; the GPUs,
 * NICs and scale-up switches are left out, so no path "turns" inside a server). A Boost.Graph
 * breadth_first_search from the destination leaf gives every switch its hop distance; a switch at
 * distance k splits the flow it receives evenly over its neighbours at distance k-1 (per-hop
 * ECMP, as a switch hashing flows over equal-cost ports does; RFC 2992 analyses this). A bundle
 * of parallel cables is one logical link and so one next hop: every leaf's bundles to its spines
 * are equal in our generated Clos fabrics, so per-port and per-bundle splitting agree there.
 * Flows that meet at a switch are merged level by level, so every link appears once in a route,
 * and the shares crossing each tier in one direction sum to 1.
 *
 * PXN (NCCL >= 2.12, "PCI x NVLink"): when the destination NIC is on another rail, the source
 * hands the data over NVLink to the GPU of its own server whose affinity NIC is on the
 * destination rail, which sends it; the transfer then stays on one rail leaf inside an SU.
 * A rail-only fabric (no spine; Wang et al., arXiv 2307.12169: cross-rail traffic is forwarded
 * inside the high-bandwidth domain) always routes so: a cross-rail flow between servers crosses the
 * source's scale-up domain to the proxy GPU and then its rail switch, the NVLink hop carrying the
 * bytes.
 *
 * Network planes (FabricSpec::planes; Alibaba HPN, SIGCOMM 2024, dual-plane, and DeepSeek-V3,
 * arXiv 2412.19437, section 3.4): a NIC's flow is split evenly over its ports, one per plane,
 * as NCCL spreads its QPs over both ports of an HPN dual-port NIC; inside a plane it is routed
 * as above. Ports on failed leaves carry nothing: the NIC's flow splits over the planes left,
 * so a dual-plane NIC that loses a leaf keeps half its bandwidth. When no leaf has failed and
 * the planes are copies of plane 0 (generated fabrics), plane 0's cached parts stand for every
 * plane (routerplanes.cpp); otherwise each NIC pair's ports-to-ports part is cached as one
 * segment.
 *
 * Caching. In the folded Clos networks our generators build (fabric.cpp), a shortest
 * leaf-to-leaf path goes up to the lowest tier the two leaves share (the pod's spines, or the
 * super-spines across pods) and back down, and the ECMP split factorises: the upward half
 * depends only on the source leaf and its pod (every leaf reaches all spines of its pod, spine j
 * of every pod reaches all super-spines of plane j, so every top switch receives the same share),
 * the downward half only on the destination leaf and its pod, since the way down from a top
 * switch to a leaf is unique (Al-Fares et al., SIGCOMM 2008, section 3.3: two-level tables spread
 * traffic upward, downward routing is by destination only). A route is
 * therefore cached in four parts, leaf -> spines and spines -> leaf per leaf (keyed by whether the
 * route stays in the pod), spines -> super-spines and super-spines -> spines per pod. With four
 * tiers (cores above zones of pods) a route between zones adds super-spines -> cores per source
 * zone and cores -> super-spines per destination zone, and its downward parts are keyed by
 * "from another zone" (what reaches a pod's spines from the cores may differ from what another
 * pod of the zone sends: Router::Reach). When the
 * switch graph is such a folded Clos (checked link by link, isFoldedClos()), every part is built
 * up front from the switch links in one pass (routerclos.cpp); otherwise a miss runs the general
 * BFS + ECMP sweep for that leaf pair (routersweep.cpp) and stores its hops by part. The parts hold
 * O(leaves x spines per pod + pods x spine-super links) hops (74k for 16,384 GPUs), so they
 * never thrash; tests check routes against an independent ECMP computation.
 *
 * A fabric read from a cabling inventory need not be such a Clos network (a leaf missing a
 * spine cable, a super-spine missing a pod): the upward split then depends on the destination,
 * so the router caches one segment per leaf pair instead (Fabric::regularClos() says which).
 * That cache grows with the leaf pairs traffic actually uses, at most leaves^2 segments.
 */
namespace railyard {

namespace {

/// The link from `from` to `to`, given `link`, the one from `to` to `from` (-1: none, then
/// searched).
int reverseOf(const Fabric &f, int link, int from, int to)
{
    return link >= 0 ? f.link(link).reverse : f.linkBetween(from, to);
}

} // namespace

Router::Router(const Fabric &fabric, std::vector<char> failedLeaves)
    : m_fabric(fabric)
    , m_failedLeaves(std::move(failedLeaves))
{
    const Fabric &f = fabric;
    const int switches = f.leafCount() + f.spineCount() + f.superSpineCount() + f.coreCount();

    // The switches, compactly numbered: leaves, spines, super-spines, cores. The switch
    // subgraph as a Boost graph is built only when a sweep needs it (switchGraph()): at a
    // million GPUs its copy of every switch link cost a tenth of the evaluation and 400 MB.
    std::vector<int> compact(boost::num_vertices(f.graph()), -1);
    m_switchVertex.reserve(static_cast<std::size_t>(switches));
    const auto addSwitch = [&](int vertex) {
        compact[static_cast<std::size_t>(vertex)] = static_cast<int>(m_switchVertex.size());
        m_switchVertex.push_back(vertex);
    };
    for (int i = 0; i < f.leafCount(); ++i)
        addSwitch(f.leafVertex(i));
    for (int i = 0; i < f.spineCount(); ++i)
        addSwitch(f.spineVertex(i));
    for (int i = 0; i < f.superSpineCount(); ++i)
        addSwitch(f.superSpineVertex(i));
    for (int i = 0; i < f.coreCount(); ++i)
        addSwitch(f.coreVertex(i));

    // Fixed links, looked up once so that route() never searches adjacency.
    const int slots = f.slotCount();
    const int nics = f.nicsPerServer();
    m_slots.reserve(static_cast<std::size_t>(slots));
    aboutToWriteReserved(m_slots);
    m_slots.resize(static_cast<std::size_t>(slots));
    for (int slot = 0; slot < slots; ++slot) {
        const int server = f.serverOfSlot(slot);
        const int gpu = f.gpuVertex(slot);
        const int scaleUp = f.scaleUpVertex(server);
        const int nicIndex = f.nicOfGpu(f.gpuOfSlot(slot));
        const int nic = f.nicVertex(server, nicIndex);
        const auto at = static_cast<std::size_t>(slot);
        // Each link found from its lower end (a GPU or NIC has a few neighbours where a switch
        // has up to its radix), the other direction as its reverse.
        SlotPlace &place = m_slots[at];
        place.gpuUp = f.linkBetween(gpu, scaleUp);
        place.gpuDown = reverseOf(f, place.gpuUp, scaleUp, gpu);
        place.pcieUp = f.linkBetween(gpu, nic);
        place.pcieDown = reverseOf(f, place.pcieUp, nic, gpu);
        place.server = server;
        place.domain = f.scaleUpDomainOfSlot(slot);
        place.nic = nicIndex;
        place.leaf = nics > 0 ? f.leafOfNic(server, nicIndex) : -1;
    }
    m_pxnRoutes = (f.spec().pxn || f.railOnly()) && f.railCount() > 0;
    const int planes = f.planeCount();
    m_nicUp.assign(static_cast<std::size_t>(planes * f.servers() * nics), -1);
    m_nicDown.assign(static_cast<std::size_t>(planes * f.servers() * nics), -1);
    for (int plane = 0; plane < planes; ++plane) {
        for (int server = 0; server < f.servers(); ++server) {
            for (int i = 0; i < nics; ++i) {
                if (f.leafOfNicPort(server, i, plane) < 0)
                    continue; // its GPUs hold no rank (usableSlots()), so no route starts there
                const int nic = f.nicVertex(server, i);
                const int leaf = f.leafVertex(f.leafOfNicPort(server, i, plane));
                const auto at = static_cast<std::size_t>((plane * f.servers() + server) * nics + i);
                m_nicUp[at] = f.linkBetween(nic, leaf);
                m_nicDown[at] = reverseOf(f, m_nicUp[at], leaf, nic);
            }
        }
    }
    m_proxyGpu.assign(static_cast<std::size_t>(nics), -1);
    for (int g = f.gpusPerServer() - 1; g >= 0; --g) // the lowest GPU index wins
        m_proxyGpu[static_cast<std::size_t>(f.nicOfGpu(g))] = g;
    // The ends' links and latencies per slot (SlotPlace), added in the order of latency()'s and
    // routeParts()' sums. A port on a failed leaf (link -1) is never routed (its GPUs hold no
    // rank): it adds nothing here.
    const auto latencyOf = [&](int link) { return link >= 0 ? f.linkLatency(link) : 0.0; };
    const auto tierOf = [&](int link) { return link >= 0 ? f.linkTier(link) : Tier::ScaleUp; };
    for (int slot = 0; slot < slots; ++slot) {
        const auto at = static_cast<std::size_t>(slot);
        SlotPlace &place = m_slots[at];
        place.gpuUpLatency = latencyOf(place.gpuUp);
        place.gpuDownLatency = latencyOf(place.gpuDown);
        place.gpuUpReach = std::max(Tier::ScaleUp, tierOf(place.gpuUp));
        place.gpuDownReach = std::max(Tier::ScaleUp, tierOf(place.gpuDown));
        if (nics == 0 || planes != 1)
            continue;
        const auto port = static_cast<std::size_t>(place.server * nics + place.nic);
        place.nicUp = m_nicUp[port];
        place.nicDown = m_nicDown[port];
        place.upLatency = latencyOf(place.pcieUp) + latencyOf(place.nicUp); // 0 + a + b
        place.nicDownLatency = latencyOf(place.nicDown);
        place.pcieDownLatency = latencyOf(place.pcieDown);
        place.upReach = std::max({ Tier::ScaleUp, tierOf(place.pcieUp), tierOf(place.nicUp) });
        place.downReach
            = std::max({ Tier::ScaleUp, tierOf(place.nicDown), tierOf(place.pcieDown) });
    }
    m_slotEnds = nics > 0 && planes == 1;

    // CSR adjacency of the switch subgraph: the ECMP sweep reads it many times. A vertex's out
    // edges are in the order of their link ids (FabricAssembly::addCable()).
    m_adjOffset.assign(static_cast<std::size_t>(switches) + 1, 0);
    // Counted first: grown by doubling, the copies touched as much memory again (67 MB of
    // switch links at a million GPUs in four tiers).
    std::size_t adjacent = 0;
    for (const int v : m_switchVertex)
        for (auto [it, end] = boost::out_edges(static_cast<FabricVertex>(v), f.graph()); it != end;
             ++it)
            adjacent += compact[boost::target(*it, f.graph())] >= 0;
    m_adj.reserve(adjacent);
    for (int u = 0; u < switches; ++u) {
        const auto vertex = static_cast<FabricVertex>(m_switchVertex[static_cast<std::size_t>(u)]);
        for (auto [it, end] = boost::out_edges(vertex, f.graph()); it != end; ++it) {
            const int to = compact[boost::target(*it, f.graph())];
            if (to >= 0)
                m_adj.emplace_back(to, f.graph()[*it].id);
        }
        m_adjOffset[static_cast<std::size_t>(u) + 1] = static_cast<int>(m_adj.size());
    }

    const auto leaves = static_cast<std::size_t>(f.leafCount());
    m_leafPod.resize(leaves);
    m_leafZone.resize(leaves);
    for (int i = 0; i < f.leafCount(); ++i) {
        m_leafPod[static_cast<std::size_t>(i)] = std::max(0, f.node(f.leafVertex(i)).pod);
        m_leafZone[static_cast<std::size_t>(i)] = std::max(0, f.node(f.leafVertex(i)).zone);
    }
    m_fourTier = f.coreCount() > 0;
    m_distance.resize(leaves);
    const auto pods = static_cast<std::size_t>(std::max(1, f.podCount()));
    const auto zones = static_cast<std::size_t>(std::max(1, f.zoneCount()));
    for (std::size_t k = 0; k < 2; ++k)
        m_spineUp[k].resize(leaves);
    for (std::size_t k = 0; k < (m_fourTier ? 3 : 2); ++k)
        m_spineDown[k].resize(leaves);
    m_superUp.resize(pods);
    m_superDown[0].resize(pods);
    if (m_fourTier) {
        m_superDown[1].resize(pods);
        m_coreUp.resize(zones);
        m_coreDown.resize(zones);
    }
    m_flow.assign(static_cast<std::size_t>(switches), 0.0);
    m_scratch.reserve(64);

    m_switchKind.resize(static_cast<std::size_t>(switches));
    m_switchPod.resize(static_cast<std::size_t>(switches));
    m_switchZone.resize(static_cast<std::size_t>(switches));
    for (int v = 0; v < switches; ++v) {
        const FabricNode &node = f.node(m_switchVertex[static_cast<std::size_t>(v)]);
        const bool top = node.kind == NodeKind::SuperSpine || node.kind == NodeKind::Core;
        m_switchKind[static_cast<std::size_t>(v)] = node.kind;
        m_switchPod[static_cast<std::size_t>(v)] = top ? -1 : std::max(0, node.pod);
        m_switchZone[static_cast<std::size_t>(v)]
            = node.kind == NodeKind::Core ? -1 : std::max(0, node.zone);
    }
    m_switchPlane.resize(static_cast<std::size_t>(switches));
    for (int v = 0; v < switches; ++v)
        m_switchPlane[static_cast<std::size_t>(v)]
            = std::max(0, f.node(m_switchVertex[static_cast<std::size_t>(v)]).netPlane);
    m_planeStride = { f.leafCount() / planes, f.spineCount() / planes, f.superSpineCount() / planes,
        f.coreCount() / planes };
    m_planesMerged = planesAreTwins();
    m_foldedClos = (f.regularClos() || m_planesMerged) && isFoldedClos();
    m_planesMerged = m_planesMerged && m_foldedClos;
    m_closParts = f.regularClos() || m_planesMerged;
    if (m_foldedClos) {
        // Allocated once and announced (base/writeahead.h): 120 MB of hops at a million GPUs
        // in four tiers, written whole by the parts that follow.
        m_arena.reserve(closArenaHops());
        aboutToWriteReserved(m_arena);
        buildClosSegments();
    }
    if (m_planesMerged) {
        // The NIC ports as segments, the first of m_pairs (with planes merged no leaf-pair or
        // NIC-pair segment is ever made): per NIC its ports up, then per NIC its ports down,
        // 1 / planes of the flow each. A NIC's flows then add their demand to one segment,
        // spread over its ports once per flush, where they were 2 x planes route ends each.
        const int nicCount = f.servers() * nics;
        const double w = 1.0 / planes;
        m_pairs.reserve(static_cast<std::size_t>(2 * nicCount));
        for (const std::vector<int> *side : { &m_nicUp, &m_nicDown }) {
            for (int n = 0; n < nicCount; ++n) {
                Segment seg;
                seg.offset = static_cast<std::uint32_t>(m_arena.size());
                seg.latency = f.linkLatency((*side)[static_cast<std::size_t>(n)]);
                for (int p = 0; p < planes; ++p)
                    m_arena.push_back({ (*side)[static_cast<std::size_t>(p * nicCount + n)], w });
                finishSegment(seg);
                m_pairs.push_back(seg);
            }
        }
    }
    // closArenaHops() counted every hop appended above (sanitizer and fuzz builds check it).
    assert(!m_foldedClos || m_arena.size() == m_arena.capacity());
}

std::span<const RouteHop> Router::route(int srcSlot, int dstSlot)
{
    return route(srcSlot, dstSlot, RouteNics {});
}

std::span<const RouteHop> Router::route(int srcSlot, int dstSlot, RouteNics nics)
{
    m_scratch.clear();
    if (srcSlot == dstSlot)
        return {};
    Ends e;
    ends(srcSlot, dstSlot, usableNics(srcSlot, dstSlot, nics), e);
    for (int i = 0; i < e.headCount; ++i)
        m_scratch.push_back({ e.head[static_cast<std::size_t>(i)], 1.0 });
    if (e.srcNic >= 0 && m_planesMerged) {
        // The NIC's ports up, the switch parts, its ports down (addMergedPlanes()).
        Parts parts;
        addMergedPlanes(e.srcNic, e.dstNic, parts);
        for (int i = 0; i < parts.segmentCount; ++i)
            for (const RouteHop &h : segmentHops(parts.segments[static_cast<std::size_t>(i)]))
                m_scratch.push_back(h);
    } else if (e.srcNic >= 0) {
        const Segment &seg = m_pairs[static_cast<std::size_t>(nicPairSegment(e.srcNic, e.dstNic))];
        const RouteHop *first = m_arena.data() + seg.offset;
        m_scratch.insert(m_scratch.end(), first, first + seg.count);
    }
    if (e.srcLeaf >= 0 && e.srcLeaf != e.dstLeaf) {
        std::array<const Segment *, kPartCount> parts {};
        const int n = switchParts(e.srcLeaf, e.dstLeaf, parts);
        for (int i = 0; i < n; ++i) {
            const Segment &seg = *parts[static_cast<std::size_t>(i)];
            const RouteHop *first = m_arena.data() + seg.offset;
            m_scratch.insert(m_scratch.end(), first, first + seg.count);
        }
    }
    for (int i = 0; i < e.tailCount; ++i)
        m_scratch.push_back({ e.tail[static_cast<std::size_t>(i)], 1.0 });
    return m_scratch;
}

void Router::routeParts(int srcSlot, int dstSlot, Parts &out)
{
    out.endCount = 0;
    out.segmentCount = 0;
    out.latency = 0.0;
    if (srcSlot == dstSlot)
        return;
    const SlotPlace &src = m_slots[static_cast<std::size_t>(srcSlot)];
    const SlotPlace &dst = m_slots[static_cast<std::size_t>(dstSlot)];
    if (src.domain == dst.domain) { // as ends(): GPU -> scale-up switch -> GPU
        out.ends[0] = src.gpuUp;
        out.ends[1] = dst.gpuDown;
        out.endShares[0] = out.endShares[1] = 1.0;
        out.endCount = 2;
        out.latency = src.gpuUpLatency + dst.gpuDownLatency;
        return;
    }
    if (m_slotEnds && !pxnDetour(src, dst)) {
        // ends()' head (PCIe, NIC port up), then its tail, then the switch parts, in the
        // order of the general path below.
        out.ends[0] = src.pcieUp;
        out.ends[1] = src.nicUp;
        out.ends[2] = dst.nicDown;
        out.ends[3] = dst.pcieDown;
        out.endShares[0] = out.endShares[1] = out.endShares[2] = out.endShares[3] = 1.0;
        out.endCount = 4;
        out.latency = src.upLatency;
        out.latency += dst.nicDownLatency;
        out.latency += dst.pcieDownLatency;
        if (src.leaf >= 0 && src.leaf != dst.leaf)
            addSwitchParts(src.leaf, dst.leaf, out);
        return;
    }
    generalParts(srcSlot, dstSlot, {}, out);
}

void Router::routeParts(int srcSlot, int dstSlot, RouteNics nics, Parts &out)
{
    if (srcSlot != dstSlot)
        nics = usableNics(srcSlot, dstSlot, nics);
    if (!nics.any() || srcSlot == dstSlot
        || m_slots[sz(srcSlot)].domain == m_slots[sz(dstSlot)].domain) {
        routeParts(srcSlot, dstSlot, out);
        return;
    }
    out.endCount = 0;
    out.segmentCount = 0;
    out.latency = 0.0;
    generalParts(srcSlot, dstSlot, nics, out);
}

void Router::generalParts(int srcSlot, int dstSlot, RouteNics nics, Parts &out)
{
    Ends e;
    ends(srcSlot, dstSlot, nics, e);
    for (int i = 0; i < e.headCount; ++i) {
        const int link = e.head[static_cast<std::size_t>(i)];
        out.endShares[static_cast<std::size_t>(out.endCount)] = 1.0;
        out.ends[static_cast<std::size_t>(out.endCount++)] = link;
        out.latency += m_fabric.linkLatency(link);
    }
    for (int i = 0; i < e.tailCount; ++i) {
        const int link = e.tail[static_cast<std::size_t>(i)];
        out.endShares[static_cast<std::size_t>(out.endCount)] = 1.0;
        out.ends[static_cast<std::size_t>(out.endCount++)] = link;
        out.latency += m_fabric.linkLatency(link);
    }
    if (e.srcNic >= 0 && m_planesMerged) {
        addMergedPlanes(e.srcNic, e.dstNic, out);
        return;
    }
    if (e.srcNic >= 0) {
        const int id = nicPairSegment(e.srcNic, e.dstNic);
        out.latency += m_pairs[static_cast<std::size_t>(id)].latency;
        out.segments[static_cast<std::size_t>(out.segmentCount++)] = pairSegmentBase() + id;
        return;
    }
    if (e.srcLeaf < 0 || e.srcLeaf == e.dstLeaf)
        return;
    addSwitchParts(e.srcLeaf, e.dstLeaf, out);
}

void Router::addSwitchParts(int srcLeaf, int dstLeaf, Parts &out)
{
    if (!m_closParts) {
        const int id = pairSegment(srcLeaf, dstLeaf);
        out.latency += m_pairs[static_cast<std::size_t>(id)].latency;
        out.segments[static_cast<std::size_t>(out.segmentCount++)] = pairSegmentBase() + id;
        return;
    }
    std::array<const Segment *, kPartCount> parts {};
    const int n = leafToLeaf(srcLeaf, dstLeaf, parts);
    // Segment ids: spine-up [within, across][leaf], spine-down [within, across][leaf],
    // super-up [pod], super-down [pod] (the order of slots()); four tiers append spine-down
    // from another zone [leaf], super-down from another zone [pod], core-up and core-down [zone].
    const int leaves = m_fabric.leafCount();
    const int pods = m_fabric.podCount();
    const Reach reach = reachOf(srcLeaf, dstLeaf);
    const int k = reach == SamePod ? 0 : 1;
    const auto srcPod = m_leafPod[static_cast<std::size_t>(srcLeaf)];
    const auto dstPod = m_leafPod[static_cast<std::size_t>(dstLeaf)];
    for (int i = 0; i < n; ++i)
        out.latency += parts[static_cast<std::size_t>(i)]->latency;
    const auto add
        = [&out](int id) { out.segments[static_cast<std::size_t>(out.segmentCount++)] = id; };
    add(k * leaves + srcLeaf);
    if (reach == SameZone) {
        add(4 * leaves + srcPod);
        add(4 * leaves + pods + dstPod);
    } else if (reach == OtherZone) {
        const int base = fourTierSegmentBase();
        const int zones = m_fabric.zoneCount();
        add(4 * leaves + srcPod);
        add(base + leaves + pods + m_leafZone[static_cast<std::size_t>(srcLeaf)]);
        add(base + leaves + pods + zones + m_leafZone[static_cast<std::size_t>(dstLeaf)]);
        add(base + leaves + dstPod);
        add(base + dstLeaf);
        return;
    }
    add((2 + k) * leaves + dstLeaf);
}

int Router::fourTierSegmentBase() const
{
    return 4 * m_fabric.leafCount() + 2 * m_fabric.podCount();
}

int Router::pairSegmentBase() const
{
    return fourTierSegmentBase()
        + (m_fourTier ? m_fabric.leafCount() + m_fabric.podCount() + 2 * m_fabric.zoneCount() : 0);
}

int Router::segmentIdLimit() const
{
    return pairSegmentBase() + static_cast<int>(m_pairs.size());
}

int Router::pairSegment(int srcLeaf, int dstLeaf)
{
    const auto key
        = static_cast<std::uint64_t>(srcLeaf) << 32 | static_cast<std::uint32_t>(dstLeaf);
    const auto [it, fresh] = m_pairOf.try_emplace(key, static_cast<int>(m_pairs.size()));
    if (!fresh)
        return it->second;
    sweep(srcLeaf, dstLeaf);
    Segment seg;
    seg.offset = static_cast<std::uint32_t>(m_arena.size());
    // Latency of one shortest path: the sweep lists the hops level by level, so the first hop
    // of each level (shares aside) traces one path.
    for (const int level : m_pairLevelStart)
        seg.latency += m_fabric.link(m_pairHops[static_cast<std::size_t>(level)].link).latency;
    m_arena.insert(m_arena.end(), m_pairHops.begin(), m_pairHops.end());
    finishSegment(seg);
    m_pairs.push_back(seg);
    return it->second;
}

int Router::nicPairSegment(int srcNic, int dstNic)
{
    const auto key = static_cast<std::uint64_t>(srcNic) << 32 | static_cast<std::uint32_t>(dstNic);
    if (const auto it = m_nicPairOf.find(key); it != m_nicPairOf.end())
        return it->second;
    const Fabric &f = m_fabric;
    const int nics = f.nicsPerServer();
    const int servers = f.servers();
    const auto leafOf
        = [&](int nic, int plane) { return f.leafOfNicPort(nic / nics, nic % nics, plane); };
    const auto healthy = [&](int leaf) {
        return leaf >= 0
            && (m_failedLeaves.empty() || !m_failedLeaves[static_cast<std::size_t>(leaf)]);
    };
    int alive = 0;
    for (int p = 0; p < f.planeCount(); ++p)
        alive += healthy(leafOf(srcNic, p)) && healthy(leafOf(dstNic, p));
    if (alive == 0) {
        // Each NIC has a healthy port, but in different planes (e.g. plane 0's leaf failed in
        // one SU, plane 1's in another): the planes share no switch, so nothing joins them.
        const auto name = [&](int nic) { return f.node(f.nicVertex(nic / nics, nic % nics)).name; };
        throw ScenarioError("failures",
            name(srcNic) + " and " + name(dstNic)
                + " have healthy ports only in different network planes, which share no switch: "
                  "traffic between them cannot be routed");
    }
    // An even split over the planes both ports can use (NCCL spreads a connection's QPs over the
    // NIC's ports; the dual-plane design of HPN, SIGCOMM 2024).
    const double w = 1.0 / alive;
    m_nicPairHops.clear();
    double latency = -1.0;
    for (int p = 0; p < f.planeCount(); ++p) {
        const int a = leafOf(srcNic, p), b = leafOf(dstNic, p);
        if (!healthy(a) || !healthy(b))
            continue;
        const int up = m_nicUp[static_cast<std::size_t>(p * servers * nics + srcNic)];
        const int down = m_nicDown[static_cast<std::size_t>(p * servers * nics + dstNic)];
        double planeLatency = f.link(up).latency + f.link(down).latency;
        m_nicPairHops.push_back({ up, w });
        if (a != b) {
            const Segment seg = m_pairs[static_cast<std::size_t>(pairSegment(a, b))];
            planeLatency += seg.latency;
            for (std::uint32_t i = 0; i < seg.count; ++i) {
                const RouteHop &h = m_arena[seg.offset + i];
                m_nicPairHops.push_back({ h.link, h.share * w });
            }
        }
        m_nicPairHops.push_back({ down, w });
        if (latency < 0.0)
            latency = planeLatency; // the planes are copies: any one's path length
    }
    Segment seg;
    seg.offset = static_cast<std::uint32_t>(m_arena.size());
    seg.latency = latency;
    m_arena.insert(m_arena.end(), m_nicPairHops.begin(), m_nicPairHops.end());
    finishSegment(seg);
    const int id = static_cast<int>(m_pairs.size());
    m_pairs.push_back(seg);
    m_nicPairOf.emplace(key, id);
    return id;
}

const RouteLumps &Router::lumps()
{
    // Lumps exist only where every segment is built up front (RouteLumps::find()), so the
    // segments cached later (other fabrics' leaf pairs) never change them.
    if (!m_lumps)
        m_lumps = std::make_shared<const RouteLumps>(RouteLumps::find(*this));
    return *m_lumps;
}

std::span<const RouteHop> Router::segmentHops(int segment) const
{
    const int leaves = m_fabric.leafCount();
    const int pods = m_fabric.podCount();
    const int fourTier = fourTierSegmentBase();
    const Segment *seg = nullptr;
    const auto at
        = [](const std::vector<Segment> &v, int i) { return &v[static_cast<std::size_t>(i)]; };
    if (segment >= pairSegmentBase())
        seg = at(m_pairs, segment - pairSegmentBase());
    else if (segment >= fourTier) {
        const int i = segment - fourTier;
        const int zones = m_fabric.zoneCount();
        seg = i < leaves                ? at(m_spineDown[2], i)
            : i < leaves + pods         ? at(m_superDown[1], i - leaves)
            : i < leaves + pods + zones ? at(m_coreUp, i - leaves - pods)
                                        : at(m_coreDown, i - leaves - pods - zones);
    } else if (segment < 2 * leaves)
        seg = at(m_spineUp[static_cast<std::size_t>(segment / leaves)], segment % leaves);
    else if (segment < 4 * leaves)
        seg = at(m_spineDown[static_cast<std::size_t>((segment - 2 * leaves) / leaves)],
            segment % leaves);
    else if (segment < 4 * leaves + pods)
        seg = at(m_superUp, segment - 4 * leaves);
    else
        seg = at(m_superDown[0], segment - 4 * leaves - pods);
    if (seg->offset == kUnset)
        return {};
    return { m_arena.data() + seg->offset, seg->count };
}

double Router::latency(int srcSlot, int dstSlot)
{
    Tier reach = Tier::ScaleUp;
    return latency(srcSlot, dstSlot, reach);
}

double Router::latency(int srcSlot, int dstSlot, RouteNics nics, Tier &reach)
{
    if (srcSlot != dstSlot)
        nics = usableNics(srcSlot, dstSlot, nics);
    if (!nics.any() || srcSlot == dstSlot
        || m_slots[sz(srcSlot)].domain == m_slots[sz(dstSlot)].domain)
        return latency(srcSlot, dstSlot, reach);
    reach = Tier::ScaleUp;
    Ends e;
    ends(srcSlot, dstSlot, nics, e);
    return endsLatency(e, reach);
}

double Router::latency(int srcSlot, int dstSlot, Tier &reach)
{
    reach = Tier::ScaleUp;
    if (srcSlot == dstSlot)
        return 0.0;
    const SlotPlace &src = m_slots[static_cast<std::size_t>(srcSlot)];
    const SlotPlace &dst = m_slots[static_cast<std::size_t>(dstSlot)];
    if (src.domain == dst.domain) { // GPU -> scale-up switch -> GPU, as the general path
        reach = std::max(src.gpuUpReach, dst.gpuDownReach);
        return src.gpuUpLatency + dst.gpuDownLatency;
    }
    if (m_slotEnds && !pxnDetour(src, dst)) {
        // The general path's sum in its order: head, switch parts, tail.
        double sum = src.upLatency;
        reach = std::max(src.upReach, dst.downReach);
        if (src.leaf >= 0 && src.leaf != dst.leaf)
            addSwitchLatency(src.leaf, dst.leaf, sum, reach);
        sum += dst.nicDownLatency;
        sum += dst.pcieDownLatency;
        return sum;
    }
    Ends e;
    ends(srcSlot, dstSlot, e);
    return endsLatency(e, reach);
}

std::array<Router::Segment *, Router::kPartCount> Router::slots(
    int srcLeaf, int dstLeaf, Reach reach)
{
    const std::size_t k = reach == SamePod ? 0 : 1;
    const auto s = static_cast<std::size_t>(srcLeaf);
    const auto d = static_cast<std::size_t>(dstLeaf);
    std::array<Segment *, kPartCount> out {};
    out[SpineUp] = &m_spineUp[k][s];
    out[SpineDown] = &m_spineDown[static_cast<std::size_t>(reach)][d];
    if (reach != SamePod) {
        out[SuperUp] = &m_superUp[static_cast<std::size_t>(m_leafPod[s])];
        out[SuperDown]
            = &m_superDown[reach == SameZone ? 0 : 1][static_cast<std::size_t>(m_leafPod[d])];
    }
    if (reach == OtherZone) {
        out[CoreUp] = &m_coreUp[static_cast<std::size_t>(m_leafZone[s])];
        out[CoreDown] = &m_coreDown[static_cast<std::size_t>(m_leafZone[d])];
    }
    return out;
}

void Router::addSwitchLatency(int srcLeaf, int dstLeaf, double &sum, Tier &reach)
{
    std::array<const Segment *, kPartCount> parts {};
    const int n = switchParts(srcLeaf, dstLeaf, parts);
    for (int i = 0; i < n; ++i) {
        const Segment *seg = parts[static_cast<std::size_t>(i)];
        sum += seg->latency;
        reach = std::max(reach, seg->reach);
    }
}

void Router::finishSegment(Segment &seg)
{
    seg.count = static_cast<std::uint32_t>(m_arena.size() - seg.offset);
    seg.reach = Tier::ScaleUp;
    for (std::uint32_t h = 0; h < seg.count; ++h)
        seg.reach = std::max(seg.reach, m_fabric.linkTier(m_arena[seg.offset + h].link));
}

int Router::switchParts(int srcLeaf, int dstLeaf, std::array<const Segment *, kPartCount> &parts)
{
    if (m_closParts)
        return leafToLeaf(srcLeaf, dstLeaf, parts);
    parts[0] = &m_pairs[static_cast<std::size_t>(pairSegment(srcLeaf, dstLeaf))];
    return 1;
}

int Router::leafToLeaf(int srcLeaf, int dstLeaf, std::array<const Segment *, kPartCount> &parts)
{
    std::array<Segment *, kPartCount> slot = slots(srcLeaf, dstLeaf, reachOf(srcLeaf, dstLeaf));
    for (const Segment *seg : slot) {
        if (seg && seg->offset == kUnset) {
            computeLeafPair(srcLeaf, dstLeaf);
            break;
        }
    }
    // Route order: up to the spines, (up to the super-spines, (up to the cores, down to the
    // super-spines,) down to the spines,) down to the leaf: the parts in enum order.
    int n = 0;
    for (Segment *seg : slot)
        if (seg)
            parts[static_cast<std::size_t>(n++)] = seg;
    return n;
}

} // namespace railyard
