// The fabric view of a four-tier Clos fabric (fabric.cpp: zones of pods, cores above the
// super-spines): every core switch has an item and a rectangle in a row above the super-spines,
// the super-spines' risers to the cores are drawn, and the overview shows the cores too.
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "fixtures.h"
#include "switchitem.h"

#include <QTest>

#include <algorithm>
#include <memory>

using namespace railyard;

class TestFourTierView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init() { m_doc = std::make_unique<ScenarioDocument>(); }
    void cleanup()
    {
        m_view.reset();
        m_doc.reset();
    }
    void coresAreDrawnAboveTheSuperSpines();

private:
    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<FabricView> m_view;
};

void TestFourTierView::coresAreDrawnAboveTheSuperSpines()
{
    // Radix 8, 144 single-GPU servers on ToR leaves of 4: 9 pods, more than the 8 pods three
    // tiers join, so 3 zones and 16 core groups of 2 cores (tst_fourtier derives the counts).
    Scenario s = fixtures::smallDense(144, 1, fixtures::degrees(1, 1, 144), FabricKind::Tor);
    s.fabric.switchRadix = 8;
    s.fabric.nicsPerServer = 1;
    m_doc->load(s);
    m_view = std::make_unique<FabricView>(m_doc.get());
    m_view->resize(1400, 800);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    m_view->fitAll();

    const Fabric &f = m_doc->engine().fabric();
    QCOMPARE(f.zoneCount(), 3);
    QCOMPARE(f.coreCount(), 32);
    const FabricLayout &layout = m_view->rootItem()->layout();
    double supersTop = 1e300, coresBottom = -1e300;
    for (int i = 0; i < f.superSpineCount(); ++i)
        supersTop = std::min(supersTop, layout.switchRect(f.superSpineVertex(i)).top());
    for (int c = 0; c < f.coreCount(); ++c) {
        const int v = f.coreVertex(c);
        const QRectF r = layout.switchRect(v);
        QVERIFY(!r.isEmpty());
        QVERIFY(layout.bounds().contains(r));
        coresBottom = std::max(coresBottom, r.bottom());
        // Every core is a switch item, labelled as the fourth tier.
        const SwitchItem *item = m_view->rootItem()->switchItem(v);
        QVERIFY(item);
        QCOMPARE(item->label(), QStringLiteral("core %1").arg(c));
    }
    QVERIFY2(coresBottom < supersTop, "the cores' row is above the super-spines'");
    // The super-spines' risers to the cores: one bundle per super-spine in the super-spine tier.
    int coreRisers = 0;
    for (const FabricLayout::Bundle &b : layout.bundles())
        if (b.tier == Tier::SuperSpine
            && f.node(f.link(2 * b.cables.front()).src).kind == NodeKind::SuperSpine)
            ++coreRisers;
    QCOMPARE(coreRisers, f.superSpineCount());
}

QTEST_MAIN(TestFourTierView)
#include "tst_fourtierview.moc"
