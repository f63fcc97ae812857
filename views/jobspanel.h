#pragma once

#include <QWidget>

class QLabel;
class QToolBar;
class QTreeWidget;

namespace railyard {

struct SharedFabricReport;

/**
 * The Jobs dock of a scenario with jobs (docs/shared-fabric.md): one row per job in its own
 * hue with its ranks, its iteration alone on the fabric and shared, and its slowdown; under
 * it the links where its neighbours cost it most. A line above says how many GPU slots are
 * free and which overlap assumption the figures take. The active job's row (the one the
 * explorer shows) is current and bold; choosing a row asks for it (jobChosen()). A tool bar
 * above holds the application's job actions. It shows the report it is given and computes
 * nothing.
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
    /// A new evaluation is running off the UI thread: the rows on show are the last ones, and
    /// the line above says they are being updated.
    void setUpdating(bool updating);
    bool isUpdating() const { return m_updating; }

    /// Marks job `index`'s row as the one on show (current, bold); emits nothing.
    void setActiveJob(int index);
    int activeJob() const { return m_active; }

    QTreeWidget *jobsTree() const { return m_tree; }
    QLabel *summaryLabel() const { return m_summary; }
    QToolBar *toolBar() const { return m_toolBar; }

Q_SIGNALS:
    /// The user chose job `index`'s row (or one of its link rows).
    void jobChosen(int index);

private:
    QLabel *m_summary = nullptr;
    QTreeWidget *m_tree = nullptr;
    QToolBar *m_toolBar = nullptr;
    int m_active = 0;
    bool m_marking = false;
    bool m_updating = false;
    QString m_summaryText; ///< the line above, without the updating mark
};

} // namespace railyard
