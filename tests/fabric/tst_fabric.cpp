// Tests of the fabric generators (model/fabric/fabric.cpp): switch counts against the NVIDIA DGX
// SuperPOD reference architectures, link counts derived by hand, units, names. The refusals of
// bad specs are tst_fabricvalidation's.

#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "fabric/degradation.h"
#include "fabric/fabric.h"
#include "fixtures.h"

#include <QElapsedTimer>
#include <QTest>

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <ranges>
#include <set>
#include <string>

Q_DECLARE_METATYPE(railyard::FabricSpec)

using namespace railyard;

// Fabric::links() is a standard forward range of FabricLink values.
static_assert(std::ranges::forward_range<Fabric::LinkRange>);
static_assert(std::same_as<std::ranges::range_value_t<Fabric::LinkRange>, FabricLink>);

namespace {

/// Directed links per tier.
std::array<int, kTierCount> linksByTier(const Fabric &f)
{
    std::array<int, kTierCount> n {};
    for (const FabricLink &l : f.links())
        ++n[static_cast<std::size_t>(index(l.tier))];
    return n;
}

/// Number of distinct neighbours of a vertex of the given kind.
int neighboursOfKind(const Fabric &f, int vertex, NodeKind kind)
{
    std::set<int> seen;
    for (auto [it, end] = boost::out_edges(static_cast<FabricVertex>(vertex), f.graph()); it != end;
         ++it) {
        const int v = static_cast<int>(boost::target(*it, f.graph()));
        if (f.node(v).kind == kind)
            seen.insert(v);
    }
    return static_cast<int>(seen.size());
}

/// Directed link counts stated as (scale-up, pcie, leaf, spine, super-spine) cables.
std::array<int, kTierCount> cables(int scaleUp, int pcie, int leaf, int spine, int superSpine)
{
    return { 2 * scaleUp, 2 * pcie, 2 * leaf, 2 * spine, 2 * superSpine };
}

} // namespace

class TestFabric : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void superPodCounts_data();
    void superPodCounts();
    void linkCountsByTier_data();
    void linkCountsByTier();
    void units();
    void reverseLinksAndIds();
    void editedLinksLeaveTheOthersAlone();
    void bundledLeafSpineBandwidth_data();
    void bundledLeafSpineBandwidth();
    void oversubscription_data();
    void oversubscription();
    void railWiring();
    void torWiring();
    void threeTierWiring();
    void names();
    void customServerNamesAndAffinity();
    void linkBetween();
    void sixteenThousandGpus();
};

// NVIDIA DGX SuperPOD RA, compute fabric (radix-64 QM9700, 32 DGX per SU, 8 rails):
// DGX H100 RA-11333-001 table 4 (1, 2, 4 SU) and the DGX B200 RA's table (8 .. 64 SU).
void TestFabric::superPodCounts_data()
{
    QTest::addColumn<int>("sus");
    QTest::addColumn<int>("leaves");
    QTest::addColumn<int>("spines");
    QTest::addColumn<int>("superSpines");
    QTest::addColumn<int>("pods");
    QTest::newRow("1 SU") << 1 << 8 << 4 << 0 << 1;
    QTest::newRow("2 SU") << 2 << 16 << 8 << 0 << 1;
    QTest::newRow("4 SU") << 4 << 32 << 16 << 0 << 1;
    QTest::newRow("8 SU") << 8 << 64 << 32 << 0 << 1;
    QTest::newRow("16 SU") << 16 << 128 << 128 << 64 << 4;
    QTest::newRow("32 SU") << 32 << 256 << 256 << 128 << 8;
    QTest::newRow("64 SU") << 64 << 512 << 512 << 256 << 16;
}

void TestFabric::superPodCounts()
{
    QFETCH(int, sus);
    QFETCH(int, leaves);
    QFETCH(int, spines);
    QFETCH(int, superSpines);
    QFETCH(int, pods);
    const Fabric f = Fabric::build(fixtures::railFabric(32 * sus, 8, 32, 64));
    QCOMPARE(f.leafCount(), leaves);
    QCOMPARE(f.spineCount(), spines);
    QCOMPARE(f.superSpineCount(), superSpines);
    QCOMPARE(f.podCount(), pods);
    QCOMPARE(f.railCount(), 8);
    QCOMPARE(f.slotCount(), 256 * sus);
    // The RA's cable counts: node-leaf = leaf-spine = GPUs (non-blocking), and spine-core too.
    const auto byTier = linksByTier(f);
    QCOMPARE(byTier[index(Tier::Leaf)], 2 * 256 * sus);
    double leafSpinePorts = 0.0;
    double spineCorePorts = 0.0;
    for (const FabricLink &l : f.links()) {
        if (l.tier == Tier::Spine && f.node(l.src).kind == NodeKind::Leaf)
            leafSpinePorts += l.bandwidth / gbpsToBytesPerSecond(400.0);
        if (l.tier == Tier::SuperSpine && f.node(l.src).kind == NodeKind::Spine)
            spineCorePorts += l.bandwidth / gbpsToBytesPerSecond(400.0);
    }
    QCOMPARE(leafSpinePorts, 256.0 * sus);
    QCOMPARE(spineCorePorts, superSpines > 0 ? 256.0 * sus : 0.0);
}

void TestFabric::linkCountsByTier_data()
{
    QTest::addColumn<FabricSpec>("spec");
    QTest::addColumn<int>("leaves");
    QTest::addColumn<int>("spines");
    QTest::addColumn<int>("superSpines");
    QTest::addColumn<QList<int>>("directed"); // per tier: scale-up, pcie, leaf, spine, super

    // 4 servers x 2 GPUs, 2 per SU, radix 8: 2 SUs x 2 rails = 4 leaves, D = U = 2,
    // 8 uplinks / 8 = 1 spine. Cables: 8 GPU-NVSwitch, 8 GPU-NIC, 8 NIC-leaf, 4 leaf-spine.
    {
        const auto c = cables(8, 8, 8, 4, 0);
        QTest::newRow("rail 2-tier one spine")
            << fixtures::railFabric(4, 2, 2, 8) << 4 << 1 << 0 << QList<int>(c.begin(), c.end());
    }
    // Same with radix 4: 8 uplinks / 4 = 2 spines, each leaf to both: 8 leaf-spine cables.
    {
        const auto c = cables(8, 8, 8, 8, 0);
        QTest::newRow("rail 2-tier two spines")
            << fixtures::railFabric(4, 2, 2, 4) << 4 << 2 << 0 << QList<int>(c.begin(), c.end());
    }
    // 4 servers x 2 GPUs, 1 per SU, radix 4: 8 leaves > 4 -> 3 tiers. Spine: 2 down, 2 up;
    // 1 SU (2 leaves) per pod, 4 pods, ceil(2/2) = 1 spine per pod, 1 plane,
    // ceil(4 pods x 2 / 4) = 2 super-spines. Cables: 8 leaf-spine, 4 spines x 2 = 8 spine-super.
    {
        const auto c = cables(8, 8, 8, 8, 8);
        QTest::newRow("rail 3-tier radix 4")
            << fixtures::railFabric(4, 2, 1, 4) << 8 << 4 << 2 << QList<int>(c.begin(), c.end());
    }
    // 16 servers x 2 GPUs, 2 per SU, radix 8: 16 leaves > 8 -> 3 tiers. Spine 4 down / 4 up;
    // 2 SUs (4 leaves) per pod, 4 pods, ceil(4 x 2 / 4) = 2 spines per pod (8 spines), 2 planes,
    // ceil(4 x 4 / 8) = 2 super-spines per plane (4). Cables: 32 GPU-NVSwitch, 32 PCIe,
    // 32 NIC-leaf, 16 leaves x 2 = 32 leaf-spine, 8 spines x 2 = 16 spine-super.
    {
        const auto c = cables(32, 32, 32, 32, 16);
        QTest::newRow("rail 3-tier radix 8")
            << fixtures::railFabric(16, 2, 2, 8) << 16 << 8 << 4 << QList<int>(c.begin(), c.end());
    }
    // ToR: 8 servers x 4 GPUs, radix 16 -> 16/2/4 = 2 servers per leaf, 4 leaves, D = U = 8;
    // 32 uplinks / 16 = 2 spines. Cables: 32, 32, 32 NIC-leaf, 4 x 2 = 8 leaf-spine.
    {
        const auto c = cables(32, 32, 32, 8, 0);
        QTest::newRow("tor 2-tier")
            << fixtures::torFabric(8, 4, 0, 16) << 4 << 2 << 0 << QList<int>(c.begin(), c.end());
    }
    // 4 NICs for 8 GPUs (GPU i -> NIC i mod 4), rail: 2 servers, 1 SU of 4 rail leaves,
    // D = U = 2, 8 uplinks / 64 = 1 spine. Cables: 16 NVLink, 16 PCIe, 8 NIC-leaf, 4 leaf-spine.
    {
        FabricSpec s = fixtures::railFabric(2, 8, 32, 64);
        s.nicsPerServer = 4;
        const auto c = cables(16, 16, 8, 4, 0);
        QTest::newRow("4 NICs per 8 GPUs") << s << 4 << 1 << 0 << QList<int>(c.begin(), c.end());
    }
}

void TestFabric::linkCountsByTier()
{
    QFETCH(FabricSpec, spec);
    QFETCH(int, leaves);
    QFETCH(int, spines);
    QFETCH(int, superSpines);
    QFETCH(QList<int>, directed);
    const Fabric f = Fabric::build(spec);
    QCOMPARE(f.leafCount(), leaves);
    QCOMPARE(f.spineCount(), spines);
    QCOMPARE(f.superSpineCount(), superSpines);
    const auto byTier = linksByTier(f);
    int total = 0;
    for (int t = 0; t < kTierCount; ++t) {
        QCOMPARE(byTier[static_cast<std::size_t>(t)], directed[t]);
        total += directed[t];
    }
    QCOMPARE(f.linkCount(), total);
    QCOMPARE(static_cast<int>(boost::num_edges(f.graph())), total);
    const int nics = f.nicsPerServer();
    QCOMPARE(static_cast<int>(boost::num_vertices(f.graph())),
        f.servers() * (f.gpusPerServer() + nics + 1) + leaves + spines + superSpines);
}

void TestFabric::units()
{
    FabricSpec s = fixtures::railFabric(2, 8, 32, 64);
    s.nic = { 400.0, 1.0 };
    s.pcie = { 512.0, 0.5 };
    s.scaleUp = { 3600.0, 0.6 };
    s.fabricPort = { 400.0, 0.6 };
    const Fabric f = Fabric::build(s);
    const FabricLink &nic
        = f.link(f.linkBetween(f.nicVertex(0, 3), f.leafVertex(f.leafOfNic(0, 3))));
    QCOMPARE(nic.tier, Tier::Leaf);
    QCOMPARE(nic.bandwidth, 50e9); // 400 Gbit/s = 50 GB/s
    QCOMPARE(nic.latency, 1e-6);
    const FabricLink &pcie = f.link(f.linkBetween(f.gpuVertex(3), f.nicVertex(0, 3)));
    QCOMPARE(pcie.tier, Tier::Pcie);
    QCOMPARE(pcie.bandwidth, 64e9);
    QCOMPARE(pcie.latency, 0.5e-6);
    const FabricLink &nvl = f.link(f.linkBetween(f.gpuVertex(3), f.scaleUpVertex(0)));
    QCOMPARE(nvl.tier, Tier::ScaleUp);
    QCOMPARE(nvl.bandwidth, 450e9); // H100 NVLink4: 450 GB/s per direction
    QCOMPARE(nvl.latency, 0.6e-6);
}

/// The fabric keeps a link's figures once per class of links alike (fabric.h): an edit of one
/// link - a job's share of a shared fabric, a degraded cable - gives that link figures of its
/// own and leaves every other link, its reverse and the links of its old class among them, as
/// they were; links edited alike share one new class.
void TestFabric::editedLinksLeaveTheOthersAlone()
{
    const Fabric f = Fabric::build(fixtures::railFabric(16, 2, 2, 8));
    const int nic = f.linkBetween(f.nicVertex(3, 1), f.leafVertex(f.leafOfNic(3, 1)));
    QVERIFY(nic >= 0);
    const int other = f.linkBetween(f.nicVertex(4, 1), f.leafVertex(f.leafOfNic(4, 1)));
    QVERIFY(other >= 0 && f.linkBandwidth(other) == f.linkBandwidth(nic)); // one class
    std::vector<double> scale(static_cast<std::size_t>(f.linkCount()), 1.0);
    scale[static_cast<std::size_t>(nic)] = 0.25;
    scale[static_cast<std::size_t>(other)] = 0.25;
    const Fabric narrowed = f.withBandwidthScaled(scale);
    QCOMPARE(narrowed.linkClassCount(), f.linkClassCount() + 1);
    for (int id = 0; id < f.linkCount(); ++id) {
        const FabricLink a = f.link(id), b = narrowed.link(id);
        QCOMPARE(b.bandwidth, a.bandwidth * scale[static_cast<std::size_t>(id)]);
        QCOMPARE(b.latency, a.latency);
        QCOMPARE(std::vector<int>({ b.src, b.dst, b.reverse, b.ports, int(b.tier) }),
            std::vector<int>({ a.src, a.dst, a.reverse, a.ports, int(a.tier) }));
        QVERIFY(narrowed.linkSourceKind(id) == f.linkSourceKind(id));
    }

    // A degraded cable: both directions slower and later, nothing else.
    Degradation cable;
    cable.kind = Degradation::Kind::Link;
    cable.index = nic;
    cable.bandwidthFactor = 0.5;
    cable.addedLatencyUs = 2.0;
    const Fabric degraded = degradedFabric(f, { cable });
    for (int id = 0; id < f.linkCount(); ++id) {
        const bool hit = id == nic || id == (nic ^ 1);
        QCOMPARE(degraded.linkBandwidth(id), f.linkBandwidth(id) * (hit ? 0.5 : 1.0));
        QCOMPARE(degraded.linkLatency(id), f.linkLatency(id) + (hit ? 2e-6 : 0.0));
        QCOMPARE(degraded.linkTier(id), f.linkTier(id));
    }
}

void TestFabric::reverseLinksAndIds()
{
    for (const FabricSpec &spec : { fixtures::railFabric(16, 2, 2, 8),
             fixtures::torFabric(8, 4, 0, 16), fixtures::railFabric(64, 8, 32, 64) }) {
        const Fabric f = Fabric::build(spec);
        QCOMPARE(f.linkCount() % 2, 0);
        for (int id = 0; id < f.linkCount(); ++id) {
            const FabricLink &l = f.link(id);
            QCOMPARE(l.id, id);
            const FabricLink &r = f.link(l.reverse);
            QCOMPARE(r.reverse, id);
            QCOMPARE(r.src, l.dst);
            QCOMPARE(r.dst, l.src);
            QCOMPARE(r.tier, l.tier);
            QCOMPARE(r.bandwidth, l.bandwidth);
            QCOMPARE(r.latency, l.latency);
            QCOMPARE(r.ports, l.ports);
            QVERIFY(l.bandwidth > 0.0);
            // The one-figure accessors agree with link(), the source kind with the node.
            QCOMPARE(f.linkTier(id), l.tier);
            QCOMPARE(f.linkBandwidth(id), l.bandwidth);
            QCOMPARE(f.linkLatency(id), l.latency);
            QVERIFY(f.linkSourceKind(id) == f.node(l.src).kind);
        }
        // The graph's edges name the same links, between the same vertices.
        int edges = 0;
        for (auto [it, end] = boost::edges(f.graph()); it != end; ++it) {
            const FabricLink &l = f.link(f.graph()[*it].id);
            QCOMPARE(static_cast<int>(boost::source(*it, f.graph())), l.src);
            QCOMPARE(static_cast<int>(boost::target(*it, f.graph())), l.dst);
            ++edges;
        }
        QCOMPARE(edges, f.linkCount());
    }
}

void TestFabric::bundledLeafSpineBandwidth_data()
{
    QTest::addColumn<int>("sus");
    QTest::addColumn<int>("ports");
    QTest::addColumn<double>("gbps");
    // A leaf's 32 uplinks spread over the spines: 1 SU 32/4 = 8 ports, 2 SU 32/8, 4 SU 32/16.
    QTest::newRow("1 SU") << 1 << 8 << 3200.0;
    QTest::newRow("2 SU") << 2 << 4 << 1600.0;
    QTest::newRow("4 SU") << 4 << 2 << 800.0;
}

void TestFabric::bundledLeafSpineBandwidth()
{
    QFETCH(int, sus);
    QFETCH(int, ports);
    QFETCH(double, gbps);
    const Fabric f = Fabric::build(fixtures::railFabric(32 * sus, 8, 32, 64));
    int checked = 0;
    for (int leaf = 0; leaf < f.leafCount(); ++leaf) {
        QCOMPARE(neighboursOfKind(f, f.leafVertex(leaf), NodeKind::Spine), f.spineCount());
        for (int sp = 0; sp < f.spineCount(); ++sp) {
            const int id = f.linkBetween(f.leafVertex(leaf), f.spineVertex(sp));
            QVERIFY(id >= 0);
            QCOMPARE(f.link(id).tier, Tier::Spine);
            QCOMPARE(f.link(id).ports, ports);
            QCOMPARE(f.link(id).bandwidth, gbpsToBytesPerSecond(gbps));
            ++checked;
        }
    }
    QCOMPARE(checked, f.leafCount() * f.spineCount());
}

void TestFabric::oversubscription_data()
{
    QTest::addColumn<double>("leafRatio");
    QTest::addColumn<double>("spineRatio");
    QTest::addColumn<int>("sus");
    QTest::addColumn<int>("pods");
    QTest::addColumn<int>("spines");
    QTest::addColumn<int>("superSpines");
    QTest::addColumn<double>("leafSpineGbps"); // one leaf-spine bundle
    // 1 SU, leaves 2:1 -> U = 16, 8 x 16 / 64 = 2 spines, 8 ports (3200 Gbit/s) per bundle.
    QTest::newRow("leaf 2:1") << 2.0 << 1.0 << 1 << 1 << 2 << 0 << 3200.0;
    // 1 SU, leaves 3:1 -> U = ceil(32/3) = 11, ceil(88 / 64) = 2 spines, 5.5 ports per bundle.
    QTest::newRow("leaf 3:1") << 3.0 << 1.0 << 1 << 1 << 2 << 0 << 2200.0;
    // 64 SU, spines 3:1 -> 48 ports down, floor(48/8) = 6 SUs per pod, ceil(64/6) = 11 pods,
    // 48 x 32 / 48 = 32 spines per pod (352), 48/3 = 16 up, 32 planes x ceil(11 x 16 / 64) = 3.
    QTest::newRow("spine 3:1") << 1.0 << 3.0 << 64 << 11 << 352 << 96 << 400.0;
}

void TestFabric::oversubscription()
{
    QFETCH(double, leafRatio);
    QFETCH(double, spineRatio);
    QFETCH(int, sus);
    QFETCH(int, pods);
    QFETCH(int, spines);
    QFETCH(int, superSpines);
    QFETCH(double, leafSpineGbps);
    FabricSpec s = fixtures::railFabric(32 * sus, 8, 32, 64);
    s.leafOversubscription = leafRatio;
    s.spineOversubscription = spineRatio;
    const Fabric f = Fabric::build(s);
    QCOMPARE(f.podCount(), pods);
    QCOMPARE(f.spineCount(), spines);
    QCOMPARE(f.superSpineCount(), superSpines);
    const int id = f.linkBetween(f.leafVertex(0), f.spineVertex(0));
    QCOMPARE(f.link(id).bandwidth, gbpsToBytesPerSecond(leafSpineGbps));
    QCOMPARE(f.link(id).ports, static_cast<int>(std::lround(leafSpineGbps / 400.0)));
}

void TestFabric::railWiring()
{
    // 2 SUs of 32 DGX: NIC i of every server of an SU on that SU's rail-i leaf.
    const Fabric f = Fabric::build(fixtures::railFabric(64, 8, 32, 64));
    for (int srv = 0; srv < 64; ++srv) {
        for (int nic = 0; nic < 8; ++nic) {
            const int leaf = f.leafOfNic(srv, nic);
            QCOMPARE(leaf, (srv / 32) * 8 + nic);
            QCOMPARE(f.node(f.leafVertex(leaf)).rail, nic);
            QCOMPARE(f.node(f.leafVertex(leaf)).su, srv / 32);
            QCOMPARE(f.leafPortOfNic(srv, nic), srv % 32);
            QCOMPARE(f.node(f.nicVertex(srv, nic)).rail, nic);
            QVERIFY(f.linkBetween(f.nicVertex(srv, nic), f.leafVertex(leaf)) >= 0);
        }
        for (int g = 0; g < 8; ++g)
            QCOMPARE(f.railOfSlot(srv * 8 + g), g);
    }
    // A rail leaf: 32 NICs down, every spine up.
    QCOMPARE(neighboursOfKind(f, f.leafVertex(5), NodeKind::Nic), 32);
    QCOMPARE(neighboursOfKind(f, f.leafVertex(5), NodeKind::Spine), 8);
}

void TestFabric::torWiring()
{
    // 8 DGX-like servers, radix 64 -> 32 / 8 = 4 servers per ToR: 2 ToRs, 32 NICs each.
    const Fabric f = Fabric::build(fixtures::torFabric(8, 8, 0, 64));
    QCOMPARE(f.leafCount(), 2);
    QCOMPARE(f.railCount(), 0);
    QCOMPARE(f.spineCount(), 1); // 2 x 32 uplinks / 64
    for (int srv = 0; srv < 8; ++srv) {
        for (int nic = 0; nic < 8; ++nic) {
            QCOMPARE(f.leafOfNic(srv, nic), srv / 4);
            QCOMPARE(f.leafPortOfNic(srv, nic), (srv % 4) * 8 + nic);
            QCOMPARE(f.node(f.nicVertex(srv, nic)).rail, -1);
        }
        QCOMPARE(f.railOfSlot(srv * 8 + 3), -1); // ToR has no rails
    }
    QCOMPARE(f.node(f.leafVertex(1)).rail, -1);
    QCOMPARE(f.node(f.leafVertex(1)).su, -1);
    QCOMPARE(neighboursOfKind(f, f.leafVertex(1), NodeKind::Nic), 32);
    // Explicit servers per leaf; the last ToR is partial (5 servers -> 2 + 2 + 1).
    const Fabric g = Fabric::build(fixtures::torFabric(5, 4, 2, 64));
    QCOMPARE(g.leafCount(), 3);
    QCOMPARE(g.leafOfNic(4, 3), 2);
    QCOMPARE(neighboursOfKind(g, g.leafVertex(2), NodeKind::Nic), 4);
}

void TestFabric::threeTierWiring()
{
    // "rail 3-tier radix 8" (see linkCountsByTier): 4 pods x (4 leaves, 2 spines), 2 planes of 2.
    const Fabric f = Fabric::build(fixtures::railFabric(16, 2, 2, 8));
    QCOMPARE(f.podCount(), 4);
    for (int leaf = 0; leaf < f.leafCount(); ++leaf) {
        const FabricNode &n = f.node(f.leafVertex(leaf));
        QCOMPARE(n.pod, leaf / 4);
        for (int sp = 0; sp < f.spineCount(); ++sp) {
            const bool samePod = f.node(f.spineVertex(sp)).pod == n.pod;
            QCOMPARE(f.linkBetween(f.leafVertex(leaf), f.spineVertex(sp)) >= 0, samePod);
        }
    }
    for (int sp = 0; sp < f.spineCount(); ++sp) {
        const int plane = sp % 2; // spine j of its pod
        QCOMPARE(neighboursOfKind(f, f.spineVertex(sp), NodeKind::Leaf), 4);
        QCOMPARE(neighboursOfKind(f, f.spineVertex(sp), NodeKind::SuperSpine), 2);
        for (int s = 0; s < f.superSpineCount(); ++s) {
            QCOMPARE(f.node(f.superSpineVertex(s)).pod, s / 2);
            const int id = f.linkBetween(f.spineVertex(sp), f.superSpineVertex(s));
            QCOMPARE(id >= 0, s / 2 == plane);
            if (id >= 0) {
                QCOMPARE(f.link(id).tier, Tier::SuperSpine);
                QCOMPARE(f.link(id).ports, 2); // 4 uplinks over 2 super-spines
                QCOMPARE(f.link(id).bandwidth, gbpsToBytesPerSecond(800.0));
            }
        }
    }
    for (int s = 0; s < f.superSpineCount(); ++s)
        QCOMPARE(neighboursOfKind(f, f.superSpineVertex(s), NodeKind::Spine), 4); // one per pod
}

void TestFabric::names()
{
    const Fabric f = Fabric::build(fixtures::railFabric(16, 2, 2, 8)); // 3 tiers
    QCOMPARE(f.serverName(3), std::string("node003"));
    QCOMPARE(f.node(f.gpuVertex(3 * 2 + 1)).name, std::string("node003/gpu1"));
    QCOMPARE(f.node(f.nicVertex(3, 1)).name, std::string("node003/nic1"));
    QCOMPARE(f.node(f.scaleUpVertex(3)).name, std::string("node003/nvswitch"));
    QCOMPARE(f.node(f.leafVertex(5)).name, std::string("leaf-su2-rail1"));
    QCOMPARE(f.node(f.spineVertex(3)).name, std::string("spine-p1-1"));
    QCOMPARE(f.node(f.superSpineVertex(3)).name, std::string("superspine-3"));
    QCOMPARE(f.node(f.superSpineVertex(3)).pod, 1); // plane
    const int id = f.linkBetween(f.gpuVertex(7), f.scaleUpVertex(3));
    QCOMPARE(f.linkName(id), std::string("node003/gpu1 -> node003/nvswitch"));
    QCOMPARE(f.linkName(f.link(id).reverse), std::string("node003/nvswitch -> node003/gpu1"));
    const Fabric t = Fabric::build(fixtures::torFabric(40, 8, 4, 64));
    QCOMPARE(t.node(t.leafVertex(7)).name, std::string("tor-7"));
    QCOMPARE(t.node(t.spineVertex(2)).name, std::string("spine-p0-2"));
    const Fabric big = Fabric::build(fixtures::railFabric(1200, 1, 600, 1200));
    QCOMPARE(big.serverName(1100), std::string("node1100"));
}

void TestFabric::customServerNamesAndAffinity()
{
    FabricSpec s = fixtures::railFabric(2, 4, 32, 64);
    s.nicsPerServer = 2;
    s.serverNames = { "alpha", "beta" };
    s.gpuToNic = { 1, 1, 0, 0 };
    const Fabric f = Fabric::build(s);
    QCOMPARE(f.serverName(1), std::string("beta"));
    QCOMPARE(f.node(f.gpuVertex(6)).name, std::string("beta/gpu2"));
    QCOMPARE(f.nicOfGpu(0), 1);
    QCOMPARE(f.nicOfGpu(3), 0);
    QCOMPARE(f.railOfSlot(4 + 1), 1);
    QCOMPARE(f.railOfSlot(4 + 2), 0);
    QVERIFY(f.linkBetween(f.gpuVertex(4), f.nicVertex(1, 1)) >= 0);
    QCOMPARE(f.linkBetween(f.gpuVertex(4), f.nicVertex(1, 0)), -1);
    QCOMPARE(neighboursOfKind(f, f.nicVertex(1, 0), NodeKind::Gpu), 2);
    // Default affinity wraps: GPU i -> NIC i mod N.
    FabricSpec d = fixtures::railFabric(1, 8, 32, 64);
    d.nicsPerServer = 4;
    const Fabric g = Fabric::build(d);
    QCOMPARE(g.nicOfGpu(6), 2);
    QCOMPARE(g.railCount(), 4);
    QCOMPARE(g.spec().nicsPerServer, 4);
}

void TestFabric::linkBetween()
{
    const Fabric f = Fabric::build(fixtures::railFabric(4, 2, 2, 4));
    const int gpu = f.gpuVertex(0);
    const int su = f.scaleUpVertex(0);
    const int id = f.linkBetween(gpu, su);
    QVERIFY(id >= 0);
    QCOMPARE(f.link(id).src, gpu);
    QCOMPARE(f.link(id).dst, su);
    QCOMPARE(f.linkBetween(su, gpu), f.link(id).reverse);
    QCOMPARE(f.linkBetween(gpu, f.scaleUpVertex(1)), -1); // another server's NVSwitch
    QCOMPARE(f.linkBetween(gpu, gpu), -1);
    QCOMPARE(f.linkBetween(-1, gpu), -1);
    QCOMPARE(f.linkBetween(gpu, 1 << 30), -1);
}

// 2048 DGX x 8 GPUs (64 SUs, radix 64): 512 rail leaves > 64 -> three tiers.
// Pods of floor(32 / 8) = 4 SUs (32 leaves): 16 pods; spines per pod ceil(32 x 32 / 32) = 32
// (512 spines), each 32 down / 32 up; 32 planes of ceil(16 x 32 / 64) = 8 super-spines (256).
// Links: 16,384 x (NVLink + PCIe + NIC) + 512 x 32 leaf-spine + 512 x 8 spine-super cables
// = 69,632 cables = 139,264 directed links. (Same 512 / 512 / 256 as the B200 RA's 64-SU row.)
void TestFabric::sixteenThousandGpus()
{
    QElapsedTimer timer;
    timer.start();
    const Fabric f = Fabric::build(fixtures::railFabric(2048, 8, 32, 64));
    const qint64 ms = timer.elapsed();
    qInfo("16,384-GPU fabric built in %lld ms", static_cast<long long>(ms));
    QCOMPARE(f.slotCount(), 16384);
    QCOMPARE(f.leafCount(), 512);
    QCOMPARE(f.spineCount(), 512);
    QCOMPARE(f.superSpineCount(), 256);
    QCOMPARE(f.podCount(), 16);
    QCOMPARE(f.linkCount(), 139264);
    const auto byTier = linksByTier(f);
    QCOMPARE(byTier[index(Tier::ScaleUp)], 2 * 16384);
    QCOMPARE(byTier[index(Tier::Pcie)], 2 * 16384);
    QCOMPARE(byTier[index(Tier::Leaf)], 2 * 16384);
    QCOMPARE(byTier[index(Tier::Spine)], 2 * 512 * 32);
    QCOMPARE(byTier[index(Tier::SuperSpine)], 2 * 512 * 8);
    // Each bundle: leaf-spine 1 port, spine-super 32 / 8 = 4 ports.
    const int ls = f.linkBetween(f.leafVertex(0), f.spineVertex(0));
    QCOMPARE(f.link(ls).ports, 1);
    const int ss = f.linkBetween(f.spineVertex(0), f.superSpineVertex(0));
    QCOMPARE(f.link(ss).ports, 4);
    QCOMPARE(f.link(ss).bandwidth, gbpsToBytesPerSecond(1600.0));
}

QTEST_GUILESS_MAIN(TestFabric)
#include "tst_fabric.moc"
