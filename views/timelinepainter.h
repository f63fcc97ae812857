#pragma once

#include "cost/pipelineschedule.h"
#include "studies/trainingcomparison.h"

#include <QBrush>
#include <QColor>
#include <QFont>
#include <QRectF>
#include <QString>

#include <algorithm>
#include <vector>

class QPainter;

namespace railyard {

/**
 * Draws one pipeline timeline as a Gantt chart: a row per stage with forward and backward
 * blocks (model chunks shaded, micro-batch numbers where they fit), boundary sends in thin
 * lanes between the rows, idle time hatched, the post-pipeline tail (exposed DP sync and the
 * optimizer step), a time axis and a legend. Under the stages, a measured lane per loaded
 * training log or trace (setMeasuredLanes()): a trace's compute on top and each dimension's
 * communication below in the dimension's colour, a log's step as one bar. Knows the geometry,
 * so the interactive canvas and the image export share it; holds no widget state.
 */
class TimelinePainter
{
public:
    static constexpr double kGutter = 84.0; ///< stage labels, left of the rows
    static constexpr double kAxisHeight = 24.0;
    static constexpr double kLegendHeight = 22.0;
    static constexpr double kRightMargin = 14.0;
    static constexpr double kMinPitch = 14.0; ///< row + send lane, pixels
    static constexpr double kMaxPitch = 40.0;
    static constexpr double kPreferredPitch = 32.0;
    static constexpr double kTitleHeight = 30.0; ///< export only
    static constexpr double kSpanMargin = 1.03; ///< room right of the last event

    /** Where things go inside one drawing rectangle for one visible time window. */
    struct Layout
    {
        QRectF plot; ///< the rows (right of the gutter, below the axis)
        double t0 = 0.0; ///< time at plot.left()
        double pxPerSec = 1.0;
        double rowPitch = 30.0;
        double blockHeight = 22.0;
        double laneHeight = 8.0;
        double x(double t) const { return plot.left() + (t - t0) * pxPerSec; }
        double rowTop(int stage) const { return plot.top() + stage * rowPitch; }
    };

    /// "forward", "backward", "activation send", "gradient send", "weight gradient (W)".
    static QString eventLabel(PipelineEventKind k);

    /// `bidirectional`: DualPipe, whose events' chunk is the direction (0 down the stages, 1 up);
    /// each direction gets its shade and legend entry.
    void setTimeline(const PipelineTimeline &timeline, int stages, int chunks, double iterationTime,
        bool bidirectional = false);
    void setTextColor(const QColor &c) { m_text = c; }

    /** A measured step drawn under the predicted stages, as the study composed it. */
    struct MeasuredLane
    {
        QString label; ///< the gutter's first line ("measured")
        QString detail; ///< its second line ("stage 1 · rank 5", "log")
        QString source; ///< the file's name, for tooltips
        std::vector<MeasuredPhase> phases;
    };
    /// The lanes (none: no measured row); the axis then covers the longest measured step too.
    void setMeasuredLanes(std::vector<MeasuredLane> lanes);
    const std::vector<MeasuredLane> &measuredLanes() const { return m_lanes; }
    /// Rows drawn: the stages, then the measured lanes (at least one).
    int rowCount() const { return std::max(1, m_stages + static_cast<int>(m_lanes.size())); }
    /// Where phase `phase` of lane `lane` is drawn: compute in the row's upper half,
    /// communication in its lower half, a whole step over both.
    QRectF measuredPhaseRect(const Layout &l, int lane, const MeasuredPhase &phase) const;
    /// The colour a measured phase is drawn in.
    static QColor measuredColor(const MeasuredPhase &phase);

    const PipelineTimeline &timeline() const { return m_timeline; }
    int stages() const { return m_stages; }
    int chunks() const { return m_chunks; }
    const std::vector<int> &sends() const { return m_sends; } ///< indices of send events
    /// Seconds the whole chart covers: makespan or iteration end, plus a margin.
    double totalSpan() const;

    /// `font` is the one the legend is drawn in (it wraps onto as many rows as its width
    /// needs, and the rows above make room for them).
    Layout layoutFor(const QRectF &rect, double t0, double span, const QFont &font = QFont()) const;
    /// The legend's rows at `width` pixels in `font`.
    int legendRows(const QFont &font, double width) const;
    QRectF blockRect(const Layout &l, const PipelineEvent &e) const;
    QRectF sendRect(const Layout &l, const PipelineEvent &e) const;
    int laneOf(const PipelineEvent &e) const; ///< the lane (below stage n) a send is drawn in
    /// The compute event of `stage` covering time t (within tolerance), or -1. `after` gets the
    /// position in the stage's list of the first event ending after t - tolerance.
    int computeAt(int stage, double t, double tolerance, int *after = nullptr) const;
    const std::vector<int> &computeOf(int stage) const
    {
        return m_compute[static_cast<std::size_t>(stage)];
    }

    /// The window [t0, t0 + span] into `rect`.
    void paint(QPainter &p, const QRectF &rect, double t0, double span) const;
    /// The whole timeline into `rect` on white, `title` above it (image export).
    void renderAll(QPainter &p, const QRectF &rect, const QString &title) const;

private:
    void paintAxis(QPainter &p, const Layout &l, double t0, double t1) const;
    void paintGutter(QPainter &p, const Layout &l) const;
    void paintRows(QPainter &p, const Layout &l, double t0, double t1) const;
    void paintSends(QPainter &p, const Layout &l, double t0, double t1) const;
    void paintMeasured(QPainter &p, const Layout &l, double t0, double t1) const;
    void paintLegend(QPainter &p, const QRectF &area) const;
    struct LegendEntry
    {
        QBrush brush;
        QString label;
        QBrush under;
    };
    std::vector<LegendEntry> legendEntries() const;
    /// Lays the entries out left to right, wrapping at `width`; calls `place` with each entry
    /// and its (x, row); returns the number of rows.
    template<typename Place>
    int layoutLegend(const QFontMetricsF &fm, double width, Place place) const;

    PipelineTimeline m_timeline;
    std::vector<std::vector<int>> m_compute; ///< per stage: indices of F/B events by start
    std::vector<int> m_sends;
    int m_stages = 0;
    int m_chunks = 1;
    bool m_bidirectional = false;
    bool m_hasWeightGrad = false; ///< any W block: the legend lists it
    double m_iterationTime = 0.0;
    std::vector<MeasuredLane> m_lanes;
    double m_measuredEnd = 0.0; ///< the latest end of a measured phase, seconds
    QColor m_text = Qt::black;
};

} // namespace railyard
