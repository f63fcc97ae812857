#include "calibrationcontroller.h"

#include "base/scenarioerror.h"
#include "calibrationdock.h"
#include "documentfiles.h"
#include "mainwindow.h"
#include "userdialogs.h"

#include "cost/calibrationfit.h"
#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "export/runrecord.h"
#include "io/measuredruns.h"
#include "io/nccltestslog.h"

#include <QAction>
#include <QDateTime>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>

#include <algorithm>
#include <exception>
#include <optional>

namespace railyard {

CalibrationController::CalibrationController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_panel = new CalibrationDock(window->document());
    m_dock = new QDockWidget(tr("Calibration"), window);
    m_dock->setObjectName(QStringLiteral("calibrationDock"));
    m_dock->setWidget(m_panel);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    m_dock->hide();

    m_import = new QAction(tr("Import &Measurements…"), window);
    m_import->setObjectName(QStringLiteral("actionImportMeasurements"));
    m_import->setStatusTip(tr("Read nccl-tests logs of the exported plan and fit the engine's "
                              "latency and bandwidth per tier to them"));
    connect(m_import, &QAction::triggered, this, &CalibrationController::importMeasurements);
    window->addFileAction(m_import); // File menu, before Export
}

void CalibrationController::startClean()
{
    if (!m_panel->hasPending())
        return; // the dock shows the new document's own calibration
    m_panel->clearPending();
    m_dock->hide();
}

void CalibrationController::importMeasurements()
{
    const QStringList paths = m_window->files()->dialogs()->openMeasurementFiles(
        m_window, QFileInfo(m_window->document()->filePath()).absolutePath());
    if (!paths.isEmpty())
        importFiles(paths);
}

std::optional<std::vector<MeasuredRun>> CalibrationController::matchRuns(
    const CostEngine &engine, const std::vector<NcclTestsLog> &logs)
{
    // A log the reader cannot tie to a run by its file name or its command line (the CLI's
    // --run ID=FILE): the user chooses the measurement-plan run it measured. Each choice ties
    // one file, so a few rounds at most.
    std::vector<RunBinding> bindings;
    for (std::size_t round = 0;; ++round) {
        try {
            return matchMeasuredRuns(engine, logs, bindings);
        } catch (const ScenarioError &e) {
            // A table of a file of several is named "FILE#BINARY" (NcclTestsLog::runName).
            const auto log = std::find_if(logs.begin(), logs.end(),
                [&](const NcclTestsLog &l) { return l.runName() == e.field(); });
            if (log == logs.end() || round >= logs.size())
                throw;
            QStringList ids;
            for (const PlanRun &r : ncclPlanRuns(engine))
                if (!log->op || r.op == *log->op) // the collective the log's binary ran
                    ids << QString::fromStdString(r.id);
            const QString id = m_window->files()->dialogs()->chooseItem(m_window,
                tr("Import Measurements"),
                tr("Which run of the measurement plan does %1 measure? Its name is no run id and "
                   "its command line does not tell.")
                    .arg(QFileInfo(QString::fromStdString(log->runName())).fileName()),
                ids);
            if (id.isEmpty())
                return std::nullopt;
            bindings.push_back({ log->runName(), id.toStdString(), {} });
        }
    }
}

bool CalibrationController::importFiles(const QStringList &paths)
{
    try {
        std::vector<NcclTestsLog> logs;
        for (const QString &p : paths)
            for (NcclTestsLog &l : readNcclTestsLogs(p.toStdString())) // one run per table
                logs.push_back(std::move(l));
        // Against the defaults: a calibration already in the scenario does not feed the fit.
        Scenario base = m_window->document()->scenario();
        base.calibration = {};
        CostEngine engine(base);
        const std::optional<std::vector<MeasuredRun>> matched = matchRuns(engine, logs);
        if (!matched)
            return false; // the user cancelled the choice of a run
        const std::vector<MeasuredRun> &runs = *matched;
        CalibrationFitOptions options;
        options.measuredAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
        for (const NcclTestsLog &l : logs)
            if (options.ncclVersion.empty())
                options.ncclVersion = l.ncclVersion;
        CalibrationSpec spec = fitCalibration(engine, runs, options);
        spec.fabricHash = fabricHash(base.fabric);
        spec.mappingVersion = base.mappingVersion;
        m_panel->setPending(spec,
            paths.size() == 1 ? QFileInfo(paths.front()).fileName()
                              : tr("%1 files").arg(paths.size()));
        m_window->showBesidePipeline(m_dock);
        return true;
    } catch (const std::exception &e) {
        m_window->files()->dialogs()->showError(
            m_window, tr("Import Measurements"), QString::fromStdString(e.what()));
        return false;
    }
}

} // namespace railyard
