// FabricView, part 3: zoom, pan (wheel, Shift+wheel, Space+drag, the middle button), fitting,
// and the short notices shown over the fabric.
#include "fabricview.h"

#include "annotationlayer.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "legenditem.h"
#include "slotitem.h"

#include <QKeyEvent>
#include <QLabel>
#include <QScrollBar>
#include <QTimer>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace railyard {

namespace {

constexpr int kNoticeMs = 4000;

} // namespace

void FabricView::refit()
{
    if (m_fitWhole)
        fitAll();
    else
        fitDefault();
}

double FabricView::readablePixels() const
{
    return kReadablePoints * logicalDpiY() / 72.0;
}

double FabricView::readableZoom() const
{
    const int px = m_root->smallestCoordinatePixels();
    // The 2 % keep rounding from landing a hair under the size.
    const double readable = px > 0 ? 1.02 * readablePixels() / px : 0.0;
    return std::max(readable, 1.02 * SlotItem::kCoordinatesLod);
}

void FabricView::fitDefault()
{
    const QRectF content = m_scene->sceneRect();
    const QRect vp = viewport()->rect();
    const double reserve = m_legend->boundingRect().height() * m_legend->scale() + 12.0;
    const double whole = std::min((vp.width() - 4.0) / std::max(1.0, content.width()),
        (vp.height() - reserve - 4.0) / std::max(1.0, content.height()));
    const double across = (vp.width() - 4.0) / std::max(1.0, content.width());
    const double s = std::min(across, readableZoom());
    // The topmost switch row: spines, or super-spines above them.
    const FabricLayout &layout = m_root->layout();
    const Fabric &fabric = m_root->fabric();
    double spineTop = std::numeric_limits<double>::infinity();
    for (int i = 0; i < fabric.spineCount(); ++i)
        spineTop = std::min(spineTop, layout.switchRect(fabric.spineVertex(i)).top());
    for (int i = 0; i < fabric.superSpineCount(); ++i)
        spineTop = std::min(spineTop, layout.switchRect(fabric.superSpineVertex(i)).top());
    for (int i = 0; i < fabric.coreCount(); ++i)
        spineTop = std::min(spineTop, layout.switchRect(fabric.coreVertex(i)).top());
    // Cropping pays only when it buys the detailed drawing: a fabric that is an overview even at
    // its width's zoom (16,384 GPUs) opens whole, as one that fits readably does.
    if (s <= whole || s < kOverviewBelow || m_root->layout().racks().empty()) {
        fitAll();
        m_fitWhole = false;
        return;
    }
    m_autoFit = true;
    m_fitWhole = false;
    setTransform(QTransform::fromScale(s, s));
    // Room above the scene for the legend strip, so the spines can scroll out from under it.
    setSceneRect(content.adjusted(0.0, -reserve / s, 0.0, 0.0));
    setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    // Under the legend, from the top down as far as the height shows the first rack row's
    // chips: the spines, the leaves and the servers in one picture, so a newcomer sees the
    // whole path a byte takes (at 1280x720 the view opened at the leaves, the spines above
    // its edge); else from the leaves, else from the racks' top. The chips stay readable: a
    // view too short for all three (a 280-pixel fabric) keeps its zoom and starts lower.
    const double rackTop = layout.racks().front().rect.top();
    const QRectF leaf = fabric.leafCount() > 0 ? layout.switchRect(fabric.leafVertex(0)) : QRectF();
    const double shown = (vp.height() - reserve) / s;
    const double firstChips = layout.chipsTop() + FabricLayout::kChipHeight + 6.0;
    const double rowAndMargin = layout.serverSize().height() + 30.0;
    double top = rackTop - 10.0;
    if (std::isfinite(spineTop) && shown >= rackTop - spineTop + 6.0 + firstChips)
        top = spineTop - 6.0;
    else if (!leaf.isEmpty() && shown >= rackTop - leaf.top() + rowAndMargin) {
        top = leaf.top() - 10.0;
        // With the label of the frame around the leaves ("SU 0 · servers 0-15") when the
        // height has room for it: cut at the legend's edge it read as a stray line of text.
        for (const FabricLayout::Frame &frame : layout.frames())
            if (frame.rect.top() < top && frame.rect.bottom() > leaf.bottom()
                && shown >= rackTop - frame.rect.top() + 4.0 + rowAndMargin)
                top = std::min(top, frame.rect.top() - 4.0);
    } else if (!leaf.isEmpty() && leaf.bottom() > top - reserve / s && leaf.top() < top)
        // The leaves would show in the legend's band at the view's top edge, a sliver or whole
        // (their names cut or under its text): start just under them instead.
        top = leaf.bottom() + reserve / s + 2.0 / s;
    // Sticky notes above that (a whiteboard's, pinned over the switches) come into view as
    // well when the height still shows a server row: under the legend they could not be read.
    // A card keeps its size on screen, so its top in the scene depends on the zoom.
    // Not when that would bring the leaves back into the legend's band (the note then finds
    // its own free place under the legend, AnnotationLayer::layoutForView).
    const auto leavesClear = [&](double t) {
        return leaf.isEmpty() || leaf.bottom() <= t - reserve / s || leaf.top() >= t;
    };
    for (const AnnotationNoteItem *note : m_annotations->notes()) {
        const double noteTop = note->scenePos().y() + note->boundingRect().top() / s - 10.0 / s;
        if (noteTop < top && shown >= rackTop - noteTop + rowAndMargin
            && (!leavesClear(top) || leavesClear(noteTop)))
            top = noteTop;
    }
    centerOn(QPointF(content.center().x(), top - reserve / s + vp.height() / (2.0 * s)));
    updateLevelOfDetail();
    positionLegend();
}

void FabricView::fitAll()
{
    m_autoFit = true;
    m_fitWhole = true;
    // Fit the scene below the legend strip (kept at the viewport's top-left), with the scene
    // aligned to the bottom so the strip covers no cable or switch at this zoom.
    const QRectF content = m_scene->sceneRect();
    const QRect vp = viewport()->rect();
    const double reserve = m_legend->boundingRect().height() * m_legend->scale() + 12.0;
    const double s = std::min((vp.width() - 4.0) / std::max(1.0, content.width()),
        (vp.height() - reserve - 4.0) / std::max(1.0, content.height()));
    if (s <= 0.0)
        return;
    setSceneRect(content);
    setTransform(QTransform::fromScale(s, s));
    const double spare = vp.height() - content.height() * s;
    setAlignment(Qt::AlignHCenter | (spare >= 2.0 * reserve ? Qt::AlignVCenter : Qt::AlignBottom));
    centerOn(content.center());
    updateLevelOfDetail();
    positionLegend();
}

void FabricView::zoomIn()
{
    zoomBy(1.25);
}

void FabricView::zoomOut()
{
    zoomBy(0.8);
}

void FabricView::zoomBy(double factor)
{
    m_autoFit = false;
    const QRectF bounds = m_root->boundingRect();
    const double fit = std::min(viewport()->width() / std::max(1.0, bounds.width()),
        viewport()->height() / std::max(1.0, bounds.height()));
    const double next = std::clamp(zoom() * factor, std::min(0.5 * fit, 0.05), 8.0);
    scale(next / zoom(), next / zoom());
    updateLevelOfDetail();
    positionLegend();
}

void FabricView::panBy(int dx, int dy)
{
    m_autoFit = false;
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() + dx);
    verticalScrollBar()->setValue(verticalScrollBar()->value() + dy);
}

void FabricView::updateLevelOfDetail()
{
    m_root->setOverview(m_overviewForced || zoom() < kOverviewBelow);
}

void FabricView::wheelEvent(QWheelEvent *event)
{
    // Shift+wheel (or a sideways wheel or trackpad swipe) pans sideways; the plain wheel
    // zooms under the mouse, as in map viewers. One notch (120) pans a tenth of the view.
    const QPoint angle = event->angleDelta();
    const bool sideways
        = (event->modifiers() & Qt::ShiftModifier) || (angle.x() != 0 && angle.y() == 0);
    if (sideways) {
        const int notch = angle.y() != 0 ? angle.y() : angle.x();
        panBy(-notch * viewport()->width() / 1200, 0);
        event->accept();
        return;
    }
    const double steps = angle.y() / 120.0;
    if (steps == 0.0) {
        QGraphicsView::wheelEvent(event);
        return;
    }
    setTransformationAnchor(AnchorUnderMouse);
    zoomBy(std::pow(1.2, steps));
    event->accept();
}

bool FabricView::spacePanKey(QKeyEvent *event, bool pressed)
{
    if (event->key() != Qt::Key_Space || event->modifiers() != Qt::NoModifier)
        return false;
    if (!event->isAutoRepeat()) {
        m_spaceHeld = pressed;
        if (m_press != Press::Pan) {
            if (pressed)
                viewport()->setCursor(Qt::OpenHandCursor);
            else
                viewport()->unsetCursor();
        }
    }
    event->accept();
    return true;
}

void FabricView::keyReleaseEvent(QKeyEvent *event)
{
    if (spacePanKey(event, false))
        return;
    QGraphicsView::keyReleaseEvent(event);
}

void FabricView::focusOutEvent(QFocusEvent *event)
{
    m_spaceHeld = false; // the release goes elsewhere
    QGraphicsView::focusOutEvent(event);
}

void FabricView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    positionLegend();
}

void FabricView::resizeEvent(QResizeEvent *event)
{
    QGraphicsView::resizeEvent(event);
    if (m_autoFit)
        refit();
    positionLegend();
    positionNotice();
}

void FabricView::showEvent(QShowEvent *event)
{
    QGraphicsView::showEvent(event);
    if (m_autoFit)
        refit();
}

void FabricView::showNotice(const QString &text)
{
    if (!m_notice) {
        m_notice = new QLabel(viewport());
        m_notice->setObjectName(QStringLiteral("fabricNotice"));
        m_notice->setAttribute(Qt::WA_TransparentForMouseEvents);
        m_notice->setWordWrap(true);
        m_notice->setAlignment(Qt::AlignCenter);
        m_notice->setStyleSheet(
            QStringLiteral("QLabel { background: rgba(33, 37, 41, 215); color: white; "
                           "border-radius: 6px; padding: 8px 14px; }"));
        m_noticeTimer = new QTimer(this);
        m_noticeTimer->setSingleShot(true);
        connect(m_noticeTimer, &QTimer::timeout, m_notice, &QWidget::hide);
    }
    m_notice->setText(text);
    positionNotice();
    m_notice->show();
    m_notice->raise();
    m_noticeTimer->start(kNoticeMs);
}

QString FabricView::noticeText() const
{
    return m_notice && m_notice->isVisible() ? m_notice->text() : QString();
}

void FabricView::positionNotice()
{
    if (!m_notice)
        return;
    const QRect vp = viewport()->rect();
    const int width = std::min(vp.width() - 20,
        std::max(240, m_notice->fontMetrics().horizontalAdvance(m_notice->text()) + 40));
    m_notice->setFixedWidth(std::max(60, width));
    m_notice->adjustSize();
    m_notice->move(vp.center().x() - m_notice->width() / 2, vp.bottom() - m_notice->height() - 16);
}

} // namespace railyard
