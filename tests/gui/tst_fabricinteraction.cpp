// The fabric view under the mouse: swapping ranks with a live preview and one undoable command
// per drop, drops outside any slot and foreign drag data ignored, the rank palette, empty slots,
// server-bar drags and their preview, rubber-band selections dragged together, the context
// menu's signals, hover highlighting of partners and routes.
#include "fabricviewfixture.h"
#include "bundleitem.h"
#include "cablelayeritem.h"
#include "colorscale.h"
#include "fabricinfo.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
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

class TestFabricInteraction : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void dragSwapsRanksWithLivePreview();
    void dropOutsideAnySlotChangesNothing();
    void foreignMimeDataIsIgnored();
    void paletteDropMovesRank();
    void dropOnEmptySlotMovesRank();
    void serverBarDragMovesAllRanks();
    void rubberBandSelectionDragsTogether();
    void serverBarDragPreviewsTheMove();
    void contextMenuSignals();
    void hoverHighlightsPartnersAndRoutes();
    void hoverDrawsTheRoutesTheEngineUsed();

private:
    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<FabricView> m_view;
};

void TestFabricInteraction::init()
{
    openSeedView(m_doc, m_view);
}

void TestFabricInteraction::cleanup()
{
    m_view.reset();
    m_doc.reset();
}

void TestFabricInteraction::dragSwapsRanksWithLivePreview()
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
    // On the relative scale, so the preview's range differs from the one before the drag.
    m_view->setLoadScale(LoadScale::Relative);
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
    // The preview is coloured on its own report's scale, the one the drop will show (a scale
    // held from before the drag would saturate and then jump on the drop).
    const double previewRange = m_doc->report().utilisation(m_doc->report().bottleneckLink);
    QVERIFY(previewRange != rangeBefore);
    QCOMPARE(m_view->rootItem()->maxUtilisation(), previewRange);
    QCOMPARE(m_view->legendItem()->maxUtilisation(), previewRange);
    std::vector<double> preview;
    for (LinkItem *l : links)
        preview.push_back(l->worstUtilisation());

    QSignalSpy status(m_view.get(), &FabricView::statusMessage);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, viewPos(*m_view, chip9));
    QVERIFY(!m_doc->isPreviewing());
    QVERIFY(status.last().first().toString().startsWith(QStringLiteral("Swapped rank 0 ↔ rank 9")));
    QCOMPARE(m_view->rootItem()->maxUtilisation(), previewRange);
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
        QVERIFY(
            std::abs(links[i]->worstUtilisation() - preview[static_cast<std::size_t>(i)]) <= 1e-12);
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

void TestFabricInteraction::dropOutsideAnySlotChangesNothing()
{
    QGraphicsScene *scene = m_view->scene();
    SlotItem *chip0 = chipOfRank(scene, 0);
    const std::vector<int> slots = m_doc->mapping().slots();
    const int commands = m_doc->undoStack()->count();
    QSignalSpy reports(m_doc.get(), &ScenarioDocument::reportChanged);
    // Left of the fabric's first rack, in the empty margin of the scene.
    const QPoint outside
        = m_view->mapFromScene(m_view->rootItem()->boundingRect().topLeft() + QPointF(5, 5));
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

void TestFabricInteraction::foreignMimeDataIsIgnored()
{
    const std::vector<int> slots = m_doc->mapping().slots();
    const QPoint target = viewPos(*m_view, chipOfRank(m_view->scene(), 9));
    QMimeData foreign;
    foreign.setText(QStringLiteral("3,5,7"));
    foreign.setData(QStringLiteral("application/x-other"), "3,5,7");
    verifyDropRefused(*m_view, target, foreign);
    // Our MIME type with garbage or out-of-range ranks is refused too.
    for (const QByteArray &bad : { QByteArray("x,1"), QByteArray("128"), QByteArray("-1") }) {
        QMimeData mime;
        mime.setData(QString::fromLatin1(FabricView::kRanksMimeType), bad);
        QDragEnterEvent e(target, Qt::MoveAction, &mime, Qt::LeftButton, {});
        QApplication::sendEvent(m_view->viewport(), &e);
        QVERIFY2(!e.isAccepted(), bad.constData());
    }
    QCOMPARE(m_doc->mapping().slots(), slots);
    QCOMPARE(m_doc->undoStack()->count(), 0);
}

void TestFabricInteraction::paletteDropMovesRank()
{
    // What RankPalette's rows produce: rank 5 dropped on rank 9's slot swaps them.
    RankListModel model(m_doc.get());
    std::unique_ptr<QMimeData> mime(model.mimeData({ model.index(5, 0), model.index(5, 3) }));
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

void TestFabricInteraction::dropOnEmptySlotMovesRank()
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

void TestFabricInteraction::serverBarDragMovesAllRanks()
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

void TestFabricInteraction::rubberBandSelectionDragsTogether()
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
    QCOMPARE(selected, QList<int>({ 0, 1, 2, 3 }));
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
    // ... and the links show the load as if the four were dropped there.
    QVERIFY(m_doc->isPreviewing());
    for (int r = 0; r < 4; ++r)
        QCOMPARE(m_doc->engine().mapping().slotOf(r), 16 + r);
    QCOMPARE(m_doc->mapping().slotOf(0), 0);
    VERIFY_LINKS(scene, *m_doc);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, drop);
    QCOMPARE(m_doc->undoStack()->count(), 1);
    for (int r = 0; r < 4; ++r) {
        QCOMPARE(m_doc->mapping().slotOf(r), 16 + r);
        QCOMPARE(m_doc->mapping().slotOf(16 + r), r);
    }
    QVERIFY(!status.isEmpty());
    QVERIFY2(
        status.last().first().toString().startsWith(QStringLiteral("Moved 4 ranks to node002")),
        qPrintable(status.last().first().toString()));
}

void TestFabricInteraction::serverBarDragPreviewsTheMove()
{
    QGraphicsScene *scene = m_view->scene();
    FabricItem *root = m_view->rootItem();
    const QList<LinkItem *> links = linkItems(scene);
    const std::vector<double> before = shownLoads(links);
    const Scenario start = m_doc->scenario();
    // What dropping server 0's bar on server 5 means: its ranks 0..7 onto 40..47 (same GPU
    // index), ranks 40..47 swapped onto server 0. A second engine evaluates that mapping.
    Scenario moved = start;
    for (int g = 0; g < 8; ++g)
        std::swap(moved.slots[static_cast<std::size_t>(g)],
            moved.slots[static_cast<std::size_t>(40 + g)]);
    const CostEngine expected(moved);

    QWidget *vp = m_view->viewport();
    const QPoint press = barPos(*m_view, 0), target = barPos(*m_view, 5);
    const QPoint outside = m_view->mapFromScene(root->boundingRect().topLeft() + QPointF(5, 5));
    QTest::mousePress(vp, Qt::LeftButton, {}, press);
    QTest::mouseMove(vp, press + QPoint(30, 30));
    QTest::mouseMove(vp, target);
    QVERIFY(root->serverItem(5)->isDropTarget());
    QVERIFY(m_doc->isPreviewing());
    QCOMPARE(m_doc->mapping().slots(), start.slots); // not an edit yet
    QCOMPARE(m_doc->engine().mapping().slots(), moved.slots);
    VERIFY_LINKS(scene, *m_doc);
    // Every cable shows the moved mapping's load as the second engine computes it; some changed.
    int changed = 0;
    for (LinkItem *l : links) {
        for (int dir = 0; dir < 2; ++dir) {
            const int id = dir == 0 ? l->forwardLink() : l->reverseLink();
            const double want = expected.report().utilisation(id);
            QVERIFY2(std::abs(l->utilisation(dir) - want) <= 1e-9 * std::max(1.0, want),
                qPrintable(QString::fromStdString(expected.fabric().linkName(id))));
        }
        changed += l->worstUtilisation()
            != std::max(before[2 * std::size_t(links.indexOf(l))],
                before[2 * std::size_t(links.indexOf(l)) + 1]);
    }
    QVERIFY(changed > 0);
    const std::vector<double> preview = shownLoads(links);

    // Leaving every server ends the preview: the original loads are back.
    QTest::mouseMove(vp, outside);
    QVERIFY(!m_doc->isPreviewing());
    QVERIFY(!root->serverItem(5)->isDropTarget());
    QVERIFY(sameLoads(shownLoads(links), before));
    // Back over server 5, then Escape: nothing changes, no command.
    QTest::mouseMove(vp, target);
    QVERIFY(m_doc->isPreviewing());
    QVERIFY(sameLoads(shownLoads(links), preview));
    QTest::keyClick(m_view.get(), Qt::Key_Escape);
    QVERIFY(!m_doc->isPreviewing());
    QTest::mouseRelease(vp, Qt::LeftButton, {}, target);
    QCOMPARE(m_doc->undoStack()->count(), 0);
    QCOMPARE(m_doc->mapping().slots(), start.slots);
    QVERIFY(sameLoads(shownLoads(links), before));
    VERIFY_LINKS(scene, *m_doc);

    // The drop: one command, the loads the preview showed; Ctrl+Z restores.
    QTest::mousePress(vp, Qt::LeftButton, {}, press);
    QTest::mouseMove(vp, press + QPoint(30, 30));
    QTest::mouseMove(vp, target);
    QVERIFY(m_doc->isPreviewing());
    QTest::mouseRelease(vp, Qt::LeftButton, {}, target);
    QVERIFY(!m_doc->isPreviewing());
    QCOMPARE(m_doc->undoStack()->count(), 1);
    QCOMPARE(m_doc->mapping().slots(), moved.slots);
    QVERIFY(sameLoads(shownLoads(links), preview));
    VERIFY_LINKS(scene, *m_doc);
    QTest::keyClick(m_view.get(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(m_doc->undoStack()->index(), 0);
    QCOMPARE(m_doc->mapping().slots(), start.slots);
    QVERIFY(sameLoads(shownLoads(links), before));
    VERIFY_LINKS(scene, *m_doc);
}

void TestFabricInteraction::contextMenuSignals()
{
    QSignalSpy servers(m_view.get(), &FabricView::serverContextMenuRequested);
    QSignalSpy slots(m_view.get(), &FabricView::slotContextMenuRequested);
    auto rightClick = [this](const QPoint &pos) {
        // What the window sends on a right-click (Qt synthesises it from the mouse press).
        QContextMenuEvent event(
            QContextMenuEvent::Mouse, pos, m_view->viewport()->mapToGlobal(pos));
        QApplication::sendEvent(m_view->viewport(), &event);
        return event.isAccepted();
    };
    const QPoint bar = barPos(*m_view, 7);
    QVERIFY(rightClick(bar));
    QCOMPARE(servers.count(), 1);
    QCOMPARE(servers.last().at(0).toInt(), 7);
    QCOMPARE(servers.last().at(1).toPoint(), m_view->viewport()->mapToGlobal(bar));
    QCOMPARE(slots.count(), 0);

    QVERIFY(rightClick(viewPos(*m_view, m_view->rootItem()->slotItem(42))));
    QCOMPARE(slots.count(), 1);
    QCOMPARE(slots.last().at(0).toInt(), 42);
    QCOMPARE(servers.count(), 1);

    rightClick(m_view->mapFromScene(m_view->rootItem()->boundingRect().topLeft() + QPointF(5, 5)));
    QCOMPARE(servers.count() + slots.count(), 2); // the background: neither

    // Zoomed out the chips are hidden: the server block answers.
    while (m_view->zoom() >= FabricView::kOverviewBelow)
        m_view->zoomOut();
    rightClick(viewPos(*m_view, m_view->rootItem()->serverItem(2)));
    QCOMPARE(servers.count(), 2);
    QCOMPARE(servers.last().at(0).toInt(), 2);
    QCOMPARE(slots.count(), 1);
}

void TestFabricInteraction::hoverHighlightsPartnersAndRoutes()
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
    QTest::mouseMove(
        m_view->viewport(), m_view->mapFromScene(m_view->rootItem()->boundingRect().topLeft()));
    QCOMPARE(m_view->rootItem()->focusRank(), -1);
    QCOMPARE(chipOfRank(scene, 8)->partnerMask(), 0u);
    QCOMPARE(up->routeMask(), 0u);
}

void TestFabricInteraction::hoverDrawsTheRoutesTheEngineUsed()
{
    // Scattered on seed-128: rank r on server r mod 16, so rank 8's DP group (ranks 8, 40, 72,
    // 104) and its TP group sit two by two on servers 8 and 0 ... The engine's rings keep every
    // cross-server hop on one rail: no spine link carries a byte. The highlight drew direct
    // routes to every member (through the spines) before it drew the engine's plans.
    m_doc->applyPlacement(Placement::Scattered);
    m_doc->waitForEvaluation();
    QCoreApplication::processEvents();
    const CostReport &r = m_doc->report();
    QCOMPARE(r.spineBytesShare, 0.0);
    const Fabric &f = m_doc->engine().fabric();
    QGraphicsScene *scene = m_view->scene();
    m_view->fitAll();
    QTest::mouseMove(m_view->viewport(), viewPos(*m_view, chipOfRank(scene, 8)));
    QCOMPARE(m_view->rootItem()->focusRank(), 8);
    int lit = 0;
    for (LinkItem *item : m_view->rootItem()->linkItems()) {
        const unsigned mask = item->routeMask();
        if (mask == 0)
            continue;
        ++lit;
        const int cable = m_view->rootItem()->linkItems().key(item);
        // Every dimension drawn on a cable loads it in the engine's report (either direction).
        for (Dim d : kAllDims) {
            if (!(mask & FabricItem::dimBit(d)))
                continue;
            const auto i = static_cast<std::size_t>(index(d));
            const double bytes = r.links[static_cast<std::size_t>(2 * cable)].dimBytes[i]
                + r.links[static_cast<std::size_t>(2 * cable + 1)].dimBytes[i];
            QVERIFY2(bytes > 0.0,
                qPrintable(QStringLiteral("%1 drawn on %2, which carries no %1 bytes")
                               .arg(QString::fromLatin1(dimName(d).data(), 2),
                                   QString::fromStdString(f.linkName(2 * cable)))));
        }
        QVERIFY2(f.link(2 * cable).tier != Tier::Spine,
            qPrintable(QString::fromStdString(f.linkName(2 * cable))));
    }
    QVERIFY(lit > 0); // its DP and TP routes do leave the server, over leaf links
}

QTEST_MAIN(TestFabricInteraction)
#include "tst_fabricinteraction.moc"
