// Tests of how a fabric's graph is assembled (model/fabric/fabricassembly.cpp): each vertex's
// edge lists allocated once at their size, in link id order, and fabricWithoutLinks(), the
// vertices and NIC attachments alone that `generate` checks a file against.

#include "base/scenarioerror.h"
#include "fabric/fabric.h"
#include "fabric/fabricwithoutlinks.h"
#include "fixtures.h"

#include <QTest>

#include <string>
#include <vector>

using namespace railyard;

class TestFabricAssembly : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void edgeListsAtTheirSize();
    void withoutLinks();
};

/// FabricAssembly::finish() adds the graph's edges once every degree is known: each vertex's
/// out- and in-edge vectors are allocated at their size (growing by doubling left a leaf of 16
/// NICs and 4 spines a capacity of 32 for its 20 edges, and cost a quarter of building a
/// million-GPU fabric in malloc), and each holds its links in id order, as adding them cable
/// by cable did (the router's CSR adjacency relies on that order, router.cpp).
void TestFabricAssembly::edgeListsAtTheirSize()
{
    for (const FabricSpec &spec : { fixtures::railFabric(16, 2, 2, 8),
             fixtures::torFabric(8, 4, 0, 16), fixtures::railFabric(64, 8, 32, 64) }) {
        const Fabric f = Fabric::build(spec);
        const FabricGraph &g = f.graph();
        std::vector<std::vector<int>> out(boost::num_vertices(g)), in(boost::num_vertices(g));
        for (const FabricLink &l : f.links()) { // in id order
            out[static_cast<std::size_t>(l.src)].push_back(l.id);
            in[static_cast<std::size_t>(l.dst)].push_back(l.id);
        }
        int notPowerOfTwo = 0; // degrees doubling would have over-allocated
        for (std::size_t v = 0; v < boost::num_vertices(g); ++v) {
            QCOMPARE(g.out_edge_list(v).capacity(), out[v].size());
            QCOMPARE(in_edge_list(g, v).capacity(), in[v].size());
            std::vector<int> outIds, inIds;
            for (auto [it, end] = boost::out_edges(v, g); it != end; ++it)
                outIds.push_back(g[*it].id);
            for (auto [it, end] = boost::in_edges(v, g); it != end; ++it)
                inIds.push_back(g[*it].id);
            QCOMPARE(outIds, out[v]);
            QCOMPARE(inIds, in[v]);
            const std::size_t d = out[v].size();
            notPowerOfTwo += d > 2 && (d & (d - 1)) != 0 ? 1 : 0;
        }
        QVERIFY(notPowerOfTwo > 0);
    }
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
