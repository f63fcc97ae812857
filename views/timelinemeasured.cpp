// The measured lanes of the pipeline chart (TimelinePainter::setMeasuredLanes()): a training
// log's or trace's step under the predicted stages, as studies/trainingcomparison.h composed it.
#include "timelinepainter.h"

#include "chartformat.h"
#include "chartpalette.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace railyard {

void TimelinePainter::setMeasuredLanes(std::vector<MeasuredLane> lanes)
{
    m_lanes = std::move(lanes);
    m_measuredEnd = 0.0;
    for (const MeasuredLane &lane : m_lanes)
        for (const MeasuredPhase &ph : lane.phases)
            m_measuredEnd = std::max(m_measuredEnd, ph.end);
}

QColor TimelinePainter::measuredColor(const MeasuredPhase &phase)
{
    switch (phase.kind) {
    case MeasuredPhase::Kind::Step:
        return QColor(0x9e, 0x9e, 0x9e);
    case MeasuredPhase::Kind::Compute:
        return QColor(0x55, 0x55, 0x55);
    case MeasuredPhase::Kind::Communication:
        break;
    }
    return phase.dim ? chartpalette::dimColor(*phase.dim) : QColor(0xbd, 0xbd, 0x3a);
}

QRectF TimelinePainter::measuredPhaseRect(const Layout &l, int lane, const MeasuredPhase &ph) const
{
    const double top = l.rowTop(m_stages + lane);
    const double x0 = l.x(ph.start);
    const double w = std::max(1.0, l.x(ph.end) - x0);
    const double half = l.blockHeight / 2.0;
    switch (ph.kind) {
    case MeasuredPhase::Kind::Step:
        return { x0, top, w, l.blockHeight };
    case MeasuredPhase::Kind::Compute:
        return { x0, top, w, half - 0.5 };
    case MeasuredPhase::Kind::Communication:
        break;
    }
    return { x0, top + half + 0.5, w, half - 0.5 };
}

void TimelinePainter::paintMeasured(QPainter &p, const Layout &l, double t0, double t1) const
{
    if (m_lanes.empty())
        return;
    // A rule between the prediction and the measurement.
    const double y = l.rowTop(m_stages) - 1.0;
    p.setPen(QPen(m_text, 1.0, Qt::DotLine));
    p.drawLine(QPointF(l.plot.left(), y), QPointF(l.plot.right(), y));
    const QFontMetricsF fm(p.font());
    for (int i = 0; i < static_cast<int>(m_lanes.size()); ++i) {
        double lastPixel = -1e9;
        for (const MeasuredPhase &ph : m_lanes[sz(i)].phases) {
            if (ph.end < t0 || ph.start > t1)
                continue;
            const QRectF r = measuredPhaseRect(l, i, ph);
            // Thousands of kernels zoomed out: one mark per pixel column and kind.
            if (r.width() < 1.5 && std::floor(r.left()) == lastPixel
                && ph.kind != MeasuredPhase::Kind::Communication)
                continue;
            lastPixel = std::floor(r.left());
            const QColor fill = measuredColor(ph);
            p.fillRect(r, fill);
            if (ph.kind == MeasuredPhase::Kind::Step) {
                p.setPen(QPen(fill.darker(150), 1.0));
                p.drawRect(r.adjusted(0.5, 0.5, -0.5, -0.5));
                const QString label = QStringLiteral("measured step %1")
                                          .arg(chartformat::seconds(ph.end - ph.start));
                if (fm.horizontalAdvance(label) + 8.0 <= r.width()) {
                    p.setPen(chartpalette::textOn(fill));
                    p.drawText(r, Qt::AlignCenter, label);
                }
            }
        }
    }
}

} // namespace railyard
