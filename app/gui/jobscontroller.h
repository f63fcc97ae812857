#pragma once

#include "cost/costenginejobs.h"

#include <QObject>

#include <memory>

class QDockWidget;

namespace railyard {

class JobsPanel;
class MainWindow;

/**
 * The Jobs dock (View ▸ Panels): for a scenario with jobs, each job alone and shared on the
 * fabric (evaluateJobs(), docs/shared-fabric.md), evaluated again whenever the document's
 * scenario changes; shown when a scenario with jobs is opened, hidden otherwise. The fabric,
 * the rank palette and the inspector still show the first job.
 */
class JobsController : public QObject
{
    Q_OBJECT

public:
    explicit JobsController(MainWindow *window);

    JobsPanel *panel() const { return m_panel; }
    QDockWidget *dockWidget() const { return m_dock; }
    /// The figures on show (nullptr for a single-job scenario).
    const SharedFabricReport *report() const { return m_report.get(); }

    /// Evaluates the document's jobs and shows them.
    void refresh();

private:
    MainWindow *m_window;
    JobsPanel *m_panel = nullptr;
    QDockWidget *m_dock = nullptr;
    std::unique_ptr<SharedFabricReport> m_report;
};

} // namespace railyard
