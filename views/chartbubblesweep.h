#pragma once

#include "cost/bubblesweep.h"

#include <QChartView>

#include <vector>

class QAbstractAxis;
class QLineSeries;
class QScatterSeries;

namespace railyard {

class CostEngine;

/**
 * Bubble fraction versus micro-batches per replica for the current schedule, mapping and stage
 * times (model/bubblesweep), with the scenario's own m highlighted: how far more micro-batches
 * would shrink the fill/drain idle time.
 */
class ChartBubbleSweep : public QChartView
{
    Q_OBJECT

public:
    explicit ChartBubbleSweep(QWidget *parent = nullptr);
    void setEngine(const CostEngine &engine);

    QLineSeries *curve() const { return m_curve; }
    QScatterSeries *current() const { return m_current; }
    const std::vector<BubbleSweepPoint> &points() const { return m_points; }

private:
    void setXAxis(bool logarithmic, double lo, double hi);

    QLineSeries *m_curve = nullptr;
    QScatterSeries *m_current = nullptr;
    QAbstractAxis *m_x = nullptr;
    QAbstractAxis *m_y = nullptr;
    std::vector<BubbleSweepPoint> m_points;
    std::vector<double> m_key; ///< the inputs of m_points (see setEngine())
};

} // namespace railyard
