#pragma once

#include "io/computecalibration.h"
#include "studies/trainingcomparison.h"

#include <optional>
#include <vector>

#include <QObject>
#include <QStringList>

class QAction;
class QDockWidget;

namespace railyard {

class MainWindow;
class MeasuredPanel;

/**
 * File ▸ Import Training Log or Trace…: reads Megatron-LM, NeMo and torchtitan logs and PyTorch
 * profiler (Kineto) traces once (studies/trainingcomparison.h's readMeasuredFile) and compares
 * them with the document's report whenever it changes (compareMeasured): the "Measured vs
 * Predicted" dock shows each file's table and "why" line, the pipeline timeline a measured lane
 * per file under its stages, and "Fit Compute to This Step" carries one measured step into the
 * scenario's device efficiency as one undo step (the summary bar names where it came from).
 */
class MeasuredController : public QObject
{
    Q_OBJECT

public:
    explicit MeasuredController(MainWindow *window);

    /// Asks for the files (UserDialogs::openTrainingFiles) and opens them.
    void importFiles();
    /// Opens these files in place of the ones open; false (and an error box naming the file and
    /// line) when one cannot be read or compared, the files open before then staying open.
    bool openFiles(const QStringList &paths);
    /// Fits the compute efficiency to run `run`'s measured step and applies it as one undoable
    /// edit; false (and an error box) when it cannot be fitted.
    bool fitCompute(int run);
    /// Another scenario replaced the document: the files were compared with the last one.
    void startClean();

    MeasuredPanel *panel() const { return m_panel; }
    QDockWidget *dockWidget() const { return m_dock; }
    QAction *importAction() const { return m_import; }
    /// The comparison on screen (empty before a file is open).
    const TrainingComparison &comparison() const { return m_comparison; }

private:
    /// Compares the open files with the document's report and shows the result; throws what
    /// the comparison throws.
    void compare();
    /// compare() after a change of the document: an error goes to the dock, not a box.
    void refresh();

    MainWindow *m_window;
    MeasuredPanel *m_panel = nullptr;
    QDockWidget *m_dock = nullptr;
    QAction *m_import = nullptr;
    std::vector<MeasuredFile> m_files;
    TrainingComparison m_comparison;
};

} // namespace railyard
