#pragma once

#include <QChartView>

#include <array>
#include <vector>

class QAreaSeries;
class QLineSeries;
class QLogValueAxis;
class QValueAxis;

namespace railyard {

struct CostReport;

/**
 * Histogram of the utilisation (busy time / iteration time) of every directed link, binned
 * (a 16k-GPU fabric has ~10^5 links; the chart draws kBins steps, not a point per link), on a
 * log count axis so the few hot links stay visible beside the many idle ones. The report's
 * p50 / p95 / p99 are vertical markers.
 */
class ChartLinkUtilisation : public QChartView
{
    Q_OBJECT

public:
    static constexpr int kBins = 40;

    explicit ChartLinkUtilisation(QWidget *parent = nullptr);
    void setReport(const CostReport &report);

    QAreaSeries *histogram() const { return m_area; }
    /// 0: p50, 1: p95, 2: p99; each a vertical line at the percentile (x in %).
    QLineSeries *marker(int i) const { return m_markers[static_cast<std::size_t>(i)]; }
    /// Links per bin of the last report (bin i covers [i, i+1) * binWidth).
    const std::vector<int> &binCounts() const { return m_counts; }
    double binWidth() const { return m_binWidth; } ///< utilisation fraction

private:
    void showBinTip(const QPointF &point, bool state);

    QAreaSeries *m_area = nullptr;
    QLineSeries *m_upper = nullptr;
    QLineSeries *m_lower = nullptr;
    std::array<QLineSeries *, 3> m_markers {};
    QValueAxis *m_x = nullptr;
    QLogValueAxis *m_y = nullptr;
    std::vector<int> m_counts;
    double m_binWidth = 0.0;
};

} // namespace railyard
