#include "timelinepainter.h"

#include "chartformat.h"
#include "chartpalette.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>

namespace railyard {

namespace {

/// 1-2-5 steps giving about `target` ticks over `span`.
double niceStep(double span, double target)
{
    if (span <= 0.0 || target <= 0.0)
        return 1.0;
    const double raw = span / target;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double f : { 1.0, 2.0, 5.0, 10.0 })
        if (raw <= f * mag)
            return f * mag;
    return 10.0 * mag;
}

QBrush hatchBrush()
{
    return QBrush(chartpalette::idleHatchColor(), Qt::BDiagPattern);
}

} // namespace

QString TimelinePainter::eventLabel(PipelineEventKind k)
{
    switch (k) {
    case PipelineEventKind::Forward:
        return QStringLiteral("forward");
    case PipelineEventKind::Backward:
        return QStringLiteral("backward");
    case PipelineEventKind::SendForward:
        return QStringLiteral("activation send");
    case PipelineEventKind::SendBackward:
        return QStringLiteral("gradient send");
    case PipelineEventKind::WeightGrad:
        return QStringLiteral("weight gradient (W)");
    }
    return {};
}

void TimelinePainter::setTimeline(const PipelineTimeline &timeline, int stages, int chunks,
    double iterationTime, bool bidirectional)
{
    m_timeline = timeline;
    m_stages = std::max(0, stages);
    m_bidirectional = bidirectional;
    m_chunks = bidirectional ? 2 : std::max(1, chunks);
    m_hasWeightGrad = std::any_of(m_timeline.events.begin(), m_timeline.events.end(),
        [](const PipelineEvent &e) { return e.kind == PipelineEventKind::WeightGrad; });
    m_iterationTime = iterationTime;
    m_compute.assign(sz(m_stages), {});
    m_sends.clear();
    for (int i = 0; i < static_cast<int>(m_timeline.events.size()); ++i) {
        const PipelineEvent &e = m_timeline.events[sz(i)];
        if (e.stage < 0 || e.stage >= m_stages)
            continue;
        if (isCompute(e))
            m_compute[sz(e.stage)].push_back(i);
        else
            m_sends.push_back(i);
    }
    // Events arrive sorted by start; a stage computes one op at a time, so each stage's list
    // is sorted by start and by end alike (the binary searches rely on it).
}

double TimelinePainter::totalSpan() const
{
    const double end = std::max({ m_timeline.makespan, m_iterationTime, m_measuredEnd });
    return end > 0.0 ? end * kSpanMargin : 1e-3;
}

int TimelinePainter::computeAt(int stage, double t, double tolerance, int *after) const
{
    const std::vector<int> &ids = m_compute[sz(stage)];
    auto it = std::lower_bound(ids.begin(), ids.end(), t - tolerance,
        [this](int i, double v) { return m_timeline.events[sz(i)].end < v; });
    if (after)
        *after = static_cast<int>(it - ids.begin());
    if (it != ids.end() && m_timeline.events[sz(*it)].start <= t + tolerance)
        return *it;
    return -1;
}

void TimelinePainter::renderAll(QPainter &painter, const QRectF &rect, const QString &title) const
{
    painter.save();
    painter.fillRect(rect, Qt::white);
    QFont f = painter.font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * 1.15);
    painter.setFont(f);
    painter.setPen(Qt::black);
    painter.drawText(
        rect.adjusted(kGutter, 4, -kRightMargin, 0).toRect(), Qt::AlignLeft | Qt::AlignTop, title);
    painter.restore();
    TimelinePainter onWhite = *this; // dark themes: the export is black on white regardless
    onWhite.m_text = Qt::black;
    onWhite.paint(painter, rect.adjusted(0, kTitleHeight, 0, 0), 0.0, totalSpan());
}

TimelinePainter::Layout TimelinePainter::layoutFor(
    const QRectF &rect, double t0, double span, const QFont &font) const
{
    Layout l;
    const int rows = rowCount();
    const int legend = legendRows(font, rect.width() - kGutter - kRightMargin);
    const double available = rect.height() - kAxisHeight - legend * kLegendHeight - 12.0;
    l.rowPitch = std::clamp(available / rows, kMinPitch, kMaxPitch);
    l.laneHeight = std::max(4.0, std::round(l.rowPitch * 0.28));
    l.blockHeight = l.rowPitch - l.laneHeight;
    l.plot = QRectF(rect.left() + kGutter, rect.top() + kAxisHeight,
        std::max(10.0, rect.width() - kGutter - kRightMargin), rows * l.rowPitch);
    l.t0 = t0;
    l.pxPerSec = span > 0.0 ? l.plot.width() / span : 1.0;
    return l;
}

QRectF TimelinePainter::blockRect(const Layout &l, const PipelineEvent &e) const
{
    const double x0 = l.x(e.start);
    const double x1 = l.x(e.end);
    return { x0, l.rowTop(e.stage), std::max(1.0, x1 - x0), l.blockHeight };
}

int TimelinePainter::laneOf(const PipelineEvent &e) const
{
    // Lane s lies between rows s and s+1; the last lane carries the interleaved wrap-around
    // (last stage -> stage 0 for activations, stage 0 -> last stage for gradients). A send to a
    // neighbour (either way: DualPipe's direction 1 runs up the rows) is drawn between the two.
    if (e.peer >= 0 && std::abs(e.peer - e.stage) == 1)
        return std::min(e.peer, e.stage);
    if (e.kind == PipelineEventKind::SendForward)
        return e.stage < m_stages - 1 ? e.stage : m_stages - 1;
    return e.stage > 0 ? e.stage - 1 : m_stages - 1;
}

QRectF TimelinePainter::sendRect(const Layout &l, const PipelineEvent &e) const
{
    const double half = std::max(2.0, (l.laneHeight - 2.0) / 2.0);
    const double top = l.rowTop(laneOf(e)) + l.blockHeight + 1.0
        + (e.kind == PipelineEventKind::SendBackward ? half : 0.0);
    const double x0 = l.x(e.start);
    // At least 2 px: a send is short beside the compute, but the eye should find it.
    return { x0, top, std::max(2.0, l.x(e.end) - x0), half - 0.5 };
}

void TimelinePainter::paint(QPainter &p, const QRectF &rect, double t0, double span) const
{
    const Layout l = layoutFor(rect, t0, span, p.font());
    const double t1 = t0 + span;
    p.save();
    p.setClipRect(rect);
    paintAxis(p, l, t0, t1);
    paintGutter(p, l);
    p.save();
    p.setClipRect(l.plot.adjusted(0, -2, 0, 2), Qt::IntersectClip);
    paintRows(p, l, t0, t1);
    paintSends(p, l, t0, t1);
    paintMeasured(p, l, t0, t1);
    p.restore();
    paintLegend(p,
        QRectF(l.plot.left(), l.plot.bottom() + 8.0, l.plot.width(),
            legendRows(p.font(), l.plot.width()) * kLegendHeight));
    p.restore();
}

void TimelinePainter::paintAxis(QPainter &p, const Layout &l, double t0, double t1) const
{
    const double step = niceStep(t1 - t0, std::max(2.0, l.plot.width() / 110.0));
    const QColor grid(0xe3, 0xe3, 0xe3);
    const QColor text = m_text;
    p.setPen(text);
    p.drawLine(QPointF(l.plot.left(), l.plot.top() - 1), QPointF(l.plot.right(), l.plot.top() - 1));
    for (double t = std::ceil(t0 / step) * step; t <= t1 + step * 1e-9; t += step) {
        const double x = l.x(t);
        p.setPen(grid);
        p.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
        p.setPen(text);
        p.drawLine(QPointF(x, l.plot.top() - 5), QPointF(x, l.plot.top() - 1));
        const QString label
            = std::abs(t) < step * 1e-6 ? QStringLiteral("0") : chartformat::seconds(t);
        p.drawText(QRectF(x - 60, l.plot.top() - kAxisHeight, 120, kAxisHeight - 6),
            Qt::AlignHCenter | Qt::AlignBottom, label);
    }
}

void TimelinePainter::paintGutter(QPainter &p, const Layout &l) const
{
    const QColor text = m_text;
    const double makespan = m_timeline.makespan;
    const QFontMetricsF fm(p.font());
    QFont small = p.font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    const bool twoLines = l.blockHeight >= 2.0 * fm.height() - 6.0;
    for (int s = 0; s < m_stages; ++s) {
        const double top = l.rowTop(s);
        // Stage name and its utilisation (busy / makespan, from the timeline).
        const double busy = sz(s) < m_timeline.busy.size() && makespan > 0.0
            ? m_timeline.busy[sz(s)] / makespan
            : 0.0;
        p.setPen(text);
        const QRectF cell(l.plot.left() - kGutter + 6.0, top, kGutter - 12.0, l.blockHeight);
        if (!twoLines) {
            p.drawText(cell, Qt::AlignVCenter | Qt::AlignLeft, QStringLiteral("stage %1").arg(s));
            continue;
        }
        p.drawText(cell.adjusted(0, 0, 0, -cell.height() / 2), Qt::AlignBottom | Qt::AlignLeft,
            QStringLiteral("stage %1").arg(s));
        p.save();
        p.setFont(small);
        p.setPen(QColor(0x70, 0x70, 0x70));
        p.drawText(cell.adjusted(0, cell.height() / 2, 0, 0), Qt::AlignTop | Qt::AlignLeft,
            QStringLiteral("busy %1").arg(chartformat::percent(busy, 0)));
        p.restore();
    }
    for (int i = 0; i < static_cast<int>(m_lanes.size()); ++i) {
        const MeasuredLane &lane = m_lanes[sz(i)];
        const QRectF cell(
            l.plot.left() - kGutter + 6.0, l.rowTop(m_stages + i), kGutter - 12.0, l.blockHeight);
        p.setPen(text);
        if (!twoLines) {
            p.drawText(cell, Qt::AlignVCenter | Qt::AlignLeft, lane.label);
            continue;
        }
        p.drawText(cell.adjusted(0, 0, 0, -cell.height() / 2), Qt::AlignBottom | Qt::AlignLeft,
            lane.label);
        p.save();
        p.setFont(small);
        p.setPen(QColor(0x70, 0x70, 0x70));
        p.drawText(
            cell.adjusted(0, cell.height() / 2, 0, 0), Qt::AlignTop | Qt::AlignLeft, lane.detail);
        p.restore();
    }
}

void TimelinePainter::paintRows(QPainter &p, const Layout &l, double t0, double t1) const
{
    const double makespan = m_timeline.makespan;
    const QFontMetricsF fm(p.font());
    const bool showLabels = l.blockHeight >= fm.height() - 1.0;

    // Rows: hatched idle background up to the makespan; the blocks then cover the busy part.
    for (int s = 0; s < m_stages; ++s) {
        const QRectF band(l.x(0.0), l.rowTop(s), l.x(makespan) - l.x(0.0), l.blockHeight);
        p.fillRect(band, chartpalette::idleColor());
        p.fillRect(band, hatchBrush());
    }

    // The tail after the pipeline: the exposed gradient syncs (DP, the tied embedding's) and the
    // optimizer step, one band.
    if (m_iterationTime > makespan && makespan > 0.0) {
        QColor tail = chartpalette::dimColor(Dim::Dp);
        tail.setAlpha(40);
        p.fillRect(QRectF(l.x(makespan), l.plot.top(), l.x(m_iterationTime) - l.x(makespan),
                       l.plot.height()),
            tail);
    }

    for (int s = 0; s < m_stages; ++s) {
        const std::vector<int> &ids = m_compute[sz(s)];
        // First event ending after t0 (ends are sorted as well, see setTimeline()).
        auto it = std::lower_bound(ids.begin(), ids.end(), t0,
            [this](int i, double t) { return m_timeline.events[sz(i)].end < t; });
        double lastPixel = -1e9;
        PipelineEventKind lastKind = PipelineEventKind::SendForward;
        for (; it != ids.end(); ++it) {
            const PipelineEvent &e = m_timeline.events[sz(*it)];
            if (e.start > t1)
                break;
            const QRectF r = blockRect(l, e);
            // Many sub-pixel blocks in one column: draw one (a long timeline zoomed out).
            if (r.width() < 1.5 && std::floor(r.left()) == lastPixel && e.kind == lastKind)
                continue;
            lastPixel = std::floor(r.left());
            lastKind = e.kind;
            const QColor base = e.kind == PipelineEventKind::Forward ? chartpalette::forwardColor()
                : e.kind == PipelineEventKind::Backward              ? chartpalette::backwardColor()
                                                        : chartpalette::weightGradColor();
            const QColor fill = m_chunks > 1 ? chartpalette::chunkShade(base, e.chunk) : base;
            p.fillRect(r, fill);
            if (r.width() >= 4.0) {
                p.setPen(QPen(fill.darker(150), 1.0));
                p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
            }
            if (showLabels) {
                const QString label = QString::number(e.microbatch);
                if (fm.horizontalAdvance(label) + 4.0 <= r.width()) {
                    p.setPen(chartpalette::textOn(fill));
                    p.drawText(r, Qt::AlignCenter, label);
                }
            }
        }
    }

    // The makespan: where the last stage finishes its last backward.
    if (makespan >= t0 && makespan <= t1) {
        p.setPen(QPen(QColor(0x33, 0x33, 0x33), 1.0, Qt::DashLine));
        p.drawLine(QPointF(l.x(makespan), l.plot.top()), QPointF(l.x(makespan), l.plot.bottom()));
    }
    if (m_iterationTime > makespan && m_iterationTime >= t0 && m_iterationTime <= t1) {
        p.setPen(QPen(chartpalette::dimColor(Dim::Dp).darker(140), 1.0, Qt::DashLine));
        p.drawLine(QPointF(l.x(m_iterationTime), l.plot.top()),
            QPointF(l.x(m_iterationTime), l.plot.bottom()));
    }
}

void TimelinePainter::paintSends(QPainter &p, const Layout &l, double t0, double t1) const
{
    for (const int i : m_sends) {
        const PipelineEvent &e = m_timeline.events[sz(i)];
        if (e.end < t0 || e.start > t1)
            continue;
        const QColor c = e.kind == PipelineEventKind::SendForward
            ? chartpalette::forwardColor().darker(125)
            : chartpalette::backwardColor().darker(125);
        p.fillRect(sendRect(l, e), c);
    }
}

namespace {
constexpr double kLegendSwatch = 14.0; ///< a legend swatch's width, pixels
constexpr double kLegendGap = 14.0; ///< between one entry's label and the next swatch
} // namespace

std::vector<TimelinePainter::LegendEntry> TimelinePainter::legendEntries() const
{
    std::vector<LegendEntry> out;
    const auto add = [&out](const QBrush &b, const QString &label, const QBrush &under = QBrush()) {
        out.push_back({ b, label, under });
    };
    if (m_bidirectional) {
        // DualPipe: direction 0 enters at stage 0 (down the rows), direction 1 at the last.
        const QString down = QStringLiteral("\u2193"), up = QStringLiteral("\u2191");
        add(chartpalette::chunkShade(chartpalette::forwardColor(), 0), QStringLiteral("F ") + down);
        add(chartpalette::chunkShade(chartpalette::forwardColor(), 1), QStringLiteral("F ") + up);
        add(chartpalette::chunkShade(chartpalette::backwardColor(), 0),
            QStringLiteral("B ") + down);
        add(chartpalette::chunkShade(chartpalette::backwardColor(), 1), QStringLiteral("B ") + up);
    } else if (m_chunks > 1) {
        for (int c = 0; c < m_chunks && c < 4; ++c)
            add(chartpalette::chunkShade(chartpalette::forwardColor(), c),
                c == 0 ? QStringLiteral("F chunk 0") : QString::number(c));
        for (int c = 0; c < m_chunks && c < 4; ++c)
            add(chartpalette::chunkShade(chartpalette::backwardColor(), c),
                c == 0 ? QStringLiteral("B chunk 0") : QString::number(c));
    } else {
        add(chartpalette::forwardColor(), QStringLiteral("forward"));
        add(chartpalette::backwardColor(), QStringLiteral("backward"));
    }
    if (m_hasWeightGrad)
        add(chartpalette::weightGradColor(), QStringLiteral("weight grad W"));
    add(chartpalette::forwardColor().darker(125), QStringLiteral("activation send"));
    add(chartpalette::backwardColor().darker(125), QStringLiteral("gradient send"));
    add(hatchBrush(), QStringLiteral("idle (bubble)"), chartpalette::idleColor());
    if (m_iterationTime > m_timeline.makespan) {
        QColor tail = chartpalette::dimColor(Dim::Dp);
        tail.setAlpha(40);
        add(tail, QStringLiteral("gradient sync + optimizer"));
    }
    // The measured lanes' colours, those drawn only.
    bool step = false, compute = false, other = false;
    std::array<bool, kDimCount> dims {};
    for (const MeasuredLane &lane : m_lanes)
        for (const MeasuredPhase &ph : lane.phases) {
            step = step || ph.kind == MeasuredPhase::Kind::Step;
            compute = compute || ph.kind == MeasuredPhase::Kind::Compute;
            if (ph.kind == MeasuredPhase::Kind::Communication) {
                if (ph.dim)
                    dims[sz(index(*ph.dim))] = true;
                else
                    other = true;
            }
        }
    if (step)
        add(measuredColor({}), QStringLiteral("measured step"));
    if (compute)
        add(measuredColor({ MeasuredPhase::Kind::Compute, std::nullopt, 0.0, 0.0 }),
            QStringLiteral("measured compute"));
    for (const Dim d : kAllDims)
        if (dims[sz(index(d))])
            add(chartpalette::dimColor(d),
                QStringLiteral("%1 comm").arg(QString::fromLatin1(
                    dimName(d).data(), static_cast<qsizetype>(dimName(d).size()))));
    if (other)
        add(measuredColor({ MeasuredPhase::Kind::Communication, std::nullopt, 0.0, 0.0 }),
            QStringLiteral("other comm"));
    return out;
}

template<typename Place>
int TimelinePainter::layoutLegend(const QFontMetricsF &fm, double width, Place place) const
{
    // An entry that would cross the right edge starts a new row (a narrow panel, large type):
    // a legend cut at the edge hides what the last colours mean.
    double x = 0.0;
    int row = 0;
    for (const LegendEntry &e : legendEntries()) {
        const double w = kLegendSwatch + 4.0 + fm.horizontalAdvance(e.label);
        if (x > 0.0 && x + w > width) {
            x = 0.0;
            ++row;
        }
        place(e, x, row);
        x += w + kLegendGap;
    }
    return row + 1;
}

int TimelinePainter::legendRows(const QFont &font, double width) const
{
    return layoutLegend(QFontMetricsF(font), width, [](const LegendEntry &, double, int) {});
}

void TimelinePainter::paintLegend(QPainter &p, const QRectF &area) const
{
    const QFontMetricsF fm(p.font());
    const QColor text = m_text;
    const double sw = kLegendSwatch;
    layoutLegend(fm, area.width(), [&](const LegendEntry &e, double dx, int row) {
        const double top = area.top() + row * kLegendHeight;
        const double x = area.left() + dx;
        const double y = top + (kLegendHeight - sw * 0.8) / 2.0;
        const QRectF r(x, y, sw, sw * 0.8);
        if (e.under.style() != Qt::NoBrush)
            p.fillRect(r, e.under);
        p.fillRect(r, e.brush);
        p.setPen(QColor(0x80, 0x80, 0x80));
        p.drawRect(r);
        p.setPen(text);
        p.drawText(QRectF(x + sw + 4.0, top, fm.horizontalAdvance(e.label) + 2.0, kLegendHeight),
            Qt::AlignVCenter | Qt::AlignLeft, e.label);
    });
}

} // namespace railyard
