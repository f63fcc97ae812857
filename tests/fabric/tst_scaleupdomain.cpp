// Rack-scale scale-up domains (fabric.scaleup_domain_servers): one NVLink switch per domain,
// routes inside a domain over NVLink across trays, the planner's rings on NVLink, refusals,
// one-server domains unchanged, and the GB200 NVL72 sample with TP and EP inside the rack.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/epsummary.h"
#include "export/exportdirectory.h"
#include "export/exporters.h"
#include "fabric/fabric.h"
#include "fabric/fabricassembly.h"
#include "fabric/router.h"
#include "fixtures.h"
#include "optimise/objective.h"
#include "optimise/optimiser.h"
#include "scenario/scenariofile.h"
#include "workload/presets.h"

#include <QTest>

#include <cmath>
#include <string>

using namespace railyard;
using railyard::fixtures::tierDimBytes;

namespace {

/// 2 domains x 2 trays x 4 GPUs: servers 0-1 share NVLink switch 0, servers 2-3 switch 1.
FabricSpec twoRacks()
{
    FabricSpec s;
    s.servers = 4;
    s.gpusPerServer = 4;
    s.scaleUpDomainServers = 2;
    return s;
}

/// The scenario of twoRacks(): TP 8 (two trays), DP 2, ring collectives only.
Scenario twoRackTp8(Placement placement)
{
    Scenario s = fixtures::smallDense(4, 4, { 8, 1, 2, 1, 1 });
    s.fabric.scaleUpDomainServers = 2;
    s.collectives.algorithm = CollectiveAlgorithm::Ring;
    s.placement = placement;
    return s;
}

/// The ring formula over the workload's TP ops: each member's NVLink uplink carries
/// passes x (n-1)/n x S per op (Patarasuk & Yuan 2009; all-reduce = 2 passes), for every op
/// and micro-batch. The same sum is what one ring's cross edges carry in total.
double ringBytesPerMember(const CostEngine &engine, int n)
{
    double sum = 0.0;
    for (const CommOp &op : engine.plan().ops)
        if (op.dim == Dim::Tp)
            sum += (op.collective == Collective::AllReduce ? 2.0 : 1.0) * (n - 1.0) / n * op.bytes
                * op.count * engine.plan().microbatches;
    return sum;
}

bool nearlyEqual(double a, double b, double rel = 1e-9)
{
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

void expectRefusal(const FabricSpec &spec, const char *field, const char *words)
{
    try {
        Fabric::build(spec);
        QFAIL("the spec was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string(field));
        QVERIFY2(std::string(e.what()).find(words) != std::string::npos, e.what());
    }
}

Scenario nvl72Sample()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/gb200-nvl72-moe.json");
}

} // namespace

class TestScaleUpDomain : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneSwitchPerDomain();
    void oneServerDomainsKeepTheNumbering();
    void routesStayOnNvlinkInsideADomain();
    void tpAcrossTraysOfADomainUsesNoNic();
    void tpAcrossDomainsUsesTheNics();
    void oneServerDomainsReproduceTheSeed();
    void refusals();
    void tpInScaleUpCountsDomains();
    void nvl72SampleKeepsTpAndEpInTheRack();
    void nvl72Presets();
    void exportsKeepTraysAndEnableMnnvl();
    void epSplitAcrossRacksIsWarned();
    void simulatorHandOffsSeeTheRack();
};

void TestScaleUpDomain::oneSwitchPerDomain()
{
    const Fabric f = Fabric::build(twoRacks());
    QCOMPARE(f.scaleUpDomainCount(), 2);
    QCOMPARE(f.scaleUpDomainGpus(), 8);
    int switches = 0;
    for (std::size_t v = 0; v < boost::num_vertices(f.graph()); ++v)
        switches += f.graph()[v].kind == NodeKind::ScaleUpSwitch;
    QCOMPARE(switches, 2);
    QCOMPARE(f.scaleUpVertex(0), f.scaleUpVertex(1));
    QCOMPARE(f.scaleUpVertex(2), f.scaleUpVertex(3));
    QVERIFY(f.scaleUpVertex(1) != f.scaleUpVertex(2));
    QCOMPARE(f.node(f.scaleUpDomainVertex(1)).name, std::string("rack1/nvswitch"));
    // Every GPU has one scale-up link, to its domain's switch, at the per-GPU NVLink port.
    for (int slot = 0; slot < f.slotCount(); ++slot) {
        const int domain = slot / 8;
        const int up = f.linkBetween(f.gpuVertex(slot), f.scaleUpDomainVertex(domain));
        QVERIFY(up >= 0);
        QCOMPARE(f.link(up).bandwidth, 3600e9 / 8.0);
        QCOMPARE(f.linkBetween(f.gpuVertex(slot), f.scaleUpDomainVertex(1 - domain)), -1);
    }
    QVERIFY(f.sameScaleUpDomain(3, 4)); // tray 0 GPU 3, tray 1 GPU 0
    QVERIFY(!f.sameScaleUpDomain(7, 8)); // last GPU of rack 0, first of rack 1
    // Links: per GPU one scale-up and one PCIe cable, per NIC one leaf cable, plus spines.
    const int serverCables = 4 * 4 * 2 + 4 * 4;
    QCOMPARE(f.linkCount(), 2 * (serverCables + f.leafCount() * f.spineCount()));
}

void TestScaleUpDomain::oneServerDomainsKeepTheNumbering()
{
    // fabric.h's numbering: per server its G GPUs, N NICs and its switch, then the switches.
    FabricSpec s = twoRacks();
    s.scaleUpDomainServers = 1;
    const Fabric f = Fabric::build(s);
    const int per = 4 + 4 + 1;
    for (int server = 0; server < 4; ++server) {
        for (int g = 0; g < 4; ++g) {
            QCOMPARE(f.gpuVertex(server * 4 + g), server * per + g);
            QCOMPARE(f.nicVertex(server, g), server * per + 4 + g);
        }
        QCOMPARE(f.scaleUpVertex(server), server * per + 8);
        QCOMPARE(f.node(f.scaleUpVertex(server)).name, defaultServerName(server) + "/nvswitch");
    }
    QCOMPARE(f.leafVertex(0), 4 * per);
    QCOMPARE(f.scaleUpDomainCount(), 4);
    QVERIFY(!f.sameScaleUpDomain(3, 4));
}

void TestScaleUpDomain::routesStayOnNvlinkInsideADomain()
{
    const Fabric f = Fabric::build(twoRacks());
    Router router(f);
    // Tray 0 GPU 1 -> tray 1 GPU 2 (slot 6): GPU -> rack switch -> GPU, nothing else.
    const auto inside = router.route(1, 6);
    QCOMPARE(inside.size(), std::size_t { 2 });
    QCOMPARE(f.link(inside[0].link).src, f.gpuVertex(1));
    QCOMPARE(f.link(inside[0].link).dst, f.scaleUpDomainVertex(0));
    QCOMPARE(f.link(inside[1].link).dst, f.gpuVertex(6));
    QCOMPARE(router.latency(1, 6), 2 * 0.6e-6);
    // Rack 0 -> rack 1 (slot 9, GPU 1 of tray 2): PCIe -> NIC -> leaf ... as between servers.
    const auto across = router.route(1, 9);
    QVERIFY(across.size() >= 4);
    QCOMPARE(f.link(across.front().link).tier, Tier::Pcie);
    QCOMPARE(f.link(across.back().link).tier, Tier::Pcie);
    for (const RouteHop &h : across)
        QVERIFY(f.link(h.link).tier != Tier::ScaleUp);
}

void TestScaleUpDomain::tpAcrossTraysOfADomainUsesNoNic()
{
    // Packed: TP group 0 = ranks 0-7 = trays 0 and 1 = rack 0, TP group 1 = rack 1.
    CostEngine engine(twoRackTp8(Placement::Packed));
    const Fabric &f = engine.fabric();
    const double expected = ringBytesPerMember(engine, 8);
    QVERIFY(expected > 0.0);
    for (int slot : { 0, 3, 4, 7, 8, 15 }) {
        const int up = f.linkBetween(f.gpuVertex(slot), f.scaleUpVertex(f.serverOfSlot(slot)));
        const int down = f.linkBetween(f.scaleUpVertex(f.serverOfSlot(slot)), f.gpuVertex(slot));
        QVERIFY2(nearlyEqual(engine.report().links[up].dimBytes[index(Dim::Tp)], expected),
            qPrintable(QString::number(slot)));
        QVERIFY(nearlyEqual(engine.report().links[down].dimBytes[index(Dim::Tp)], expected));
    }
    // 16 uplinks + 16 downlinks carry all of it; not one TP byte on PCIe, NICs or switches.
    QVERIFY(nearlyEqual(tierDimBytes(engine, Tier::ScaleUp, Dim::Tp), 32.0 * expected));
    for (Tier t : { Tier::Pcie, Tier::Leaf, Tier::Spine, Tier::SuperSpine })
        QCOMPARE(tierDimBytes(engine, t, Dim::Tp), 0.0);
    // No "split across" warning: the group needs one domain and uses one.
    for (const std::string &w : engine.mappingWarnings())
        QVERIFY2(w.find("tp group") == std::string::npos, w.c_str());
}

void TestScaleUpDomain::tpAcrossDomainsUsesTheNics()
{
    // Scattered: rank r on server r mod 4, so TP group 0 (ranks 0-7) has 4 members per rack.
    // NCCL's rings (cost/ringorder.h) go through each rack once: each of the C rings has two
    // cross-rack edges, each carrying passes x (n-1)/n / C x S. Summed over the rings, the
    // GPU -> NIC PCIe links of the group carry 2 x ringBytesPerMember, for each of 2 groups.
    CostEngine engine(twoRackTp8(Placement::Scattered));
    const Fabric &f = engine.fabric();
    const double perMember = ringBytesPerMember(engine, 8);
    double nicUp = 0.0;
    for (int id = 0; id < f.linkCount(); ++id)
        if (f.link(id).tier == Tier::Leaf && f.node(f.link(id).src).kind == NodeKind::Nic)
            nicUp += engine.report().links[static_cast<std::size_t>(id)].dimBytes[index(Dim::Tp)];
    QVERIFY(nicUp > 0.0);
    QVERIFY2(nearlyEqual(nicUp, 2 * 2.0 * perMember),
        qPrintable(QString("%1 vs %2").arg(nicUp).arg(4.0 * perMember)));
    // The warning names the racks.
    bool warned = false;
    for (const std::string &w : engine.mappingWarnings())
        warned
            = warned || w.find("split across scale-up domains rack0, rack1") != std::string::npos;
    QVERIFY(warned);
}

void TestScaleUpDomain::oneServerDomainsReproduceTheSeed()
{
    // The seed sample as shipped and with "scaleup_domain_servers": 1 written out: the same
    // fabric hash (the key is only written when > 1) and the same report.
    const Scenario seed = fixtures::seed128();
    QCOMPARE(seed.fabric.scaleUpDomainServers, 1);
    std::string text = scenarioToText(seed);
    QVERIFY(text.find("scaleup_domain_servers") == std::string::npos);
    const std::string key = "\"servers_per_su\"";
    text.insert(text.find(key), "\"scaleup_domain_servers\": 1, ");
    const Scenario explicitOne = parseScenario(text);
    QCOMPARE(explicitOne.fabric, seed.fabric);
    const CostReport a = evaluate(seed);
    const CostReport b = evaluate(explicitOne);
    QVERIFY(std::abs(a.iterationTime - b.iterationTime) <= 1e-12);
    QVERIFY(a.iterationTime > 0.0);
    // With one server per domain every server has its own switch: TP 8 stays in the server.
    QCOMPARE(a.tierBytes[index(Tier::Leaf)][index(Dim::Tp)], 0.0);
}

void TestScaleUpDomain::refusals()
{
    FabricSpec s = twoRacks();
    s.scaleUpDomainServers = 3;
    expectRefusal(s, "fabric.scaleup_domain_servers", "do not divide the 4 servers");
    s.scaleUpDomainServers = 0;
    expectRefusal(s, "fabric.scaleup_domain_servers", "must be at least 1");
    // A rail-optimised SU of 6 servers cannot hold domains of 4: a rack would straddle SUs.
    s = twoRacks();
    s.servers = 12;
    s.scaleUpDomainServers = 4;
    s.serversPerSu = 6;
    expectRefusal(s, "fabric.scaleup_domain_servers", "straddle two SUs");
    // The same with ToR leaves is fine: a ToR fabric has no SU.
    s.kind = FabricKind::Tor;
    QCOMPARE(Fabric::build(s).scaleUpDomainCount(), 3);
    // The scenario loader names the key.
    std::string text = scenarioToText(fixtures::seed128());
    text.insert(text.find("\"servers_per_su\""), "\"scaleup_domain_servers\": 0, ");
    try {
        parseScenario(text);
        QFAIL("scaleup_domain_servers 0 was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string("fabric.scaleup_domain_servers"));
    }
}

void TestScaleUpDomain::tpInScaleUpCountsDomains()
{
    // TP 8 on trays of 4: inside one domain of 2 trays, so tp-in-scaleup is possible; with
    // one-server domains the same layout is refused, naming the domain's size.
    OptimiseOptions o;
    o.keep = KeepConstraint::TpInScaleUp;
    o.maxMoves = 200;
    o.seconds = 0.0;
    o.from = StartFrom::Packed; // every TP group in one rack; no accepted move may split one
    const OptimiseResult r = optimise(twoRackTp8(Placement::Packed), o);
    // Moves were proposed that would have spread a TP group over both racks, and refused.
    long long refused = 0;
    for (const ConstraintCount &c : r.constraints)
        refused += c.name.find("tp") != std::string::npos ? c.rejected : 0;
    QVERIFY(refused > 0);
    // TP groups are ranks 0-7 and 8-15 (tp fastest); a domain is 8 consecutive slots.
    const std::vector<int> &slots = r.scenario.slots;
    QCOMPARE(slots.size(), std::size_t { 16 });
    for (int g = 0; g < 2; ++g)
        for (int t = 1; t < 8; ++t)
            QCOMPARE(slots[static_cast<std::size_t>(g * 8 + t)] / 8,
                slots[static_cast<std::size_t>(g * 8)] / 8);
    Scenario one = twoRackTp8(Placement::Packed);
    one.fabric.scaleUpDomainServers = 1;
    try {
        optimise(one, o);
        QFAIL("tp 8 was accepted in a 4-GPU scale-up domain");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).find("exceeds the scale-up domain") != std::string::npos,
            e.what());
    }
}

void TestScaleUpDomain::nvl72SampleKeepsTpAndEpInTheRack()
{
    const Scenario s = nvl72Sample();
    QCOMPARE(s.fabric.gpusPerServer, 4);
    QCOMPARE(s.fabric.scaleUpDomainServers, 18);
    QCOMPARE(s.fabric.servers, 8 * 18);
    CostEngine engine(s);
    QCOMPARE(engine.fabric().scaleUpDomainGpus(), 72);
    // TP (2, one tray) and EP (4 experts' ranks = 8 consecutive ranks, two trays) inside a rack:
    // none of their bytes reaches a NIC.
    for (Dim d : { Dim::Tp, Dim::Ep }) {
        QVERIFY(tierDimBytes(engine, Tier::ScaleUp, d) > 0.0);
        for (Tier t : { Tier::Pcie, Tier::Leaf, Tier::Spine })
            QCOMPARE(tierDimBytes(engine, t, d), 0.0);
    }
    const EpSummary ep = epSummary(engine);
    QCOMPARE(ep.epGroupsOneServer, ep.groupCount);
    QCOMPARE(ep.epGroupsSpanningLeaves, 0);
    for (const std::string &w : engine.mappingWarnings()) {
        QVERIFY2(w.find("split across") == std::string::npos, w.c_str());
        QVERIFY2(w.find("tp group") == std::string::npos, w.c_str());
    }
    // Physical invariants.
    const CostReport &r = engine.report();
    QVERIFY(r.iterationTime > 0.0);
    for (const LinkLoad &l : r.links)
        QVERIFY(l.busyTime >= 0.0 && l.busyTime <= r.iterationTime * (1.0 + 1e-12) + 1e-15);
}

void TestScaleUpDomain::nvl72Presets()
{
    // NVIDIA's GB200 / GB300 NVL72: 18 compute trays of 4 GPUs; NVLink 5 1.8 TB/s per GPU
    // both ways = 900 GB/s = 7200 Gbit/s per direction (H100's 450 GB/s is 3600).
    for (const char *device : { "gb200", "gb300" }) {
        const DeviceFabricDefaults d = deviceFabricDefaults(device);
        QCOMPARE(d.rackTrays, 18);
        QCOMPARE(d.trayGpus, 4);
        QCOMPARE(d.scaleUpGbps, 1.8e12 / 2.0 * 8.0 / 1e9);
    }
    QCOMPARE(deviceFabricDefaults("h100-sxm").rackTrays, 0);
    QCOMPARE(deviceFabricDefaults("h100-sxm").scaleUpGbps, 450e9 * 8.0 / 1e9);
}

void TestScaleUpDomain::exportsKeepTraysAndEnableMnnvl()
{
    // Launchers start processes per host, and a tray is a host: the hostfile lists 144 trays
    // of 4 slots; NCCL's env gets NCCL_MNNVL_ENABLE=1 (multi-node NVLink) only for rack domains.
    CostEngine nvl(nvl72Sample());
    const std::string hostfile = exportText(nvl, ExportFormat::Hostfile);
    int hosts = 0;
    for (std::size_t at = hostfile.find("slots=4"); at != std::string::npos;
         at = hostfile.find("slots=4", at + 1))
        ++hosts;
    QCOMPARE(hosts, 144);
    for (ExportFormat f : { ExportFormat::Torchrun, ExportFormat::Slurm, ExportFormat::NcclPlan })
        QVERIFY(exportText(nvl, f).find("NCCL_MNNVL_ENABLE=1") != std::string::npos);
    CostEngine seed(fixtures::seed128());
    for (ExportFormat f : { ExportFormat::Torchrun, ExportFormat::Slurm, ExportFormat::NcclPlan })
        QVERIFY(exportText(seed, f).find("MNNVL") == std::string::npos);
}

void TestScaleUpDomain::epSplitAcrossRacksIsWarned()
{
    // Rail-aligned puts replica d of a column (one stage p) on tray d of its block of dp = 72
    // trays (4 racks), shard t on GPU t + 2 x lane. An EP group is 4 consecutive replicas
    // (Megatron carves EP out of DP), so for each (p, t) the 18 groups cover trays [4j, 4j+3];
    // a group straddles racks when a multiple of 18 falls inside (4j, 4j+3]: j = 4 (16-19) and
    // j = 13 (52-55). Each of the 4 stages x 2 shards has those, so 16 warnings.
    Scenario s = nvl72Sample();
    s.placement = Placement::RailAligned;
    s.slots.clear();
    CostEngine engine(s);
    int straddling = 0;
    for (int j = 0; j < 18; ++j)
        straddling += (4 * j) / 18 != (4 * j + 3) / 18 ? 1 : 0;
    QCOMPARE(straddling, 2);
    int warned = 0;
    for (const std::string &w : engine.mappingWarnings())
        warned += w.rfind("ep group", 0) == 0
            && w.find("split across scale-up domains rack") != std::string::npos;
    QCOMPARE(warned, s.degrees.pp * s.degrees.tp * straddling);
    // The shipped (packed) sample: none.
    CostEngine packed(nvl72Sample());
    for (const std::string &w : packed.mappingWarnings())
        QVERIFY2(w.find("ep group") == std::string::npos, w.c_str());
}

void TestScaleUpDomain::simulatorHandOffsSeeTheRack()
{
    // SimAI pairs GPU i with NVSwitch i / gpus_per_server and ASTRA-sim's first dimension is the
    // NPUs behind one scale-up switch: for 8 racks of 72 GPUs both must say 72 (and 8 switches /
    // 8 racks), not the tray's 4.
    CostEngine engine(nvl72Sample());
    const std::string simai = exportText(engine, ExportFormat::SimAiTopo);
    const std::string header = simai.substr(0, simai.find('\n'));
    QCOMPARE(header.substr(header.find(' ') + 1, 5), std::string("72 8 "));
    std::string network;
    for (const ExportFile &f : exportFiles(engine, ExportFormat::AstraSim))
        if (f.name == "network.yml")
            network = f.text;
    QVERIFY2(network.find("npus_count: [ 72, 8 ]") != std::string::npos, network.c_str());
}

QTEST_GUILESS_MAIN(TestScaleUpDomain)
#include "tst_scaleupdomain.moc"
