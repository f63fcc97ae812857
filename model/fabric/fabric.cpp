#include "fabric/fabric.h"
#include "fabric/fabricbuilder.h"

#include "fabric/cablingbuilder.h"
#include "fabric/fabricassembly.h"
#include "fabric/fabricwithoutlinks.h"

#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_set>

/*
 * Fabric generators. Both build a folded Clos network ("fat tree"), the topology of
 * Al-Fares, Loukissas, Vahdat, "A Scalable, Commodity Data Center Network Architecture",
 * SIGCOMM 2008: with k-port switches, two tiers join at most k leaves (every spine has one port
 * per leaf), three tiers at most k pods (k^3/4 hosts), a spine giving k/2 ports down and k/2 up.
 *
 * rail-optimised (NVIDIA DGX SuperPOD reference architecture, compute fabric: "DGX SuperPOD:
 * Next Generation Scalable Infrastructure for AI Leadership", RA-11333-001, table 4 for DGX H100,
 * and the DGX B200 RA's compute-fabric table for 8..64 SUs):
 *   - servers are grouped into scalable units (SUs) of `serversPerSu`; NIC i of every server of
 *     an SU connects to the SU's rail-i leaf, so rails = NICs per server;
 *   - a leaf has D = (servers in its SU) downlinks and U = ceil(D / leafOversubscription) uplinks;
 *   - two tiers when leaves <= radix: spines = ceil(sum of leaf uplinks / radix) (or `spines`),
 *     every leaf connects to every spine with U / spines ports. With radix 64 and 32 servers of
 *     8 NICs per SU this is the RA's table: 1 SU -> 8 leaves / 4 spines, 2 -> 16 / 8,
 *     4 -> 32 / 16, 8 -> 64 / 32;
 *   - three tiers otherwise: a spine keeps d = floor(radix * s / (s + 1)) ports down and the rest
 *     up (s = spineOversubscription, so radix/2 and radix/2 when non-blocking). Whole SUs form a
 *     pod, floor(d / rails) SUs per pod (at least 1) so a spine reaches every leaf of its pod;
 *     spines per pod = ceil(pod leaf uplinks / d) (or `spines`); each spine has
 *     u = ceil(down ports / s) uplinks. Spine j of every pod belongs to plane j and connects to
 *     every super-spine of plane j; super-spines per plane = ceil(pods * u / radix) (or
 *     `superSpines` / planes). 64 SUs (16,384 GPUs) -> 16 pods, 512 leaves, 512 spines,
 *     256 super-spines: the B200 RA's 64-SU row (512 / 512 / 256 "core").
 *   - four tiers when one set of super-spines cannot join the pods (super-spines per plane would
 *     exceed the spine uplinks): the next level of the same recursion (Al-Fares et al.; a
 *     4-level k-ary fat tree holds k^4/8 hosts). A super-spine keeps radix/2 ports down, one
 *     to spine j of each pod of its zone, and as many up: radix/2 pods form a zone, each zone
 *     with its own super-spines (per spine plane as many as a three-tier fabric of that many
 *     pods), and super-spine k of spine plane j of every zone reaches every core switch of core
 *     group (j, k): cores per group = ceil(zones * super-spine uplinks / radix). The cores are
 *     the fourth tier ("core", as the B200 RA and Meta's fabric name the top layer); their
 *     links count in the super-spine tier of the per-tier figures. At most radix * radix/2
 *     pods (five tiers are refused).
 *
 * tor: every NIC of a server on one top-of-rack leaf, `serversPerLeaf` servers per leaf
 * (0 = max(1, (radix/2) / NICs)); the same two/three-tier rule, a pod being d consecutive leaves.
 *
 * rail-only (Wang, Wang, Zhang et al., "Rail-only: A Low-Cost High-Performance Network for
 * Training LLMs with Trillion Parameters", arXiv 2307.12169, its rail-only design): one rail switch
 * per rail for the whole cluster, NIC i of every server on rail switch i, and no spine. Traffic
 * between rails crosses the scale-up domain first (router.cpp). The paper's rail switches are large
 * (or a rail is itself a small Clos); we model the first: a rail switch terminates one port per
 * server, so the servers must fit the radix (a rail built as its own Clos is not modelled).
 *
 * planes (Qian et al., "Alibaba HPN: A Data Center Network for Large Language Model Training",
 * SIGCOMM 2024, its dual-plane design; DeepSeek-V3 technical report, arXiv 2412.19437, section 3.4
 * multi-plane fat tree): the switch network above is built `planes` times, plane p's switches
 * named "planeP/...", and port p of every NIC is cabled to its leaf in plane p at
 * planePortGbps (0 = nic.gbps / planes). Planes share nothing but the NICs.
 *
 * Bundles: the parallel cables between two switches are one logical link per direction with
 * bandwidth = (uplinks / neighbours) * fabricPort. When the uplinks do not divide evenly (or a
 * partial SU has fewer uplinks than there are spines) that quotient is fractional: the bandwidth
 * keeps the fraction (the average a per-flow ECMP hash sees), `ports` is the rounded count (>= 1).
 *
 * Vertex order: per server its G GPUs and N NICs, followed by the scale-up switch when the
 * server is the first of its scale-up domain (so, with one server per domain, per server its
 * GPUs, NICs and switch); then leaves, spines
 * (pod-major), super-spines (zone- then plane-major), cores (group-major). Link ids: per cable the
 * forward direction (towards the upper tier) then its reverse, so link id ^ 1 is always the
 * reverse.
 */

namespace railyard {

void FabricBuilder::plan()
{
    const FabricSpec &s = m_spec;
    const i64 radix = s.switchRadix;

    if (m_railOnly) {
        // One rail switch per rail for the whole cluster (one port per server).
        m_serversPerGroup = m_servers;
        m_leavesPerGroup = m_nics;
    } else if (m_rail) {
        m_serversPerGroup = std::min<i64>(s.serversPerSu, m_servers);
        m_leavesPerGroup = m_nics; // one leaf per rail
    } else {
        m_serversPerGroup
            = s.serversPerLeaf > 0 ? s.serversPerLeaf : std::max<i64>(1, (radix / 2) / m_nics);
        m_serversPerGroup = std::min(m_serversPerGroup, m_servers);
        m_leavesPerGroup = 1;
    }
    m_groups = ceilDiv(m_servers, m_serversPerGroup);
    m_leaves = m_groups * m_leavesPerGroup;
    if (m_leaves * m_planes > limits::kMaxSwitches)
        throw ScenarioError("fabric.servers",
            str(m_leaves * m_planes) + " leaf switches exceed the limit of "
                + str(limits::kMaxSwitches) + " switches");

    // Port budget of the fullest leaf (group 0): downlinks + uplinks must fit the radix.
    {
        const i64 down = leafDownlinks(0), up = leafUplinks(0);
        if (m_railOnly && down > radix)
            throw ScenarioError("fabric.switch_radix",
                "a rail-only rail switch has one port per server: " + str(down)
                    + " servers need a radix of at least " + str(down) + ", got " + str(radix)
                    + " (a rail built as its own Clos is not modelled)");
        if (down + up > radix) {
            const char *field = m_rail
                ? "fabric.servers_per_su"
                : (s.serversPerLeaf > 0 ? "fabric.servers_per_leaf" : "fabric.switch_radix");
            throw ScenarioError(field,
                std::string(m_rail ? "a rail leaf" : "a top-of-rack leaf") + " needs " + str(down)
                    + " downlinks + " + str(up) + " uplinks, more than the switch radix "
                    + str(radix));
        }
    }

    if (m_railOnly) {
        // No spine: the rail switches are the whole network.
        m_threeTier = false;
        m_pods = 1;
        m_groupsPerPod = m_groups;
        m_spinesPerPod = 0;
    } else if (m_leaves <= radix) {
        // Two tiers: every spine has a port for every leaf.
        m_threeTier = false;
        m_pods = 1;
        m_groupsPerPod = m_groups;
        const i64 uplinks = uplinksOfGroups(0, m_groups);
        m_spinesPerPod = s.spines > 0 ? s.spines : ceilDiv(uplinks, radix);
        if (ceilDiv(uplinks, m_spinesPerPod) > radix)
            throw ScenarioError("fabric.spines",
                str(m_spinesPerPod) + " spines of radix " + str(radix) + " cannot terminate "
                    + str(uplinks) + " leaf uplinks (need at least " + str(ceilDiv(uplinks, radix))
                    + ")");
    } else {
        // Three tiers (Al-Fares et al.: a spine splits its ports between its pod and the core).
        m_threeTier = true;
        const double so = s.spineOversubscription;
        // Ports down per spine; at least one stays up (and one down) whatever the ratio.
        const i64 spineDown = std::clamp<i64>(
            static_cast<i64>(std::floor(static_cast<double>(radix) * so / (so + 1.0) + 1e-9)), 1,
            radix - 1);
        m_groupsPerPod = std::max<i64>(1, spineDown / m_leavesPerGroup);
        m_pods = ceilDiv(m_groups, m_groupsPerPod);
        const i64 podUplinks
            = uplinksOfGroups(0, std::min(m_groupsPerPod, m_groups)); // pod 0 is the fullest
        m_spinesPerPod = s.spines > 0 ? s.spines : ceilDiv(podUplinks, spineDown);
        if (m_spinesPerPod > limits::kMaxSwitches)
            throw ScenarioError("fabric.spines",
                str(m_spinesPerPod) + " spines per pod exceed the limit of "
                    + str(limits::kMaxSwitches) + " switches");
        const double downPorts
            = static_cast<double>(podUplinks) / static_cast<double>(m_spinesPerPod);
        m_spineUplinks = std::max<i64>(1, ceilRatio(downPorts / so));
        if (ceilRatio(downPorts) + m_spineUplinks > radix)
            throw ScenarioError(s.spines > 0 ? "fabric.spines" : "fabric.spine_oversubscription",
                str(m_spinesPerPod) + " spines per pod of radix " + str(radix) + " would each need "
                    + str(ceilRatio(downPorts)) + " ports down and " + str(m_spineUplinks) + " up");
        const i64 planes = m_spinesPerPod;
        if (s.superSpines > 0) {
            if (s.superSpines % planes != 0)
                throw ScenarioError("fabric.super_spines",
                    str(s.superSpines) + " super-spines cannot be split evenly over " + str(planes)
                        + " planes (one per spine of a pod)");
            m_superPerPlane = s.superSpines / planes;
            if (m_superPerPlane > m_spineUplinks
                || ceilDiv(m_pods * m_spineUplinks, m_superPerPlane) > radix)
                throw ScenarioError("fabric.super_spines",
                    str(m_superPerPlane) + " super-spines per plane do not fit " + str(m_pods)
                        + " pods x " + str(m_spineUplinks) + " spine uplinks with radix "
                        + str(radix));
        } else {
            m_superPerPlane = ceilDiv(m_pods * m_spineUplinks, radix);
            if (m_superPerPlane > m_spineUplinks)
                planFourTiers(radix); // more pods than one set of super-spines joins
        }
    }

    // Totals, still before allocating anything.
    const i64 spines = m_spinesPerPod * m_pods;
    const i64 supers = m_threeTier ? m_superPerPlane * m_spinesPerPod * m_zones : 0;
    const i64 cores = m_fourTier ? m_spinesPerPod * m_superPerPlane * m_coresPerGroup : 0;
    const i64 switches = (m_leaves + spines + supers + cores) * m_planes;
    if (spines > limits::kMaxSwitches || supers > limits::kMaxSwitches
        || switches > limits::kMaxSwitches)
        throw ScenarioError(s.spines > 0 || s.superSpines > 0 ? "fabric.spines" : "fabric.servers",
            str(switches) + " switches (" + str(m_leaves) + " leaves, " + str(spines) + " spines, "
                + str(supers) + " super-spines, " + str(cores) + " cores) exceed the limit of "
                + str(limits::kMaxSwitches));
    const i64 cables = m_servers * m_gpus * 2
        + m_planes
            * (m_servers * m_nics + m_leaves * m_spinesPerPod
                + (m_threeTier ? spines * m_superPerPlane : 0)
                + supers * (m_fourTier ? m_coresPerGroup : 0));
    m_links = 2 * cables;
    if (m_links > limits::kMaxLinks)
        throw ScenarioError("fabric.servers",
            str(m_links) + " links exceed the limit of " + str(limits::kMaxLinks));
    m_vertices = m_servers * (m_gpus + m_nics) + m_servers / m_domainServers + switches;
}

void FabricBuilder::planFourTiers(i64 radix)
{
    // A super-spine splits its ports like a non-blocking spine (Al-Fares et al.: half down, half
    // up), one port down to spine j of each pod of its zone: radix/2 pods per zone. Its plane's
    // super-spines in a zone are as many as a three-tier fabric of that many pods needs.
    if (m_spec.superSpines > 0)
        throw ScenarioError("fabric.super_spines",
            str(m_pods) + " pods need four switch tiers with radix " + str(radix)
                + "; leave super_spines at 0 to derive them");
    m_fourTier = true;
    const i64 superDown = std::max<i64>(1, radix / 2);
    m_podsPerZone = superDown;
    m_zones = ceilDiv(m_pods, m_podsPerZone);
    const i64 zonePods = std::min(m_pods, m_podsPerZone); // zone 0 is the fullest
    m_superPerPlane = ceilDiv(zonePods * m_spineUplinks, superDown);
    const double downPorts
        = static_cast<double>(zonePods * m_spineUplinks) / static_cast<double>(m_superPerPlane);
    m_superUplinks = std::max<i64>(1, ceilRatio(downPorts)); // non-blocking, as many up as down
    // Super-spine k of spine plane j in every zone belongs to core group (j, k) and reaches
    // every core of it; a core has one bundle per zone.
    m_coresPerGroup = ceilDiv(m_zones * m_superUplinks, radix);
    if (m_coresPerGroup > m_superUplinks)
        throw ScenarioError("fabric.servers",
            str(m_pods) + " pods need more than four switch tiers with radix " + str(radix)
                + " (at most " + str(radix * m_podsPerZone) + " pods)");
}

void FabricBuilder::constructSuperSpines(FabricAssembly &a, int planes)
{
    // Per network plane, zone, spine plane j and index k (zone-major: one zone is three-tier
    // fabric's super-spines; with one zone the names and order of a three-tier fabric).
    Fabric &f = m_fabric;
    const int perPlane = static_cast<int>(m_superPerPlane);
    const int spinesPerPod = static_cast<int>(m_spinesPerPod);
    const int zones = static_cast<int>(m_zones);
    const int perZone = perPlane * spinesPerPod;
    const int perNetPlane = perZone * zones;
    f.m_superVertex.reserve(static_cast<std::size_t>(perNetPlane * planes));
    for (int netPlane = 0; netPlane < planes; ++netPlane) {
        for (int zone = 0; zone < zones; ++zone) {
            for (int plane = 0; plane < spinesPerPod; ++plane) {
                for (int k = 0; k < perPlane; ++k) {
                    FabricNode n;
                    n.kind = NodeKind::SuperSpine;
                    n.local = netPlane * perNetPlane + zone * perZone + plane * perPlane + k;
                    n.pod = plane;
                    n.zone = zone;
                    n.netPlane = netPlane;
                    const std::string index = std::to_string(plane * perPlane + k);
                    n.name = "superspine-"
                        + (m_fourTier ? "z" + std::to_string(zone) + "-" + index : index);
                    if (planes > 1)
                        n.name = "plane" + std::to_string(netPlane) + "/" + n.name;
                    a.addSwitch(std::move(n));
                }
            }
        }
    }
}

void FabricBuilder::constructCores(FabricAssembly &a, int planes)
{
    Fabric &f = m_fabric;
    const int groups = static_cast<int>(m_spinesPerPod * m_superPerPlane);
    const int perGroup = static_cast<int>(m_coresPerGroup);
    f.m_coreVertex.reserve(static_cast<std::size_t>(groups * perGroup * planes));
    for (int netPlane = 0; netPlane < planes; ++netPlane) {
        for (int g = 0; g < groups; ++g) {
            for (int c = 0; c < perGroup; ++c) {
                FabricNode n;
                n.kind = NodeKind::Core;
                n.local = (netPlane * groups + g) * perGroup + c;
                n.pod = g;
                n.netPlane = netPlane;
                n.name = "core-" + std::to_string(g * perGroup + c);
                if (planes > 1)
                    n.name = "plane" + std::to_string(netPlane) + "/" + n.name;
                a.addSwitch(std::move(n));
            }
        }
    }
}

void FabricBuilder::construct()
{
    const FabricSpec &s = m_spec;
    Fabric &f = m_fabric;
    FabricAssembly a(f);
    const int servers = static_cast<int>(m_servers);
    const int nics = static_cast<int>(m_nics);
    const int planes = static_cast<int>(m_planes);
    if (m_withoutLinks)
        a.leaveOutLinks();
    a.begin(s, nics, m_rail ? nics : 0, static_cast<int>(m_pods), m_vertices,
        m_withoutLinks ? 0 : m_links);
    a.addServers();
    // Plane p's switches are named "planeP/..." (one plane: no prefix, today's names).
    const auto planeName = [planes](int plane, std::string name) {
        return planes == 1 ? name : "plane" + std::to_string(plane) + "/" + name;
    };

    // Leaves, plane by plane and group by group (rail leaves of one SU are consecutive:
    // leaf = plane * leaves + su * rails + rail).
    const int leaves = static_cast<int>(m_leaves);
    f.m_leafVertex.reserve(static_cast<std::size_t>(leaves * planes));
    for (int plane = 0; plane < planes; ++plane) {
        for (int leaf = 0; leaf < leaves; ++leaf) {
            const i64 group = leaf / m_leavesPerGroup;
            FabricNode n;
            n.kind = NodeKind::Leaf;
            n.local = plane * leaves + leaf;
            n.pod = static_cast<int>(group / m_groupsPerPod);
            n.zone = m_fourTier ? static_cast<int>(n.pod / m_podsPerZone) : 0;
            n.netPlane = plane;
            if (m_railOnly) {
                n.su = 0;
                n.rail = static_cast<int>(leaf % m_leavesPerGroup);
                n.name = planeName(plane, "rail-switch-" + std::to_string(n.rail));
            } else if (m_rail) {
                n.su = static_cast<int>(group);
                n.rail = static_cast<int>(leaf % m_leavesPerGroup);
                n.name = planeName(
                    plane, "leaf-su" + std::to_string(n.su) + "-rail" + std::to_string(n.rail));
            } else {
                n.name = planeName(plane, "tor-" + std::to_string(leaf));
            }
            a.addSwitch(std::move(n));
        }
    }
    const int spinesPerPod = static_cast<int>(m_spinesPerPod);
    const int pods = static_cast<int>(m_pods);
    const int spinesPerPlane = spinesPerPod * pods;
    f.m_spineVertex.reserve(static_cast<std::size_t>(spinesPerPlane * planes));
    for (int plane = 0; plane < planes; ++plane) {
        for (int p = 0; p < pods; ++p) {
            for (int j = 0; j < spinesPerPod; ++j) {
                FabricNode n;
                n.kind = NodeKind::Spine;
                n.local = plane * spinesPerPlane + p * spinesPerPod + j;
                n.pod = p;
                n.zone = m_fourTier ? static_cast<int>(p / m_podsPerZone) : 0;
                n.netPlane = plane;
                n.name = planeName(plane, "spine-p" + std::to_string(p) + "-" + std::to_string(j));
                a.addSwitch(std::move(n));
            }
        }
    }
    const int perPlane = static_cast<int>(m_superPerPlane);
    const int supersPerZone = perPlane * spinesPerPod;
    const int supersPerNetPlane = supersPerZone * static_cast<int>(m_zones);
    if (m_threeTier)
        constructSuperSpines(a, planes);
    if (m_fourTier)
        constructCores(a, planes);

    // Server-internal links and NIC <-> leaf, one cable per NIC port (one port per plane).
    const double portGbps = planes == 1 ? s.nic.gbps
        : s.planePortGbps > 0.0         ? s.planePortGbps
                                        : s.nic.gbps / planes;
    for (int srv = 0; srv < servers; ++srv) {
        a.addServerCables(srv);
        const i64 group = srv / m_serversPerGroup;
        const i64 inGroup = srv % m_serversPerGroup;
        for (int plane = 0; plane < planes; ++plane) {
            for (int i = 0; i < nics; ++i) {
                const i64 leaf = m_rail ? group * m_leavesPerGroup + i : group;
                const i64 port = m_rail ? inGroup : inGroup * m_nics + i;
                a.attachNic(srv, i, plane, plane * leaves + static_cast<int>(leaf),
                    static_cast<int>(port), portGbps, s.nic.latencyUs);
            }
        }
    }

    // Leaf <-> spine bundles: each leaf spreads its uplinks evenly over its pod's spines.
    for (int plane = 0; plane < planes && spinesPerPod > 0; ++plane) {
        for (int leaf = 0; leaf < leaves; ++leaf) {
            const i64 group = leaf / m_leavesPerGroup;
            const int pod = static_cast<int>(group / m_groupsPerPod);
            const double ports = static_cast<double>(leafUplinks(group)) / spinesPerPod;
            for (int j = 0; j < spinesPerPod; ++j)
                a.addCable(f.leafVertex(plane * leaves + leaf),
                    f.spineVertex(plane * spinesPerPlane + pod * spinesPerPod + j), Tier::Spine,
                    s.fabricPort.gbps, s.fabricPort.latencyUs, ports);
        }
    }
    // Spine <-> super-spine bundles: spine j of every pod to every super-spine of plane j (of
    // the pod's zone, with four tiers).
    if (m_threeTier) {
        const double ports = static_cast<double>(m_spineUplinks) / perPlane;
        for (int netPlane = 0; netPlane < planes; ++netPlane)
            for (int p = 0; p < pods; ++p) {
                const int zone = m_fourTier ? static_cast<int>(p / m_podsPerZone) : 0;
                for (int j = 0; j < spinesPerPod; ++j)
                    for (int k = 0; k < perPlane; ++k)
                        a.addCable(f.spineVertex(netPlane * spinesPerPlane + p * spinesPerPod + j),
                            f.superSpineVertex(netPlane * supersPerNetPlane + zone * supersPerZone
                                + j * perPlane + k),
                            Tier::SuperSpine, s.fabricPort.gbps, s.fabricPort.latencyUs, ports);
            }
    }
    // Super-spine <-> core bundles: super-spine k of spine plane j of every zone to every core
    // of group (j, k). Their links count in the super-spine tier (units.h's five tiers: the
    // links above the spines), so per-tier figures and calibrations keep their shape.
    if (m_fourTier) {
        const int perGroup = static_cast<int>(m_coresPerGroup);
        const int coresPerNetPlane = supersPerZone * perGroup;
        const double ports = static_cast<double>(m_superUplinks) / perGroup;
        for (int netPlane = 0; netPlane < planes; ++netPlane)
            for (int z = 0; z < static_cast<int>(m_zones); ++z)
                for (int g = 0; g < supersPerZone; ++g)
                    for (int c = 0; c < perGroup; ++c)
                        a.addCable(f.superSpineVertex(
                                       netPlane * supersPerNetPlane + z * supersPerZone + g),
                            f.coreVertex(netPlane * coresPerNetPlane + g * perGroup + c),
                            Tier::SuperSpine, s.fabricPort.gbps, s.fabricPort.latencyUs, ports);
    }
    // Several planes are disconnected switch networks: the router routes each NIC pair plane by
    // plane (router.cpp) rather than through the one-network folded-Clos parts.
    if (planes > 1)
        f.m_regularClos = false;
    f.m_zones = static_cast<int>(m_zones);
    a.finish();
}

Fabric Fabric::build(const FabricSpec &spec)
{
    return FabricBuilder::build(spec);
}

Fabric fabricWithoutLinks(const FabricSpec &spec)
{
    return FabricBuilder::buildWithoutLinks(spec);
}

int Fabric::railOfSlot(int slot) const
{
    return m_rails > 0 ? m_gpuToNic[static_cast<std::size_t>(gpuOfSlot(slot))] : -1;
}

int Fabric::leafOfNic(int server, int nic) const
{
    return m_nicLeaf[static_cast<std::size_t>(server * m_nicsPerServer + nic)];
}

int Fabric::leafOfNicPort(int server, int nic, int plane) const
{
    return m_nicLeaf[static_cast<std::size_t>(
        (plane * m_spec.servers + server) * m_nicsPerServer + nic)];
}

int Fabric::leafPortOfNic(int server, int nic) const
{
    return m_nicLeafPort[static_cast<std::size_t>(server * m_nicsPerServer + nic)];
}

int Fabric::linkBetween(int a, int b) const
{
    const auto n = static_cast<int>(boost::num_vertices(*m_graph));
    if (a < 0 || b < 0 || a >= n || b >= n)
        return -1;
    // Degrees are small (a switch has at most radix neighbours), so a scan beats a hash map.
    for (auto [it, end] = boost::out_edges(static_cast<FabricVertex>(a), *m_graph); it != end;
         ++it) {
        if (static_cast<int>(boost::target(*it, *m_graph)) == b)
            return (*m_graph)[*it].id;
    }
    return -1;
}

std::string Fabric::scaleUpDomainName(int domain) const
{
    return m_domainServers == 1 ? serverName(domain) : "rack" + std::to_string(domain);
}

std::string Fabric::linkName(int id) const
{
    return node(linkSource(id)).name + " -> " + node(linkTarget(id)).name;
}

std::size_t Fabric::LinkClassIndex::Hash::operator()(const LinkClass &c) const noexcept
{
    // Field by field (the struct has padding); combined as boost::hash_combine does.
    std::size_t h = std::hash<double>()(c.bandwidth);
    const auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b9u + (h << 6) + (h >> 2); };
    mix(std::hash<double>()(c.latency));
    mix(std::hash<int>()(c.ports));
    mix(static_cast<std::size_t>(c.tier));
    mix(static_cast<std::size_t>(c.sourceKind));
    return h;
}

Fabric::LinkClassIndex::LinkClassIndex(std::vector<LinkClass> &classes)
    : m_classes(classes)
{
    for (std::size_t i = 0; i < classes.size(); ++i)
        m_index.emplace(classes[i], static_cast<std::uint32_t>(i));
}

std::uint32_t Fabric::LinkClassIndex::find(const LinkClass &c)
{
    for (const std::uint32_t k : m_recent)
        if (k != kNone && m_classes[k] == c)
            return k;
    const auto [it, added] = m_index.emplace(c, static_cast<std::uint32_t>(m_classes.size()));
    if (added)
        m_classes.push_back(c);
    m_recent[1] = m_recent[0];
    m_recent[0] = it->second;
    return it->second;
}

void Fabric::setLinkFigures(int id, double bandwidth, double latency, LinkClassIndex &index)
{
    LinkClass c = linkClass(id);
    c.bandwidth = bandwidth;
    c.latency = latency;
    m_linkClass[static_cast<std::size_t>(id)] = index.find(c);
}

} // namespace railyard
