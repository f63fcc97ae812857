#include "mainwindow.h"

#include "annotationcontroller.h"
#include "autosaver.h"
#include "bomcontroller.h"
#include "jobscontroller.h"
#include "calibrationcontroller.h"
#include "counterscontroller.h"
#include "collectivecontroller.h"
#include "chartspanel.h"
#include "documentfiles.h"
#include "guidecontroller.h"
#include "helpbrowser.h"
#include "lessoncontroller.h"
#include "measuredcontroller.h"
#include "nccllogcontroller.h"
#include "presentationmode.h"
#include "toolbarfit.h"
#include "snapshotstrip.h"
#include "elidedlabel.h"
#include "fabricview.h"
#include "inspectorpanel.h"
#include "mainactions.h"
#include "rankpalette.h"
#include "document/scenariodocument.h"
#include "scenariotemplates.h"
#include "studycontroller.h"
#include "summarybar.h"
#include "timelineview.h"
#include "undoshortcutfilter.h"
#include "windowlayout.h"
#include "userdialogs.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDropEvent>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPointer>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTimer>

#include <algorithm>

namespace railyard {

namespace {

constexpr int kStatusTimeoutMs = 6000;

} // namespace

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent)
    , m_document(new ScenarioDocument(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    setAcceptDrops(true);
    m_files = new DocumentFiles(m_document, this, this);
    // Ctrl+Z / Ctrl+Shift+Z reach the document's undo stack whatever has focus.
    qApp->installEventFilter(new UndoShortcutFilter(this));

    // The scenario comes first so that every view starts from a real fabric and report.
    try {
        m_document->load(loadResourceScenario(defaultScenarioResource()));
    } catch (const std::exception &e) {
        // Only a broken build gets here; the document keeps its one-rank placeholder.
        qWarning("railyard: the embedded default scenario did not load: %s", e.what());
    }

    m_fabricView = new FabricView(m_document);
    m_fabricView->setObjectName(QStringLiteral("fabricView"));
    setCentralWidget(m_fabricView);

    m_rankPalette = new RankPalette(m_document);
    m_inspector = new InspectorPanel(m_document);
    m_charts = new ChartsPanel(m_document);
    m_timelineView = new TimelineView(m_document);
    setDockOptions(AnimatedDocks | AllowTabbedDocks);
    QDockWidget *ranks = addDock(m_rankPalette, tr("Ranks"), QStringLiteral("ranksDock"), Qt::LeftDockWidgetArea);
    QDockWidget *inspector = addDock(m_inspector, tr("Inspector"), QStringLiteral("inspectorDock"), Qt::RightDockWidgetArea);
    QDockWidget *charts = addDock(m_charts, tr("Charts"), QStringLiteral("chartsDock"), Qt::BottomDockWidgetArea);
    QDockWidget *timeline = addDock(m_timelineView, tr("Pipeline"), QStringLiteral("timelineDock"), Qt::BottomDockWidgetArea);

    // Its text is as long as the scenario's summary: elided, it never sets the window's width.
    m_scenarioLabel = new ElidedLabel(this);
    m_scenarioLabel->setObjectName(QStringLiteral("scenarioLabel"));
    m_scenarioLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    statusBar()->addPermanentWidget(m_scenarioLabel, 1);

    m_snapshotStrip = new SnapshotStrip(m_document, this);
    m_presentation = new PresentationMode(this);
    m_actions = new MainActions(this, {ranks, inspector, charts, timeline});
    m_studies = new StudyController(this);
    m_annotations = new AnnotationController(this);
    m_lessons = new LessonController(this);
    m_actions->addPanelToggle(m_lessons->dock());
    m_calibration = new CalibrationController(this);
    m_actions->addPanelToggle(m_calibration->dockWidget());
    // File ▸ Open NCCL Log… and the "NCCL's View" dock (found as the window's child).
    auto *ncclLog = new NcclLogController(this);
    m_actions->addPanelToggle(ncclLog->dockWidget());
    m_bom = new BomController(this);
    m_actions->addPanelToggle(m_bom->dockWidget());
    // The "Jobs" dock of a scenario with jobs (found as the window's child).
    auto *jobs = new JobsController(this);
    m_actions->addPanelToggle(jobs->dockWidget());
    m_counters = new CountersController(this);
    m_actions->addPanelToggle(m_counters->dockWidget());
    // File ▸ Import Training Log or Trace… and the "Measured vs Predicted" dock (a child).
    auto *measured = new MeasuredController(this);
    m_actions->addPanelToggle(measured->dockWidget());
    m_collectives = new CollectiveController(this);
    // The snapshot strip beside the main toolbar: a line of its own would cost the fabric
    // its height on a 720-line screen (what does not fit goes to the toolbar's » menu).
    addToolBar(Qt::TopToolBarArea, m_snapshotStrip);
    new ToolBarFit(this); // on a narrow screen the main toolbar's buttons drop their words
    connect(m_snapshotStrip, &SnapshotStrip::compareRequested, m_studies, &StudyController::compareSnapshots);
    connect(m_snapshotStrip, &SnapshotStrip::statusMessage, this, &MainWindow::showStatus);
    // The summary spans the window under the toolbar (a fixed, title-less top dock): the
    // numbers a design review starts from stay in sight whatever the docks below do.
    m_summaryBar = new SummaryBar(m_document);
    setCorner(Qt::TopLeftCorner, Qt::TopDockWidgetArea);
    setCorner(Qt::TopRightCorner, Qt::TopDockWidgetArea);
    QDockWidget *summary = addDock(m_summaryBar, tr("Summary"), QStringLiteral("summaryDock"), Qt::TopDockWidgetArea);
    auto *noTitle = new QWidget(summary);
    noTitle->setFixedHeight(0); // no strip above the numbers, whatever the font
    summary->setTitleBarWidget(noTitle);
    summary->setFeatures(QDockWidget::NoDockWidgetFeatures);
    m_guide = new GuideController(this); // after the toolbar, menus and summary it adds to

    // A first launch: inside the screen, the docks arranged for its size (readSettings()
    // restores a saved layout for this screen instead).
    m_docks.ranks = ranks;
    m_docks.inspector = inspector;
    m_docks.lessons = m_lessons->dock();
    m_docks.bottom = {timeline, charts, m_studies->compareDock(), m_studies->expertDock(), m_studies->inferenceDock()};
    // The other bottom panels (calibration, NCCL log, bill of materials, jobs, port counters,
    // measured vs predicted) join the same tab group: beside it, from View ▸ Panels, they would
    // add their minimum width to the group's and push the window past a 1280-pixel screen.
    // Their controllers move them beside the pipeline where both fit (showBesidePipeline()).
    for (QDockWidget *d : findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly))
        if (dockWidgetArea(d) == Qt::BottomDockWidgetArea
            && std::find(m_docks.bottom.begin(), m_docks.bottom.end(), d) == m_docks.bottom.end())
            m_docks.bottom.push_back(d);
    setGeometry(WindowLayout::firstLaunchGeometry(WindowLayout::availableGeometry(this)));
    WindowLayout::arrange(this, m_docks, size());

    connect(m_files, &DocumentFiles::statusMessage, this, &MainWindow::showStatus);
    // One document, one state: what the studies and the calibration held belonged to the
    // document that was replaced.
    connect(m_files, &DocumentFiles::documentReplaced, m_studies, &StudyController::startClean);
    connect(m_files, &DocumentFiles::documentReplaced, m_calibration,
        &CalibrationController::startClean);
    connect(m_files, &DocumentFiles::documentReplaced, m_counters, &CountersController::startClean);
    connect(m_files, &DocumentFiles::documentReplaced, ncclLog, &NcclLogController::startClean);
    connect(m_files, &DocumentFiles::documentReplaced, measured, &MeasuredController::startClean);
    connect(m_fabricView, &FabricView::statusMessage, this,
            [this](const QString &message) { statusBar()->showMessage(message, kStatusTimeoutMs); });
    // One selected rank across the palette and the fabric view.
    connect(m_rankPalette, &RankPalette::rankActivated, m_fabricView, &FabricView::selectRank);
    connect(m_fabricView, &FabricView::rankSelected, m_rankPalette, &RankPalette::showRank);
    connect(m_document, &ScenarioDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ScenarioDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ScenarioDocument::scenarioChanged, this, [this] {
        updateTitle();
        updateScenarioLabel();
    });
    connect(m_document, &ScenarioDocument::evaluatingChanged, this, [this](bool evaluating) {
        // The summary bar shows the same state in place; the status bar says what happens.
        showStatus(evaluating ? tr("Evaluating %1 GPUs off the UI thread; the numbers shown are the previous ones…")
                                    .arg(m_document->scenario().fabric.servers * m_document->scenario().fabric.gpusPerServer)
                              : tr("Evaluation finished"));
    });
    connect(m_document, &ScenarioDocument::evaluationFailed, this, [this](const QString &message) {
        m_files->dialogs()->showError(this, tr("Evaluation failed"), message);
        showStatus(tr("The edit could not be evaluated; the last evaluated state was restored"));
    });

    updateTitle();
    updateScenarioLabel();
    // Dock sizes apply once the window has its layout; a restored session keeps its own.
    QTimer::singleShot(0, this, [this] {
        if (!m_restoredLayout)
            WindowLayout::sizeDocks(this, m_docks);
    });
    showStatus(tr("Drag a rank chip onto another GPU slot to swap them; the links recolour with the predicted load"));
}

MainWindow::~MainWindow()
{
    // The views observe the document, which as the first child would otherwise go first.
    qDeleteAll(findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly));
    delete takeCentralWidget();
}

QDockWidget *MainWindow::addDock(QWidget *content, const QString &title, const QString &objectName,
                                 Qt::DockWidgetArea area)
{
    auto *dock = new QDockWidget(title, this);
    dock->setObjectName(objectName);
    dock->setWidget(content);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::setDialogs(std::unique_ptr<UserDialogs> dialogs)
{
    m_files->setDialogs(std::move(dialogs));
}

bool MainWindow::openFile(const QString &path)
{
    return m_files->openFile(path, false);
}

AutoSaver *MainWindow::enableAutoSave(const QString &directory)
{
    if (!m_autoSaver) {
        m_autoSaver = new AutoSaver(m_document, directory, this);
        connect(m_autoSaver, &AutoSaver::autosaveFailed, this,
                [this](const QString &message) { showStatus(tr("Autosave failed: %1").arg(message)); });
    }
    return m_autoSaver;
}

bool MainWindow::restoreCrashedSession()
{
    if (!m_autoSaver || !m_autoSaver->offerRestore(m_files->dialogs(), this))
        return false;
    showStatus(tr("Restored the autosaved changes; save them to keep them"));
    return true;
}

void MainWindow::resizeForScreen(const QSize &size)
{
    const QRect available = WindowLayout::availableGeometry(this);
    QRect r(QPoint(0, 0), size);
    r.moveCenter(available.center());
    setGeometry(WindowLayout::clampedTo(r, available));
    WindowLayout::arrange(this, m_docks, this->size());
    m_restoredLayout = false; // sized on the first show
    if (m_shown)
        WindowLayout::sizeDocks(this, m_docks);
}

void MainWindow::addFileAction(QAction *action)
{
    for (QAction *top : menuBar()->actions()) {
        QMenu *file = top->menu();
        if (!file || top->text().remove(QLatin1Char('&')) != tr("File"))
            continue;
        QAction *before = nullptr;
        for (QAction *a : file->actions())
            if (a->menu() && a->menu()->objectName() == QLatin1String("menuExport"))
                before = a;
        file->insertAction(before, action);
    }
}

void MainWindow::showPanel(QDockWidget *dock)
{
    dock->show();
    dock->raise();
    // raise() selects a tabbed dock's tab only when the main window is laid out; select it in
    // the tab bar QMainWindow uses for the group as well (its tabs carry the dock titles).
    for (QTabBar *bar : findChildren<QTabBar *>(QString(), Qt::FindDirectChildrenOnly))
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabText(i) == dock->windowTitle())
                bar->setCurrentIndex(i);
}

void MainWindow::showBesidePipeline(QDockWidget *dock)
{
    auto *timeline = findChild<QDockWidget *>(QStringLiteral("timelineDock"));
    if (timeline == nullptr || dockWidgetArea(timeline) != Qt::BottomDockWidgetArea) {
        showPanel(dock);
        return;
    }
    // Shown in the pipeline's tab group (tabifiedDockWidgets() lists shown docks only).
    const bool tabbed = tabifiedDockWidgets(dock).contains(timeline);
    if (!tabbed && dock->isVisible() && dockWidgetArea(dock) == Qt::BottomDockWidgetArea) {
        dock->raise(); // already beside the pipeline: the widths the user left stay
        return;
    }
    if (!isVisible()) {
        if (!tabbed)
            tabifyDockWidget(timeline, dock);
        showPanel(dock);
        QTimer::singleShot(0, this, [this, later = QPointer<QDockWidget>(dock)] {
            if (QDockWidget *d = later.data(); d != nullptr && isVisible() && !d->isHidden())
                showBesidePipeline(d);
        });
        return;
    }
    const auto minimumWidth = [](const QDockWidget *d) {
        return d->widget()->minimumSizeHint().expandedTo(d->widget()->minimumSize()).width();
    };
    // The splitter between the two and their frames (Fusion's separator is 6 pixels).
    constexpr int kSplitterRoom = 12;
    if (timeline->isVisible()
        && timeline->width() >= minimumWidth(timeline) + minimumWidth(dock) + kSplitterRoom) {
        // Out of the tab group (a hidden dock keeps its place there), then into the bottom area
        // beside it (splitDockWidget() keeps a tabbed dock in its group).
        removeDockWidget(dock);
        addDockWidget(Qt::BottomDockWidgetArea, dock, Qt::Horizontal);
        dock->show();
        resizeDocks({ dock, timeline }, { 1000, 1000 }, Qt::Horizontal);
        return;
    }
    if (!tabbed)
        tabifyDockWidget(timeline, dock);
    showPanel(dock);
}

void MainWindow::showHelp(const QString &page)
{
    if (!m_help)
        m_help = new HelpBrowser(this);
    m_help->showPage(page);
    m_help->show();
    m_help->raise();
    m_help->activateWindow();
}

void MainWindow::showStatus(const QString &message)
{
    statusBar()->showMessage(message, kStatusTimeoutMs);
}

void MainWindow::updateTitle()
{
    setWindowTitle(tr("%1[*] — Railyard").arg(m_files->displayName()));
    setWindowModified(m_document->isModified());
}

void MainWindow::updateScenarioLabel()
{
    const Scenario &s = m_document->scenario();
    m_scenarioLabel->setFullText(tr("%1 ranks on %2").arg(s.slots.size()).arg(scenarioSummary(s)));
}

QString MainWindow::settingsPrefix() const
{
    return QStringLiteral("window/%1/").arg(WindowLayout::screenKey(screen()));
}

void MainWindow::readSettings()
{
    const QSettings settings;
    // Per screen: a layout saved on a 4K monitor never opens on a 1280x720 projector.
    const QString prefix = settingsPrefix();
    const QRect available = WindowLayout::availableGeometry(this);
    if (restoreGeometry(settings.value(prefix + QStringLiteral("geometry")).toByteArray()))
        setGeometry(WindowLayout::clampedTo(geometry(), available));
    else {
        setGeometry(WindowLayout::firstLaunchGeometry(available));
        if (WindowLayout::opensMaximised(available))
            setWindowState(windowState() | Qt::WindowMaximized);
    }
    m_restoredLayout = restoreState(settings.value(prefix + QStringLiteral("state")).toByteArray());
    if (!m_restoredLayout) {
        WindowLayout::arrange(this, m_docks, size());
        QTimer::singleShot(0, this, [this] { WindowLayout::sizeDocks(this, m_docks); });
    }
    m_actions->readSettings(settings);
    // The last session's study tabs: a comparison's baseline is not kept, so its dock (and any
    // study the document has nothing for) would cover the timeline with an empty panel.
    m_studies->hideIdleStudies();
}

void MainWindow::writeSettings() const
{
    QSettings settings;
    const QString prefix = settingsPrefix();
    settings.setValue(prefix + QStringLiteral("geometry"), saveGeometry());
    settings.setValue(prefix + QStringLiteral("state"), saveState());
    m_actions->writeSettings(settings);
}

namespace {

/// The local .json file a drag carries, or empty.
QString droppedScenario(const QMimeData *mime)
{
    if (!mime->hasUrls() || mime->urls().size() != 1 || !mime->urls().first().isLocalFile())
        return QString();
    const QString path = mime->urls().first().toLocalFile();
    return path.endsWith(QLatin1String(".json"), Qt::CaseInsensitive) ? path : QString();
}

} // namespace

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!droppedScenario(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QString path = droppedScenario(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    // Not from inside the drop handler: the unsaved-changes prompt is modal.
    QTimer::singleShot(0, this, [this, path] {
        if (m_autoSaver)
            m_autoSaver->saveNow(); // loading is a risky step: the current edits first
        m_files->openFile(path);
    });
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    // QMainWindow::resizeDocks() only holds once the dock layout exists (on the first show);
    // before it, a bottom tab group keeps its content's size hint and squeezes the fabric.
    if (m_shown)
        return;
    m_shown = true;
    if (!m_restoredLayout) {
        WindowLayout::sizeDocks(this, m_docks);
        QTimer::singleShot(0, this, [this] { WindowLayout::sizeDocks(this, m_docks); });
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_files->maybeSave(tr("closing"))) {
        event->ignore();
        return;
    }
    writeSettings();
    if (m_autoSaver)
        m_autoSaver->removeAutosave(); // saved or discarded: a clean exit leaves no autosave
    event->accept();
}

} // namespace railyard
