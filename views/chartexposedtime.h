#pragma once

#include <QChartView>

#include <array>

class QBarCategoryAxis;
class QBarSet;
class QStackedBarSeries;
class QValueAxis;

namespace railyard {

struct CostReport;

/**
 * Exposed (critical-path) communication time per parallel dimension per iteration: how much
 * sooner the iteration would end were that dimension's communication free (the report's
 * dimExposed). One bar per dimension in its colour, labelled with its time.
 */
class ChartExposedTime : public QChartView
{
    Q_OBJECT

public:
    explicit ChartExposedTime(QWidget *parent = nullptr);
    void setReport(const CostReport &report);

    QStackedBarSeries *series() const { return m_series; }
    /// Seconds per displayed unit (1e-3 for ms ...).
    double unit() const { return m_unit; }

private:
    QStackedBarSeries *m_series = nullptr;
    std::array<QBarSet *, 5> m_sets {};
    QBarCategoryAxis *m_x = nullptr;
    QValueAxis *m_y = nullptr;
    double m_unit = 1e-3;
};

} // namespace railyard
