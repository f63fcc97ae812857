#pragma once

#include "chartcompact.h"

#include <QChart>
#include <QChartView>
#include <QFont>
#include <QPainter>
#include <QScatterSeries>

namespace railyard {

/**
 * The common look of the chart panels: no animations (a re-evaluation must not replay one),
 * tight margins, legend at the bottom (beside the plot in a short panel: ChartCompact),
 * antialiased view.
 */
namespace chartstyle {

inline void apply(QChartView *view, QChart *chart, const QString &title)
{
    chart->setTitle(title);
    chart->setProperty("railyardTitle", title); // ChartCompact drops it in a short panel
    QFont f = chart->titleFont();
    f.setBold(true);
    chart->setTitleFont(f);
    chart->setAnimationOptions(QChart::NoAnimation);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->setBackgroundRoundness(0);
    chart->legend()->setAlignment(Qt::AlignBottom);
    // setChart() only releases the previous (default) chart, it does not delete it (Qt docs).
    QChart *previous = view->chart();
    view->setChart(chart);
    if (previous != chart)
        delete previous;
    view->setRenderHint(QPainter::Antialiasing);
    // Short enough for a bottom tab on a 720-line screen; the legend stays under the plot.
    view->setMinimumSize(300, 170);
    ChartCompact::watch(view);
}

/// A new title for a chart styled by apply() (shown unless its panel is short).
inline void retitle(QChartView *view, const QString &title)
{
    view->chart()->setProperty("railyardTitle", title);
    ChartCompact::fit(view);
}

/// The candidates of a Pareto chart: grey points of `size` px.
inline QScatterSeries *candidateSeries(QChart *chart, const QString &name, qreal size)
{
    auto *s = new QScatterSeries(chart);
    s->setName(name);
    s->setMarkerSize(size);
    s->setColor(QColor(0x9a, 0xa5, 0xb1));
    s->setBorderColor(QColor(0x9a, 0xa5, 0xb1));
    return s;
}

/// The points on a Pareto front: larger, in the front's orange with a dark rim.
inline QScatterSeries *frontSeries(QChart *chart, const QString &name)
{
    auto *s = new QScatterSeries(chart);
    s->setName(name);
    s->setMarkerSize(11.0);
    s->setColor(QColor(0xd9, 0x48, 0x1c));
    s->setBorderColor(QColor(0x7a, 0x22, 0x08));
    return s;
}

} // namespace chartstyle

} // namespace railyard
