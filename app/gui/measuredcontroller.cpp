#include "measuredcontroller.h"

#include "documentfiles.h"
#include "mainwindow.h"
#include "measuredpanel.h"
#include "summarybar.h"
#include "timelinecanvas.h"
#include "timelineview.h"
#include "userdialogs.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "document/scenariodocument.h"

#include <QAction>
#include <QDateTime>
#include <QDockWidget>
#include <QFileInfo>

#include <exception>
#include <stdexcept>

namespace railyard {

MeasuredController::MeasuredController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_panel = new MeasuredPanel;
    m_dock = new QDockWidget(tr("Measured vs Predicted"), window);
    m_dock->setObjectName(QStringLiteral("measuredDock"));
    m_dock->setWidget(m_panel);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    m_dock->hide();

    m_import = new QAction(tr("Import Training &Log or Trace…"), window);
    m_import->setObjectName(QStringLiteral("actionImportTrainingLog"));
    m_import->setStatusTip(tr("Read a Megatron-LM, NeMo or torchtitan log or a PyTorch profiler "
                              "trace and put its measured step beside the prediction"));
    connect(m_import, &QAction::triggered, this, &MeasuredController::importFiles);
    window->addFileAction(m_import); // File menu, before Export
    connect(m_panel, &MeasuredPanel::fitRequested, this, &MeasuredController::fitCompute);
    ScenarioDocument *doc = window->document();
    connect(doc, &ScenarioDocument::reportChanged, this, &MeasuredController::refresh);
    connect(doc, &ScenarioDocument::mappingChanged, this, &MeasuredController::refresh);
    connect(doc, &ScenarioDocument::scenarioChanged, this, &MeasuredController::refresh);
}

void MeasuredController::importFiles()
{
    const QStringList paths = m_window->files()->dialogs()->openTrainingFiles(
        m_window, QFileInfo(m_window->document()->filePath()).absolutePath());
    if (!paths.isEmpty())
        openFiles(paths);
}

bool MeasuredController::openFiles(const QStringList &paths)
{
    std::vector<MeasuredFile> before = std::move(m_files);
    try {
        m_files.clear();
        for (const QString &p : paths)
            m_files.push_back(readMeasuredFile(p.toStdString()));
        compare();
    } catch (const std::exception &e) {
        m_files = std::move(before);
        refresh();
        m_window->files()->dialogs()->showError(
            m_window, tr("Import Training Log or Trace"), QString::fromStdString(e.what()));
        return false;
    }
    // Beside the pipeline (its lanes and this table belong together) where both fit.
    m_window->showBesidePipeline(m_dock);
    return true;
}

void MeasuredController::compare()
{
    const CostEngine &engine = m_window->document()->engine();
    m_comparison = m_files.empty() ? TrainingComparison {} : compareMeasured(engine, m_files, 0.0);
    m_panel->setRuns(m_comparison.runs);
    // One lane per file, in the order given: "measured" over the trace's rank and stage.
    std::vector<TimelinePainter::MeasuredLane> lanes;
    for (const MeasuredRunView &r : m_comparison.runs) {
        TimelinePainter::MeasuredLane lane;
        lane.label = tr("measured");
        lane.detail = r.rank < 0
            ? (r.format == MeasurementFormat::KinetoTrace ? tr("trace") : tr("log step"))
            : r.stage >= 0 ? tr("st %1 · rk %2").arg(r.stage).arg(r.rank)
                           : tr("rank %1").arg(r.rank);
        lane.source = QFileInfo(QString::fromStdString(r.file)).fileName();
        lane.phases = r.phases;
        lanes.push_back(std::move(lane));
    }
    m_window->timelineView()->canvas()->setMeasuredLanes(std::move(lanes));
}

void MeasuredController::refresh()
{
    if (m_files.empty() && m_comparison.runs.empty())
        return;
    try {
        compare();
    } catch (const std::exception &e) {
        // The scenario no longer fits the files (another world size): say so where they show.
        m_comparison = {};
        m_panel->showMessage(QString::fromStdString(e.what()));
        m_window->timelineView()->canvas()->setMeasuredLanes({});
    }
}

bool MeasuredController::fitCompute(int run)
{
    if (run < 0 || run >= static_cast<int>(m_files.size()))
        return false;
    ScenarioDocument *doc = m_window->document();
    const MeasuredFile &file = m_files[static_cast<std::size_t>(run)];
    try {
        const TrainingComparison one = compareMeasured(doc->engine(), { file }, 0.0);
        const nlohmann::json section = computeCalibrationSection(doc->scenario(), one,
            QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString());
        // The calibration names the training run it came from (no CAL.json in the explorer).
        const ComputeCalibration calibration = parseComputeCalibration(section.dump(), file.path);
        Scenario next = doc->scenario();
        applyComputeCalibration(next, calibration);
        m_window->summaryBar()->setComputeCalibration(calibration);
        const QString error = doc->editScenario(next, tr("Fit Compute to Measured Step"));
        if (!error.isEmpty())
            throw std::runtime_error(error.toStdString());
    } catch (const ScenarioError &e) {
        // The fit names the CLI's option (--compute-out) as its field: here, the reason alone.
        m_window->files()->dialogs()->showError(
            m_window, tr("Fit Compute to This Step"), QString::fromStdString(e.reason()));
        return false;
    } catch (const std::exception &e) {
        m_window->files()->dialogs()->showError(
            m_window, tr("Fit Compute to This Step"), QString::fromStdString(e.what()));
        return false;
    }
    return true;
}

void MeasuredController::startClean()
{
    m_files.clear();
    m_comparison = {};
    m_panel->setRuns({});
    m_window->timelineView()->canvas()->setMeasuredLanes({});
    m_window->summaryBar()->setComputeCalibration(std::nullopt);
    m_dock->hide();
}

} // namespace railyard
