#pragma once

#include "scenario/scenario.h"
#include "studies/fabriccompare.h"

#include <QDialog>
#include <QPointF>
#include <QString>

#include <vector>

class QChartView;
class QLabel;
class QLineSeries;
class QScatterSeries;
class QTableWidget;

namespace railyard {

/**
 * Study ▸ Compare Fabrics…: the open job evaluated on the standard fabric designs
 * (studies/fabriccompare.h: rail-optimised, 2:1 leaves, ToR, rail-only, two planes, NVL72 where
 * the job fits) with the cost engine and the priced bill of materials. A table lists each
 * design's iteration time, slowdown against the non-blocking rail-optimised fabric, switches,
 * capital cost, network power and $ and kWh per iteration; a Qt Charts scatter plots iteration
 * time against capital cost with the Pareto front joined and the current fabric marked, and
 * hovering a point names the design with those figures. Double-clicking a row (or clicking a
 * point) asks for the job on that design to be opened as a new document (designOpened): the
 * user's document is never changed. The comparison runs when the dialog opens, on the jobs of
 * fabricJobsOf(): the open job, or a scenario's jobs evaluated together on each design (their
 * slots kept, sharing the links under the worst-overlap assumption the Jobs dock uses; the
 * worst job's slowdown counts, named beside it).
 */
class FabricCompareDialog : public QDialog
{
    Q_OBJECT

public:
    explicit FabricCompareDialog(const Scenario &job, QWidget *parent = nullptr);

    const FabricComparison &comparison() const { return m_comparison; }
    QString errorText() const { return m_error; }

    /// The job placed on design `row` (of comparison().rows), as a double-click opens it.
    Scenario scenarioAt(int row) const;
    /// Double-click on a table row or click on a point: announces scenarioAt(row).
    void openRow(int row);
    /// The design row drawn at `point` (capital in $M, iteration in s), -1 for none.
    int rowAtPoint(const QPointF &point) const;
    /// What hovering the point of design `row` shows: its name and figures.
    QString pointText(int row) const;
    /// The current fabric's figures (the marked point).
    QString currentText() const;

    QTableWidget *table() const { return m_table; }
    QChartView *chartView() const { return m_chart; }
    QScatterSeries *designSeries() const { return m_designs; }
    QScatterSeries *frontSeries() const { return m_front; }
    QLineSeries *frontLine() const { return m_frontLine; }
    QScatterSeries *currentSeries() const { return m_current; }
    QLabel *statusLabel() const { return m_status; }

Q_SIGNALS:
    /// A design was chosen: the job on it, to open as a new document.
    void designOpened(const railyard::Scenario &scenario);

private:
    void fillTable();
    void fillChart();
    void showHover(const QPointF &point, bool state);

    /// "job b: " for the worst job of a mix, empty for a single job.
    QString worstJobText(const FabricDesignResult &row) const;

    FabricJobs m_jobs;
    FabricComparison m_comparison;
    QString m_error;
    QTableWidget *m_table = nullptr;
    QChartView *m_chart = nullptr;
    QScatterSeries *m_designs = nullptr;
    QScatterSeries *m_front = nullptr;
    QLineSeries *m_frontLine = nullptr;
    QScatterSeries *m_current = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace railyard
