#include "chartcompact.h"

#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLegend>

namespace railyard {

void ChartCompact::watch(QChartView *view)
{
    if (!view->property("railyardCompactWatched").toBool()) {
        view->setProperty("railyardCompactWatched", true);
        view->installEventFilter(new ChartCompact(view));
    }
    fit(view);
}

void ChartCompact::fit(QChartView *view)
{
    QChart *chart = view->chart();
    if (!chart)
        return;
    const bool compact = view->height() < kCompactBelow;
    const QString title = chart->property("railyardTitle").toString();
    const QString shown = compact ? QString() : title;
    if (chart->title() != shown)
        chart->setTitle(shown);
    const Qt::Alignment where = compact ? Qt::AlignRight : Qt::AlignBottom;
    if (chart->legend()->alignment() != where)
        chart->legend()->setAlignment(where);
}

bool ChartCompact::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Resize)
        if (auto *view = qobject_cast<QChartView *>(watched))
            fit(view);
    return QObject::eventFilter(watched, event);
}

} // namespace railyard
