#pragma once

#include "base/units.h"

#include <QChartView>
#include <QStringList>

#include <array>

class QBarCategoryAxis;
class QBarSet;
class QStackedBarSeries;
class QValueAxis;

namespace railyard {

/**
 * A stacked bar chart with one bar set per parallel dimension (in its colour) over a list of
 * categories, a category axis, a value axis in a display unit, and a tooltip per segment. The
 * charts built on it (ChartTierBytes, ChartExposedTime) only fill the values from the report
 * and say what a segment means.
 */
class ChartDimBars : public QChartView
{
    Q_OBJECT

public:
    QStackedBarSeries *series() const { return m_series; }
    /// Report units (bytes, seconds) per displayed unit, chosen by the last setReport().
    double unit() const { return m_unit; }

protected:
    ChartDimBars(const QStringList &categories, double unit, const QString &title, QWidget *parent);

    /// The tooltip of dimension d's segment in category `category` (its value in report units).
    virtual QString segmentText(Dim d, int category, double value) const = 0;
    QBarSet *set(Dim d) const { return m_sets[static_cast<std::size_t>(index(d))]; }
    /// Sets the value axis from 0 to `maxValue` (report units) plus `headroom`, titled.
    void setValueRange(double maxValue, double headroom, const QString &title);
    static QString dimLabel(Dim d);

    QBarCategoryAxis *m_x = nullptr;
    QValueAxis *m_y = nullptr;
    double m_unit = 1.0;

private:
    QStackedBarSeries *m_series = nullptr;
    std::array<QBarSet *, kDimCount> m_sets {};
};

} // namespace railyard
