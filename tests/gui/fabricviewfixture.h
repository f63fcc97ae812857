// Shared by the fabric view's suites (tst_fabricview, tst_fabricinteraction): the seed scenario, the
// scene's items by rank, slot and link, view positions of chips and server bars, and the loads
// and pixels the view shows.
#pragma once

#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "linkitem.h"
#include "scenario/scenariofile.h"
#include "serveritem.h"
#include "slotitem.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QGraphicsScene>
#include <QImage>
#include <QMimeData>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace railyard::fabrictest {

inline Scenario seed128()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

/// The chip item of `rank`, found by item type and data as any tool would.
/// Whether the scene paints `item` (and finds it under the mouse): shown, and not inside a
/// fully transparent parent (the overview hides the detailed items' tile, detailtile.h).
inline bool drawn(const QGraphicsItem *item)
{
    return item->isVisible() && item->effectiveOpacity() > 0.0;
}

inline SlotItem *chipOfRank(QGraphicsScene *scene, int rank)
{
    for (QGraphicsItem *item : scene->items()) {
        if (item->type() == SlotItem::Type && item->data(SlotItem::kRankKey).toInt() == rank)
            return static_cast<SlotItem *>(item);
    }
    return nullptr;
}

inline SlotItem *slotItem(QGraphicsScene *scene, int slot)
{
    for (QGraphicsItem *item : scene->items()) {
        if (item->type() == SlotItem::Type && item->data(SlotItem::kSlotKey).toInt() == slot)
            return static_cast<SlotItem *>(item);
    }
    return nullptr;
}

inline QList<LinkItem *> linkItems(QGraphicsScene *scene)
{
    QList<LinkItem *> links;
    for (QGraphicsItem *item : scene->items()) {
        if (auto *link = qgraphicsitem_cast<LinkItem *>(item))
            links << link;
    }
    return links;
}

/// Every link item shows exactly the document report's utilisation of both directions.
inline void verifyLinksMatchReport(QGraphicsScene *scene, const ScenarioDocument &doc)
{
    const CostReport &r = doc.report();
    const QList<LinkItem *> links = linkItems(scene);
    QVERIFY(!links.isEmpty());
    for (LinkItem *link : links) {
        QVERIFY2(link->utilisation(0) == r.utilisation(link->forwardLink()),
            qPrintable(
                QString::fromStdString(doc.engine().fabric().linkName(link->forwardLink()))));
        QVERIFY(link->utilisation(1) == r.utilisation(link->reverseLink()));
        QCOMPARE(link->isBottleneck(), (r.bottleneckLink | 1) == (link->forwardLink() | 1));
    }
}

/// Spine-tier cables (leaf <-> spine) with any load, as displayed.
inline int loadedSpineCables(QGraphicsScene *scene, const Fabric &fabric)
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

inline QPoint viewPos(const FabricView &view, const QGraphicsItem *item)
{
    return view.mapFromScene(item->sceneBoundingRect().center());
}

/// The view position of server `server`'s bar (the handle that drags all its ranks).
inline QPoint barPos(const FabricView &view, int server)
{
    const FabricItem *root = view.rootItem();
    return view.mapFromScene(
        root->serverItem(server)->mapToScene(root->layout().barRect().center()));
}

/// Both directions of every cable item, as shown.
inline std::vector<double> shownLoads(const QList<LinkItem *> &links)
{
    std::vector<double> loads;
    for (const LinkItem *l : links) {
        loads.push_back(l->utilisation(0));
        loads.push_back(l->utilisation(1));
    }
    return loads;
}

inline bool sameLoads(const std::vector<double> &a, const std::vector<double> &b)
{
    if (a.size() != b.size())
        return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (std::abs(a[i] - b[i]) > 1e-9 * std::max(1.0, std::abs(b[i])))
            return false;
    }
    return true;
}

/// Pixels of the viewport within a small distance of `colour`.
inline int pixelsNear(const QImage &image, const QColor &colour)
{
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        const QRgb *line = reinterpret_cast<const QRgb *>(image.constScanLine(y));
        for (int x = 0; x < image.width(); ++x) {
            n += std::abs(qRed(line[x]) - colour.red()) + std::abs(qGreen(line[x]) - colour.green())
                    + std::abs(qBlue(line[x]) - colour.blue())
                < 24;
        }
    }
    return n;
}

inline QImage grabViewport(FabricView &view)
{
    return view.viewport()->grab().toImage().convertToFormat(QImage::Format_RGB32);
}

/// The seed scenario in a 1400x800 fabric view, shown and fitted (each case's start).
inline void openSeedView(std::unique_ptr<ScenarioDocument> &doc, std::unique_ptr<FabricView> &view)
{
    doc = std::make_unique<ScenarioDocument>();
    doc->load(seed128());
    view = std::make_unique<FabricView>(doc.get());
    view->resize(1400, 800);
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    view->fitAll();
}

/// Drag data the view does not take: its drag-enter and its drop at `target` are refused.
inline void verifyDropRefused(FabricView &view, QPoint target, QMimeData &mime)
{
    QDragEnterEvent enter(target, Qt::CopyAction | Qt::MoveAction, &mime, Qt::LeftButton, {});
    QApplication::sendEvent(view.viewport(), &enter);
    QVERIFY(!enter.isAccepted());
    QDropEvent drop(QPointF(target), Qt::CopyAction | Qt::MoveAction, &mime, Qt::LeftButton, {});
    QApplication::sendEvent(view.viewport(), &drop);
    QVERIFY(!drop.isAccepted());
}

} // namespace railyard::fabrictest
