// The fabric view's overview (zoomed out past FabricView::kOverviewBelow): one
// OverviewBlocksItem stands for the hidden servers and switches, the aggregated lines show their
// worst cable's load, and a server block of a few pixels per chip is one scaled image that must
// match a fill per chip.
#include "bundleitem.h"
#include "colorscale.h"
#include "detailtile.h"
#include "document/scenariodocument.h"
#include "fabric/fabric.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "fabricviewfixture.h"
#include "linkitem.h"
#include "overviewblocksitem.h"
#include "scenario/scenariofile.h"
#include "serveritem.h"
#include "slotitem.h"
#include "switchitem.h"

#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QSet>
#include <QTest>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

using namespace railyard;

using namespace railyard::fabrictest;

class TestFabricOverview : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void overviewBlocksStandForServersAndSwitches();
    void overviewBlocksFollowMovedRanks();
    void overviewLinesShowTheirLoad_data();
    void overviewLinesShowTheirLoad();
    void overviewBlockImageMatchesChipFills_data();
    void overviewBlockImageMatchesChipFills();
    void detailTilesHoldTheirItems();

private:
    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<FabricView> m_view;
};

void TestFabricOverview::init()
{
    openSeedView(m_doc, m_view);
}

void TestFabricOverview::cleanup()
{
    m_view.reset();
    m_doc.reset();
}

// Zoomed out, one OverviewBlocksItem paints the hidden server and switch items: the chips'
// colours must still reach the screen, follow a colouring change, and the hidden items must
// still answer hit tests.
void TestFabricOverview::overviewBlocksStandForServersAndSwitches()
{
    FabricItem *root = m_view->rootItem();
    const Fabric &f = m_doc->engine().fabric();
    const int leaf = f.leafVertex(0);
    QVERIFY(drawn(root->serverItem(0)) && drawn(root->switchItem(leaf)));
    while (m_view->zoom() >= FabricView::kOverviewBelow)
        m_view->zoomOut();
    QVERIFY(root->isOverview());
    QVERIFY(!drawn(root->serverItem(0)));
    QVERIFY(!drawn(root->switchItem(leaf)));
    int blocks = 0;
    for (QGraphicsItem *item : m_view->scene()->items())
        blocks += item->isVisible() && qgraphicsitem_cast<OverviewBlocksItem *>(item) != nullptr;
    QCOMPARE(blocks, 1);

    // Server 0's block shows its chips' colours: rank 1's (t 1, p 0) by t, then by p.
    const QRect block = m_view->mapFromScene(root->layout().serverRect(0)).boundingRect();
    const auto inBlock
        = [&](const QColor &c) { return pixelsNear(grabViewport(*m_view).copy(block), c); };
    const SlotItem *slot = root->slotItem(1);
    QVERIFY(slot != nullptr);
    QVERIFY(slot->rank() >= 0);
    const QColor byT = slot->fillColour();
    const int tBefore = inBlock(byT);
    QVERIFY2(tBefore > 10, "chip colour missing in the overview");
    m_view->setColourBy(QChar('p'));
    const QColor byP = slot->fillColour();
    QVERIFY(byP != byT);
    QVERIFY2(inBlock(byP) > 10, "overview not repainted on recolour");
    QVERIFY(inBlock(byT) < tBefore);
    const QPoint at = m_view->mapFromScene(
        root->layout().serverRect(0).topLeft() + root->layout().slotRect(1).center());

    // Hit tests find the hidden items by geometry.
    const FabricView::Hit server = m_view->hitAt(at);
    QVERIFY(server.server == root->serverItem(0));
    QCOMPARE(server.slot, 1);
    const FabricView::Hit sw = m_view->hitAt(viewPos(*m_view, root->switchItem(leaf)));
    QCOMPARE(sw.switchVertex, leaf);

    m_view->fitAll();
    QVERIFY(!root->isOverview());
    QVERIFY(drawn(root->serverItem(0)) && drawn(root->switchItem(leaf)));
}

// The overview's blocks are cached pixels (a repaint or a pan blits them); a moved rank
// repaints only its servers' blocks. A drag's preview, its end and a committed swap must still
// reach the screen, and the other servers' blocks stay as they were.
void TestFabricOverview::overviewBlocksFollowMovedRanks()
{
    FabricItem *root = m_view->rootItem();
    m_view->setColourBy(QChar('p'));
    while (m_view->zoom() >= FabricView::kOverviewBelow)
        m_view->zoomOut();
    QVERIFY(root->isOverview());
    // seed-128, order tp-cp-ep-dp-pp: rank r has p = r / 32. Server 0 holds ranks 0-7 (p 0),
    // server 4 ranks 32-39 (p 1), server 8 ranks 64-71 (p 2).
    const SlotItem *slot0 = root->slotItem(0), *slot32 = root->slotItem(32),
                   *slot64 = root->slotItem(64);
    QVERIFY(slot0 && slot32 && slot64);
    const QColor p0 = slot0->fillColour(), p1 = slot32->fillColour(), p2 = slot64->fillColour();
    QVERIFY(p0 != p1 && p1 != p2 && p0 != p2);
    const auto inBlock = [&](int server, const QColor &c) {
        const QRect block = m_view->mapFromScene(root->layout().serverRect(server)).boundingRect();
        return pixelsNear(grabViewport(*m_view).copy(block), c);
    };
    // Each block's own count (blocks at different positions may cover a pixel more or less).
    const int area0 = inBlock(0, p0), area4 = inBlock(4, p1), area8 = inBlock(8, p2);
    QVERIFY2(area0 > 10 && area4 > 10 && area8 > 10, "a block is not in its chips' colour");
    QCOMPARE(inBlock(0, p1), 0);

    // Previewed (a server-bar drag of server 4 onto server 0): the links show the load as if
    // dropped, the chips stay where they are until the drop, and so do the blocks.
    std::vector<std::pair<int, int>> moves;
    for (int g = 0; g < 8; ++g)
        moves.emplace_back(32 + g, g);
    m_doc->previewMoves(moves);
    QCoreApplication::processEvents();
    QVERIFY(m_doc->isPreviewing());
    QCOMPARE(slot0->rank(), 0);
    QCOMPARE(inBlock(0, p0), area0);
    m_doc->endPreview();
    QCoreApplication::processEvents();

    // Committed: half of server 0's ranks swapped with half of server 4's.
    for (int g = 0; g < 4; ++g)
        m_doc->swapRanks(g, 32 + g);
    QCoreApplication::processEvents();
    QVERIFY2(inBlock(0, p0) < area0 && inBlock(4, p1) < area4, "moved ranks not repainted");
    QCOMPARE(inBlock(8, p2), area8);
    // After a zoom step in and out (the cache is painted again), the same picture.
    const int after0 = inBlock(0, p0), after4 = inBlock(4, p1);
    m_view->zoomIn();
    m_view->zoomOut();
    QVERIFY(root->isOverview());
    // (within a pixel column: the zoom's anchor may move the blocks by a fraction of a pixel)
    QVERIFY(std::abs(inBlock(0, p0) - after0) <= area0 / 4);
    QVERIFY(std::abs(inBlock(4, p1) - after4) <= area4 / 4);
}

void TestFabricOverview::overviewLinesShowTheirLoad_data()
{
    QTest::addColumn<QString>("sample");
    QTest::addColumn<int>("tier");
    QTest::addColumn<int>("atLeast"); // loaded lines to check
    QTest::newRow("NIC lines, seed") << "seed-128.json" << static_cast<int>(Tier::Leaf) << 8;
    // The ToR job's DP traffic crosses the spines: its leaves' risers carry load.
    QTest::newRow("risers, ToR") << "seed-128-tor.json" << static_cast<int>(Tier::Spine) << 4;
}

// The overview's aggregated lines: each loaded line is drawn along its path in its worst
// cable's colour. NIC lines are slanted segments (drawn as lines rather than polylines); the
// leaves' risers to the spines are vertical (filled as rectangles, whole pixels).
void TestFabricOverview::overviewLinesShowTheirLoad()
{
    QFETCH(QString, sample);
    QFETCH(int, tier);
    QFETCH(int, atLeast);
    m_doc->load(
        loadScenario((QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + sample).toStdString()));
    QCoreApplication::processEvents();
    FabricItem *root = m_view->rootItem();
    while (m_view->zoom() >= FabricView::kOverviewBelow)
        m_view->zoomOut();
    QVERIFY(root->isOverview());
    const QImage shot = grabViewport(*m_view);
    const int bottleneckCable = m_doc->report().bottleneckLink / 2;
    const BundleItem *item = root->bundleItem(static_cast<Tier>(tier));
    QVERIFY(item != nullptr && item->isVisible());
    int checked = 0;
    for (int i = 0; i < item->count(); ++i) {
        const FabricLayout::Bundle &b
            = root->layout().bundles()[static_cast<std::size_t>(item->layoutIndex(i))];
        const double worst = item->worstUtilisation(i);
        if (!(worst > 0.0)
            || std::find(b.cables.begin(), b.cables.end(), bottleneckCable) != b.cables.end())
            continue; // idle lines are translucent; the bottleneck's glows
        QCOMPARE(b.path.size(), 2);
        if (static_cast<Tier>(tier) == Tier::Spine)
            QCOMPARE(b.path[0].x(), b.path[1].x());
        const QColor colour = ColorScale::utilisationColour(worst, root->maxUtilisation());
        const QPointF from = m_view->mapFromScene(b.path[0]);
        const QPointF to = m_view->mapFromScene(b.path[1]);
        int onLine = 0;
        for (double t : { 0.3, 0.4, 0.5, 0.6, 0.7 }) {
            const QPoint at = (from + (to - from) * t).toPoint();
            // The core: a 3x3 patch on the line holds its colour (lines may cross: most
            // points, not all).
            onLine += pixelsNear(shot.copy(QRect(at - QPoint(1, 1), QSize(3, 3))), colour) >= 2;
        }
        QVERIFY2(onLine >= 3, qPrintable(QStringLiteral("line %1 not drawn in its colour").arg(i)));
        ++checked;
    }
    QVERIFY2(checked >= atLeast, "too few loaded lines to check");
}

void TestFabricOverview::overviewBlockImageMatchesChipFills_data()
{
    QTest::addColumn<int>("gpus");
    QTest::addColumn<double>("pixelsPerChip"); // device pixels from one chip to the next
    QTest::newRow("8 GPUs, 4 px") << 8 << 4.0;
    QTest::newRow("8 GPUs, 11 px") << 8 << 11.0;
    QTest::newRow("16 GPUs (two rows), 7 px") << 16 << 7.0;
    QTest::newRow("4 GPUs, 9 px") << 4 << 9.0;
    QTest::newRow("8 GPUs, 15 px") << 8 << 15.0;
}

// A server block a few pixels per chip is drawn as one image of a pixel per GPU, scaled over
// the chips' band (ServerItem::paintBlock). It must show what a fill per chip (its rectangle
// grown by 2 units each side and 10 above) shows: the same colour at nearly every pixel,
// every chip in its own place and row.
void TestFabricOverview::overviewBlockImageMatchesChipFills()
{
    QFETCH(int, gpus);
    QFETCH(double, pixelsPerChip);
    Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    s.fabric.gpusPerServer = gpus;
    s.fabric.nicsPerServer = 0; // one per GPU
    s.fabric.gpuToNic.clear();
    const Fabric fabric = Fabric::build(s.fabric);
    const FabricLayout layout(fabric);
    const double lod = pixelsPerChip / (FabricLayout::kChipWidth + FabricLayout::kChipGap);
    QVERIFY(pixelsPerChip < ServerItem::kImageBelowPixels);
    QVERIFY(lod * layout.serverSize().width() >= 2.0 * gpus); // not the one-colour block
    std::vector<QRgb> chips;
    for (int k = 0; k < gpus; ++k)
        chips.push_back(ColorScale::coordinateColour(k, gpus).rgb());
    const QSize size = (layout.serverSize() * lod).toSize() + QSize(2, 2);
    const auto render = [&](const std::function<void(QPainter &)> &draw) {
        QImage image(size, QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        painter.scale(lod, lod);
        draw(painter);
        return image;
    };
    const QImage drawn
        = render([&](QPainter &p) { ServerItem::paintBlock(&p, layout, chips.data(), gpus, lod); });
    const QImage expected = render([&](QPainter &p) {
        p.fillRect(QRectF(QPointF(0, 0), layout.serverSize()), QColor(0x86, 0x8e, 0x96));
        for (int k = 0; k < gpus; ++k)
            p.fillRect(layout.slotRect(k).adjusted(-2, -10, 2, 2), QColor(chips[k]));
    });
    int differ = 0;
    for (int y = 0; y < size.height(); ++y)
        for (int x = 0; x < size.width(); ++x)
            differ += drawn.pixel(x, y) != expected.pixel(x, y);
    // Only the pixel columns and rows at the chips' edges may round the other way.
    const int edges = (gpus + 2) * size.height() + 4 * size.width();
    QVERIFY2(differ <= edges / 2,
        qPrintable(QStringLiteral("%1 of %2 pixels differ")
                       .arg(differ)
                       .arg(size.width() * size.height())));
    // Every chip's centre shows its own colour.
    for (int k = 0; k < gpus; ++k) {
        const QPoint centre = (layout.slotRect(k).center() * lod).toPoint();
        QCOMPARE(QColor(drawn.pixel(centre)).name(), QColor(chips[k]).name());
    }
}

// The detailed items live in tiles (detailtile.h) that the scene skips whole when they lie
// outside the exposed area or the mouse's probe, and in the overview the tile holding the
// tiles hides them all. Every item must lie inside its tile (else it would vanish or stop
// answering the mouse near a tile's edge), every chip inside its server, every tile inside the
// one holding them; a 1,024-GPU fabric is really split; and the scene finds each server, switch
// and chip at its centre.
void TestFabricOverview::detailTilesHoldTheirItems()
{
    Scenario s = seed128();
    s.fabric.servers = 128;
    s.degrees.dp = 1024 / (s.degrees.tp * s.degrees.pp);
    s.training.globalBatch = 16 * s.degrees.dp;
    s.slots.clear();
    ScenarioDocument doc;
    doc.load(s);
    FabricView view(&doc);
    view.resize(1000, 700);
    view.show();
    view.rootItem()->setOverview(false);
    const FabricItem *root = view.rootItem();
    const QGraphicsScene *scene = view.scene();

    QSet<const QGraphicsItem *> tiles;
    const auto inItsTile = [&](const QGraphicsItem *item) {
        const QGraphicsItem *tile = item->parentItem();
        if (!tile || tile->type() != DetailTile::Type)
            return false;
        tiles.insert(tile);
        return tile->sceneBoundingRect().contains(item->sceneBoundingRect());
    };
    const auto foundAtCentre = [&](const QGraphicsItem *item) {
        return scene->items(item->sceneBoundingRect().center()).contains(item);
    };
    for (int server = 0; server < doc.engine().fabric().servers(); ++server) {
        const ServerItem *item = root->serverItem(server);
        QVERIFY2(inItsTile(item) && foundAtCentre(item), qPrintable(QString::number(server)));
        for (const QGraphicsItem *child : item->childItems()) {
            QVERIFY(item->sceneBoundingRect().contains(child->sceneBoundingRect()));
            if (child->type() == SlotItem::Type)
                QVERIFY(foundAtCentre(child));
        }
    }
    for (const SwitchItem *item : root->switchItems())
        QVERIFY(inItsTile(item) && foundAtCentre(item));
    QVERIFY(!root->linkItems().isEmpty());
    for (const LinkItem *item : root->linkItems())
        QVERIFY(inItsTile(item));
    QVERIFY2(tiles.size() >= 4, qPrintable(QString::number(tiles.size())));
    const QGraphicsItem *detail = (*tiles.cbegin())->parentItem();
    QVERIFY(detail != nullptr && detail->type() == DetailTile::Type);
    for (const QGraphicsItem *tile : std::as_const(tiles)) {
        QCOMPARE(tile->parentItem(), detail);
        QVERIFY(detail->sceneBoundingRect().contains(tile->sceneBoundingRect()));
    }
    QCOMPARE(detail->childItems().size(), tiles.size());
}

QTEST_MAIN(TestFabricOverview)
#include "tst_fabricoverview.moc"
