#pragma once

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace railyard {

struct SharedFabricReport;

/**
 * The Jobs dock of a scenario with jobs (docs/shared-fabric.md): one row per job in its own
 * hue with its ranks, its iteration alone on the fabric and shared, and its slowdown; under
 * it the links where its neighbours cost it most. A line above says how many GPU slots are
 * free and which overlap assumption the figures take. It shows the report it is given and
 * computes nothing.
 */
class JobsPanel : public QWidget
{
    Q_OBJECT

public:
    enum Column { JobColumn, RanksColumn, AloneColumn, SharedColumn, SlowdownColumn, ColumnCount };

    explicit JobsPanel(QWidget *parent = nullptr);

    /// Shows `report` (nullptr: the scenario holds one job; the panel says so).
    void setReport(const SharedFabricReport *report);
    /// The evaluation failed: the message instead of the rows.
    void showError(const QString &message);

    QTreeWidget *jobsTree() const { return m_tree; }
    QLabel *summaryLabel() const { return m_summary; }

private:
    QLabel *m_summary = nullptr;
    QTreeWidget *m_tree = nullptr;
};

} // namespace railyard
