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
 * Bytes per iteration on each link tier (scale-up, PCIe, leaf, spine, super-spine), stacked by
 * parallel dimension: where TP, PP, DP, EP and CP traffic lands in the hierarchy. The report's
 * tierBytes[tier][dim], in one decimal unit for the whole chart.
 */
class ChartTierBytes : public QChartView
{
    Q_OBJECT

public:
    explicit ChartTierBytes(QWidget *parent = nullptr);
    void setReport(const CostReport &report);

    QStackedBarSeries *series() const { return m_series; }
    /// Bytes per displayed unit (1e9 for GB ...), chosen from the largest stack.
    double unit() const { return m_unit; }

private:
    QStackedBarSeries *m_series = nullptr;
    std::array<QBarSet *, 5> m_sets {};
    QBarCategoryAxis *m_x = nullptr;
    QValueAxis *m_y = nullptr;
    double m_unit = 1e9;
};

} // namespace railyard
