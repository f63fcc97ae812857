// Bill of materials (model/fabric/bom.h): switch and cable counts pinned to published reference
// architectures (NVIDIA DGX SuperPOD H100 and B200, Juniper's rail-optimised stripe), the reach
// rules classing cables by rack distance (and an edited rule moving cables between classes),
// ports used and free, top-of-rack, multi-plane, NVL72 and cabled fabrics, refused rules.
#include "base/scenarioerror.h"
#include "fabric/bom.h"
#include "fabric/fabric.h"
#include "fixtures.h"

#include <QTest>

#include <map>
#include <string>

using namespace railyard;

namespace {

/// The cables of a generated fabric as an inventory lists them (bundles expanded), with the
/// generator's node names as devices (as tst_cablingbuilder's helper).
std::vector<Cable> inventoryOf(const Fabric &f)
{
    std::vector<Cable> out;
    std::map<int, int> nextPort;
    const auto port = [&nextPort](int vertex) { return "p" + std::to_string(++nextPort[vertex]); };
    for (int id = 0; id < f.linkCount(); id += 2) {
        const FabricLink &l = f.link(id);
        if (l.tier == Tier::ScaleUp || l.tier == Tier::Pcie)
            continue;
        const FabricNode &a = f.node(l.src);
        const FabricNode &b = f.node(l.dst);
        for (int k = 0; k < l.ports; ++k) {
            Cable c;
            if (a.kind == NodeKind::Nic) {
                c.aDevice = f.serverName(a.server);
                c.aPort = "nic" + std::to_string(a.local);
            } else {
                c.aDevice = a.name;
                c.aPort = port(l.src);
            }
            c.bDevice = b.name;
            c.bPort = port(l.dst);
            c.gbps = bytesPerSecondToGbps(l.bandwidth) / l.ports;
            out.push_back(c);
        }
    }
    return out;
}

std::int64_t cablesOfClass(const BillOfMaterials &bom, std::string_view link, CableClass c)
{
    std::int64_t n = 0;
    for (const BomCableLine &l : bom.cables)
        if (l.link == link && l.cableClass == c)
            n += l.cables;
    return n;
}

const BomSwitchLine &onlyLine(const BillOfMaterials &bom, std::string_view tier)
{
    const BomSwitchLine *found = nullptr;
    for (const BomSwitchLine &s : bom.switches)
        if (s.tier == tier) {
            if (found)
                QTest::qFail("more than one switch line of the tier", __FILE__, __LINE__);
            found = &s;
        }
    if (!found)
        throw std::runtime_error("no switch line of tier " + std::string(tier));
    return *found;
}

} // namespace

class TestBom : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void superPodH100_data();
    void superPodH100();
    void superPodB200_data();
    void superPodB200();
    void juniperStripe_data();
    void juniperStripe();
    void reachClassesRailOptimised();
    void editedReachMovesCables();
    void topOfRackIsCopper();
    void planesDoubleTheNetwork();
    void nvl72RacksAreDomains();
    void cabledEqualsGenerated();
    void oversubscribedLeafPorts();
    void refusedRules_data();
    void refusedRules();
};

// NVIDIA DGX SuperPOD RA featuring DGX H100 (RA-11333-001), "Network Fabrics", table 4 "Compute
// fabric component count": 1 / 2 / 4 SU = 31 / 63 / 127 DGX H100 (one node position of the
// 32-node SU holds the UFM appliance, the table's footnote), leaf / spine switches 8/4, 16/8,
// 32/16 (QM9700, 64 x 400G), cables "compute and UFM" 252 / 508 / 1020 and "spine-leaf" 256 /
// 512 / 1024. The compute cables are the GPUs' 248 / 504 / 1016; the table's four more are the
// UFM appliance's, which a scenario does not model. Spine-leaf counts the full SU's uplinks,
// as the RA prescribes for a partial SU.
void TestBom::superPodH100_data()
{
    QTest::addColumn<int>("nodes");
    QTest::addColumn<int>("leaves");
    QTest::addColumn<int>("spines");
    QTest::addColumn<int>("computeAndUfm");
    QTest::addColumn<int>("spineLeaf");
    QTest::newRow("1 SU") << 31 << 8 << 4 << 252 << 256;
    QTest::newRow("2 SU") << 63 << 16 << 8 << 508 << 512;
    QTest::newRow("4 SU") << 127 << 32 << 16 << 1020 << 1024;
}

void TestBom::superPodH100()
{
    QFETCH(int, nodes);
    QFETCH(int, leaves);
    QFETCH(int, spines);
    QFETCH(int, computeAndUfm);
    QFETCH(int, spineLeaf);
    const Fabric f = Fabric::build(fixtures::railFabric(nodes, 8, 32, 64));
    const BillOfMaterials bom = billOfMaterials(f);
    QCOMPARE(bom.switchesOf("leaf"), leaves);
    QCOMPARE(bom.switchesOf("spine"), spines);
    QCOMPARE(bom.switchesOf("super-spine"), 0);
    constexpr int kUfmCables = 4; // RA table 4: compute and UFM = GPUs + 4
    QCOMPARE(bom.cablesOf("nic-leaf"), std::int64_t { computeAndUfm - kUfmCables });
    QCOMPARE(bom.cablesOf("leaf-spine"), std::int64_t { spineLeaf });
    QCOMPARE(bom.cablesOf("spine-super-spine"), std::int64_t { 0 });
    // Every port of every spine is used: 64 x spines = the spine-leaf cables.
    const BomSwitchLine &spine = onlyLine(bom, "spine");
    QCOMPARE(spine.portsUsed, std::int64_t { spineLeaf });
    QCOMPARE(spine.portsFree, std::int64_t { 0 });
    QCOMPARE(bom.nics, nodes * 8);
}

// NVIDIA DGX SuperPOD RA featuring DGX B200, "DGX SuperPOD Architecture", the compute-fabric
// table: SU, nodes, leaf / spine / core switches, node-leaf / leaf-spine / spine-core cables.
void TestBom::superPodB200_data()
{
    QTest::addColumn<int>("sus");
    QTest::addColumn<int>("leaves");
    QTest::addColumn<int>("spines");
    QTest::addColumn<int>("cores");
    QTest::addColumn<int>("nodeLeaf");
    QTest::addColumn<int>("leafSpine");
    QTest::addColumn<int>("spineCore");
    QTest::newRow("2 SU") << 2 << 16 << 8 << 0 << 512 << 512 << 0;
    QTest::newRow("4 SU") << 4 << 32 << 16 << 0 << 1024 << 1024 << 0;
    QTest::newRow("8 SU") << 8 << 64 << 32 << 0 << 2048 << 2048 << 0;
    QTest::newRow("16 SU") << 16 << 128 << 128 << 64 << 4096 << 4096 << 4096;
    QTest::newRow("32 SU") << 32 << 256 << 256 << 128 << 8192 << 8192 << 8192;
    QTest::newRow("64 SU") << 64 << 512 << 512 << 256 << 16384 << 16384 << 16384;
}

void TestBom::superPodB200()
{
    QFETCH(int, sus);
    QFETCH(int, leaves);
    QFETCH(int, spines);
    QFETCH(int, cores);
    QFETCH(int, nodeLeaf);
    QFETCH(int, leafSpine);
    QFETCH(int, spineCore);
    const BillOfMaterials bom
        = billOfMaterials(Fabric::build(fixtures::railFabric(32 * sus, 8, 32, 64)));
    QCOMPARE(bom.switchesOf("leaf"), leaves);
    QCOMPARE(bom.switchesOf("spine"), spines);
    QCOMPARE(bom.switchesOf("super-spine"), cores);
    QCOMPARE(bom.cablesOf("nic-leaf"), std::int64_t { nodeLeaf });
    QCOMPARE(bom.cablesOf("leaf-spine"), std::int64_t { leafSpine });
    QCOMPARE(bom.cablesOf("spine-super-spine"), std::int64_t { spineCore });
    QCOMPARE(bom.servers, 32 * sus);
}

// Juniper Validated Design "AI Data Center Network with Juniper Apstra, NVIDIA GPUs, and WEKA
// Storage", section "Calculating the number of leaf and spine nodes, Servers, and GPUs in a rail
// optimized architecture", Figure 14 (X downlinks = Y uplinks for 1:1): leaves per stripe =
// GPUs per server = 8; servers per stripe N1 = leaf ports / 2; GPUs per stripe N2 = N1 x 8.
// With the QFX5230-64CD's 64 x 400GbE: 32 servers and 256 GPUs a stripe, every leaf port used
// (32 down, 32 up). Spines: the uplinks over the spine's 64 ports (4 for one stripe, the JVD's
// recommended minimum; 8 for two).
void TestBom::juniperStripe_data()
{
    QTest::addColumn<int>("stripes");
    QTest::addColumn<int>("spines");
    QTest::newRow("one stripe") << 1 << 4;
    QTest::newRow("two stripes") << 2 << 8;
}

void TestBom::juniperStripe()
{
    QFETCH(int, stripes);
    QFETCH(int, spines);
    constexpr int kPorts = 64; // QFX5230-64CD: 64 x 400GbE
    constexpr int kServersPerStripe = kPorts / 2; // N1
    const BillOfMaterials bom = billOfMaterials(Fabric::build(
        fixtures::railFabric(kServersPerStripe * stripes, 8, kServersPerStripe, kPorts)));
    QCOMPARE(bom.gpus, 256 * stripes); // N2 per stripe
    QCOMPARE(bom.switchesOf("leaf"), 8 * stripes);
    QCOMPARE(bom.switchesOf("spine"), spines);
    const BomSwitchLine &leaf = onlyLine(bom, "leaf");
    QCOMPARE(leaf.radix, kPorts);
    QCOMPARE(leaf.gbps, 400.0);
    QCOMPARE(leaf.portsUsed, std::int64_t { kPorts } * 8 * stripes); // X + Y = all ports
    QCOMPARE(leaf.portsFree, std::int64_t { 0 });
    QCOMPARE(bom.cablesOf("nic-leaf"), std::int64_t { 256 } * stripes);
    QCOMPARE(bom.cablesOf("leaf-spine"), std::int64_t { 256 } * stripes); // Y = X
}

// One SU row: 8 compute racks of 4 servers (positions 0..7), the 8 rail leaves in the network
// rack at position 8, the 4 spines in a row of their own. NIC cables from position p run
// 2 m + (8 - p) x 0.6 m: 2.6..6.8 m, all within the active reach (7 m); leaf-spine cables
// cross rows: optics, two transceivers each.
void TestBom::reachClassesRailOptimised()
{
    const BillOfMaterials bom = billOfMaterials(Fabric::build(fixtures::railFabric(32, 8, 32, 64)));
    QCOMPARE(bom.serversPerRack, 4);
    QCOMPARE(bom.racksPerRow, 8);
    QCOMPARE(bom.computeRacks(), 8);
    QCOMPARE(bom.networkRacks(), 2); // the SU's leaves; the spines' row
    QCOMPARE(bom.racks[8].row, 0);
    QCOMPARE(bom.racks[8].position, 8);
    QCOMPARE(bom.racks[8].switches, 8);
    QCOMPARE(bom.racks[9].row, 1);
    QCOMPARE(bom.racks[9].switches, 4);
    QCOMPARE(cablesOfClass(bom, "nic-leaf", CableClass::Active), std::int64_t { 256 });
    QCOMPARE(cablesOfClass(bom, "nic-leaf", CableClass::Copper), std::int64_t { 0 });
    QCOMPARE(cablesOfClass(bom, "leaf-spine", CableClass::Optics), std::int64_t { 256 });
    QCOMPARE(bom.transceiverCount(), std::int64_t { 512 });
}

// Active reach cut to 5 m: 2 + (8 - p) x 0.6 <= 5 holds for p >= 3, so racks 3..7 (160 cables)
// stay active and racks 0..2 (96 cables) become optics with 192 transceivers.
void TestBom::editedReachMovesCables()
{
    BomRules rules;
    rules.activeMaxM = 5.0;
    const BillOfMaterials bom
        = billOfMaterials(Fabric::build(fixtures::railFabric(32, 8, 32, 64)), rules);
    QCOMPARE(cablesOfClass(bom, "nic-leaf", CableClass::Active), std::int64_t { 160 });
    QCOMPARE(cablesOfClass(bom, "nic-leaf", CableClass::Optics), std::int64_t { 96 });
    QCOMPARE(bom.transceiverCount(), std::int64_t { 512 + 192 });
    // A longer copper reach takes the nearest rack's cables (2.6 m) to copper.
    rules.copperMaxM = 2.6;
    const BillOfMaterials copper
        = billOfMaterials(Fabric::build(fixtures::railFabric(32, 8, 32, 64)), rules);
    QCOMPARE(cablesOfClass(copper, "nic-leaf", CableClass::Copper), std::int64_t { 32 });
}

// ToR: radix 64, 8 NICs -> 4 servers a leaf, 4 servers a rack: every leaf sits in its servers'
// rack and every NIC cable is in-rack copper (2 m of slack).
void TestBom::topOfRackIsCopper()
{
    const BillOfMaterials bom = billOfMaterials(Fabric::build(fixtures::torFabric(16, 8, 0, 64)));
    QCOMPARE(bom.switchesOf("leaf"), 4);
    QCOMPARE(cablesOfClass(bom, "nic-leaf", CableClass::Copper), std::int64_t { 128 });
    for (int r = 0; r < 4; ++r)
        QCOMPARE(bom.racks[static_cast<std::size_t>(r)].switches, 1);
}

// Two planes: every NIC has two ports, each cabled to its plane's leaf; the switch network is
// built twice (fabric.cpp).
void TestBom::planesDoubleTheNetwork()
{
    FabricSpec one = fixtures::railFabric(32, 8, 32, 64);
    FabricSpec two = one;
    two.planes = 2;
    const BillOfMaterials a = billOfMaterials(Fabric::build(one));
    const BillOfMaterials b = billOfMaterials(Fabric::build(two));
    QCOMPARE(b.nics, a.nics);
    QCOMPARE(b.nicPorts, 2 * a.nicPorts);
    QCOMPARE(b.nicGbps, 200.0); // 400G over two ports
    QCOMPARE(b.switchesOf("leaf"), 2 * a.switchesOf("leaf"));
    QCOMPARE(b.cablesOf("nic-leaf"), 2 * a.cablesOf("nic-leaf"));
}

// GB200 NVL72: 18 trays of 4 GPUs share one NVLink domain and one rack.
void TestBom::nvl72RacksAreDomains()
{
    FabricSpec s = fixtures::railFabric(72, 4, 18, 64); // one rack an SU
    s.scaleUpDomainServers = 18;
    const BillOfMaterials bom = billOfMaterials(Fabric::build(s));
    QCOMPARE(bom.scaleUpDomains, 4);
    QCOMPARE(bom.serversPerRack, 18);
    QCOMPARE(bom.computeRacks(), 4);
    QCOMPARE(bom.racks[0].servers, 18);
    QCOMPARE(bom.gpus, 288);
    QCOMPARE(bom.cablesOf("nic-leaf"), std::int64_t { 288 });
}

// The same network cabled from an inventory counts the same switches, cables and ports.
void TestBom::cabledEqualsGenerated()
{
    const FabricSpec spec = fixtures::railFabric(64, 8, 32, 64);
    const Fabric generated = Fabric::build(spec);
    FabricSpec cabledSpec = spec;
    cabledSpec.cabling = inventoryOf(generated);
    const Fabric cabled = Fabric::build(cabledSpec);
    QVERIFY(cabled.cabled());
    const BillOfMaterials a = billOfMaterials(generated);
    const BillOfMaterials b = billOfMaterials(cabled);
    QCOMPARE(b.switchesOf("leaf"), a.switchesOf("leaf"));
    QCOMPARE(b.switchesOf("spine"), a.switchesOf("spine"));
    QCOMPARE(b.cablesOf("nic-leaf"), a.cablesOf("nic-leaf"));
    QCOMPARE(b.cablesOf("leaf-spine"), a.cablesOf("leaf-spine"));
    QCOMPARE(onlyLine(b, "spine").portsUsed, onlyLine(a, "spine").portsUsed);
}

// 2:1 leaves: 32 downlinks, 16 uplinks of 64 ports -> 48 used, 16 free per leaf; 8 leaves x 16
// uplinks / 64 = 2 spines, fully used.
void TestBom::oversubscribedLeafPorts()
{
    FabricSpec s = fixtures::railFabric(32, 8, 32, 64);
    s.leafOversubscription = 2.0;
    const BillOfMaterials bom = billOfMaterials(Fabric::build(s));
    const BomSwitchLine &leaf = onlyLine(bom, "leaf");
    QCOMPARE(leaf.count, 8);
    QCOMPARE(leaf.portsUsed, std::int64_t { 8 * 48 });
    QCOMPARE(leaf.portsFree, std::int64_t { 8 * 16 });
    QCOMPARE(bom.switchesOf("spine"), 2);
    QCOMPARE(bom.cablesOf("leaf-spine"), std::int64_t { 128 });
}

void TestBom::refusedRules_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("field");
    QTest::newRow("no switches a rack") << 0 << "rules.switches_per_rack";
    QTest::newRow("negative slack") << 1 << "rules.slack_m";
    QTest::newRow("active below copper") << 2 << "rules.active_max_m";
    QTest::newRow("zero rack width") << 3 << "rules.rack_width_m";
}

void TestBom::refusedRules()
{
    QFETCH(int, which);
    QFETCH(QString, field);
    BomRules r;
    if (which == 0)
        r.switchesPerRack = 0;
    else if (which == 1)
        r.slackM = -1.0;
    else if (which == 2)
        r.activeMaxM = 1.0;
    else
        r.rackWidthM = 0.0;
    try {
        billOfMaterials(Fabric::build(fixtures::railFabric(4, 2, 2, 8)), r);
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), field);
    }
}

QTEST_GUILESS_MAIN(TestBom)
#include "tst_bom.moc"
