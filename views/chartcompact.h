#pragma once

#include <QObject>

class QChartView;

namespace railyard {

/**
 * Keeps a chart's axes readable in a short panel (a bottom dock on a 720-line screen, or at
 * QT_SCALE_FACTOR=2): below kCompactBelow pixels of height the chart's title (the panel's tab
 * already names it) is not drawn and the legend moves beside the plot, so the plot keeps the
 * height its axis titles and labels need instead of showing them cut to "…".
 */
class ChartCompact : public QObject
{
    Q_OBJECT

public:
    /// Title (~25 px), legend row (~25 px), x labels and title (~45 px) and a y-axis title of
    /// ~20 characters (~130 px, drawn along the plot) need about this much.
    static constexpr int kCompactBelow = 260;

    /// Watches `view` (once; a second call only re-fits); the chart's full title is kept in
    /// its "railyardTitle" property by chartstyle::apply().
    static void watch(QChartView *view);
    static void fit(QChartView *view);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    using QObject::QObject;
};

} // namespace railyard
