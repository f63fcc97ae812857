// Tests of how a fabric's graph is assembled (model/fabric/fabricassembly.cpp): the compressed
// graph's edges, each vertex's in link id order, and fabricWithoutLinks(), the
// vertices and NIC attachments alone that `generate` checks a file against.

#include "base/scenarioerror.h"
#include "base/writeahead.h"
#include "fabric/fabric.h"
#include "fabric/fabricwithoutlinks.h"
#include "fixtures.h"

#include <QTest>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

using namespace railyard;

class TestFabricAssembly : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void edgeListsAtTheirSize();
    void announcesTheLinksItWrites();
    void withoutLinks();
};

/// FabricAssembly::finish() makes the compressed graph (fabric.h) from the links: every link is
/// one edge from its source to its target carrying its id, each vertex's out-edges are its
/// links in id order, as adding them cable by cable gave (the router's CSR adjacency relies on
/// that order, router.cpp), and the graph keeps per link its target and id alone, in arrays at
/// their size (the adjacency_list before kept 56 bytes a link, in-edge lists included).
void TestFabricAssembly::edgeListsAtTheirSize()
{
    FabricSpec fourTiers = fixtures::torFabric(256, 1, 0, 8); // a k = 8 fat tree needs four
    fourTiers.nicsPerServer = 1;
    for (const FabricSpec &spec : { fixtures::railFabric(16, 2, 2, 8),
             fixtures::torFabric(8, 4, 0, 16), fixtures::railFabric(64, 8, 32, 64), fourTiers }) {
        const Fabric f = Fabric::build(spec);
        const FabricGraph &g = f.graph();
        const auto links = static_cast<std::size_t>(f.linkCount());
        QCOMPARE(boost::num_edges(g), links);
        std::vector<std::vector<int>> out(boost::num_vertices(g));
        for (const FabricLink &l : f.links()) // in id order
            out[static_cast<std::size_t>(l.src)].push_back(l.id);
        for (FabricVertex v = 0; v < boost::num_vertices(g); ++v) {
            std::vector<int> outIds;
            for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
                const FabricLink &l = f.link(g[*it].id);
                QCOMPARE(static_cast<int>(boost::source(*it, g)), l.src);
                QCOMPARE(static_cast<int>(boost::target(*it, g)), l.dst);
                outIds.push_back(l.id);
            }
            QCOMPARE(outIds, out[v]);
        }
        // Per link 4 bytes of target and 4 of id, per vertex 4 of where its edges start.
        QCOMPARE(g.m_forward.m_column.capacity(), links);
        QCOMPARE(g.m_forward.m_edge_properties.capacity(), links);
        QCOMPARE(g.m_forward.m_rowstart.size(), boost::num_vertices(g) + 1);
        QCOMPARE(sizeof(g.m_forward.m_column[0]) + sizeof(g.m_forward.m_edge_properties[0]),
            std::size_t { 8 });
        QCOMPARE(sizeof(g.m_forward.m_rowstart[0]), std::size_t { 4 });
    }
}

namespace {

struct Announced
{
    const void *data = nullptr;
    std::size_t bytes = 0;
};
std::vector<Announced> g_announced;

void record(const void *data, std::size_t bytes)
{
    g_announced.push_back({ data, bytes });
}

} // namespace

/// The fabric tells the program which blocks it is about to write whole (aboutToWrite(),
/// base/writeahead.h; railyard-cli faults them in on its second thread): its vertex records,
/// and per link its ends (two vertex indexes) and its class index, each block exactly as large
/// as what it then writes (a hint past what is written would make memory resident for
/// nothing). Those 12 bytes
/// are all a fabric keeps per link besides its graph edge: the figures live once per class, and
/// a generated fabric has a handful (GPU <-> NVLink switch, GPU <-> NIC, NIC <-> leaf, and per
/// switch tier up and down).
void TestFabricAssembly::announcesTheLinksItWrites()
{
    FabricSpec fourTiers = fixtures::torFabric(256, 1, 0, 8);
    fourTiers.nicsPerServer = 1;
    for (const FabricSpec &spec :
        { fixtures::railFabric(16, 2, 2, 8), fixtures::torFabric(8, 4, 0, 16), fourTiers }) {
        g_announced.clear();
        setAboutToWriteHandler(&record);
        const Fabric f = Fabric::build(spec);
        setAboutToWriteHandler(nullptr);
        const auto links = static_cast<std::size_t>(f.linkCount());
        const auto announced = [&](std::size_t bytes) {
            return std::count_if(g_announced.begin(), g_announced.end(),
                [&](const Announced &a) { return a.data != nullptr && a.bytes == bytes; });
        };
        QCOMPARE(announced(boost::num_vertices(f.graph()) * sizeof(FabricNode)), 1);
        QCOMPARE(announced(links * 2 * sizeof(int)), 1);
        QCOMPARE(announced(links * sizeof(std::uint32_t)), 1);
        QCOMPARE(g_announced.size(), std::size_t { 3 });
        // Two directions of six kinds of cable at most: GPU-switch, GPU-NIC, NIC-leaf,
        // leaf-spine, spine-super-spine, super-spine-core.
        QVERIFY2(f.linkClassCount() <= 12, std::to_string(f.linkClassCount()).c_str());
        QVERIFY(f.linkClassCount() >= 6);
    }
    aboutToWrite(nullptr, 1); // no handler: nothing happens
}

/// fabricWithoutLinks(), generate's check: the same vertices and NIC attachments as
/// build() (two tiers, three, four, and two planes), no links, and the same refusals.
void TestFabricAssembly::withoutLinks()
{
    FabricSpec fourTiers = fixtures::torFabric(256, 1, 0, 8); // a k = 8 fat tree needs four
    fourTiers.nicsPerServer = 1;
    FabricSpec planes = fixtures::railFabric(64, 8, 32, 64);
    planes.planes = 2;
    for (const FabricSpec &spec :
        { fixtures::railFabric(16, 2, 2, 8), fixtures::torFabric(8, 4, 0, 16),
            fixtures::railFabric(64, 8, 32, 64), fourTiers, planes }) {
        const Fabric whole = Fabric::build(spec);
        const Fabric shape = fabricWithoutLinks(spec);
        QCOMPARE(shape.linkCount(), 0);
        QCOMPARE(boost::num_edges(shape.graph()), std::size_t { 0 });
        QVERIFY(whole.linkCount() > 0);
        QCOMPARE(boost::num_vertices(shape.graph()), boost::num_vertices(whole.graph()));
        for (int v = 0; v < static_cast<int>(boost::num_vertices(whole.graph())); ++v) {
            const FabricNode &a = whole.node(v), &b = shape.node(v);
            QCOMPARE(b.name, a.name);
            QVERIFY(b.kind == a.kind);
            QCOMPARE(
                std::vector<int>({ b.server, b.local, b.rail, b.su, b.pod, b.zone, b.netPlane }),
                std::vector<int>({ a.server, a.local, a.rail, a.su, a.pod, a.zone, a.netPlane }));
        }
        QCOMPARE(std::vector<int>({ shape.leafCount(), shape.spineCount(), shape.superSpineCount(),
                     shape.coreCount(), shape.podCount(), shape.zoneCount(), shape.railCount(),
                     shape.planeCount() }),
            std::vector<int>(
                { whole.leafCount(), whole.spineCount(), whole.superSpineCount(), whole.coreCount(),
                    whole.podCount(), whole.zoneCount(), whole.railCount(), whole.planeCount() }));
        for (int server = 0; server < whole.servers(); ++server)
            for (int nic = 0; nic < whole.nicsPerServer(); ++nic) {
                QCOMPARE(shape.leafPortOfNic(server, nic), whole.leafPortOfNic(server, nic));
                for (int plane = 0; plane < whole.planeCount(); ++plane)
                    QCOMPARE(shape.leafOfNicPort(server, nic, plane),
                        whole.leafOfNicPort(server, nic, plane));
            }
        for (int slot = 0; slot < whole.slotCount(); ++slot)
            QCOMPARE(shape.slotCabled(slot), whole.slotCabled(slot));
    }
    FabricSpec bad = fixtures::railFabric(16, 2, 2, 8);
    bad.switchRadix = 1;
    QString wholeError, shapeError;
    try {
        Fabric::build(bad);
    } catch (const ScenarioError &e) {
        wholeError = QString::fromStdString(e.what());
    }
    try {
        fabricWithoutLinks(bad);
    } catch (const ScenarioError &e) {
        shapeError = QString::fromStdString(e.what());
    }
    QVERIFY(!wholeError.isEmpty());
    QCOMPARE(shapeError, wholeError);
}

QTEST_GUILESS_MAIN(TestFabricAssembly)
#include "tst_fabricassembly.moc"
