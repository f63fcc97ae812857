#include "jobscontroller.h"

#include "documentfiles.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "jobspanel.h"
#include "mainwindow.h"
#include "placejobdialog.h"
#include "studycontroller.h"
#include "summarybar.h"
#include "userdialogs.h"

#include "base/scenarioerror.h"
#include "document/evaluator.h"
#include "document/scenariodocument.h"
#include "fabric/fabric.h"
#include "optimise/jobplacement.h"
#include "scenario/composejobs.h"
#include "scenario/scenariofile.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QMenu>
#include <QPixmap>
#include <QToolBar>
#include <QtConcurrent/QtConcurrentRun>

#include <set>

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

    // The job selector: on the main toolbar while the scenario holds jobs.
    auto *box = new QWidget;
    auto *row = new QHBoxLayout(box);
    row->setContentsMargins(6, 0, 6, 0);
    row->addWidget(new QLabel(tr("Job:"), box));
    m_selector = new QComboBox(box);
    m_selector->setObjectName(QStringLiteral("jobSelector"));
    m_selector->setToolTip(
        tr("The job the rank palette, the inspector, the pipeline and the summary "
           "show, and a drag edits"));
    row->addWidget(m_selector);
    if (auto *bar = window->findChild<QToolBar *>(QStringLiteral("mainToolBar"))) {
        m_selectorAction = bar->addWidget(box);
        m_selectorAction->setVisible(false);
    }
    // Queued: the switch refills the combo and the dock's tree, which must not happen inside
    // their own signals.
    connect(
        m_selector, &QComboBox::activated, this, &JobsController::selectJob, Qt::QueuedConnection);
    connect(m_panel, &JobsPanel::jobChosen, this, &JobsController::selectJob, Qt::QueuedConnection);

    m_moveAction = new QAction(tr("Move Job to Servers…"), this);
    m_moveAction->setObjectName(QStringLiteral("actionMoveJob"));
    m_moveAction->setStatusTip(tr("Move the selected job as a whole onto other free servers (one "
                                  "undo step)"));
    connect(m_moveAction, &QAction::triggered, this, &JobsController::askMoveJob);
    m_placeAction = new QAction(tr("Place a New &Job Here…"), this);
    m_placeAction->setObjectName(QStringLiteral("actionPlaceJob"));
    m_placeAction->setStatusTip(tr("Find where a new job on the free servers slows the running "
                                   "jobs least, with the fragmentation it leaves"));
    connect(m_placeAction, &QAction::triggered, this, [this] { placeNewJob(); });
    m_placeFileAction = new QAction(tr("Place a New Job from File…"), this);
    m_placeFileAction->setObjectName(QStringLiteral("actionPlaceJobFromFile"));
    m_placeFileAction->setStatusTip(tr("The same for the job of a single-job scenario file"));
    connect(m_placeFileAction, &QAction::triggered, this, &JobsController::askPlaceJob);
    m_panel->toolBar()->addAction(m_moveAction);
    m_panel->toolBar()->addAction(m_placeAction);
    if (QMenu *study = window->studies() ? window->studies()->menu() : nullptr) {
        study->addSeparator();
        study->addAction(m_placeAction);
        study->addAction(m_placeFileAction);
        study->addAction(m_moveAction);
    }

    ScenarioDocument *doc = window->document();
    // Another scenario: the rows on show are not its own, even while its jobs are evaluated.
    connect(doc, &ScenarioDocument::scenarioChanged, this, [this] {
        m_report.reset();
        refresh();
    });
    // A drop moves the active job's ranks: its neighbours' figures and the link sums follow.
    connect(doc, &ScenarioDocument::mappingChanged, this, &JobsController::refresh);
    connect(doc, &ScenarioDocument::activeJobChanged, this, &JobsController::syncSelector);
    refresh();
}

void JobsController::refresh()
{
    ScenarioDocument *doc = m_window->document();
    const Scenario &scenario = doc->scenario();
    ++m_generation; // a result still on its way is for a scenario no longer on show
    m_moveAction->setEnabled(!scenario.jobs.empty());
    if (scenario.jobs.empty()) {
        const bool hadJobs = m_dockPlaced;
        m_dockPlaced = false;
        m_report.reset();
        m_panel->setReport(nullptr);
        if (FabricItem *root
            = m_window->fabricView() ? m_window->fabricView()->rootItem() : nullptr)
            root->setJobLoads({}, 0.0);
        if (m_window->summaryBar())
            m_window->summaryBar()->clearJob();
        syncSelector();
        if (hadJobs)
            m_dock->hide();
        return;
    }
    // A shared fabric is evaluated job by job, a few single-job evaluations
    // (docs/shared-fabric.md, "Speed"): on the UI thread up to the document's own threshold for
    // evaluating off it, else on Qt's thread pool while the rows on show stay (marked as being
    // updated), so a drop or an undo never waits for it.
    Scenario file = doc->fileScenario();
    const bool place = !m_dockPlaced; // a scenario with jobs replaced one without
    m_dockPlaced = true;
    if (file.fabric.slotCount() <= doc->evaluator()->asyncThreshold()) {
        doc->waitForEvaluation();
        showOutcome(evaluateOrExplain(file));
        if (place)
            m_window->showBesidePipeline(m_dock);
        return;
    }
    syncSelector();
    if (!m_report) // another scenario's figures were dropped on scenarioChanged()
        m_panel->showError(tr("Evaluating the jobs…"));
    m_panel->setUpdating(true);
    if (place)
        m_window->showBesidePipeline(m_dock);
    const int generation = m_generation;
    auto *watcher = new QFutureWatcher<Outcome>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, generation] {
        watcher->deleteLater();
        if (generation == m_generation)
            showOutcome(watcher->result());
    });
    watcher->setFuture(
        QtConcurrent::run([file = std::move(file)] { return evaluateOrExplain(file); }));
}

JobsController::Outcome JobsController::evaluateOrExplain(const Scenario &scenario)
{
    Outcome outcome;
    try {
        outcome.report = std::make_shared<SharedFabricReport>(evaluateJobs(scenario));
    } catch (const ScenarioError &e) {
        outcome.error = QString::fromStdString(e.what());
    }
    return outcome;
}

void JobsController::showOutcome(const Outcome &outcome)
{
    ScenarioDocument *doc = m_window->document();
    m_report = outcome.report;
    if (m_report)
        m_panel->setReport(m_report.get());
    else
        m_panel->showError(outcome.error);
    FabricItem *root = m_window->fabricView() ? m_window->fabricView()->rootItem() : nullptr;
    const int active = doc->activeJob();
    if (m_report && static_cast<std::size_t>(active) < m_report->jobs.size()) {
        // The other jobs' loads, each at its shared pace; the active job's comes live from the
        // report on screen (FabricItem::setJobLoads()).
        const Fabric &fabric = *m_report->fabric;
        std::vector<double> others(static_cast<std::size_t>(fabric.linkCount()), 0.0);
        for (std::size_t j = 0; j < m_report->jobs.size(); ++j) {
            const JobReport &job = m_report->jobs[j];
            if (static_cast<int>(j) == active || job.iterationTime <= 0.0)
                continue;
            const LinkLoadTable &loads = job.alone().links;
            for (int l = 0; l < fabric.linkCount(); ++l)
                if (loads[static_cast<std::size_t>(l)].bytes > 0.0)
                    others[static_cast<std::size_t>(l)] += loads[static_cast<std::size_t>(l)].bytes
                        / (fabric.linkBandwidth(l) * job.iterationTime);
        }
        const JobReport &mine = m_report->jobs[static_cast<std::size_t>(active)];
        if (root)
            root->setJobLoads(std::move(others), mine.iterationTime);
        if (m_window->summaryBar())
            m_window->summaryBar()->setJob(QString::fromStdString(mine.name),
                QColor(QString::fromStdString(mine.colour)), mine.iterationTime,
                mine.aloneIterationTime, static_cast<int>(m_report->jobs.size()));
    }
    syncSelector();
}

bool JobsController::isEvaluating() const
{
    return m_panel->isUpdating();
}

void JobsController::syncSelector()
{
    if (m_syncing)
        return;
    m_syncing = true;
    const Scenario &scenario = m_window->document()->scenario();
    const int active = m_window->document()->activeJob();
    m_selector->clear();
    for (const JobSpec &job : scenario.jobs) {
        QPixmap swatch(12, 12);
        swatch.fill(QColor(QString::fromStdString(job.colour)));
        m_selector->addItem(QIcon(swatch), QString::fromStdString(job.name));
    }
    m_selector->setCurrentIndex(scenario.jobs.empty() ? -1 : active);
    if (m_selectorAction)
        m_selectorAction->setVisible(!scenario.jobs.empty());
    m_panel->setActiveJob(active);
    m_syncing = false;
}

void JobsController::selectJob(int index)
{
    if (m_syncing)
        return;
    ScenarioDocument *doc = m_window->document();
    if (index == doc->activeJob() || index < 0)
        return;
    const QString message = doc->setActiveJob(index);
    if (!message.isEmpty()) {
        m_window->showStatus(tr("Cannot show job %1: %2").arg(index).arg(message));
        syncSelector();
        return;
    }
    m_window->showStatus(tr("Showing job \"%1\": the palette, the inspector, the pipeline and the "
                            "summary are its own; a drag moves its ranks")
                             .arg(QString::fromStdString(
                                 doc->scenario().jobs[static_cast<std::size_t>(index)].name)));
}

QString JobsController::moveActiveJob(const QString &text)
{
    ScenarioDocument *doc = m_window->document();
    const Scenario &scenario = doc->scenario();
    if (scenario.jobs.empty())
        return tr("the scenario holds one job");
    QString message;
    try {
        const std::vector<int> servers
            = parseServerList(text.trimmed().toStdString(), scenario.fabric.servers, "servers");
        message = doc->moveJob(doc->activeJob(), servers);
    } catch (const ScenarioError &e) {
        message = QString::fromStdString(e.what());
    }
    const QString name
        = QString::fromStdString(scenario.jobs[static_cast<std::size_t>(doc->activeJob())].name);
    m_window->showStatus(message.isEmpty()
            ? tr("Moved job \"%1\" to servers %2").arg(name, text.trimmed())
            : tr("Move refused: %1").arg(message));
    return message;
}

void JobsController::askMoveJob()
{
    ScenarioDocument *doc = m_window->document();
    const Scenario &scenario = doc->scenario();
    if (scenario.jobs.empty())
        return;
    std::set<int> servers;
    for (const int slot : scenario.slots)
        servers.insert(slot / scenario.fabric.gpusPerServer);
    QStringList now;
    for (const int s : servers)
        now << QString::number(s);
    const QString name
        = QString::fromStdString(scenario.jobs[static_cast<std::size_t>(doc->activeJob())].name);
    const QString text = m_window->files()->dialogs()->askText(m_window, tr("Move Job to Servers"),
        tr("Job \"%1\" takes servers %2. Its servers, in order, go to (e.g. 4,12 or 4-5; "
           "Ctrl+drag one of its server bars does the same on the fabric):")
            .arg(name, now.join(QStringLiteral(","))),
        now.join(QStringLiteral(",")));
    if (!text.trimmed().isEmpty())
        moveActiveJob(text);
}

PlaceJobDialog *JobsController::placeNewJob(const QString &templateFile)
{
    ScenarioDocument *doc = m_window->document();
    JobSpec job;
    try {
        job = templateFile.isEmpty()
            ? PlaceJobDialog::activeJobTemplate(*doc)
            : newJobFrom(loadScenario(templateFile.toStdString()), doc->fileScenario());
    } catch (const std::exception &e) {
        m_window->files()->dialogs()->showError(
            m_window, tr("Place a New Job"), QString::fromStdString(e.what()));
        return nullptr;
    }
    if (m_placeDialog)
        m_placeDialog->close();
    m_placeDialog = new PlaceJobDialog(doc, m_window);
    m_placeDialog->setAttribute(Qt::WA_DeleteOnClose);
    m_placeDialog->show();
    m_placeDialog->search(job);
    return m_placeDialog;
}

void JobsController::askPlaceJob()
{
    const QString path = m_window->files()->dialogs()->openFileName(m_window, QString());
    if (!path.isEmpty())
        placeNewJob(path);
}

} // namespace railyard
