#pragma once

#include "timelinepainter.h"

#include <QPoint>
#include <QString>
#include <QWidget>

#include <algorithm>

class QPainter;

namespace railyard {

/**
 * The interactive Gantt chart of one pipeline timeline (TimelinePainter draws it). The time
 * axis zooms (Ctrl+wheel, or the wheel when all rows fit; +/-) and pans (drag, Shift+wheel,
 * arrow keys, setViewStart()); double-click or 0 fits. Hovering a block, a send or an idle
 * gap shows its stage, micro-batch, chunk and times; a click selects a block or a send (outlined,
 * eventSelected). It only draws what the report holds.
 */
class TimelineCanvas : public QWidget
{
    Q_OBJECT

public:
    explicit TimelineCanvas(QWidget *parent = nullptr);

    /// Copies the events; keeps the zoom (as a share of the whole) unless the view was fitted.
    /// `bidirectional`: DualPipe (TimelinePainter::setTimeline()).
    void setTimeline(const PipelineTimeline &timeline, int stages, int chunks, double iterationTime,
        bool bidirectional = false);
    const PipelineTimeline &timeline() const { return m_painter.timeline(); }
    int stages() const { return m_painter.stages(); }
    int chunks() const { return m_painter.chunks(); }

    /// The measured lanes under the stages (TimelinePainter::setMeasuredLanes()); refits when
    /// fitted, as the axis may grow.
    void setMeasuredLanes(std::vector<TimelinePainter::MeasuredLane> lanes);
    const std::vector<TimelinePainter::MeasuredLane> &measuredLanes() const
    {
        return m_painter.measuredLanes();
    }
    /// Phase `phase` of lane `lane` in widget coordinates (empty when out of range).
    QRectF measuredPhaseRect(int lane, int phase) const;

    /// Seconds on the time axis when fitted: the timeline's, or the extent when that is longer.
    double totalSpan() const { return std::max(m_painter.totalSpan(), m_extent); }
    /// At least this many seconds on the axis (0 = the timeline's own), so that two canvases
    /// side by side share one time scale (the A/B comparison). Refits when fitted.
    void setExtent(double seconds);
    /// Shows [start, start + span] (clamped), e.g. to follow another canvas.
    void setView(double start, double span);
    double viewStart() const { return m_start; }
    double viewSpan() const { return m_span; }
    void setViewStart(double seconds);
    void zoomBy(double factor, double anchorX); ///< anchorX in widget pixels
    void fit();

    /// Paints the whole timeline (fitted) into `rect`, `title` above it: for image export.
    void renderAll(QPainter &painter, const QRectF &rect, const QString &title) const;
    /// A good export height for the current number of stages.
    int preferredHeight() const;

    /// Tooltip text for a widget position (empty when nothing is there).
    QString toolTipAt(const QPoint &pos) const;
    /// Centre of event `i`'s block in widget coordinates (for tests and tooltips).
    QPointF eventCenter(int i) const;
    /// The block or send under a widget position (index into timeline().events), or -1.
    int eventAt(const QPoint &pos) const;
    /// The event a click selected (outlined; its details in the panel), or -1.
    int selectedEvent() const { return m_selected; }
    /// Selects event `i` (-1 clears) and announces it (eventSelected).
    void selectEvent(int i);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    void viewChanged(); ///< zoom or pan changed
    /// A click selected an event (index into timeline().events), or cleared it (-1). Also sent
    /// when a new timeline moves the selected event or drops it.
    void eventSelected(int index);

protected:
    bool event(QEvent *e) override;
    void paintEvent(QPaintEvent *) override;
    void wheelEvent(QWheelEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;
    void mouseMoveEvent(QMouseEvent *e) override;
    void mouseReleaseEvent(QMouseEvent *e) override;
    void mouseDoubleClickEvent(QMouseEvent *e) override;
    void keyPressEvent(QKeyEvent *e) override;
    void resizeEvent(QResizeEvent *e) override;
    /// The legend's height at the current width (TimelinePainter::legendRows()).
    double legendHeight() const;

private:
    TimelinePainter::Layout layout() const;
    void clampView();
    /// The phases of measured lane `lane` at time t.
    QString measuredToolTip(int lane, double t, double tolerance) const;

    TimelinePainter m_painter;
    double m_start = 0.0;
    double m_span = 0.0;
    double m_extent = 0.0;
    bool m_fitted = true;
    bool m_dragging = false;
    int m_selected = -1;
    /// The selected event by what it is (kind, stage, micro-batch, chunk): a re-evaluation
    /// re-orders the events, and the selection follows the same block.
    PipelineEvent m_selectedKey;
    QPoint m_dragOrigin;
    double m_dragStart = 0.0;
};

} // namespace railyard
