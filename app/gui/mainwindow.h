#pragma once

#include "windowlayout.h"

#include <QMainWindow>

#include <memory>

class QAction;
class QDockWidget;
class QLabel;

namespace railyard {

class AutoSaver;
class BomController;
class CalibrationController;
class CollectiveController;
class CountersController;
class ChartsPanel;
class DocumentFiles;
class ElidedLabel;
class FabricView;
class GuideController;
class HelpBrowser;
class LessonController;
class PresentationMode;
class SnapshotStrip;
class InspectorPanel;
class MainActions;
class RankPalette;
class ScenarioDocument;
class AnnotationController;
class StudyController;
class SummaryBar;
class TimelineView;
class UserDialogs;

/**
 * The Railyard window: the summary bar across the top, the fabric view in the middle, the rank
 * palette on the left (tabbed on the right in a narrow window), the inspector on the right, the
 * pipeline timeline, the charts and the studies tabbed at the bottom (WindowLayout).
 * It owns the one ScenarioDocument; the views observe it, MainActions holds the menus and
 * toolbar, DocumentFiles the file handling. Starts with the embedded default scenario.
 */
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    ScenarioDocument *document() const { return m_document; }
    DocumentFiles *files() const { return m_files; }
    MainActions *actions() const { return m_actions; }
    FabricView *fabricView() const { return m_fabricView; }
    TimelineView *timelineView() const { return m_timelineView; }
    ChartsPanel *chartsPanel() const { return m_charts; }
    StudyController *studies() const { return m_studies; }
    CalibrationController *calibration() const { return m_calibration; }
    BomController *bom() const { return m_bom; }
    CountersController *counters() const { return m_counters; }
    AnnotationController *annotations() const { return m_annotations; }
    /// Watch a collective: the player under the fabric and its overlay.
    CollectiveController *collectives() const { return m_collectives; }
    RankPalette *rankPalette() const { return m_rankPalette; }
    SnapshotStrip *snapshotStrip() const { return m_snapshotStrip; }
    PresentationMode *presentation() const { return m_presentation; }
    LessonController *lessons() const { return m_lessons; }
    /// The welcome panel, Find and the toolbar's Lessons button.
    GuideController *guide() const { return m_guide; }
    /// The help browser (nullptr until help was first asked for).
    HelpBrowser *helpBrowser() const { return m_help; }
    /// Opens the help browser on `page` ("fabric.html"; see HelpBrowser::pageFor()).
    void showHelp(const QString &page);
    InspectorPanel *inspector() const { return m_inspector; }
    SummaryBar *summaryBar() const { return m_summaryBar; }

    /// Replaces the modal dialogs (tests script them).
    void setDialogs(std::unique_ptr<UserDialogs> dialogs);
    /// Opens a file without the unsaved-changes prompt (the command line's FILE).
    bool openFile(const QString &path);

    /// Starts autosaving the document into `directory` (empty: the application data folder).
    /// Without it (tests, --screenshot) nothing is autosaved or restored.
    AutoSaver *enableAutoSave(const QString &directory = QString());
    AutoSaver *autoSaver() const { return m_autoSaver; }
    /// Offers to restore what a crashed session autosaved; true when the document was restored.
    bool restoreCrashedSession();

    /// Window geometry, dock layout and chip colouring from the last session.
    void readSettings();
    void writeSettings() const;

    /// Puts an import action into the File menu, before Export (the controllers' own).
    void addFileAction(QAction *action);
    /// Shows a dock and brings it to the front of its tab group.
    void showPanel(QDockWidget *dock);
    /**
     * Shows a bottom panel whose figures go with the pipeline's (jobs, measured vs predicted,
     * port counters, the NCCL log, a calibration): beside the pipeline, each half the bottom
     * area's width, where both fit at their minimum widths; else in front in the pipeline's tab
     * group, so the window never grows past the screen. Before the window is laid out it is
     * shown in front and moved beside once there is room to measure.
     */
    void showBesidePipeline(QDockWidget *dock);
    /// Resizes the window to `size` (clamped to the screen) and arranges the docks for it, as
    /// a first launch at that size would (railyard --size).
    void resizeForScreen(const QSize &size);

    /// Shows a message in the status bar for a few seconds.
    void showStatus(const QString &message);

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
    /// A scenario file dropped on the window opens like File > Open.
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    QDockWidget *addDock(QWidget *content, const QString &title, const QString &objectName,
                         Qt::DockWidgetArea area);
    void updateTitle();
    void updateScenarioLabel();
    /// "window/1920x1080@2/": where this screen's geometry and dock state are saved.
    QString settingsPrefix() const;

    ScenarioDocument *m_document = nullptr;
    DocumentFiles *m_files = nullptr;
    FabricView *m_fabricView = nullptr;
    SummaryBar *m_summaryBar = nullptr;
    RankPalette *m_rankPalette = nullptr;
    InspectorPanel *m_inspector = nullptr;
    ChartsPanel *m_charts = nullptr;
    TimelineView *m_timelineView = nullptr;
    MainActions *m_actions = nullptr;
    StudyController *m_studies = nullptr;
    CalibrationController *m_calibration = nullptr;
    BomController *m_bom = nullptr;
    CountersController *m_counters = nullptr;
    AnnotationController *m_annotations = nullptr;
    CollectiveController *m_collectives = nullptr;
    AutoSaver *m_autoSaver = nullptr;
    SnapshotStrip *m_snapshotStrip = nullptr;
    PresentationMode *m_presentation = nullptr;
    LessonController *m_lessons = nullptr;
    GuideController *m_guide = nullptr;
    HelpBrowser *m_help = nullptr;
    ElidedLabel *m_scenarioLabel = nullptr;
    bool m_restoredLayout = false;
    bool m_shown = false; ///< shown once: the first-launch dock sizes were applied
    WindowLayout::Docks m_docks;
};

} // namespace railyard
