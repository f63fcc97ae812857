// The fabric view of multi-plane and rail-only fabrics: every plane's leaves drawn, side by side
// and apart, the SU frame naming the planes; a rail-only fabric draws its rail switches, no
// spine row, and a frame that says cross-rail traffic crosses NVLink.
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <memory>

using namespace railyard;

class TestPlanesView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init() { m_doc = std::make_unique<ScenarioDocument>(); }
    void cleanup()
    {
        m_view.reset();
        m_doc.reset();
    }
    void dualPlaneDrawsBothPlanes();
    void railOnlyDrawsNoSpine();

private:
    void show(const char *sample)
    {
        m_doc->load(loadScenario(std::string(RAILYARD_SOURCE_DIR "/samples/") + sample));
        m_view = std::make_unique<FabricView>(m_doc.get());
        m_view->resize(1400, 800);
        m_view->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
        m_view->fitAll();
    }
    bool frameSays(const QString &words) const
    {
        for (const FabricLayout::Frame &fr : m_view->rootItem()->layout().frames())
            if (fr.label.contains(words))
                return true;
        return false;
    }

    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<FabricView> m_view;
};

void TestPlanesView::dualPlaneDrawsBothPlanes()
{
    show("seed-128-dual-plane.json");
    const FabricLayout &layout = m_view->rootItem()->layout();
    const Fabric &f = m_doc->engine().fabric();
    QCOMPARE(f.planeCount(), 2);
    // Every leaf of both planes has its own rectangle, no two overlapping.
    std::vector<QRectF> rects;
    for (int leaf = 0; leaf < f.leafCount(); ++leaf) {
        const QRectF r = layout.switchRect(f.leafVertex(leaf));
        QVERIFY(!r.isEmpty());
        for (const QRectF &other : rects)
            QVERIFY(!r.intersects(other));
        rects.push_back(r);
    }
    // Plane 1's rail-0 leaf sits to the right of plane 0's last rail leaf (plane by plane).
    QVERIFY(layout.switchRect(f.leafVertex(f.leavesPerPlane())).left()
        > layout.switchRect(f.leafVertex(f.leavesPerPlane() - 1)).right());
    QVERIFY(frameSays(QStringLiteral("2 planes")));
}

void TestPlanesView::railOnlyDrawsNoSpine()
{
    show("seed-128-rail-only.json");
    const FabricLayout &layout = m_view->rootItem()->layout();
    const Fabric &f = m_doc->engine().fabric();
    QCOMPARE(f.spineCount(), 0);
    for (int leaf = 0; leaf < f.leafCount(); ++leaf)
        QVERIFY(!layout.switchRect(f.leafVertex(leaf)).isEmpty());
    QVERIFY(frameSays(QStringLiteral("no spine")));
    QVERIFY(frameSays(QStringLiteral("NVLink")));
}

QTEST_MAIN(TestPlanesView)
#include "tst_planesview.moc"
