#include "jobscontroller.h"

#include "jobspanel.h"
#include "mainwindow.h"

#include "base/scenarioerror.h"
#include "document/scenariodocument.h"

#include <QDockWidget>

namespace railyard {

JobsController::JobsController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_panel = new JobsPanel;
    m_dock = new QDockWidget(tr("Jobs"), window);
    m_dock->setObjectName(QStringLiteral("jobsDock"));
    m_dock->setWidget(m_panel);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    m_dock->hide();
    connect(window->document(), &ScenarioDocument::scenarioChanged, this, &JobsController::refresh);
    refresh();
}

void JobsController::refresh()
{
    const Scenario &scenario = m_window->document()->scenario();
    const bool hadJobs = m_report != nullptr;
    m_report.reset();
    if (scenario.jobs.empty()) {
        m_panel->setReport(nullptr);
        if (hadJobs)
            m_dock->hide();
        return;
    }
    // On the UI thread: a shared fabric is evaluated job by job, a few single-job evaluations
    // (docs/shared-fabric.md, "Speed"); a background run is left for later.
    try {
        m_report = std::make_unique<SharedFabricReport>(evaluateJobs(scenario));
        m_panel->setReport(m_report.get());
    } catch (const ScenarioError &e) {
        m_panel->showError(QString::fromStdString(e.what()));
    }
    if (!hadJobs) {
        m_dock->show();
        // Beside the pipeline, each half the bottom area's width: squeezed to its minimum the
        // table cut its alone / shared columns off at 1280x720.
        if (auto *timeline = m_window->findChild<QDockWidget *>(QStringLiteral("timelineDock"));
            timeline && m_window->dockWidgetArea(timeline) == m_window->dockWidgetArea(m_dock))
            m_window->resizeDocks({ m_dock, timeline }, { 1000, 1000 }, Qt::Horizontal);
    }
}

} // namespace railyard
