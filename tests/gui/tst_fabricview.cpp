// The fabric view: items built from the engine's Fabric, links showing exactly the report's
// utilisation, drag-and-drop of ranks with live preview and one undoable command per drop,
// cancelled and foreign drops, partner highlighting, chip colouring, level of detail, export.
#include "bundleitem.h"
#include "colorscale.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "legenditem.h"
#include "linkitem.h"
#include "ranklistmodel.h"
#include "scenariodocument.h"
#include "scenariofile.h"
#include "serveritem.h"
#include "slotitem.h"
#include "switchitem.h"

#include <QDragEnterEvent>
#include <QGraphicsScene>
#include <QImage>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>

using namespace railyard;

namespace {

Scenario seed128()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

/// The chip item of `rank`, found by item type and data as any tool would.
SlotItem *chipOfRank(QGraphicsScene *scene, int rank)
{
    for (QGraphicsItem *item : scene->items()) {
        if (item->type() == SlotItem::Type && item->data(SlotItem::kRankKey).toInt() == rank)
            return static_cast<SlotItem *>(item);
    }
    return nullptr;
}

SlotItem *slotItem(QGraphicsScene *scene, int slot)
{
    for (QGraphicsItem *item : scene->items()) {
        if (item->type() == SlotItem::Type && item->data(SlotItem::kSlotKey).toInt() == slot)
            return static_cast<SlotItem *>(item);
    }
    return nullptr;
}

QList<LinkItem *> linkItems(QGraphicsScene *scene)
{
    QList<LinkItem *> links;
    for (QGraphicsItem *item : scene->items()) {
        if (auto *link = qgraphicsitem_cast<LinkItem *>(item))
            links << link;
    }
    return links;
}

/// Every link item shows exactly the document report's utilisation of both directions.
void verifyLinksMatchReport(QGraphicsScene *scene, const ScenarioDocument &doc)
{
    const CostReport &r = doc.report();
    const QList<LinkItem *> links = linkItems(scene);
    QVERIFY(!links.isEmpty());
    for (LinkItem *link : links) {
        QVERIFY2(link->utilisation(0) == r.utilisation(link->forwardLink()),
                 qPrintable(QString::fromStdString(doc.engine().fabric().linkName(link->forwardLink()))));
        QVERIFY(link->utilisation(1) == r.utilisation(link->reverseLink()));
        QCOMPARE(link->isBottleneck(), (r.bottleneckLink | 1) == (link->forwardLink() | 1));
    }
}

/// Spine-tier cables (leaf <-> spine) with any load, as displayed.
int loadedSpineCables(QGraphicsScene *scene, const Fabric &fabric)
{
    int n = 0;
    for (LinkItem *link : linkItems(scene)) {
        if (fabric.link(link->forwardLink()).tier == Tier::Spine && link->worstUtilisation() > 0.0)
            ++n;
    }
    return n;
}

/// A failed check inside the helper ends the test function too.
#define VERIFY_LINKS(scene, doc)                                                                   \
    do {                                                                                           \
        verifyLinksMatchReport(scene, doc);                                                        \
        if (QTest::currentTestFailed())                                                            \
            return;                                                                                \
    } while (false)

QPoint viewPos(const FabricView &view, const QGraphicsItem *item)
{
    return view.mapFromScene(item->sceneBoundingRect().center());
}

} // namespace

class TestFabricView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void buildsItemsFromTheFabric();
    void linksShowTheReport();
    void dragSwapsRanksWithLivePreview();
    void dropOutsideAnySlotChangesNothing();
    void foreignMimeDataIsIgnored();
    void paletteDropMovesRank();
    void dropOnEmptySlotMovesRank();
    void serverBarDragMovesAllRanks();
    void rubberBandSelectionDragsTogether();
    void hoverHighlightsPartnersAndRoutes();
    void colourByChangesChipColours_data();
    void colourByChangesChipColours();
    void levelOfDetailFollowsZoom();
    void exportsPngAndSvg();

private:
    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<FabricView> m_view;
};

void TestFabricView::init()
{
    m_doc = std::make_unique<ScenarioDocument>();
    m_doc->load(seed128());
    m_view = std::make_unique<FabricView>(m_doc.get());
    m_view->resize(1400, 800);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    m_view->fitAll();
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
    for (int r : {0, 9, 127}) {
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
    QCOMPARE(m_view->rootItem()->maxUtilisation(), r.utilisation(r.bottleneckLink));
    QCOMPARE(m_view->legendItem()->maxUtilisation(), r.utilisation(r.bottleneckLink));
}

void TestFabricView::dragSwapsRanksWithLivePreview()
{
    QGraphicsScene *scene = m_view->scene();
    const Fabric &fabric = m_doc->engine().fabric();
    SlotItem *chip0 = chipOfRank(scene, 0);
    SlotItem *chip9 = chipOfRank(scene, 9);
    QVERIFY(chip0 && chip9);
    const int slot0 = m_doc->mapping().slotOf(0), slot9 = m_doc->mapping().slotOf(9);
    const QList<LinkItem *> links = linkItems(scene);
    std::vector<double> before;
    for (LinkItem *l : links)
        before.push_back(l->worstUtilisation());
    const QColor colour0 = chip0->fillColour();
    const int commands = m_doc->undoStack()->count();
    const double rangeBefore = m_view->rootItem()->maxUtilisation();

    QWidget *vp = m_view->viewport();
    QTest::mousePress(vp, Qt::LeftButton, {}, viewPos(*m_view, chip0));
    QTest::mouseMove(vp, viewPos(*m_view, chip0) + QPoint(30, 30));
    QTest::mouseMove(vp, viewPos(*m_view, chip9));
    // Live preview: the links show the load as if rank 0 were dropped on rank 9's slot.
    QVERIFY(m_doc->isPreviewing());
    QCOMPARE(m_doc->mapping().slotOf(0), slot0); // not an edit yet
    VERIFY_LINKS(scene, *m_doc);
    QVERIFY(loadedSpineCables(scene, fabric) > 0);
    // The colour scale is held during the drag: colours compare with the state before it.
    QVERIFY(m_view->rootItem()->isScaleHeld());
    QCOMPARE(m_view->rootItem()->maxUtilisation(), rangeBefore);
    std::vector<double> preview;
    for (LinkItem *l : links)
        preview.push_back(l->worstUtilisation());

    QSignalSpy status(m_view.get(), &FabricView::statusMessage);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, viewPos(*m_view, chip9));
    QVERIFY(!m_doc->isPreviewing());
    QVERIFY(status.last().first().toString().startsWith(QStringLiteral("Swapped rank 0 ↔ rank 9")));
    QVERIFY(!m_view->rootItem()->isScaleHeld());
    QCOMPARE(m_view->rootItem()->maxUtilisation(),
             m_doc->report().utilisation(m_doc->report().bottleneckLink));
    QCOMPARE(m_doc->undoStack()->count(), commands + 1);
    QCOMPARE(m_doc->mapping().slotOf(0), slot9);
    QCOMPARE(m_doc->mapping().slotOf(9), slot0);
    // The chips followed the mapping; the links show the engine's new numbers, which are the
    // preview's: DP traffic of rank 0 (rail 1 now) to its peers on rail 0 crosses a spine.
    QCOMPARE(chipOfRank(scene, 0)->slot(), slot9);
    QCOMPARE(chipOfRank(scene, 0)->fillColour(), colour0);
    VERIFY_LINKS(scene, *m_doc);
    int changed = 0;
    for (int i = 0; i < links.size(); ++i) {
        QVERIFY(std::abs(links[i]->worstUtilisation() - preview[static_cast<std::size_t>(i)])
                <= 1e-12);
        changed += links[i]->worstUtilisation() != before[static_cast<std::size_t>(i)];
    }
    QVERIFY(changed > 0);
    const int spinesLoaded = loadedSpineCables(scene, fabric);
    QVERIFY(spinesLoaded > 0);

    // Ctrl+Z on the view undoes: mapping and colours come back.
    QTest::keyClick(m_view.get(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(m_doc->undoStack()->count(), commands + 1);
    QCOMPARE(m_doc->undoStack()->index(), commands);
    QCOMPARE(m_doc->mapping().slotOf(0), slot0);
    QCOMPARE(m_doc->mapping().slotOf(9), slot9);
    QCOMPARE(chipOfRank(scene, 0)->slot(), slot0);
    VERIFY_LINKS(scene, *m_doc);
    const double range = m_view->rootItem()->maxUtilisation();
    for (int i = 0; i < links.size(); ++i) {
        const double b = before[static_cast<std::size_t>(i)];
        QVERIFY(std::abs(links[i]->worstUtilisation() - b) <= 1e-9 * std::max(1.0, b));
        QCOMPARE(ColorScale::utilisationColour(links[i]->worstUtilisation(), range),
                 ColorScale::utilisationColour(b, range));
    }
    QCOMPARE(loadedSpineCables(scene, fabric), 0);
}

void TestFabricView::dropOutsideAnySlotChangesNothing()
{
    QGraphicsScene *scene = m_view->scene();
    SlotItem *chip0 = chipOfRank(scene, 0);
    const std::vector<int> slots = m_doc->mapping().slots();
    const int commands = m_doc->undoStack()->count();
    QSignalSpy reports(m_doc.get(), &ScenarioDocument::reportChanged);
    // Left of the fabric's first rack, in the empty margin of the scene.
    const QPoint outside = m_view->mapFromScene(m_view->rootItem()->boundingRect().topLeft()
                                                + QPointF(5, 5));
    QWidget *vp = m_view->viewport();
    QTest::mousePress(vp, Qt::LeftButton, {}, viewPos(*m_view, chip0));
    QTest::mouseMove(vp, viewPos(*m_view, chip0) + QPoint(40, 0));
    QTest::mouseMove(vp, outside);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, outside);
    QCOMPARE(m_doc->mapping().slots(), slots);
    QCOMPARE(m_doc->undoStack()->count(), commands);
    QVERIFY(!m_doc->isPreviewing());
    VERIFY_LINKS(scene, *m_doc);
    // Dropping a chip back on its own slot is no edit either.
    QTest::mousePress(vp, Qt::LeftButton, {}, viewPos(*m_view, chip0));
    QTest::mouseMove(vp, viewPos(*m_view, chip0) + QPoint(40, 40));
    QTest::mouseMove(vp, viewPos(*m_view, chip0));
    QTest::mouseRelease(vp, Qt::LeftButton, {}, viewPos(*m_view, chip0));
    QCOMPARE(m_doc->undoStack()->count(), commands);
    QCOMPARE(m_doc->mapping().slots(), slots);
}

void TestFabricView::foreignMimeDataIsIgnored()
{
    const std::vector<int> slots = m_doc->mapping().slots();
    const QPoint target = viewPos(*m_view, chipOfRank(m_view->scene(), 9));
    QMimeData foreign;
    foreign.setText(QStringLiteral("3,5,7"));
    foreign.setData(QStringLiteral("application/x-other"), "3,5,7");
    QDragEnterEvent enter(target, Qt::CopyAction | Qt::MoveAction, &foreign, Qt::LeftButton, {});
    QApplication::sendEvent(m_view->viewport(), &enter);
    QVERIFY(!enter.isAccepted());
    QDropEvent drop(QPointF(target), Qt::CopyAction | Qt::MoveAction, &foreign, Qt::LeftButton, {});
    QApplication::sendEvent(m_view->viewport(), &drop);
    QVERIFY(!drop.isAccepted());
    // Our MIME type with garbage or out-of-range ranks is refused too.
    for (const QByteArray &bad : {QByteArray("x,1"), QByteArray("128"), QByteArray("-1")}) {
        QMimeData mime;
        mime.setData(QString::fromLatin1(FabricView::kRanksMimeType), bad);
        QDragEnterEvent e(target, Qt::MoveAction, &mime, Qt::LeftButton, {});
        QApplication::sendEvent(m_view->viewport(), &e);
        QVERIFY2(!e.isAccepted(), bad.constData());
    }
    QCOMPARE(m_doc->mapping().slots(), slots);
    QCOMPARE(m_doc->undoStack()->count(), 0);
}

void TestFabricView::paletteDropMovesRank()
{
    // What RankPalette's rows produce: rank 5 dropped on rank 9's slot swaps them.
    RankListModel model(m_doc.get());
    std::unique_ptr<QMimeData> mime(model.mimeData({model.index(5, 0), model.index(5, 3)}));
    QCOMPARE(mime->data(QString::fromLatin1(FabricView::kRanksMimeType)), QByteArray("5"));
    const int slot5 = m_doc->mapping().slotOf(5), slot9 = m_doc->mapping().slotOf(9);
    const QPoint target = viewPos(*m_view, chipOfRank(m_view->scene(), 9));
    QDragEnterEvent enter(target, Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QApplication::sendEvent(m_view->viewport(), &enter);
    QVERIFY(enter.isAccepted());
    QDragMoveEvent move(target, Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QApplication::sendEvent(m_view->viewport(), &move);
    QVERIFY(m_doc->isPreviewing());
    QDropEvent drop(QPointF(target), Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QApplication::sendEvent(m_view->viewport(), &drop);
    QVERIFY(drop.isAccepted());
    QVERIFY(!m_doc->isPreviewing());
    QCOMPARE(m_doc->undoStack()->count(), 1);
    QCOMPARE(m_doc->mapping().slotOf(5), slot9);
    QCOMPARE(m_doc->mapping().slotOf(9), slot5);
    VERIFY_LINKS(m_view->scene(), *m_doc);
}

void TestFabricView::dropOnEmptySlotMovesRank()
{
    Scenario s = seed128();
    s.fabric.servers = 17; // one spare server: slots 128..135 empty
    m_doc->load(s);
    QGraphicsScene *scene = m_view->scene();
    SlotItem *empty = slotItem(scene, 130);
    QVERIFY(empty);
    QCOMPARE(empty->rank(), -1);
    SlotItem *chip = chipOfRank(scene, 3);
    QWidget *vp = m_view->viewport();
    QTest::mousePress(vp, Qt::LeftButton, {}, viewPos(*m_view, chip));
    QTest::mouseMove(vp, viewPos(*m_view, chip) + QPoint(25, 25));
    QTest::mouseMove(vp, viewPos(*m_view, empty));
    // Live "as if dropped here" on the empty slot: the engine has the rank there already, the
    // document's mapping does not, and the cables show the previewed load.
    QVERIFY(m_doc->isPreviewing());
    QCOMPARE(m_doc->engine().mapping().slotOf(3), 130);
    QCOMPARE(m_doc->mapping().slotOf(3), 3);
    VERIFY_LINKS(scene, *m_doc);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, viewPos(*m_view, empty));
    QVERIFY(!m_doc->isPreviewing());
    QCOMPARE(m_doc->undoStack()->count(), 1);
    QCOMPARE(m_doc->mapping().slotOf(3), 130);
    QCOMPARE(m_doc->mapping().rankAt(3), -1);
    QCOMPARE(slotItem(scene, 130)->rank(), 3);
    QCOMPARE(slotItem(scene, 3)->rank(), -1);
    VERIFY_LINKS(scene, *m_doc);
}

void TestFabricView::serverBarDragMovesAllRanks()
{
    FabricItem *root = m_view->rootItem();
    ServerItem *from = root->serverItem(0);
    ServerItem *to = root->serverItem(5);
    const QRectF bar = root->layout().barRect();
    const QPoint press = m_view->mapFromScene(from->mapToScene(bar.center()));
    const QPoint drop = m_view->mapFromScene(to->mapToScene(bar.center()));
    QWidget *vp = m_view->viewport();
    QTest::mousePress(vp, Qt::LeftButton, {}, press);
    QTest::mouseMove(vp, press + QPoint(30, 30));
    QTest::mouseMove(vp, drop);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, drop);
    QCOMPARE(m_doc->undoStack()->count(), 1); // one command for eight ranks
    for (int g = 0; g < 8; ++g)
        QCOMPARE(m_doc->mapping().slotOf(g), 5 * 8 + g); // GPU index (rail) kept
    for (int g = 0; g < 8; ++g)
        QCOMPARE(m_doc->mapping().slotOf(40 + g), g); // swapped out of the way
    VERIFY_LINKS(m_view->scene(), *m_doc);
    m_doc->undoStack()->undo();
    for (int r = 0; r < 128; ++r)
        QCOMPARE(m_doc->mapping().slotOf(r), r);
}

void TestFabricView::rubberBandSelectionDragsTogether()
{
    QGraphicsScene *scene = m_view->scene();
    FabricItem *root = m_view->rootItem();
    // Shift+drag from inside server 0 (left of its first chip) across chips 0..3.
    const QRectF chip0 = chipOfRank(scene, 0)->sceneBoundingRect();
    const QRectF chip3 = chipOfRank(scene, 3)->sceneBoundingRect();
    const QPoint from = m_view->mapFromScene(QPointF(chip0.left() - 2, chip0.top() - 4));
    const QPoint to = m_view->mapFromScene(chip3.center());
    QWidget *vp = m_view->viewport();
    QTest::mousePress(vp, Qt::LeftButton, Qt::ShiftModifier, from);
    QTest::mouseMove(vp, from + (to - from) / 2);
    QTest::mouseMove(vp, to);
    QTest::mouseRelease(vp, Qt::LeftButton, Qt::ShiftModifier, to);
    QList<int> selected;
    for (QGraphicsItem *item : scene->selectedItems())
        selected << static_cast<SlotItem *>(item)->rank();
    std::sort(selected.begin(), selected.end());
    QCOMPARE(selected, QList<int>({0, 1, 2, 3}));
    QCOMPARE(m_doc->undoStack()->count(), 0);

    // Dragging one selected chip drags all four onto server 2, keeping their GPU indices.
    QSignalSpy status(m_view.get(), &FabricView::statusMessage);
    const QPoint press = viewPos(*m_view, chipOfRank(scene, 1));
    const QPoint drop = viewPos(*m_view, root->slotItem(2 * 8 + 6));
    QTest::mousePress(vp, Qt::LeftButton, {}, press);
    QTest::mouseMove(vp, press + QPoint(20, 30));
    QTest::mouseMove(vp, drop);
    QVERIFY(root->serverItem(2)->isDropTarget()); // the whole server lights up
    QVERIFY(!root->serverItem(0)->isDropTarget());
    QTest::mouseRelease(vp, Qt::LeftButton, {}, drop);
    QCOMPARE(m_doc->undoStack()->count(), 1);
    for (int r = 0; r < 4; ++r) {
        QCOMPARE(m_doc->mapping().slotOf(r), 16 + r);
        QCOMPARE(m_doc->mapping().slotOf(16 + r), r);
    }
    QVERIFY(!status.isEmpty());
    QVERIFY2(status.last().first().toString().startsWith(QStringLiteral("Moved 4 ranks to node002")),
             qPrintable(status.last().first().toString()));
}

void TestFabricView::hoverHighlightsPartnersAndRoutes()
{
    QGraphicsScene *scene = m_view->scene();
    QTest::mouseMove(m_view->viewport(), viewPos(*m_view, chipOfRank(scene, 0)));
    QCOMPARE(m_view->rootItem()->focusRank(), 0);
    const unsigned tp = FabricItem::dimBit(Dim::Tp), pp = FabricItem::dimBit(Dim::Pp),
                   dp = FabricItem::dimBit(Dim::Dp);
    // seed-128, order tp-cp-ep-dp-pp: rank = t + 8 (d + 4 p).
    for (int t = 1; t < 8; ++t)
        QCOMPARE(chipOfRank(scene, t)->partnerMask(), tp);
    for (int d = 1; d < 4; ++d)
        QCOMPARE(chipOfRank(scene, 8 * d)->partnerMask(), dp);
    for (int p = 1; p < 4; ++p)
        QCOMPARE(chipOfRank(scene, 32 * p)->partnerMask(), pp);
    QCOMPARE(chipOfRank(scene, 9)->partnerMask(), 0u);
    // The DP route to rank 8 leaves server 0 through NIC 0 to the rail-0 leaf.
    const Fabric &f = m_doc->engine().fabric();
    const int nicLink = f.linkBetween(f.nicVertex(0, 0), f.leafVertex(f.leafOfNic(0, 0)));
    LinkItem *up = m_view->rootItem()->linkItem(nicLink);
    QVERIFY(up);
    QVERIFY(up->routeMask() & dp);
    QVERIFY(up->routeMask() & pp);
    // Not on any route: NIC 3 of server 7.
    LinkItem *other = m_view->rootItem()->linkItem(
        f.linkBetween(f.nicVertex(7, 3), f.leafVertex(f.leafOfNic(7, 3))));
    QVERIFY(other);
    QCOMPARE(other->routeMask(), 0u);
    // Leaving the chips clears the highlight.
    QTest::mouseMove(m_view->viewport(),
                     m_view->mapFromScene(m_view->rootItem()->boundingRect().topLeft()));
    QCOMPARE(m_view->rootItem()->focusRank(), -1);
    QCOMPARE(chipOfRank(scene, 8)->partnerMask(), 0u);
    QCOMPARE(up->routeMask(), 0u);
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
    QVERIFY(chip->isVisible() && link->isVisible());
    while (m_view->zoom() >= FabricView::kOverviewBelow)
        m_view->zoomOut();
    QVERIFY(root->isOverview());
    QVERIFY(!chip->isVisible());
    QVERIFY(!link->isVisible());
    // The aggregates carry the worst cable of each line: 3 racks x 8 rails, 8 leaf risers.
    const auto &bundles = root->layout().bundles();
    int lines = 0;
    for (Tier tier : {Tier::Leaf, Tier::Spine}) {
        BundleItem *item = root->bundleItem(tier);
        QVERIFY(item->isVisible());
        lines += item->count();
        for (int i = 0; i < item->count(); ++i) {
            double worst = 0.0;
            for (int c : bundles[static_cast<std::size_t>(item->layoutIndex(i))].cables)
                worst = std::max({worst, m_doc->report().utilisation(2 * c),
                                  m_doc->report().utilisation(2 * c + 1)});
            QCOMPARE(item->worstUtilisation(i), worst);
        }
    }
    QCOMPARE(lines, 3 * 8 + 8);
    m_view->fitAll();
    QVERIFY(!root->isOverview());
    QVERIFY(chip->isVisible() && link->isVisible());
    QVERIFY(!root->bundleItem(Tier::Leaf)->isVisible());
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
