#include "chartlinkutilisation.h"

#include "chartformat.h"
#include "chartpalette.h"
#include "chartstyle.h"
#include "cost/costreport.h"

#include <QAreaSeries>
#include <QChart>
#include <QCursor>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace railyard {

namespace {

constexpr double kFloor = 0.8; // empty bins sit just under 1 on the log axis

/// The smallest of 1, 2, 2.5, 5 x 10^k at or above v (so five axis steps read well).
double niceCeil(double v)
{
    const double mag = std::pow(10.0, std::floor(std::log10(v)));
    for (const double f : { 1.0, 2.0, 2.5, 5.0, 10.0 })
        if (v <= f * mag * (1.0 + 1e-12))
            return f * mag;
    return 10.0 * mag;
}

} // namespace

ChartLinkUtilisation::ChartLinkUtilisation(QWidget *parent)
    : QChartView(parent)
{
    setObjectName(QStringLiteral("linkUtilisationChart"));
    auto *chart = new QChart;
    m_upper = new QLineSeries(chart);
    m_lower = new QLineSeries(chart);
    m_area = new QAreaSeries(m_upper, m_lower);
    m_area->setName(tr("directed links"));
    QColor fill = chartpalette::forwardColor();
    fill.setAlpha(170);
    m_area->setBrush(fill);
    m_area->setPen(QPen(chartpalette::forwardColor().darker(130), 1.0));
    chart->addSeries(m_area);

    const std::array<QColor, 3> colors { chartpalette::goodColor(), chartpalette::warnColor(),
        chartpalette::badColor() };
    for (std::size_t i = 0; i < m_markers.size(); ++i) {
        m_markers[i] = new QLineSeries(chart);
        m_markers[i]->setObjectName(QStringList { QStringLiteral("p50"), QStringLiteral("p95"),
            QStringLiteral("p99") }[static_cast<int>(i)]);
        m_markers[i]->setPen(QPen(colors[i], 2.0, Qt::DashLine));
        chart->addSeries(m_markers[i]);
    }

    m_x = new QValueAxis(chart);
    m_x->setTitleText(tr("utilisation (% of the iteration a link is busy)"));
    m_x->setLabelFormat(QStringLiteral("%.3g"));
    m_y = new QLogValueAxis(chart);
    m_y->setTitleText(
        tr("links (log)")); // short: drawn along a plot ~100 px tall on a 720-line screen
    m_y->setBase(10.0);
    m_y->setLabelFormat(QStringLiteral("%g"));
    m_y->setMinorTickCount(-1);
    m_y->setMinorGridLineColor(QColor(0xf0, 0xf0, 0xf0));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    for (QAbstractSeries *s : chart->series()) {
        s->attachAxis(m_x);
        s->attachAxis(m_y);
    }
    chartstyle::apply(this, chart, tr("Link utilisation"));
    connect(m_area, &QAreaSeries::hovered, this, &ChartLinkUtilisation::showBinTip);
}

void ChartLinkUtilisation::setReport(const CostReport &r)
{
    const int n = static_cast<int>(r.links.size());
    double hi = std::max({ r.linkStats.max, r.linkStats.p99, 1e-4 });
    for (int i = 0; i < n; ++i)
        hi = std::max(hi, r.utilisation(i));
    hi = niceCeil(100.0 * hi) / 100.0; // bins line up with the axis ticks
    m_binWidth = hi / kBins;
    m_counts.assign(static_cast<std::size_t>(kBins), 0);
    for (int i = 0; i < n; ++i) {
        const int bin = std::clamp(static_cast<int>(r.utilisation(i) / m_binWidth), 0, kBins - 1);
        ++m_counts[static_cast<std::size_t>(bin)];
    }

    // A step outline: two points per bin, so each bin reads as a bar.
    QList<QPointF> upper, lower;
    upper.reserve(2 * kBins);
    int maxCount = 1;
    for (int b = 0; b < kBins; ++b) {
        const int c = m_counts[static_cast<std::size_t>(b)];
        maxCount = std::max(maxCount, c);
        const double y = c > 0 ? c : kFloor;
        upper << QPointF(100.0 * b * m_binWidth, y) << QPointF(100.0 * (b + 1) * m_binWidth, y);
    }
    lower << QPointF(0.0, kFloor) << QPointF(100.0 * hi, kFloor);
    m_upper->replace(upper);
    m_lower->replace(lower);

    const double top = std::pow(10.0, std::ceil(std::log10(maxCount * 1.5)));
    const std::array<double, 3> values { r.linkStats.p50, r.linkStats.p95, r.linkStats.p99 };
    const std::array<const char *, 3> names { "p50", "p95", "p99" };
    for (std::size_t i = 0; i < m_markers.size(); ++i) {
        m_markers[i]->replace(
            QList<QPointF> { { 100.0 * values[i], kFloor }, { 100.0 * values[i], top } });
        m_markers[i]->setName(QStringLiteral("%1 %2").arg(
            QLatin1String(names[i]), chartformat::percent(values[i], 2)));
    }
    m_x->setRange(0.0, 100.0 * hi);
    m_x->setTickCount(6);
    m_y->setRange(kFloor, top);
    chartstyle::retitle(this,
        tr("Link utilisation — %1 directed links, max %2")
            .arg(r.linkStats.count)
            .arg(chartformat::percent(r.linkStats.max, 2)));
}

void ChartLinkUtilisation::showBinTip(const QPointF &point, bool state)
{
    if (!state || m_binWidth <= 0.0) {
        QToolTip::hideText();
        return;
    }
    const int bin = std::clamp(static_cast<int>(point.x() / 100.0 / m_binWidth), 0, kBins - 1);
    QToolTip::showText(QCursor::pos(),
        tr("%1 links at %2 – %3 utilisation")
            .arg(m_counts[static_cast<std::size_t>(bin)])
            .arg(chartformat::percent(bin * m_binWidth, 2),
                chartformat::percent((bin + 1) * m_binWidth, 2)),
        this);
}

} // namespace railyard
