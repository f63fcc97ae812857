#include "fabricview.h"

#include "annotationlayer.h"
#include "bundleitem.h"
#include "document/scenariodocument.h"
#include "fabricinfo.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "legenditem.h"
#include "linkitem.h"
#include "rankdragtool.h"
#include "serveritem.h"
#include "slotitem.h"
#include "switchitem.h"

#include <QApplication>
#include <QContextMenuEvent>
#include <QDragEnterEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QPixmapCache>
#include <QScrollBar>
#include <QStringList>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <set>

namespace railyard {

FabricView::FabricView(ScenarioDocument *document, QWidget *parent)
    : QGraphicsView(parent)
    , m_document(document)
    , m_scene(new QGraphicsScene(this))
{
    // No BSP index: long cables span most of a large scene and a BSP tree files an item in
    // every leaf it crosses (millions of entries at 16k GPUs). The linear index walks the
    // sorted top-level items once per paint and culls them by bounding rectangle instead.
    m_scene->setItemIndexMethod(QGraphicsScene::NoIndex);
    // Device-coordinate caches live in QPixmapCache; the overview's backdrop and blocks are a
    // viewport-sized pixmap each (5 MB at 1400x900), and Qt's 10 MB default evicted one on
    // every frame, which then painted again (a 131k overview repaint).
    QPixmapCache::setCacheLimit(std::max(QPixmapCache::cacheLimit(), 64 * 1024));
    setScene(m_scene);
    setBackgroundBrush(Qt::white);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    // One dirty rectangle per repaint, not a region: a drop changes cables all over the fabric,
    // and painting a many-rectangle region (SmartViewportUpdate's choice) cost bench_gui's
    // Drop/1024 about a quarter more CPU than its bounding rectangle (measured on the
    // offscreen raster engine, where the cables' line stroking is most of a repaint).
    setViewportUpdateMode(BoundingRectViewportUpdate);
    setOptimizationFlag(DontAdjustForAntialiasing);
    setTransformationAnchor(AnchorUnderMouse);
    setResizeAnchor(AnchorViewCenter);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setAcceptDrops(true);
    viewport()->setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);

    m_root = new FabricItem(document, m_scene);
    m_tool = std::make_unique<RankDragTool>(this, m_root, document);
    m_legend = new LegendItem;
    m_scene->addItem(m_legend);
    m_annotations = new AnnotationLayer(document, m_root);
    m_scene->addItem(m_annotations);
    m_annotations->rebuild();
    connect(
        m_annotations, &AnnotationLayer::editRequested, this, &FabricView::annotationEditRequested);
    connect(m_root, &FabricItem::legendChanged, this, &FabricView::updateLegend);
    connect(m_root, &FabricItem::rebuilt, this, &FabricView::onRebuilt);
    // A new scenario under a drag: drop the drag (the items it pointed at are gone).
    connect(
        document, &ScenarioDocument::scenarioChanged, this, [this] { m_tool->cancel(QString()); });
    onRebuilt();
    updateLegend();
}

FabricView::~FabricView()
{
    m_tool.reset(); // ends its preview and takes its ghost away
    delete m_annotations; // reads the root's layout while it goes
    // The scene deletes every item, the root too, at once: it empties its index first and
    // takes its top-level items from the front (each unlinked at once). Deleted one by one
    // by the root, the 300,000 items of a 131,072-GPU fabric took seconds to close.
    m_root->leaveItemsToScene();
    m_scene->clear();
}

void FabricView::onRebuilt()
{
    m_pinnedRank = -1;
    m_scene->setSceneRect(m_root->boundingRect().adjusted(-16, -16, 16, 16));
    setSceneRect(m_scene->sceneRect()); // the fits widen it for the legend
    m_autoFit = true;
    if (isVisible())
        refit();
}

void FabricView::setColourBy(QChar coordinate)
{
    m_root->setColourBy(coordinate);
}

void FabricView::setLoadScale(LoadScale scale)
{
    m_root->setLoadScale(scale);
    updateLegend();
}

QChar FabricView::colourBy() const
{
    return m_root->colourBy();
}

double FabricView::zoom() const
{
    return transform().m11();
}

void FabricView::positionLegend()
{
    m_legend->setPos(mapToScene(QPoint(10, 10)));
    updateStage(); // every zoom, scroll and resize passes here
}

void FabricView::updateLegend()
{
    const CostReport &r = m_document->report();
    const Fabric &f = m_document->engine().fabric();
    // Links showing given values (the KV load) name the hottest of those, not the report's
    // bottleneck of the training step, which the colours no longer show.
    int link = m_root->hasLinkOverlay() ? m_root->overlayPeakLink() : r.bottleneckLink;
    if (!m_root->hasLinkOverlay() && m_root->hasJobLoads()) { // the busiest link of all the jobs
        for (int l = 0; l < f.linkCount(); ++l)
            if (link < 0 || m_root->shownUtilisation(l) > m_root->shownUtilisation(link))
                link = l;
    }
    QString bottleneck = QStringLiteral("none");
    if (link >= 0 && link < f.linkCount())
        bottleneck = QString::fromStdString(f.linkName(link));
    const double peak = link >= 0 ? m_root->shownUtilisation(link) : 0.0;
    m_legend->setLoadRange(m_root->maxUtilisation(), peak, bottleneck,
        !m_root->hasLinkOverlay() && m_root->loadScale() == LoadScale::Relative);
    m_legend->setOverlayTitle(m_root->overlayTitle());
    QString caption = m_root->emphasisCaption();
    const Scenario &scenario = m_document->scenario();
    if (caption.isEmpty() && !scenario.jobs.empty()) {
        // Several jobs: name them, the one on show first (its chips; the others' GPUs in their
        // hue).
        QStringList names;
        for (std::size_t j = 0; j < scenario.jobs.size(); ++j)
            if (static_cast<int>(j) != m_document->activeJob())
                names << QString::fromStdString(scenario.jobs[j].name);
        caption
            = tr("job %1 on show; %2 in their hues; links: every job's load")
                  .arg(QString::fromStdString(
                           scenario.jobs[static_cast<std::size_t>(m_document->activeJob())].name),
                      names.join(QStringLiteral(", ")));
    }
    m_legend->setCaption(caption);
    m_legend->setColouring(m_root->colourBy(), m_root->colourValueCount());
    const ParallelDegrees &deg = m_document->engine().layout().degrees();
    m_legend->setDimensions(deg.ep > 1, deg.cp > 1);
}

void FabricView::say(const QString &message)
{
    if (message == m_lastStatus)
        return;
    m_lastStatus = message;
    Q_EMIT statusMessage(message);
}

FabricView::Hit FabricView::hitAt(const QPoint &viewPos) const
{
    Hit hit;
    // A few pixels of tolerance so thin cables can be hovered at any zoom.
    const QRect probe(viewPos - QPoint(3, 3), QSize(7, 7));
    const QList<QGraphicsItem *> items = this->items(probe, Qt::IntersectsItemShape);
    const QPointF scenePos = mapToScene(viewPos);
    const LinkItem *topCable = nullptr;
    for (QGraphicsItem *item : items) {
        if (auto *server = qgraphicsitem_cast<ServerItem *>(item); server && !hit.server) {
            hit.server = server;
        } else if (auto *slot = qgraphicsitem_cast<SlotItem *>(item); slot && !hit.server) {
            hit.server = static_cast<ServerItem *>(slot->parentItem());
        } else if (auto *sw = qgraphicsitem_cast<SwitchItem *>(item); sw && hit.switchVertex < 0) {
            if (sw->sceneBoundingRect().contains(scenePos))
                hit.switchVertex = sw->vertex();
        } else if (auto *link = qgraphicsitem_cast<LinkItem *>(item)) {
            // The highest cable (emphasised, the bottleneck, a focused route) wins; cables of
            // different tiles (detailtile.h) do not come in their own z order.
            if (!topCable || link->zValue() > topCable->zValue())
                topCable = link;
        }
    }
    if (topCable)
        hit.cable = topCable->cable();
    if (hit.server && !hit.server->sceneBoundingRect().contains(scenePos))
        hit.server = nullptr;
    if (m_root->isOverview() && !hit.server && hit.switchVertex < 0) {
        // Zoomed out, servers and switches are hidden (one OverviewBlocksItem paints them):
        // find them by geometry, one rectangle test each.
        const FabricLayout &layout = m_root->layout();
        for (int s = 0; s < m_root->fabric().servers() && !hit.server; ++s)
            if (layout.serverRect(s).contains(scenePos))
                hit.server = m_root->serverItem(s);
        for (auto it = m_root->switchItems().cbegin();
             !hit.server && hit.switchVertex < 0 && it != m_root->switchItems().cend(); ++it)
            if ((*it)->sceneBoundingRect().contains(scenePos))
                hit.switchVertex = it.key();
    }
    if (!hit.server && hit.switchVertex < 0 && hit.cable < 0) {
        // Aggregated lines (overview, or the switch tiers of a very large fabric).
        for (Tier tier : { Tier::Leaf, Tier::Spine, Tier::SuperSpine }) {
            const BundleItem *bundle = m_root->bundleItem(tier);
            if (!bundle || !bundle->isVisible())
                continue;
            const int line = bundle->lineAt(scenePos, 4.0 / std::max(zoom(), 0.01));
            if (line >= 0) {
                hit.bundleCables
                    = &m_root->layout()
                           .bundles()[static_cast<std::size_t>(bundle->layoutIndex(line))]
                           .cables;
                break;
            }
        }
    }
    if (!hit.server)
        return hit;
    // Inside a server: slot by geometry (chips may be hidden in the overview), the bar, or an
    // internal link (PCIe above a chip, NVLink below it).
    const FabricLayout &layout = m_root->layout();
    const QPointF local = hit.server->mapFromScene(scenePos);
    const int gpus = hit.server->gpuCount();
    const double tolerance = 4.0 / std::max(zoom(), 0.05);
    for (int g = 0; g < gpus; ++g) {
        const QRectF chip = layout.slotRect(g);
        if (chip.adjusted(-2, -2, 2, 2).contains(local)) {
            hit.slot = hit.server->server() * gpus + g;
            return hit;
        }
        if (std::abs(local.x() - chip.center().x()) < tolerance) {
            if (local.y() > chip.bottom() && local.y() < layout.barRect().top())
                hit.internalLink = hit.server->scaleUpLink(g);
            else if (local.y() < chip.top() && local.y() > layout.nicRect(0).bottom())
                hit.internalLink = hit.server->pcieLink(g);
        }
    }
    hit.handle = hit.server->isOnHandle(local);
    return hit;
}

void FabricView::hover(const QPoint &viewPos)
{
    const Hit hit = hitAt(viewPos);
    const int rank = hit.slot >= 0 ? m_document->mapping().rankAt(hit.slot) : -1;
    m_root->setFocusRank(rank >= 0 ? rank : m_pinnedRank);
    // An open hand over what can be dragged: a chip, a server's bar.
    if (rank >= 0 || hit.handle)
        viewport()->setCursor(Qt::OpenHandCursor);
    else
        viewport()->unsetCursor();
    if (hit.slot >= 0)
        say(FabricInfo::slotStatus(*m_document, hit.slot));
    else if (hit.handle)
        say(QString::fromStdString(m_root->fabric().serverName(hit.server->server()))
            + QStringLiteral(": drag the bar onto another server to move all its ranks"));
    else if (hit.internalLink >= 0)
        say(FabricInfo::cableStatus(*m_document, hit.internalLink >> 1));
    else if (hit.cable >= 0)
        say(FabricInfo::cableStatus(*m_document, hit.cable));
    else if (hit.switchVertex >= 0)
        say(QString::fromStdString(m_root->fabric().node(hit.switchVertex).name));
    else if (hit.bundleCables)
        say(FabricInfo::bundleStatus(*m_document, *hit.bundleCables));
}

QString FabricView::toolTipAt(const QPoint &viewPos) const
{
    const Hit hit = hitAt(viewPos);
    QString text;
    if (hit.slot >= 0)
        text = FabricInfo::slotToolTip(*m_document, hit.slot);
    else if (hit.handle)
        text = FabricInfo::serverToolTip(*m_document, hit.server->server());
    else if (hit.internalLink >= 0)
        text = FabricInfo::internalLinkToolTip(*m_document, hit.internalLink);
    else if (hit.cable >= 0)
        text = FabricInfo::cableToolTip(*m_document, hit.cable);
    else if (hit.switchVertex >= 0)
        text = FabricInfo::switchToolTip(*m_document, hit.switchVertex);
    else if (hit.bundleCables)
        text = FabricInfo::bundleToolTip(*m_document, *hit.bundleCables);
    // The colour comes from the application's overlay, not the report: say what it shows.
    const int link = hit.internalLink >= 0 ? (hit.internalLink & ~1)
        : hit.cable >= 0                   ? hit.cable * 2
                                           : -1;
    if (link >= 0 && m_root->hasLinkOverlay())
        text += QStringLiteral("<br><b>Colour: %1</b> — %2 % up / %3 % down")
                    .arg(m_root->overlayTitle().toHtmlEscaped())
                    .arg(m_root->shownUtilisation(link) * 100.0, 0, 'f', 2)
                    .arg(m_root->shownUtilisation(link + 1) * 100.0, 0, 'f', 2);
    return text;
}

bool FabricView::viewportEvent(QEvent *event)
{
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QGraphicsView::viewportEvent(event);
}

void FabricView::paintEvent(QPaintEvent *event)
{
    // Whoever changed the transform (zoom, fit, a caller's scale()), the level of detail follows.
    updateLevelOfDetail();
    QGraphicsView::paintEvent(event);
}

std::vector<int> FabricView::selectedRanks() const
{
    std::vector<int> ranks;
    for (QGraphicsItem *item : m_scene->selectedItems()) {
        if (auto *slot = qgraphicsitem_cast<SlotItem *>(item); slot && slot->rank() >= 0)
            ranks.push_back(slot->rank());
    }
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

void FabricView::selectRank(int rank)
{
    m_scene->clearSelection();
    SlotItem *slot = m_root->slotItemOfRank(rank);
    m_pinnedRank = slot ? rank : -1;
    m_root->setFocusRank(m_pinnedRank);
    if (!slot)
        return;
    slot->setSelected(true);
    if (!viewport()->rect().contains(mapFromScene(slot->sceneBoundingRect().center()))) {
        m_autoFit = false;
        centerOn(slot);
    }
    positionLegend();
    say(FabricInfo::slotStatus(*m_document, slot->slot()));
}

void FabricView::keyPressEvent(QKeyEvent *event)
{
    if (m_tool->keyPressed(event))
        return;
    if (!m_tool->isDragging() && annotationKey(event))
        return;
    if (!m_tool->isDragging() && spacePanKey(event, true))
        return;
    // Reached only when no window shortcut took the key (the main window's Undo action wins).
    if (event->matches(QKeySequence::Undo)) {
        m_document->undoStack()->undo();
        return;
    }
    if (event->matches(QKeySequence::Redo)) {
        m_document->undoStack()->redo();
        return;
    }
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        return;
    case Qt::Key_Minus:
        zoomOut();
        return;
    case Qt::Key_0:
        fitAll();
        return;
    default:
        break;
    }
    QGraphicsView::keyPressEvent(event);
}

void FabricView::setEmphasis(const std::vector<int> &linkIds, const QString &caption)
{
    m_root->setEmphasis(linkIds, caption);
}

void FabricView::clearEmphasis()
{
    m_root->setEmphasis({}, QString());
}

void FabricView::setLinkOverlay(
    std::unordered_map<int, double> valueByLink, const QString &legendTitle)
{
    m_root->setLinkOverlay(std::move(valueByLink), legendTitle);
}

void FabricView::clearLinkOverlay()
{
    m_root->clearLinkOverlay();
}

void FabricView::setMeasuredUtilisation(std::vector<double> measured)
{
    m_root->setMeasuredUtilisation(std::move(measured));
}

void FabricView::setMeasuredShown(bool shown)
{
    m_root->setMeasuredShown(shown);
}

void FabricView::markFailed(const std::vector<int> &servers, const std::vector<int> &slots)
{
    m_root->markFailed(servers, slots);
}

void FabricView::contextMenuEvent(QContextMenuEvent *event)
{
    if (m_tool->isDragging()) {
        event->accept(); // no menus under a drag in progress
        return;
    }
    if (const int note = annotationAt(event->pos()); note >= 0) {
        Q_EMIT annotationContextMenuRequested(note, event->globalPos());
        event->accept();
        return;
    }
    const Hit hit = hitAt(event->pos());
    if (hit.slot >= 0 && !m_root->isOverview()) {
        Q_EMIT slotContextMenuRequested(hit.slot, event->globalPos());
        event->accept();
        return;
    }
    if (hit.server) {
        Q_EMIT serverContextMenuRequested(hit.server->server(), event->globalPos());
        event->accept();
        return;
    }
    if (hit.cable >= 0) {
        Q_EMIT linkContextMenuRequested(hit.cable << 1, event->globalPos());
        event->accept();
        return;
    }
    QGraphicsView::contextMenuEvent(event);
}

void FabricView::mousePressEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (event->button() == Qt::MiddleButton || (event->button() == Qt::LeftButton && m_spaceHeld)) {
        m_press = Press::Pan;
        m_panLast = pos;
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    if (event->button() == Qt::LeftButton && !m_tool->isDragging() && annotationAt(pos) >= 0) {
        m_press = Press::Annotation; // the note card moves itself (QGraphicsItem's drag)
        m_autoFit = false;
        QGraphicsView::mousePressEvent(event);
        return;
    }
    if (m_tool->mousePressed(event)) {
        m_press = Press::Tool;
        event->accept();
        return;
    }
    if (event->button() != Qt::LeftButton || m_tool->isDragging()) {
        QGraphicsView::mousePressEvent(event);
        return;
    }
    // Background: pan, or rubber-band select chips with Shift.
    m_press = Press::Background;
    m_pressPos = pos;
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    if (!shift)
        m_autoFit = false; // a hand drag pans
    setDragMode(shift ? RubberBandDrag : ScrollHandDrag);
    QGraphicsView::mousePressEvent(event);
}

void FabricView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (m_press == Press::Pan) {
        const QPoint delta = pos - m_panLast;
        m_panLast = pos;
        panBy(-delta.x(), -delta.y());
        return;
    }
    if (m_press == Press::Annotation) {
        QGraphicsView::mouseMoveEvent(event);
        return;
    }
    if (m_tool->mouseMoved(event))
        return;
    if (m_press == Press::None)
        hover(pos);
    QGraphicsView::mouseMoveEvent(event);
}

void FabricView::mouseReleaseEvent(QMouseEvent *event)
{
    const Press press = std::exchange(m_press, Press::None);
    if (press == Press::Pan) {
        if (m_spaceHeld)
            viewport()->setCursor(Qt::OpenHandCursor);
        else
            viewport()->unsetCursor();
        return;
    }
    if (press == Press::Annotation) {
        QGraphicsView::mouseReleaseEvent(event);
        return;
    }
    if (m_tool->mouseReleased(event))
        return;
    QGraphicsView::mouseReleaseEvent(event);
    if (press != Press::Background)
        return;
    setDragMode(NoDrag);
    const QPoint pos = event->position().toPoint();
    if ((pos - m_pressPos).manhattanLength() < QApplication::startDragDistance()
        && m_scene->selectedItems().isEmpty() && m_pinnedRank >= 0) {
        m_pinnedRank = -1; // a click on the background unpins
        m_root->setFocusRank(-1);
        Q_EMIT rankSelected(-1);
    }
}

void FabricView::chipClicked(int slot, Qt::KeyboardModifiers modifiers)
{
    SlotItem *chip = m_root->slotItem(slot);
    if (!(modifiers & Qt::ControlModifier))
        m_scene->clearSelection();
    if (!chip)
        return;
    chip->setSelected(!chip->isSelected() || !(modifiers & Qt::ControlModifier));
    m_pinnedRank = chip->isSelected() ? chip->rank() : -1;
    m_root->setFocusRank(m_pinnedRank);
    Q_EMIT rankSelected(m_pinnedRank);
}

std::vector<int> FabricView::parseRanks(const QByteArray &payload) const
{
    std::vector<int> ranks;
    const int count = m_document->mapping().rankCount();
    for (const QByteArray &part : payload.split(',')) {
        bool ok = false;
        const int rank = part.trimmed().toInt(&ok);
        if (!ok || rank < 0 || rank >= count)
            return {};
        if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end())
            ranks.push_back(rank);
    }
    return ranks;
}

void FabricView::dragEnterEvent(QDragEnterEvent *event)
{
    if (m_tool->dragEntered(event))
        event->acceptProposedAction();
    else
        event->ignore();
}

void FabricView::dragMoveEvent(QDragMoveEvent *event)
{
    if (m_tool->dragMoved(event))
        event->acceptProposedAction();
    else
        event->ignore();
}

void FabricView::dragLeaveEvent(QDragLeaveEvent *event)
{
    m_tool->dragLeft();
    event->accept();
}

void FabricView::dropEvent(QDropEvent *event)
{
    if (m_tool->dropped(event))
        event->acceptProposedAction();
    else
        event->ignore();
}

} // namespace railyard
