#include "fabric/bom.h"

#include "base/scenarioerror.h"
#include "base/units.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>

/*
 * Bill of materials of a built fabric (docs/bom-and-cost.md).
 *
 * Counting: every cable is one FabricLink pair (fabric.h); the direction whose id is below its
 * reverse's counts it once. A bundle of `ports` parallel switch-to-switch cables counts `ports`
 * cables, and takes `ports` ports on each switch. `ports` is the generator's rounded share of a
 * leaf's uplinks per spine (fabric.cpp): a partial SU is cabled to the spines as if it were full,
 * which is what the DGX SuperPOD RA prescribes ("the fabric should be designed to support the
 * full SU, including leaf switches and leaf-spine cables", RA-11333-001, Network Fabrics) and
 * what its table 4 counts (31 nodes, 256 leaf-spine cables). Scale-up (NVLink) and PCIe links
 * stay inside a server or an NVL72 rack and are no cables of the network.
 *
 * Placement: servers fill compute racks in order; compute racks fill rows. A leaf whose NIC
 * cables all come from one compute rack sits in that rack (a top-of-rack leaf); any other leaf
 * sits in a network rack at the end of the row of its first server (the SU's leaves at the end
 * of its row). Spines and super-spines fill network racks in rows of their own, after the
 * compute rows. A cable's length is estimated as slack + rack distance along a row x rack width;
 * cables between rows cross the hall and are optics whatever their length.
 */

namespace railyard {

std::string_view cableClassName(CableClass c)
{
    switch (c) {
    case CableClass::Copper:
        return "copper";
    case CableClass::Active:
        return "active";
    case CableClass::Optics:
        break;
    }
    return "optics";
}

int BillOfMaterials::switchCount() const
{
    int n = 0;
    for (const BomSwitchLine &s : switches)
        n += s.count;
    return n;
}

std::int64_t BillOfMaterials::cableCount() const
{
    std::int64_t n = 0;
    for (const BomCableLine &c : cables)
        n += c.cables;
    return n;
}

std::int64_t BillOfMaterials::transceiverCount() const
{
    std::int64_t n = 0;
    for (const BomCableLine &c : cables)
        n += c.transceivers;
    return n;
}

std::int64_t BillOfMaterials::cablesOf(std::string_view link) const
{
    std::int64_t n = 0;
    for (const BomCableLine &c : cables)
        if (c.link == link)
            n += c.cables;
    return n;
}

int BillOfMaterials::switchesOf(std::string_view tier) const
{
    int n = 0;
    for (const BomSwitchLine &s : switches)
        if (s.tier == tier)
            n += s.count;
    return n;
}

int BillOfMaterials::computeRacks() const
{
    return static_cast<int>(
        std::count_if(racks.begin(), racks.end(), [](const BomRack &r) { return !r.network; }));
}

int BillOfMaterials::networkRacks() const
{
    return static_cast<int>(racks.size()) - computeRacks();
}

void checkBomRules(const BomRules &r, const std::string &path)
{
    const auto fail = [&path](std::string_view key, const std::string &why) {
        throw ScenarioError(path + "." + std::string(key), why);
    };
    // A rack holds at most a few hundred devices (a 48U rack of 1U servers), so 4096 is a
    // generous ceiling that still keeps a count from overflowing.
    constexpr int kMaxPerRack = 4096;
    if (r.serversPerRack < 0 || r.serversPerRack > kMaxPerRack)
        fail("servers_per_rack", "must be 0 (derived) to 4096");
    if (r.switchesPerRack < 1 || r.switchesPerRack > kMaxPerRack)
        fail("switches_per_rack", "must be 1 to 4096");
    if (r.racksPerRow < 0 || r.racksPerRow > kMaxPerRack)
        fail("racks_per_row", "must be 0 (derived) to 4096");
    // Lengths in metres: a hall is below a kilometre (the longest multimode optics reach ~100 m,
    // single-mode DR/FR 500 m to 2 km).
    constexpr double kMaxMetres = 1000.0;
    const auto length = [&](std::string_view key, double v, bool positive) {
        if (!std::isfinite(v) || v < 0.0 || (positive && v <= 0.0) || v > kMaxMetres)
            fail(key,
                std::string(positive ? "must be above 0" : "must be 0 or more")
                    + " and at most 1000 m");
    };
    length("rack_width_m", r.rackWidthM, true);
    length("slack_m", r.slackM, false);
    length("copper_max_m", r.copperMaxM, false);
    length("active_max_m", r.activeMaxM, false);
    if (r.activeMaxM < r.copperMaxM)
        fail("active_max_m",
            "is below copper_max_m: an active cable reaches at least as far as copper");
}

namespace {

constexpr int kBomNowhere = -1;

struct BomPlacer
{
    const Fabric &f;
    const BomRules &rules;
    BillOfMaterials &bom;
    std::vector<int> rackOfVertex; ///< switches only; servers through their compute rack

    int computeRackOfServer(int server) const { return server / bom.serversPerRack; }

    /// Network racks for `switches` (vertices) in `row`, after the row's `used` positions.
    void fillNetworkRacks(const std::vector<int> &switches, int row, int used)
    {
        int position = used;
        for (std::size_t i = 0; i < switches.size(); ++i) {
            if (i % sz(rules.switchesPerRack) == 0)
                bom.racks.push_back(BomRack { row, position++, true, 0, 0 });
            bom.racks.back().switches += 1;
            rackOfVertex[sz(switches[i])] = static_cast<int>(bom.racks.size()) - 1;
        }
    }

    void place()
    {
        const FabricSpec &spec = f.spec();
        bom.serversPerRack = rules.serversPerRack > 0
            ? rules.serversPerRack
            : (f.scaleUpDomainServers() > 1 ? f.scaleUpDomainServers() : 4);
        const int computeRacks = (f.servers() + bom.serversPerRack - 1) / bom.serversPerRack;
        if (rules.racksPerRow > 0)
            bom.racksPerRow = rules.racksPerRow;
        else if (spec.kind == FabricKind::RailOptimised && !f.cabled())
            bom.racksPerRow
                = std::max(1, (spec.serversPerSu + bom.serversPerRack - 1) / bom.serversPerRack);
        else
            bom.racksPerRow = 8;
        const int computeRows = (computeRacks + bom.racksPerRow - 1) / bom.racksPerRow;
        for (int r = 0; r < computeRacks; ++r)
            bom.racks.push_back(BomRack { r / bom.racksPerRow, r % bom.racksPerRow, false,
                std::min(bom.serversPerRack, f.servers() - r * bom.serversPerRack), 0 });

        // Where each leaf's servers are: its first compute rack, and whether all share it.
        rackOfVertex.assign(boost::num_vertices(f.graph()), kBomNowhere);
        std::vector<int> firstRack(sz(f.leafCount()), kBomNowhere);
        std::vector<char> oneRack(sz(f.leafCount()), 1);
        std::vector<int> leafIndex(boost::num_vertices(f.graph()), kBomNowhere);
        for (int l = 0; l < f.leafCount(); ++l)
            leafIndex[sz(f.leafVertex(l))] = l;
        for (const FabricLink &l : f.links()) {
            if (l.id > l.reverse || l.tier != Tier::Leaf)
                continue;
            const bool srcIsNic = f.node(l.src).kind == NodeKind::Nic;
            const int leaf = leafIndex[sz(srcIsNic ? l.dst : l.src)];
            const int rack = computeRackOfServer(f.node(srcIsNic ? l.src : l.dst).server);
            if (leaf == kBomNowhere)
                continue;
            if (firstRack[sz(leaf)] == kBomNowhere)
                firstRack[sz(leaf)] = rack;
            else if (firstRack[sz(leaf)] != rack)
                oneRack[sz(leaf)] = 0;
        }
        std::vector<std::vector<int>> rowSwitches(sz(computeRows));
        std::vector<int> upper; // spines, super-spines, cores and leaves without servers
        for (int l = 0; l < f.leafCount(); ++l) {
            const int v = f.leafVertex(l);
            const int rack = firstRack[sz(l)];
            if (rack == kBomNowhere) {
                upper.push_back(v);
            } else if (oneRack[sz(l)]) {
                rackOfVertex[sz(v)] = rack;
                bom.racks[sz(rack)].switches += 1;
            } else {
                rowSwitches[sz(rack / bom.racksPerRow)].push_back(v);
            }
        }
        for (int row = 0; row < computeRows; ++row) {
            const int used = std::min(bom.racksPerRow, computeRacks - row * bom.racksPerRow);
            fillNetworkRacks(rowSwitches[sz(row)], row, used);
        }
        for (int s = 0; s < f.spineCount(); ++s)
            upper.push_back(f.spineVertex(s));
        for (int s = 0; s < f.superSpineCount(); ++s)
            upper.push_back(f.superSpineVertex(s));
        for (int c = 0; c < f.coreCount(); ++c)
            upper.push_back(f.coreVertex(c));
        // The spine rows: racksPerRow network racks a row.
        const std::size_t perRow = sz(bom.racksPerRow) * sz(rules.switchesPerRack);
        for (std::size_t first = 0; first < upper.size(); first += perRow) {
            const std::vector<int> chunk(upper.begin() + static_cast<std::ptrdiff_t>(first),
                upper.begin()
                    + static_cast<std::ptrdiff_t>(std::min(upper.size(), first + perRow)));
            fillNetworkRacks(chunk, computeRows + static_cast<int>(first / perRow), 0);
        }
    }

    int rackOf(int vertex) const
    {
        const FabricNode &n = f.node(vertex);
        return n.kind == NodeKind::Nic ? computeRackOfServer(n.server) : rackOfVertex[sz(vertex)];
    }

    CableClass classOf(int a, int b) const
    {
        const int ra = rackOf(a);
        const int rb = rackOf(b);
        if (ra == kBomNowhere || rb == kBomNowhere)
            return CableClass::Optics;
        const BomRack &x = bom.racks[sz(ra)];
        const BomRack &y = bom.racks[sz(rb)];
        if (x.row != y.row)
            return CableClass::Optics; // across the hall
        const double metres = rules.slackM + std::abs(x.position - y.position) * rules.rackWidthM;
        if (metres <= rules.copperMaxM)
            return CableClass::Copper;
        return metres <= rules.activeMaxM ? CableClass::Active : CableClass::Optics;
    }
};

/// A cable line's kind: by tier, and the super-spine tier's links to the cores of a four-tier
/// fabric (fabric.cpp: they count in that tier) as a kind of their own.
std::string_view bomLinkKindOf(Tier t, bool toCore)
{
    if (toCore)
        return "super-spine-core";
    switch (t) {
    case Tier::Leaf:
        return "nic-leaf";
    case Tier::Spine:
        return "leaf-spine";
    default:
        break;
    }
    return "spine-super-spine";
}

std::string_view bomSwitchTierOf(NodeKind k)
{
    switch (k) {
    case NodeKind::Leaf:
        return "leaf";
    case NodeKind::Spine:
        return "spine";
    case NodeKind::Core:
        return "core";
    default:
        break;
    }
    return "super-spine";
}

/// Speeds to a tenth of a Gbit/s as a key (400 -> 4000).
long long bomSpeedKey(double gbps)
{
    return std::llround(gbps * 10.0);
}

} // namespace

BillOfMaterials billOfMaterials(const Fabric &f, const BomRules &rules)
{
    checkBomRules(rules, "rules");
    BillOfMaterials bom;
    bom.rules = rules;
    bom.servers = f.servers();
    bom.gpus = f.slotCount();
    bom.nics = f.servers() * f.nicsPerServer();
    bom.planes = f.planeCount();
    bom.scaleUpDomains = f.scaleUpDomainCount();
    BomPlacer placer { f, rules, bom, {} };
    placer.place();

    const FabricSpec &spec = f.spec();
    const std::size_t vertices = boost::num_vertices(f.graph());
    std::vector<std::int64_t> used(vertices, 0);
    std::vector<double> fastest(vertices, 0.0);
    std::map<std::tuple<int, int, long long>, std::size_t> cableLine;
    for (const FabricLink &l : f.links()) {
        if (l.id > l.reverse
            || (l.tier != Tier::Leaf && l.tier != Tier::Spine && l.tier != Tier::SuperSpine))
            continue;
        // One cable's speed: a NIC port is one cable; a bundle's is the spec's switch port
        // speed (its bandwidth may keep a fractional share of ports, fabric.cpp), or, cabled
        // from an inventory, its bandwidth over its cables.
        const double gbps = l.tier == Tier::Leaf || f.cabled()
            ? bytesPerSecondToGbps(l.bandwidth) / l.ports
            : spec.fabricPort.gbps;
        const CableClass cls = placer.classOf(l.src, l.dst);
        for (const int v : { l.src, l.dst }) {
            if (f.node(v).kind == NodeKind::Nic)
                continue;
            used[sz(v)] += l.ports;
            fastest[sz(v)] = std::max(fastest[sz(v)], gbps);
        }
        if (l.tier == Tier::Leaf) {
            bom.nicPorts += 1;
            bom.nicGbps = std::max(bom.nicGbps, gbps);
        }
        const bool toCore
            = f.node(l.src).kind == NodeKind::Core || f.node(l.dst).kind == NodeKind::Core;
        const auto key = std::make_tuple(toCore ? kTierCount : static_cast<int>(l.tier),
            static_cast<int>(cls), bomSpeedKey(gbps));
        auto [it, added] = cableLine.emplace(key, bom.cables.size());
        if (added)
            bom.cables.push_back(BomCableLine { std::string(bomLinkKindOf(l.tier, toCore)), cls,
                static_cast<double>(bomSpeedKey(gbps)) / 10.0, 0, 0 });
        BomCableLine &line = bom.cables[it->second];
        line.cables += l.ports;
        if (cls == CableClass::Optics)
            line.transceivers += 2 * std::int64_t { l.ports };
    }
    if (bom.nicGbps <= 0.0) // nothing cabled: the spec's port speed
        bom.nicGbps = f.planeCount() > 1 && spec.planePortGbps > 0.0
            ? spec.planePortGbps
            : spec.nic.gbps / f.planeCount();

    // Switch lines per tier and model class (radix, fastest port). A switch cabled beyond the
    // spec's radix (an inventory need not follow it) is counted with the ports it uses.
    std::map<std::tuple<int, int, long long>, std::size_t> switchLine;
    const auto addSwitch = [&](int v) {
        const NodeKind kind = f.node(v).kind;
        const std::int64_t portsUsed = used[sz(v)];
        const int radix = static_cast<int>(std::max<std::int64_t>(spec.switchRadix, portsUsed));
        const double gbps = fastest[sz(v)] > 0.0 ? fastest[sz(v)] : spec.fabricPort.gbps;
        const auto key = std::make_tuple(static_cast<int>(kind), radix, bomSpeedKey(gbps));
        auto [it, added] = switchLine.emplace(key, bom.switches.size());
        if (added)
            bom.switches.push_back(BomSwitchLine { std::string(bomSwitchTierOf(kind)), radix,
                static_cast<double>(bomSpeedKey(gbps)) / 10.0, 0, 0, 0 });
        BomSwitchLine &line = bom.switches[it->second];
        line.count += 1;
        line.portsUsed += portsUsed;
        line.portsFree += radix - portsUsed;
    };
    for (int i = 0; i < f.leafCount(); ++i)
        addSwitch(f.leafVertex(i));
    for (int i = 0; i < f.spineCount(); ++i)
        addSwitch(f.spineVertex(i));
    for (int i = 0; i < f.superSpineCount(); ++i)
        addSwitch(f.superSpineVertex(i));
    for (int i = 0; i < f.coreCount(); ++i)
        addSwitch(f.coreVertex(i));
    // Lines in a fixed order (tier up the fabric, then class, then speed), whatever order the
    // links were built in.
    const auto linkRank = [](const std::string &link) {
        return link == "nic-leaf"        ? 0
            : link == "leaf-spine"       ? 1
            : link == "super-spine-core" ? 3
                                         : 2;
    };
    std::stable_sort(
        bom.cables.begin(), bom.cables.end(), [&](const BomCableLine &a, const BomCableLine &b) {
            return std::make_tuple(linkRank(a.link), static_cast<int>(a.cableClass), a.gbps)
                < std::make_tuple(linkRank(b.link), static_cast<int>(b.cableClass), b.gbps);
        });
    return bom;
}

} // namespace railyard
