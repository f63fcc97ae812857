// The fabric view of rack-scale NVLink domains: one band per domain around exactly its trays,
// labelled with the domain's GPUs, painted on screen; one-server domains draw no band.
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "scenario/scenariofile.h"
#include "serveritem.h"

#include <QImage>
#include <QTest>

#include <cmath>
#include <memory>

using namespace railyard;

namespace {

Scenario scenarioFile(const char *name)
{
    return loadScenario(std::string(RAILYARD_SOURCE_DIR "/samples/") + name);
}

bool near(QRgb pixel, const QColor &colour)
{
    return std::abs(qRed(pixel) - colour.red()) + std::abs(qGreen(pixel) - colour.green())
        + std::abs(qBlue(pixel) - colour.blue())
        < 24;
}

} // namespace

class TestScaleUpDomainView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void oneBandPerDomain();
    void bandIsPaintedAroundTheTrays();
    void oneServerDomainsDrawNoBand();

private:
    void show(const char *sample);

    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<FabricView> m_view;
};

void TestScaleUpDomainView::init()
{
    m_doc = std::make_unique<ScenarioDocument>();
}

void TestScaleUpDomainView::cleanup()
{
    m_view.reset();
    m_doc.reset();
}

void TestScaleUpDomainView::show(const char *sample)
{
    m_doc->load(scenarioFile(sample));
    m_view = std::make_unique<FabricView>(m_doc.get());
    m_view->resize(1400, 800);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    m_view->fitAll();
}

void TestScaleUpDomainView::oneBandPerDomain()
{
    show("gb200-nvl72-moe.json");
    const FabricItem *root = m_view->rootItem();
    const std::vector<FabricLayout::Domain> &domains = root->layout().domains();
    // 8 NVL72 racks of 18 trays.
    QCOMPARE(domains.size(), std::size_t { 8 });
    for (std::size_t d = 0; d < domains.size(); ++d) {
        const FabricLayout::Domain &dom = domains[d];
        QCOMPARE(dom.firstServer, static_cast<int>(d) * 18);
        QCOMPARE(dom.servers, 18);
        QVERIFY(dom.label.contains(QStringLiteral("rack%1").arg(d)));
        QVERIFY(dom.label.contains(QStringLiteral("72 GPUs")));
        // The band holds its own trays as the scene draws them, and no tray of another rack.
        for (int s = 0; s < 144; ++s) {
            const QRectF tray = root->serverItem(s)->sceneBoundingRect();
            const bool mine = s >= dom.firstServer && s < dom.firstServer + dom.servers;
            QVERIFY2(mine ? dom.rect.contains(tray) : !dom.rect.intersects(tray),
                qPrintable(QStringLiteral("rack %1, tray %2").arg(d).arg(s)));
        }
        for (std::size_t e = d + 1; e < domains.size(); ++e)
            QVERIFY(!dom.rect.intersects(domains[e].rect));
    }
}

void TestScaleUpDomainView::bandIsPaintedAroundTheTrays()
{
    show("gb200-nvl72-moe.json");
    const FabricItem *root = m_view->rootItem();
    const FabricLayout::Domain &rack1 = root->layout().domains()[1];
    const QRectF tray = root->serverItem(rack1.firstServer)->sceneBoundingRect();
    while (m_view->zoom() < 1.0)
        m_view->zoomIn();
    m_view->centerOn(tray.center());
    QApplication::processEvents();
    const QImage shot = m_view->viewport()->grab().toImage().convertToFormat(QImage::Format_RGB32);
    // In the band's margin, left of the tray's edge: the band's fill; outside the band (past
    // its outline, in the group frame's margin): not.
    const double margin = tray.left() - rack1.rect.left();
    QVERIFY(margin > 3.0);
    const QPoint inBand
        = m_view->mapFromScene(QPointF(tray.left() - margin / 2.0, tray.center().y()));
    const QPoint outside
        = m_view->mapFromScene(QPointF(rack1.rect.left() - 5.0, tray.center().y()));
    QVERIFY(shot.rect().contains(inBand) && shot.rect().contains(outside));
    QVERIFY2(near(shot.pixel(inBand), FabricItem::domainFill()),
        qPrintable(QColor(shot.pixel(inBand)).name()));
    QVERIFY(!near(shot.pixel(outside), FabricItem::domainFill()));
}

void TestScaleUpDomainView::oneServerDomainsDrawNoBand()
{
    show("seed-128.json");
    QVERIFY(m_view->rootItem()->layout().domains().empty());
}

QTEST_MAIN(TestScaleUpDomainView)
#include "tst_scaleupdomainview.moc"
