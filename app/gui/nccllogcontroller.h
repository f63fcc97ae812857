#pragma once

#include "io/nccllog.h"
#include "studies/ncclview.h"

#include <QObject>
#include <QStringList>

class QAction;
class QDockWidget;

namespace railyard {

class MainWindow;
class NcclRingOverlayItem;
class NcclViewPanel;

/**
 * File ▸ Open NCCL Log…: reads NCCL's INFO output (io/nccllog.h), compares it with the scenario
 * (studies/ncclview.h, ncclringdiff.h) and shows "NCCL's view": the dock lists the
 * communicators, their channels and the hops that differ from the engine's rings, and the
 * picked channel is drawn over the fabric on the NICs NCCL used, differences in red. "Use What
 * NCCL Did" puts the rings into the scenario's nccl_observed section (one undo step), so the
 * engine routes the groups they match over them; "Use the Prediction" takes the section out.
 */
class NcclLogController : public QObject
{
    Q_OBJECT

public:
    explicit NcclLogController(MainWindow *window);

    /// Asks for the files (UserDialogs::openMeasurementFiles) and opens them.
    void openLog();
    /// Opens these logs; false (and an error box naming FILE:LINE) when one cannot be read.
    bool openFiles(const QStringList &paths);
    /// The section from the open log, as one undoable edit; false when there is nothing to use.
    bool useObserved();
    /// The scenario without the section, as one undoable edit; false when it has none.
    bool usePrediction();
    /// Another scenario replaced the document: the open log was compared with the last one.
    void startClean();

    NcclViewPanel *panel() const { return m_panel; }
    QDockWidget *dockWidget() const { return m_dock; }
    QAction *openAction() const { return m_open; }
    /// The channel drawn over the fabric; null before a log is open.
    NcclRingOverlayItem *overlay() const { return m_overlay; }

private:
    void showChannel();

    MainWindow *m_window;
    NcclViewPanel *m_panel = nullptr;
    QDockWidget *m_dock = nullptr;
    QAction *m_open = nullptr;
    NcclRingOverlayItem *m_overlay = nullptr;
    NcclLog m_log;
    NcclView m_view;
    bool m_hasLog = false;
};

} // namespace railyard
