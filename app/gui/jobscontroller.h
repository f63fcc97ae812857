#pragma once

#include "cost/costenginejobs.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>
#include <vector>

class QAction;
class QComboBox;
class QDockWidget;

namespace railyard {

class JobsPanel;
class MainWindow;
class PlaceJobDialog;

/**
 * Several jobs on the fabric in the explorer (docs/shared-fabric.md, "In the GUI"): the Jobs
 * dock (View ▸ Panels), each job alone and shared (evaluateJobs()), evaluated again whenever
 * the scenario or a mapping changes, shown when a scenario with jobs is opened; the job
 * selector (a toolbar combo and the dock's rows) that makes a job the document's active one
 * (the palette, inspector, timeline and summary show it, a drag edits it); the fabric's link
 * colours summed over the jobs (FabricItem::setJobLoads()) and the summary's job figures;
 * "Move Job to Servers…" and Study ▸ "Place a New Job Here…" (PlaceJobDialog).
 */
class JobsController : public QObject
{
    Q_OBJECT

public:
    explicit JobsController(MainWindow *window);

    JobsPanel *panel() const { return m_panel; }
    QDockWidget *dockWidget() const { return m_dock; }
    /// The figures on show (nullptr for a single-job scenario, or before the first evaluation
    /// of a large one lands).
    const SharedFabricReport *report() const { return m_report.get(); }
    /// An evaluation is running off the UI thread (a scenario above the document's threshold).
    bool isEvaluating() const;
    QComboBox *jobSelector() const { return m_selector; }
    QAction *moveJobAction() const { return m_moveAction; }
    QAction *placeJobAction() const { return m_placeAction; }

    /// Evaluates the document's jobs and shows them: at once for a small scenario, else on
    /// Qt's thread pool (isEvaluating()), the latest request winning.
    void refresh();
    /// Makes job `index` the active one; the status bar says why when it cannot.
    void selectJob(int index);
    /// Moves the active job as a whole onto the servers `text` names ("4,12", "4-5"): one undo
    /// step. The refusal (naming the job whose GPUs are in the way) goes to the status bar and
    /// is returned; "" when done.
    QString moveActiveJob(const QString &text);
    /// Study ▸ Place a New Job Here…: the dialog, searched with a copy of the job on show as
    /// the new job (or, from File…, the single-job file `templateFile`). Shown modeless.
    PlaceJobDialog *placeNewJob(const QString &templateFile = QString());

private:
    /// One evaluation's result: the report, or why there is none.
    struct Outcome
    {
        std::shared_ptr<const SharedFabricReport> report;
        QString error;
    };
    static Outcome evaluateOrExplain(const Scenario &scenario);
    void showOutcome(const Outcome &outcome);
    void askMoveJob();
    void askPlaceJob();
    void syncSelector();

    MainWindow *m_window;
    JobsPanel *m_panel = nullptr;
    QDockWidget *m_dock = nullptr;
    QComboBox *m_selector = nullptr;
    QAction *m_selectorAction = nullptr;
    QAction *m_moveAction = nullptr;
    QAction *m_placeAction = nullptr;
    QAction *m_placeFileAction = nullptr;
    QPointer<PlaceJobDialog> m_placeDialog;
    std::shared_ptr<const SharedFabricReport> m_report;
    int m_generation = 0; ///< refresh() count: a result for an older one is dropped
    bool m_dockPlaced = false; ///< the dock was shown for the scenario's jobs
    bool m_syncing = false;
};

} // namespace railyard
