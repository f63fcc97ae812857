#pragma once

#include "io/measuredruns.h"
#include "io/nccltestslog.h"

#include <optional>
#include <vector>

#include <QObject>
#include <QStringList>

class QAction;
class QDockWidget;

namespace railyard {

class CalibrationDock;
class MainWindow;

/**
 * File ▸ Import Measurements…: reads nccl-tests logs (text or -J JSON), ties them to the runs
 * of the scenario's nccl-plan by their file names or command lines, fits the per-tier α and
 * bandwidth (cost/calibrationfit.h) and hands the fit to the Calibration dock, which applies it
 * as one undo step on Accept. A bad log or a failed fit is an error box; the document stays as
 * it was.
 */
class CalibrationController : public QObject
{
    Q_OBJECT

public:
    explicit CalibrationController(MainWindow *window);

    /// Asks for the files (UserDialogs::openMeasurementFiles) and imports them.
    void importMeasurements();
    /// Imports these files; false (and an error box) when one cannot be read, matched or fitted.
    bool importFiles(const QStringList &paths);

    CalibrationDock *dock() const { return m_panel; }
    QDockWidget *dockWidget() const { return m_dock; }
    QAction *importAction() const { return m_import; }
    /// Another scenario replaced the document: a pending fit was the last document's.
    void startClean();

private:
    /// matchMeasuredRuns(), asking which plan run a log measured when nothing tells (nullopt:
    /// cancelled); other errors throw as the reader's.
    std::optional<std::vector<MeasuredRun>> matchRuns(
        const CostEngine &engine, const std::vector<NcclTestsLog> &logs);

    MainWindow *m_window;
    CalibrationDock *m_panel = nullptr;
    QDockWidget *m_dock = nullptr;
    QAction *m_import = nullptr;
};

} // namespace railyard
