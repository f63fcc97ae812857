// The fabric view: items built from the engine's Fabric, links showing exactly the report's
// utilisation, emphasis and overlays, failed marks, partner highlighting, chip colouring, level
// of detail (the overview's own items: tst_fabricoverview), export. Dragging ranks, hovering and
// the context menu are tst_fabricinteraction's.
#include "bundleitem.h"
#include "cablelayeritem.h"
#include "colorscale.h"
#include "cost/costengine.h"
#include "detailtile.h"
#include "document/scenariodocument.h"
#include "fabricinfo.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "fabricviewfixture.h"
#include "framelabelsitem.h"
#include "legenditem.h"
#include "linkitem.h"
#include "overviewblocksitem.h"
#include "ranklistmodel.h"
#include "scenario/scenariofile.h"
#include "serveritem.h"
#include "slotitem.h"
#include "switchitem.h"

#include <QContextMenuEvent>
#include <QDragEnterEvent>
#include <QGraphicsScene>
#include <QImage>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <unordered_map>

using namespace railyard;

using namespace railyard::fabrictest;

class TestFabricView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void buildsItemsFromTheFabric();
    void linksShowTheReport();
    void cableLayerPaintsTheReportsColours();
    void emphasisOutlinesLinksAboveTheRest();
    void overlayColoursLinksByGivenValues();
    void markFailedCrossesOutServersAndSlots();
    void colourByChangesChipColours_data();
    void colourByChangesChipColours();
    void levelOfDetailFollowsZoom();
    void railBandsShowOverTheirFrame();
    void nicsShowTheirRailAtEveryZoom();
    void exportsPngAndSvg();

private:
    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<FabricView> m_view;
};

void TestFabricView::init()
{
    openSeedView(m_doc, m_view);
}

void TestFabricView::cleanup()
{
    m_view.reset();
    m_doc.reset();
}

void TestFabricView::buildsItemsFromTheFabric()
{
    QGraphicsScene *scene = m_view->scene();
    int slots = 0, servers = 0, switches = 0;
    for (QGraphicsItem *item : scene->items()) {
        slots += item->type() == SlotItem::Type;
        servers += item->type() == ServerItem::Type;
        switches += item->type() == SwitchItem::Type;
    }
    // seed-128: 16 servers x 8 GPUs, 8 rail leaves + 2 spines; cables: 128 NIC-leaf + 8x2.
    QCOMPARE(slots, 128);
    QCOMPARE(servers, 16);
    QCOMPARE(switches, 10);
    QCOMPARE(linkItems(scene).size(), 128 + 16);
    // Packed placement: rank r on slot r, each chip shows its own rank.
    for (int r : { 0, 9, 127 }) {
        SlotItem *chip = chipOfRank(scene, r);
        QVERIFY(chip);
        QCOMPARE(chip->slot(), r);
        QCOMPARE(chip->rank(), r);
    }
    QVERIFY(!m_view->rootItem()->isOverview());
}

void TestFabricView::linksShowTheReport()
{
    VERIFY_LINKS(m_view->scene(), *m_doc);
    // Packed on a rail-optimised fabric: DP and PP stay on their rails, no spine traffic.
    QCOMPARE(loadedSpineCables(m_view->scene(), m_doc->engine().fabric()), 0);
    const CostReport &r = m_doc->report();
    QVERIFY(r.bottleneckLink >= 0);
    // Absolute by default: the ramp spans 0-100 % whatever the bottleneck, which the legend
    // names with its load.
    QCOMPARE(m_view->rootItem()->loadScale(), LoadScale::Absolute);
    QCOMPARE(m_view->rootItem()->maxUtilisation(), 1.0);
    QCOMPARE(m_view->legendItem()->maxUtilisation(), 1.0);
    QVERIFY(!m_view->legendItem()->isRelative());
    QVERIFY(r.utilisation(r.bottleneckLink) < 1.0); // so the two scales differ below
    // Relative: 0 .. the bottleneck; the cables recolour on that scale.
    m_view->setLoadScale(LoadScale::Relative);
    QCOMPARE(m_view->rootItem()->maxUtilisation(), r.utilisation(r.bottleneckLink));
    QCOMPARE(m_view->legendItem()->maxUtilisation(), r.utilisation(r.bottleneckLink));
    QVERIFY(m_view->legendItem()->isRelative());
    VERIFY_LINKS(m_view->scene(), *m_doc);
    m_view->setLoadScale(LoadScale::Absolute);
    QCOMPARE(m_view->legendItem()->maxUtilisation(), 1.0);
    VERIFY_LINKS(m_view->scene(), *m_doc);
}

/// The cable layer draws every cable (the LinkItems paint nothing): on screen each loaded cable
/// wears ColorScale's colour of its worse direction's utilisation in the report, on the
/// absolute 0-100 % scale, and hovering that very pixel tooltips the same cable.
void TestFabricView::cableLayerPaintsTheReportsColours()
{
    FabricItem *root = m_view->rootItem();
    const CostReport &r = m_doc->report();
    const QList<LinkItem *> links = linkItems(m_view->scene());
    QVERIFY(root->cableLayer()->isRasterised());
    QCOMPARE(root->cableLayer()->count(), links.size());
    for (const LinkItem *l : links)
        QVERIFY(l->flags() & QGraphicsItem::ItemHasNoContents);
    const double range = 1.0; // the absolute scale, the default
    QCOMPARE(root->maxUtilisation(), range);
    // At 100 %, where the parallel cables of a rail band (4 units apart) are pixels apart.
    while (m_view->zoom() < 1.0)
        m_view->zoomIn();
    // The racks' bottom rows in view: between a rack's two lowest servers the lowest one's cables
    // run alone (higher up, the servers below send theirs past, 4 units apart).
    m_view->centerOn(QPointF(root->boundingRect().center().x(),
        root->layout().racks().front().rect.bottom() - 0.3 * m_view->viewport()->height()));
    // Samples each loaded cable (worse direction `shown`, scale 0 .. `scale`) where it lies
    // alone; the tooltip where no other cable is near, if `tips`.
    int sampled = 0, tooltips = 0;
    std::vector<QRgb> colours;
    const auto check = [&](const std::function<double(const LinkItem *)> &shown, double scale,
                           bool tips) {
        sampled = tooltips = 0;
        colours.clear();
        const QImage shot = grabViewport(*m_view);
        for (const LinkItem *l : links) {
            const double worst = shown(l);
            if (!(worst > 0.0) || l->isBottleneck())
                continue; // idle cables are translucent; the bottleneck glows
            // Its longest axis-aligned run (crisp pixels, exactly its colour).
            const QPolygonF &path = root->layout().cablePath(l->cable());
            QLineF run;
            for (qsizetype i = 0; i + 1 < path.size(); ++i) {
                const QLineF s(path[i], path[i + 1]);
                if ((s.dx() == 0.0 || s.dy() == 0.0) && s.length() > run.length())
                    run = s;
            }
            // Along the run, the first point in view where no other item is (cables pass
            // behind servers and switches), in steps finer than the 16-unit gap between servers.
            QPoint at(-1, -1);
            const int steps = std::max(20, static_cast<int>(run.length() / 6.0));
            for (int step = 1; step < steps && at.x() < 0 && run.length() > 0.0; ++step) {
                const QPoint p
                    = m_view->mapFromScene(run.pointAt(static_cast<double>(step) / steps));
                bool alone = shot.rect().adjusted(2, 2, -2, -2).contains(p);
                for (QGraphicsItem *item : m_view->items(p)) {
                    const int type = item->type();
                    alone = alone
                        && (item == l || type == CableLayerItem::Type || type == FabricItem::Type
                            || type == FrameLabelsItem::Type || type == DetailTile::Type
                            || (type == BundleItem::Type && !item->isVisible()));
                }
                if (alone)
                    at = p;
            }
            if (at.x() < 0)
                continue;
            const QColor want = ColorScale::utilisationColour(worst, scale);
            int best = 1 << 30;
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const QRgb got = shot.pixel(at + QPoint(dx, dy));
                    best = std::min(best,
                        std::abs(qRed(got) - want.red()) + std::abs(qGreen(got) - want.green())
                            + std::abs(qBlue(got) - want.blue()));
                }
            QVERIFY2(best <= 6,
                qPrintable(QStringLiteral("%1 at %2 %: want %3")
                               .arg(QString::fromStdString(
                                   m_doc->engine().fabric().linkName(l->forwardLink())))
                               .arg(100.0 * worst)
                               .arg(want.name())));
            // The tooltip's few pixels of tolerance take any cable near: check it where no
            // other is.
            bool isolated = tips;
            for (QGraphicsItem *item : m_view->items(QRect(at - QPoint(4, 4), QSize(9, 9))))
                isolated = isolated && (item == l || item->type() != LinkItem::Type);
            if (isolated) {
                QCOMPARE(m_view->toolTipAt(at), FabricInfo::cableToolTip(*m_doc, l->cable()));
                ++tooltips;
            }
            ++sampled;
            if (std::find(colours.begin(), colours.end(), want.rgb()) == colours.end())
                colours.push_back(want.rgb());
        }
    };
    check(
        [&r](const LinkItem *l) {
            return std::max(r.utilisation(l->forwardLink()), r.utilisation(l->reverseLink()));
        },
        range, true);
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(sampled >= 20, qPrintable(QString::number(sampled)));
    QVERIFY2(tooltips >= 3, qPrintable(QString::number(tooltips)));
    // The seed job's loaded cables are its NIC <-> rail-leaf cables, all with the same DP and PP
    // load (its rings stay on their rails): one colour here; the overlay below checks many.
    QVERIFY(!colours.empty());

    // Values that differ from cable to cable (an overlay): each drawn in its own colour.
    std::unordered_map<int, double> values;
    const auto valueOf = [](int cable) { return 0.05 + 0.1 * (cable * 7 % 10); };
    for (const LinkItem *l : links)
        values[l->forwardLink()] = valueOf(l->cable());
    m_view->setLinkOverlay(values, QStringLiteral("test values"));
    check([&](const LinkItem *l) { return valueOf(l->cable()); }, 1.0, false);
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(sampled >= 20, qPrintable(QString::number(sampled)));
    QCOMPARE(colours.size(), std::size_t(10));
}

void TestFabricView::emphasisOutlinesLinksAboveTheRest()
{
    FabricItem *root = m_view->rootItem();
    const Fabric &f = m_doc->engine().fabric();
    // A leaf -> spine cable, a NIC cable (given by its downward direction) and an NVLink port.
    int spineLink = -1;
    for (int id = 0; id < f.linkCount() && spineLink < 0; id += 2) {
        if (f.link(id).tier == Tier::Spine)
            spineLink = id;
    }
    QVERIFY(spineLink >= 0);
    const int leaf = f.leafVertex(f.leafOfNic(2, 1));
    const int nicDown = f.linkBetween(leaf, f.nicVertex(2, 1));
    const int nvlink = f.linkBetween(f.gpuVertex(3 * 8 + 4), f.scaleUpVertex(3));
    QVERIFY(nicDown >= 0 && nvlink >= 0);
    LinkItem *spineItem = root->linkItem(spineLink);
    LinkItem *nicItem = root->linkItem(nicDown);
    QVERIFY(spineItem && nicItem);
    const QColor spineColour = spineItem->lineColour(), nicColour = nicItem->lineColour();
    const std::vector<double> before = shownLoads(linkItems(m_view->scene()));
    const QImage plain = grabViewport(*m_view);
    const double legendHeight = m_view->legendItem()->boundingRect().height();

    const QString caption = QStringLiteral("links whose load changed most against A");
    m_view->setEmphasis({ spineLink, nicDown, nvlink, -3, 1 << 30 }, caption); // bad ids skipped
    QCOMPARE(root->emphasis(), std::vector<int>({ spineLink, nicDown, nvlink }));
    QVERIFY(spineItem->isEmphasised() && nicItem->isEmphasised());
    // Drawn above every other cable (the bottleneck too) and aggregate, still below the
    // servers and switches, so it never hides a chip...
    for (QGraphicsItem *item : m_view->scene()->items()) {
        if (item == spineItem || item == nicItem || item->parentItem())
            continue;
        if (item->type() == LinkItem::Type || item->type() == BundleItem::Type) {
            QVERIFY(item->zValue() < spineItem->zValue());
            QVERIFY(item->zValue() < nicItem->zValue());
        } else if (item->type() == ServerItem::Type || item->type() == SwitchItem::Type) {
            QVERIFY(item->zValue() > nicItem->zValue());
        }
    }
    // ... with its load colour unchanged (an idle one drawn opaque), its endpoints outlined.
    QCOMPARE(spineItem->lineColour().rgb(), spineColour.rgb());
    QCOMPARE(nicItem->lineColour().rgb(), nicColour.rgb());
    QVERIFY(sameLoads(shownLoads(linkItems(m_view->scene())), before));
    QVERIFY(root->switchItem(f.link(spineLink).src)->isEmphasised());
    QVERIFY(root->switchItem(f.link(spineLink).dst)->isEmphasised());
    QVERIFY(root->switchItem(leaf)->isEmphasised());
    QVERIFY(root->serverItem(2)->isNicEmphasised(1));
    QVERIFY(!root->serverItem(2)->isNicEmphasised(0));
    QVERIFY(root->serverItem(3)->isLinkEmphasised(4, true));
    QVERIFY(!root->serverItem(3)->isLinkEmphasised(4, false));
    QVERIFY(root->serverItem(3)->isBarEmphasised());
    QVERIFY(root->slotItem(3 * 8 + 4)->isEmphasised());
    QVERIFY(!root->slotItem(3 * 8 + 5)->isEmphasised());
    // The caption sits in the legend, and the outline colour is on screen.
    QCOMPARE(m_view->legendItem()->caption(), caption);
    QVERIFY(m_view->legendItem()->boundingRect().height() > legendHeight);
    const QImage emphasised = grabViewport(*m_view);
    QVERIFY2(pixelsNear(emphasised, FabricItem::emphasisColour())
            > pixelsNear(plain, FabricItem::emphasisColour()) + 100,
        "no emphasis outline drawn");

    // Zoomed out, the aggregate line holding the cable is emphasised instead.
    while (m_view->zoom() >= FabricView::kOverviewBelow)
        m_view->zoomOut();
    const BundleItem *spines = root->bundleItem(Tier::Spine);
    int lit = 0;
    for (int i = 0; i < spines->count(); ++i)
        lit += spines->isEmphasised(i);
    QCOMPARE(lit, 1);
    m_view->fitAll();

    m_view->clearEmphasis();
    QVERIFY(root->emphasis().empty());
    QVERIFY(!spineItem->isEmphasised() && !nicItem->isEmphasised());
    QVERIFY(spineItem->zValue() < 0.0);
    QVERIFY(!root->switchItem(leaf)->isEmphasised());
    QVERIFY(!root->serverItem(3)->isLinkEmphasised(4, true));
    QVERIFY(!root->slotItem(3 * 8 + 4)->isEmphasised());
    QVERIFY(m_view->legendItem()->caption().isEmpty());
    QCOMPARE(m_view->legendItem()->boundingRect().height(), legendHeight);
}

void TestFabricView::overlayColoursLinksByGivenValues()
{
    FabricItem *root = m_view->rootItem();
    const Fabric &f = m_doc->engine().fabric();
    const QList<LinkItem *> links = linkItems(m_view->scene());
    LinkItem *half = links.at(3);
    LinkItem *over = links.at(17);
    const int nvlink = f.linkBetween(f.scaleUpVertex(6), f.gpuVertex(6 * 8 + 2));
    QSignalSpy reports(m_doc.get(), &ScenarioDocument::reportChanged);
    m_view->setLinkOverlay(
        { { half->forwardLink(), 0.5 }, { over->reverseLink(), 1.3 }, { nvlink, 0.25 } },
        QStringLiteral("KV-cache traffic"));
    QCOMPARE(reports.count(), 0); // the view's business, not the document's
    QVERIFY(root->hasLinkOverlay());
    QCOMPARE(root->maxUtilisation(), 1.0);
    QCOMPARE(m_view->legendItem()->overlayTitle(), QStringLiteral("KV-cache traffic"));
    QCOMPARE(m_view->legendItem()->maxUtilisation(), 1.0);
    for (LinkItem *l : links) {
        const double want = l == half ? 0.5 : l == over ? 1.3 : 0.0;
        QCOMPARE(l->worstUtilisation(), want);
        QCOMPARE(l->lineColour().rgb(), ColorScale::utilisationColour(want, 1.0).rgb());
    }
    QVERIFY(half->lineColour() != over->lineColour()); // 0.5 and a saturated 1.3
    QCOMPARE(root->serverItem(6)->shownUtilisation(2, true), double(0.25f));
    QCOMPARE(root->serverItem(6)->shownUtilisation(3, true), 0.0);
    QCOMPARE(root->serverItem(0)->shownUtilisation(0, false), 0.0);
    // Hovering the cable says what its colour shows: the given value, not the report's.
    QString tip;
    const QRect box = m_view->mapFromScene(half->sceneBoundingRect()).boundingRect();
    for (int y = box.top(); y <= box.bottom() && tip.isEmpty(); ++y)
        for (int x = box.left(); x <= box.right() && tip.isEmpty(); ++x) {
            const QString t = m_view->toolTipAt(QPoint(x, y));
            if (t.contains(QString::fromStdString(f.linkName(half->forwardLink())).toHtmlEscaped()))
                tip = t;
        }
    QVERIFY2(
        tip.contains(QStringLiteral("Colour: KV-cache traffic</b> — 50.00 % up / 0.00 % down")),
        qPrintable(tip));
    // A new report (an edit) does not repaint over the given values.
    m_doc->swapRanks(0, 9);
    QCOMPARE(half->worstUtilisation(), 0.5);
    QCOMPARE(over->worstUtilisation(), 1.3);
    QCOMPARE(root->maxUtilisation(), 1.0);
    // Replacing the values recolours; clearing goes back to the report.
    m_view->setLinkOverlay({ { over->forwardLink(), 0.1 } }, QStringLiteral("B"));
    QCOMPARE(half->worstUtilisation(), 0.0);
    QCOMPARE(over->worstUtilisation(), 0.1);
    QCOMPARE(m_view->legendItem()->overlayTitle(), QStringLiteral("B"));
    m_view->clearLinkOverlay();
    QVERIFY(!root->hasLinkOverlay());
    QVERIFY(m_view->legendItem()->overlayTitle().isEmpty());
    VERIFY_LINKS(m_view->scene(), *m_doc);
    const CostReport &r = m_doc->report();
    QCOMPARE(root->maxUtilisation(), 1.0); // the absolute scale
    root->setLoadScale(LoadScale::Relative);
    QCOMPARE(root->maxUtilisation(), r.utilisation(r.bottleneckLink));
    QCOMPARE(float(root->serverItem(6)->shownUtilisation(2, true)),
        float(std::max(r.utilisation(nvlink), r.utilisation(nvlink ^ 1))));
}

void TestFabricView::markFailedCrossesOutServersAndSlots()
{
    FabricItem *root = m_view->rootItem();
    const QImage plain = grabViewport(*m_view);
    // Null checks first: GCC's -Wnull-dereference at -O3 cannot see the items exist.
    SlotItem *s17 = root->slotItem(17), *s18 = root->slotItem(18), *s19 = root->slotItem(19);
    QVERIFY(s17 && s18 && s19);
    m_view->markFailed({ 3 }, { 17, 18 });
    QVERIFY(root->serverItem(3)->isFailed());
    QVERIFY(!root->serverItem(4)->isFailed());
    QVERIFY(s17->isFailed() && s18->isFailed());
    QVERIFY(!s19->isFailed());
    // Drawn: the failure red appears where server 3 is.
    const QImage failed = grabViewport(*m_view);
    const QRect server3
        = m_view->mapFromScene(root->serverItem(3)->sceneBoundingRect()).boundingRect();
    QVERIFY(pixelsNear(failed.copy(server3), FabricItem::failedColour())
        > pixelsNear(plain.copy(server3), FabricItem::failedColour()) + 20);
    // The marks are the view's: the mapping and the undo stack do not change.
    QCOMPARE(m_doc->undoStack()->count(), 0);
    m_view->markFailed({ 5 }, {});
    QVERIFY(!root->serverItem(3)->isFailed());
    QVERIFY(!s17->isFailed());
    QVERIFY(root->serverItem(5)->isFailed());
    m_view->markFailed({}, {});
    QVERIFY(!root->serverItem(5)->isFailed());
}

void TestFabricView::colourByChangesChipColours_data()
{
    QTest::addColumn<QChar>("by");
    QTest::addColumn<int>("rank");
    QTest::addColumn<int>("value");
    QTest::addColumn<int>("count");
    // Rank 2 = (d0, p0, t2); rank 45 = (d1, p1, t5).
    QTest::newRow("t") << QChar('t') << 2 << 2 << 8;
    QTest::newRow("d") << QChar('d') << 2 << 0 << 4;
    QTest::newRow("p") << QChar('p') << 45 << 1 << 4;
    QTest::newRow("d45") << QChar('d') << 45 << 1 << 4;
}

void TestFabricView::colourByChangesChipColours()
{
    QFETCH(QChar, by);
    QFETCH(int, rank);
    QFETCH(int, value);
    QFETCH(int, count);
    SlotItem *chip = chipOfRank(m_view->scene(), rank);
    QCOMPARE(chip->fillColour(), ColorScale::coordinateColour(rank % 8, 8)); // default: by t
    m_view->setColourBy(by);
    QCOMPARE(m_view->colourBy(), by);
    QCOMPARE(chip->fillColour(), ColorScale::coordinateColour(value, count));
    if (by != QChar('t'))
        QVERIFY(chip->fillColour() != ColorScale::coordinateColour(rank % 8, 8));
}

void TestFabricView::levelOfDetailFollowsZoom()
{
    FabricItem *root = m_view->rootItem();
    SlotItem *chip = chipOfRank(m_view->scene(), 0);
    LinkItem *link = linkItems(m_view->scene()).front();
    QVERIFY(drawn(chip) && drawn(link));
    while (m_view->zoom() >= FabricView::kOverviewBelow)
        m_view->zoomOut();
    QVERIFY(root->isOverview());
    QVERIFY(!drawn(chip));
    QVERIFY(!drawn(link));
    // Hidden is hidden to the mouse and a rubber band too: the scene finds neither.
    const QPoint chipAt = viewPos(*m_view, chip);
    QVERIFY(!m_view->items(chipAt).contains(chip));
    QVERIFY(!m_view->items(m_view->viewport()->rect()).contains(link));
    // The aggregates carry the worst cable of each line: 2 racks x 8 rails, 8 leaf risers.
    const auto &bundles = root->layout().bundles();
    int lines = 0;
    for (Tier tier : { Tier::Leaf, Tier::Spine }) {
        BundleItem *item = root->bundleItem(tier);
        QVERIFY(item->isVisible());
        lines += item->count();
        for (int i = 0; i < item->count(); ++i) {
            double worst = 0.0;
            for (int c : bundles[static_cast<std::size_t>(item->layoutIndex(i))].cables)
                worst = std::max({ worst, m_doc->report().utilisation(2 * c),
                    m_doc->report().utilisation(2 * c + 1) });
            QCOMPARE(item->worstUtilisation(i), worst);
        }
    }
    QCOMPARE(static_cast<int>(root->layout().racks().size()), 2);
    QCOMPARE(lines, 2 * 8 + 8);
    m_view->fitAll();
    QVERIFY(!root->isOverview());
    QVERIFY(drawn(chip) && drawn(link));
    QVERIFY(m_view->items(viewPos(*m_view, chip)).contains(chip));
    QVERIFY(!root->bundleItem(Tier::Leaf)->isVisible());
}

// The rail bands through the racks are drawn opaque in the colour their translucent fill
// makes over the frame beneath (FabricItem::batchBands()): on screen, where no server, switch
// or cable covers a band, its pixels must be the rail colour at alpha 120 over the scalable
// unit's fill, for every rail. (Over the pod's fill instead, the colour differs by about 4 per
// channel, and the check allows 2.)
void TestFabricView::railBandsShowOverTheirFrame()
{
    FabricItem *root = m_view->rootItem();
    QVERIFY(!root->isOverview());
    const QImage shot = grabViewport(*m_view);
    std::vector<int> seen(static_cast<std::size_t>(m_doc->engine().fabric().railCount()), 0);
    for (const FabricLayout::Band &band : root->layout().bands()) {
        const QColor want = FabricItem::overOpaque(
            FabricItem::railBandColour(band.rail), FabricItem::groupFill());
        for (double y = band.rect.top() + 1.0; y < band.rect.bottom() - 1.0; y += 2.0) {
            const QPointF at(band.rect.center().x(), y);
            const QPoint px = m_view->mapFromScene(at);
            if (!shot.rect().adjusted(1, 1, -1, -1).contains(px))
                continue;
            bool bare = true; // nothing drawn over the backdrop here
            for (QGraphicsItem *item : m_view->items(QRect(px - QPoint(1, 1), QSize(3, 3)))) {
                const int type = item->type();
                bare = bare
                    && (type == FabricItem::Type || type == DetailTile::Type
                        || type == CableLayerItem::Type || type == FrameLabelsItem::Type
                        || (type == BundleItem::Type && !item->isVisible()));
            }
            if (!bare)
                continue;
            const QColor got = shot.pixelColor(px);
            QVERIFY2(std::abs(got.red() - want.red()) <= 2
                    && std::abs(got.green() - want.green()) <= 2
                    && std::abs(got.blue() - want.blue()) <= 2,
                qPrintable(QStringLiteral("rail %1: %2, want %3")
                               .arg(band.rail)
                               .arg(got.name(), want.name())));
            ++seen[static_cast<std::size_t>(band.rail)];
        }
    }
    for (std::size_t rail = 0; rail < seen.size(); ++rail)
        QVERIFY2(seen[rail] >= 3,
            qPrintable(QStringLiteral("rail %1: %2 pixels").arg(rail).arg(seen[rail])));
}

// A NIC is a rectangle in its rail's colour on the server's top edge; under four device
// pixels tall it is filled without its outline (ServerItem::paint). Either way its centre
// shows the rail colour, at the zoom where the detailed drawing starts and at 100 %.
void TestFabricView::nicsShowTheirRailAtEveryZoom()
{
    FabricItem *root = m_view->rootItem();
    for (const double zoom : { 1.05 * FabricView::kOverviewBelow, 0.45, 1.0 }) {
        m_view->setTransform(QTransform::fromScale(zoom, zoom));
        m_view->centerOn(root->serverItem(0));
        const QImage shot = grabViewport(*m_view);
        QVERIFY(!root->isOverview());
        const ServerItem *server = root->serverItem(0);
        for (int n = 0; n < m_doc->engine().fabric().nicsPerServer(); ++n) {
            const QPoint at
                = m_view->mapFromScene(server->mapToScene(root->layout().nicRect(n).center()));
            QVERIFY(shot.rect().contains(at));
            const QColor got = shot.pixelColor(at);
            const QColor want = ColorScale::railColour(n);
            QVERIFY2(std::abs(got.red() - want.red()) <= 2
                    && std::abs(got.green() - want.green()) <= 2
                    && std::abs(got.blue() - want.blue()) <= 2,
                qPrintable(QStringLiteral("zoom %1, NIC %2: %3, want %4")
                               .arg(zoom)
                               .arg(n)
                               .arg(got.name(), want.name())));
        }
    }
}

void TestFabricView::exportsPngAndSvg()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString png = dir.filePath(QStringLiteral("fabric.png"));
    const QString svg = dir.filePath(QStringLiteral("fabric.svg"));
    QVERIFY(m_view->exportImage(png));
    QVERIFY(m_view->exportImage(svg));
    const QImage image(png);
    QVERIFY(!image.isNull());
    const QRectF bounds = m_view->rootItem()->boundingRect();
    QVERIFY(image.width() >= bounds.width()); // small fabric: at least 1:1
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("node015"));
    QVERIFY(!m_view->rootItem()->isOverview()); // restored after the export
}

QTEST_MAIN(TestFabricView)
#include "tst_fabricview.moc"
