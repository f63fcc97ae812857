#include "timelinecanvas.h"

#include "chartformat.h"

#include <QApplication>
#include <QEvent>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace railyard {

namespace {

} // namespace

TimelineCanvas::TimelineCanvas(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void TimelineCanvas::setTimeline(const PipelineTimeline &timeline, int stages, int chunks,
    double iterationTime, bool bidirectional)
{
    const double oldTotal = totalSpan();
    m_painter.setTimeline(timeline, stages, chunks, iterationTime, bidirectional);
    if (m_selected >= 0) {
        // The same block in the new timeline (a re-evaluation re-orders and re-times events).
        const int before = m_selected;
        m_selected = -1;
        const std::vector<PipelineEvent> &events = m_painter.timeline().events;
        for (std::size_t i = 0; i < events.size(); ++i) {
            const PipelineEvent &e = events[i];
            if (e.kind == m_selectedKey.kind && e.stage == m_selectedKey.stage
                && e.microbatch == m_selectedKey.microbatch && e.chunk == m_selectedKey.chunk) {
                m_selected = static_cast<int>(i);
                break;
            }
        }
        if (m_selected != before || m_selected >= 0)
            Q_EMIT eventSelected(m_selected);
    }
    if (m_fitted || oldTotal <= 0.0) {
        fit();
    } else {
        // Keep the user's zoom as a share of the whole, so a re-evaluation does not jump.
        const double scale = totalSpan() / oldTotal;
        m_start *= scale;
        m_span *= scale;
        clampView();
        Q_EMIT viewChanged();
    }
    updateGeometry();
    update();
}

void TimelineCanvas::setMeasuredLanes(std::vector<TimelinePainter::MeasuredLane> lanes)
{
    m_painter.setMeasuredLanes(std::move(lanes));
    if (m_fitted)
        fit();
    else
        clampView();
    updateGeometry();
    update();
}

QRectF TimelineCanvas::measuredPhaseRect(int lane, int phase) const
{
    const auto &lanes = m_painter.measuredLanes();
    if (lane < 0 || lane >= static_cast<int>(lanes.size()) || phase < 0
        || phase >= static_cast<int>(lanes[sz(lane)].phases.size()))
        return {};
    return m_painter.measuredPhaseRect(layout(), lane, lanes[sz(lane)].phases[sz(phase)]);
}

TimelinePainter::Layout TimelineCanvas::layout() const
{
    return m_painter.layoutFor(rect(), m_start, m_span, font());
}

void TimelineCanvas::setViewStart(double seconds)
{
    m_start = seconds;
    m_fitted = false;
    clampView();
    update();
    Q_EMIT viewChanged();
}

void TimelineCanvas::setExtent(double seconds)
{
    if (seconds == m_extent)
        return;
    m_extent = std::max(0.0, seconds);
    if (m_fitted)
        fit();
    else
        clampView();
    update();
}

void TimelineCanvas::setView(double start, double span)
{
    if (start == m_start && span == m_span)
        return;
    m_start = start;
    m_span = span;
    clampView();
    m_fitted = m_span >= totalSpan() * 0.9999;
    update();
    Q_EMIT viewChanged();
}

void TimelineCanvas::zoomBy(double factor, double anchorX)
{
    if (factor <= 0.0)
        return;
    const TimelinePainter::Layout l = layout();
    const double anchorT = m_start + (anchorX - l.plot.left()) / l.pxPerSec;
    m_span /= factor;
    // Anchor the time under the cursor.
    m_start = anchorT - (anchorX - l.plot.left()) / (l.plot.width() / m_span);
    m_fitted = false;
    clampView();
    if (m_span >= totalSpan() * 0.9999)
        m_fitted = true;
    update();
    Q_EMIT viewChanged();
}

void TimelineCanvas::fit()
{
    m_start = 0.0;
    m_span = totalSpan();
    m_fitted = true;
    update();
    Q_EMIT viewChanged();
}

void TimelineCanvas::clampView()
{
    const double total = totalSpan();
    m_span = std::clamp(m_span, total * 1e-5, total);
    m_start = std::clamp(m_start, 0.0, std::max(0.0, total - m_span));
}

int TimelineCanvas::preferredHeight() const
{
    return static_cast<int>(TimelinePainter::kTitleHeight + TimelinePainter::kAxisHeight
        + legendHeight() + 16.0 + m_painter.rowCount() * TimelinePainter::kPreferredPitch);
}

QSize TimelineCanvas::sizeHint() const
{
    return { 900,
        static_cast<int>(TimelinePainter::kAxisHeight + legendHeight() + 12.0
            + m_painter.rowCount() * TimelinePainter::kPreferredPitch) };
}

QSize TimelineCanvas::minimumSizeHint() const
{
    return { 320,
        static_cast<int>(TimelinePainter::kAxisHeight + legendHeight() + 12.0
            + m_painter.rowCount() * TimelinePainter::kMinPitch) };
}

void TimelineCanvas::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    m_painter.setTextColor(palette().color(QPalette::Text));
    m_painter.paint(p, rect(), m_start, m_span);
    if (m_selected >= 0 && m_selected < static_cast<int>(m_painter.timeline().events.size())) {
        const PipelineEvent &e = m_painter.timeline().events[sz(m_selected)];
        const TimelinePainter::Layout l = layout();
        const QRectF r = isCompute(e) ? m_painter.blockRect(l, e) : m_painter.sendRect(l, e);
        p.setRenderHint(QPainter::Antialiasing, true);
        p.setBrush(Qt::NoBrush);
        // A dark ring with a white one inside: visible on every block colour.
        p.setPen(QPen(palette().color(QPalette::Text), 2.5));
        p.drawRect(r.adjusted(-2, -2, 2, 2));
        p.setPen(QPen(Qt::white, 1.0));
        p.drawRect(r.adjusted(-0.5, -0.5, 0.5, 0.5));
    }
}

void TimelineCanvas::renderAll(QPainter &painter, const QRectF &rect, const QString &title) const
{
    m_painter.renderAll(painter, rect, title);
}

QPointF TimelineCanvas::eventCenter(int i) const
{
    const PipelineTimeline &t = m_painter.timeline();
    if (i < 0 || i >= static_cast<int>(t.events.size()))
        return {};
    const TimelinePainter::Layout l = layout();
    const PipelineEvent &e = t.events[sz(i)];
    return (isCompute(e) ? m_painter.blockRect(l, e) : m_painter.sendRect(l, e)).center();
}

int TimelineCanvas::eventAt(const QPoint &pos) const
{
    const int stages = m_painter.stages();
    const PipelineTimeline &tl = m_painter.timeline();
    if (stages == 0)
        return -1;
    const TimelinePainter::Layout l = layout();
    if (!l.plot.contains(pos))
        return -1;
    const int row = static_cast<int>((pos.y() - l.plot.top()) / l.rowPitch);
    if (row < 0 || row >= stages)
        return -1;
    if (pos.y() - l.rowTop(row) <= l.blockHeight) {
        const double t = l.t0 + (pos.x() - l.plot.left()) / l.pxPerSec;
        return m_painter.computeAt(row, t, 3.0 / l.pxPerSec); // tiny blocks stay clickable
    }
    for (const int i : m_painter.sends()) {
        const PipelineEvent &e = tl.events[sz(i)];
        if (m_painter.laneOf(e) == row
            && m_painter.sendRect(l, e).adjusted(-2, -1, 2, 1).contains(pos))
            return i;
    }
    return -1;
}

void TimelineCanvas::selectEvent(int i)
{
    if (i < -1 || i >= static_cast<int>(m_painter.timeline().events.size()))
        i = -1;
    m_selected = i;
    if (i >= 0)
        m_selectedKey = m_painter.timeline().events[sz(i)];
    update();
    Q_EMIT eventSelected(i);
}

QString TimelineCanvas::toolTipAt(const QPoint &pos) const
{
    const int stages = m_painter.stages();
    const PipelineTimeline &tl = m_painter.timeline();
    if (stages == 0)
        return {};
    const TimelinePainter::Layout l = layout();
    if (!l.plot.contains(pos))
        return {};
    const int row = static_cast<int>((pos.y() - l.plot.top()) / l.rowPitch);
    const double t = l.t0 + (pos.x() - l.plot.left()) / l.pxPerSec;
    const double tolerance = 3.0 / l.pxPerSec; // tiny blocks stay hoverable
    if (row >= stages && row < m_painter.rowCount())
        return measuredToolTip(row - stages, t, tolerance);
    if (row < 0 || row >= stages)
        return {};
    auto describe = [](const PipelineEvent &e, int receiver) {
        const QString head = isCompute(e) ? QStringLiteral("<b>stage %1 · %2</b>")
                                                .arg(e.stage)
                                                .arg(TimelinePainter::eventLabel(e.kind))
                                          : QStringLiteral("<b>%1 · stage %2 → %3</b>")
                                                .arg(TimelinePainter::eventLabel(e.kind))
                                                .arg(e.stage)
                                                .arg(receiver);
        return head
            + QStringLiteral("<br>micro-batch %1 · chunk %2<br>start %3 · end %4<br>duration %5")
                  .arg(e.microbatch)
                  .arg(e.chunk)
                  .arg(chartformat::seconds(e.start), chartformat::seconds(e.end),
                      chartformat::seconds(e.end - e.start));
    };
    if (pos.y() - l.rowTop(row) <= l.blockHeight) {
        int after = 0;
        const int hit = m_painter.computeAt(row, t, tolerance, &after);
        if (hit >= 0)
            return describe(tl.events[sz(hit)], -1);
        if (t < 0.0 || t > tl.makespan)
            return {};
        // Idle: the gap between the neighbouring blocks.
        const std::vector<int> &ids = m_painter.computeOf(row);
        const double gapEnd = after < static_cast<int>(ids.size())
            ? tl.events[sz(ids[sz(after)])].start
            : tl.makespan;
        const double gapStart = after > 0 ? tl.events[sz(ids[sz(after - 1)])].end : 0.0;
        return QStringLiteral("<b>stage %1 · idle</b><br>%2 – %3<br>duration %4")
            .arg(row)
            .arg(chartformat::seconds(gapStart), chartformat::seconds(gapEnd),
                chartformat::seconds(gapEnd - gapStart));
    }
    for (const int i : m_painter.sends()) {
        const PipelineEvent &e = tl.events[sz(i)];
        if (m_painter.laneOf(e) != row)
            continue;
        if (m_painter.sendRect(l, e).adjusted(-2, -1, 2, 1).contains(pos)) {
            const int receiver = e.peer >= 0               ? e.peer
                : e.kind == PipelineEventKind::SendForward ? (e.stage + 1) % stages
                                                           : (e.stage - 1 + stages) % stages;
            return describe(e, receiver);
        }
    }
    return {};
}

QString TimelineCanvas::measuredToolTip(int lane, double t, double tolerance) const
{
    const auto &lanes = m_painter.measuredLanes();
    if (lane < 0 || lane >= static_cast<int>(lanes.size()))
        return {};
    const TimelinePainter::MeasuredLane &ml = lanes[sz(lane)];
    QString out = QStringLiteral("<b>%1 · %2</b><br>%3").arg(ml.label, ml.detail, ml.source);
    bool any = false;
    for (const MeasuredPhase &ph : ml.phases) {
        if (ph.start > t + tolerance || ph.end < t - tolerance)
            continue;
        const QString what = ph.kind == MeasuredPhase::Kind::Step ? QStringLiteral("step")
            : ph.kind == MeasuredPhase::Kind::Compute             ? QStringLiteral("compute")
            : ph.dim ? QStringLiteral("%1 communication").arg(chartformat::latin(dimName(*ph.dim)))
                     : QStringLiteral("communication of no dimension");
        out += QStringLiteral("<br>%1 %2 – %3 (%4)")
                   .arg(what, chartformat::seconds(ph.start), chartformat::seconds(ph.end),
                       chartformat::seconds(ph.end - ph.start));
        any = true;
    }
    return any ? out : QString();
}

bool TimelineCanvas::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const QString tip = toolTipAt(help->pos());
        if (tip.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tip, this);
        return true;
    }
    return QWidget::event(e);
}

void TimelineCanvas::wheelEvent(QWheelEvent *e)
{
    const QPoint d = e->angleDelta();
    const bool pan = (e->modifiers() & Qt::ShiftModifier) || std::abs(d.x()) > std::abs(d.y());
    if (pan) {
        const int delta = std::abs(d.x()) > std::abs(d.y()) ? d.x() : d.y();
        setViewStart(m_start - delta / 120.0 * 0.1 * m_span);
        e->accept();
        return;
    }
    // Plain wheel scrolls the rows when they do not fit (the scroll area takes it);
    // Ctrl+wheel, or the wheel when everything fits, zooms the time axis.
    const bool rowsScroll = parentWidget() && height() > parentWidget()->height() + 1;
    if (rowsScroll && !(e->modifiers() & Qt::ControlModifier)) {
        e->ignore();
        return;
    }
    zoomBy(std::pow(1.0015, d.y()), e->position().x());
    e->accept();
}

void TimelineCanvas::mousePressEvent(QMouseEvent *e)
{
    if (e->button() == Qt::LeftButton) {
        m_dragging = true;
        m_dragOrigin = e->pos();
        m_dragStart = m_start;
        setCursor(Qt::ClosedHandCursor);
    }
    QWidget::mousePressEvent(e);
}

void TimelineCanvas::mouseMoveEvent(QMouseEvent *e)
{
    if (m_dragging) {
        const TimelinePainter::Layout l = layout();
        setViewStart(m_dragStart - (e->pos().x() - m_dragOrigin.x()) / l.pxPerSec);
    }
    QWidget::mouseMoveEvent(e);
}

void TimelineCanvas::mouseReleaseEvent(QMouseEvent *e)
{
    if (m_dragging && e->button() == Qt::LeftButton) {
        m_dragging = false;
        unsetCursor();
        // A click, not a pan: select what is under it (nothing clears the selection).
        if ((e->pos() - m_dragOrigin).manhattanLength() < QApplication::startDragDistance())
            selectEvent(eventAt(e->pos()));
    }
    QWidget::mouseReleaseEvent(e);
}

void TimelineCanvas::mouseDoubleClickEvent(QMouseEvent *)
{
    fit();
}

void TimelineCanvas::keyPressEvent(QKeyEvent *e)
{
    const double centre = layout().plot.center().x();
    switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.5, centre);
        break;
    case Qt::Key_Minus:
        zoomBy(1.0 / 1.5, centre);
        break;
    case Qt::Key_0:
    case Qt::Key_Home:
        fit();
        break;
    case Qt::Key_Left:
        setViewStart(m_start - 0.1 * m_span);
        break;
    case Qt::Key_Right:
        setViewStart(m_start + 0.1 * m_span);
        break;
    default:
        QWidget::keyPressEvent(e);
    }
}

double TimelineCanvas::legendHeight() const
{
    // As many rows as the legend needs at this width (it wraps), so they are never cut off.
    const double room = std::max(
        100.0, double(width()) - TimelinePainter::kGutter - TimelinePainter::kRightMargin);
    return m_painter.legendRows(font(), room) * TimelinePainter::kLegendHeight;
}

void TimelineCanvas::resizeEvent(QResizeEvent *e)
{
    QWidget::resizeEvent(e);
    if (e->oldSize().width() != e->size().width())
        updateGeometry(); // the legend's rows, hence the height wanted, follow the width
    Q_EMIT viewChanged();
}

} // namespace railyard
