#include "mainactions.h"

#include "actionicons.h"
#include "chartformat.h"
#include "documentfiles.h"
#include "exportdialog.h"
#include "fabricview.h"
#include "helpbrowser.h"
#include "mainwindow.h"
#include "pdfreport.h"
#include "presentationmode.h"
#include "rankpalette.h"
#include "recentfiles.h"
#include "document/scenariodocument.h"
#include "timelineview.h"
#include "userdialogs.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStyle>
#include <QToolBar>
#include <QUndoStack>

namespace railyard {

MainActions::MainActions(MainWindow *window, std::initializer_list<QDockWidget *> docks)
    : QObject(window)
    , m_window(window)
{
    buildFileMenu();
    buildEditMenu();
    buildViewMenu(docks);
    buildHelpMenu();
    buildToolBar();
    setColourBy(m_colourBy);
    connect(window->rankPalette(), &RankPalette::presetApplied, this, [this](const QString &text) {
        const bool evaluating = m_window->document()->isEvaluating();
        m_window->showStatus(evaluating ? tr("%1; evaluating…").arg(text)
                                        : tr("%1 — %2").arg(text, reportSummary()));
        m_window->fabricView()->showNotice(text);
    });
}

QAction *MainActions::make(const QString &objectName, const QString &text, const QString &statusTip)
{
    auto *action = new QAction(text, m_window);
    action->setObjectName(objectName);
    action->setStatusTip(statusTip);
    action->setToolTip(statusTip);
    return action;
}

QAction *MainActions::action(const QString &objectName) const
{
    return m_window->findChild<QAction *>(objectName);
}

void MainActions::buildFileMenu()
{
    DocumentFiles *files = m_window->files();
    QMenu *menu = m_window->menuBar()->addMenu(tr("&File"));

    QAction *newAction = make(QStringLiteral("actionNew"), tr("&New…"),
                              tr("Start a new scenario from one of the shipped ones"));
    newAction->setShortcut(QKeySequence::New);
    newAction->setIcon(themedIcon("document-new", QStyle::SP_FileIcon));
    connect(newAction, &QAction::triggered, files, &DocumentFiles::newScenario);
    menu->addAction(newAction);

    QAction *open = make(QStringLiteral("actionOpen"), tr("&Open…"), tr("Open a scenario file"));
    open->setShortcut(QKeySequence::Open);
    open->setIcon(themedIcon("document-open", QStyle::SP_DialogOpenButton));
    connect(open, &QAction::triggered, files, &DocumentFiles::open);
    menu->addAction(open);

    QMenu *recent = menu->addMenu(tr("Open &Recent"));
    recent->setObjectName(QStringLiteral("menuRecentFiles"));
    connect(recent, &QMenu::aboutToShow, this, [files, recent] { files->recentFiles()->populate(recent); });
    files->recentFiles()->populate(recent); // so that the menu is never empty before it opens
    menu->addSeparator();

    QAction *save = make(QStringLiteral("actionSave"), tr("&Save"), tr("Save the scenario"));
    save->setShortcut(QKeySequence::Save);
    save->setIcon(themedIcon("document-save", QStyle::SP_DialogSaveButton));
    connect(save, &QAction::triggered, files, &DocumentFiles::save);
    menu->addAction(save);

    QAction *saveAs = make(QStringLiteral("actionSaveAs"), tr("Save &As…"), tr("Save the scenario under a new name"));
    saveAs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    saveAs->setIcon(themedIcon("document-save-as", QStyle::SP_DialogSaveButton));
    connect(saveAs, &QAction::triggered, files, &DocumentFiles::saveAs);
    menu->addAction(saveAs);
    menu->addSeparator();

    QMenu *exportMenu = menu->addMenu(tr("&Export"));
    exportMenu->setObjectName(QStringLiteral("menuExport"));
    QAction *exportMapping = make(QStringLiteral("actionExportMapping"), tr("&Mapping / Launcher Files…"),
                                  tr("Write the current mapping as a run record, rankfile, Slurm or torchrun script, …"));
    exportMapping->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(exportMapping, &QAction::triggered, this, &MainActions::showExportDialog);
    exportMenu->addAction(exportMapping);
    QAction *exportPdf = make(QStringLiteral("actionExportPdfReport"), tr("&PDF Report…"),
                              tr("A4 pages: summary, warnings and notes, the fabric, the timeline and the charts"));
    connect(exportPdf, &QAction::triggered, this, &MainActions::exportPdfReport);
    exportMenu->addAction(exportPdf);
    exportMenu->addSeparator();
    QAction *exportFabric = make(QStringLiteral("actionExportFabricView"), tr("&Fabric View as PNG or SVG…"),
                                 tr("Render the fabric view, with its colour legend, to an image"));
    exportFabric->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E));
    connect(exportFabric, &QAction::triggered, this, [this] { exportView(QStringLiteral("fabric")); });
    exportMenu->addAction(exportFabric);
    QAction *exportTimeline = make(QStringLiteral("actionExportTimeline"), tr("Pipeline &Timeline as PNG or SVG…"),
                                   tr("Render the whole pipeline timeline to an image"));
    exportTimeline->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    connect(exportTimeline, &QAction::triggered, this, [this] { exportView(QStringLiteral("timeline")); });
    exportMenu->addAction(exportTimeline);
    menu->addSeparator();

    QAction *quit = make(QStringLiteral("actionQuit"), tr("&Quit"), tr("Quit Railyard"));
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);
    connect(quit, &QAction::triggered, m_window, &QWidget::close);
    menu->addAction(quit);
}

void MainActions::buildEditMenu()
{
    QUndoStack *stack = m_window->document()->undoStack();
    QMenu *menu = m_window->menuBar()->addMenu(tr("&Edit"));

    QAction *undo = stack->createUndoAction(m_window, tr("&Undo"));
    undo->setObjectName(QStringLiteral("actionUndo"));
    undo->setShortcuts(QKeySequence::Undo);
    undo->setIcon(themedIcon("edit-undo", QStyle::SP_ArrowBack));
    undo->setStatusTip(tr("Undo the last change"));
    // The menu names the step ("Undo Swap rank 3 …"); the toolbar button keeps one short label,
    // so the toolbar does not jump after every edit (the tooltip still names the step).
    undo->setIconText(tr("Undo"));
    // Connected after the stack's own slot: the undone command is now the redo one.
    connect(undo, &QAction::triggered, this,
            [this, stack] { m_window->showStatus(tr("Undone: %1").arg(stack->redoText())); });
    menu->addAction(undo);

    QAction *redo = stack->createRedoAction(m_window, tr("&Redo"));
    redo->setObjectName(QStringLiteral("actionRedo"));
    redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
    redo->setIcon(themedIcon("edit-redo", QStyle::SP_ArrowForward));
    redo->setStatusTip(tr("Redo the last undone change"));
    redo->setIconText(tr("Redo"));
    connect(redo, &QAction::triggered, this,
            [this, stack] { m_window->showStatus(tr("Redone: %1").arg(stack->undoText())); });
    menu->addAction(redo);
    menu->addSeparator();

    QMenu *presets = menu->addMenu(tr("&Place All Ranks"));
    struct Preset
    {
        Placement placement;
        const char *name;
        QString text;
        QString tip;
    };
    const Preset list[] = {
        {Placement::Packed, "Packed", tr("&Packed (launcher order)"),
         tr("Rank r on server r / G, GPU r mod G, as a job launcher places them")},
        {Placement::RailAligned, "RailAligned", tr("&Rail-Aligned"),
         tr("Each TP group on one server with shard t on GPU t: DP peers share a rail and never touch a spine")},
        {Placement::Scattered, "Scattered", tr("&Scattered (bad, for teaching)"),
         tr("Round-robin over servers: every TP group is split across servers and the spines fill up")},
    };
    int key = Qt::Key_1;
    for (const Preset &preset : list) {
        QAction *a = make(QStringLiteral("actionPlacement%1").arg(QLatin1String(preset.name)), preset.text, preset.tip);
        a->setIcon(placementIcon(preset.placement));
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | static_cast<Qt::Key>(key++)));
        const Placement placement = preset.placement;
        connect(a, &QAction::triggered, this, [this, placement] { applyPlacement(placement); });
        presets->addAction(a);
    }
}

void MainActions::buildViewMenu(std::initializer_list<QDockWidget *> docks)
{
    QMenu *menu = m_window->menuBar()->addMenu(tr("&View"));
    QMenu *colour = menu->addMenu(tr("&Colour Chips By"));
    m_colourGroup = new QActionGroup(this);
    m_colourGroup->setExclusive(true);
    const struct
    {
        QChar coordinate;
        QString text;
        QString tip;
    } colourings[] = {
        {QLatin1Char('d'), tr("&Data Replica (d)"), tr("Colour rank chips by data-parallel replica d")},
        {QLatin1Char('p'), tr("&Pipeline Stage (p)"), tr("Colour rank chips by pipeline stage p")},
        {QLatin1Char('t'), tr("&Tensor Shard (t)"), tr("Colour rank chips by tensor shard t: rail-aligned layouts show one colour per rail")},
    };
    int key = Qt::Key_1;
    for (const auto &c : colourings) {
        QAction *a = make(QStringLiteral("actionColourBy%1").arg(c.coordinate.toUpper()), c.text, c.tip);
        a->setCheckable(true);
        a->setIcon(colourByIcon(c.coordinate));
        a->setShortcut(QKeySequence(Qt::CTRL | static_cast<Qt::Key>(key++)));
        a->setData(c.coordinate);
        const QChar coordinate = c.coordinate;
        connect(a, &QAction::triggered, this, [this, coordinate] { setColourBy(coordinate); });
        m_colourGroup->addAction(a);
        colour->addAction(a);
    }
    QAction *relative = make(QStringLiteral("actionRelativeLoadScale"), tr("&Relative Colour Scale"),
        tr("Colour links from 0 to the bottleneck's load instead of 0-100 % (separates lightly loaded links; colours then differ between layouts)"));
    relative->setCheckable(true);
    connect(relative, &QAction::toggled, this, [this](bool on) {
        m_window->fabricView()->setLoadScale(on ? LoadScale::Relative
                                                : LoadScale::Absolute);
        m_window->showStatus(on ? tr("Link colours: 0 to the bottleneck's load")
                                : tr("Link colours: 0-100 % utilisation"));
    });
    menu->addAction(relative);
    // Hashed ECMP (fabric.routing, docs/ecmp.md): outline the links hot by collision.
    QAction *collisions = make(QStringLiteral("actionShowEcmpCollisions"),
        tr("Show &ECMP Collisions"),
        tr("Under hashed ECMP (fabric.routing), outline the links hot by collision in the worst "
           "seed, apart from those hot by design; their tooltips say how many flows hashed onto "
           "them"));
    connect(collisions, &QAction::triggered, this, [this] {
        const int n = m_window->fabricView()->showEcmpCollisions();
        m_window->showStatus(n > 0
                ? tr("%n link(s) hot by collision under hashed ECMP", nullptr, n)
                : tr("No ECMP collision to show (fabric.routing is not hashed, or none collided)"));
    });
    menu->addAction(collisions);
    menu->addSeparator();

    QAction *fit = make(QStringLiteral("actionFitView"), tr("&Fit to Window"), tr("Show the whole fabric"));
    fit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_0));
    fit->setIcon(zoomIcon(0));
    connect(fit, &QAction::triggered, this, [this] {
        m_window->fabricView()->fitAll();
        m_window->showStatus(tr("Fitted the fabric to the window"));
    });
    menu->addAction(fit);
    QAction *readable = make(QStringLiteral("actionDefaultZoom"), tr("&Default Zoom"),
        tr("The zoom a file opens at: the whole fabric, or its width when the chips' (d,p,t) "
           "would be too small to read"));
    readable->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_9));
    connect(readable, &QAction::triggered, this, [this] {
        m_window->fabricView()->fitDefault();
        m_window->showStatus(tr("Zoom %1 %").arg(qRound(m_window->fabricView()->zoom() * 100)));
    });
    menu->addAction(readable);
    QAction *zoomIn = make(QStringLiteral("actionZoomIn"), tr("Zoom &In"), tr("Zoom into the fabric view"));
    zoomIn->setShortcuts(QKeySequence::ZoomIn);
    zoomIn->setIcon(zoomIcon(1));
    connect(zoomIn, &QAction::triggered, this, [this] {
        m_window->fabricView()->zoomIn();
        m_window->showStatus(tr("Zoom %1 %").arg(qRound(m_window->fabricView()->zoom() * 100)));
    });
    menu->addAction(zoomIn);
    QAction *zoomOut = make(QStringLiteral("actionZoomOut"), tr("Zoom &Out"), tr("Zoom out of the fabric view"));
    zoomOut->setShortcuts(QKeySequence::ZoomOut);
    zoomOut->setIcon(zoomIcon(-1));
    connect(zoomOut, &QAction::triggered, this, [this] {
        m_window->fabricView()->zoomOut();
        m_window->showStatus(tr("Zoom %1 %").arg(qRound(m_window->fabricView()->zoom() * 100)));
    });
    menu->addAction(zoomOut);
    menu->addSeparator();

    m_panels = menu->addMenu(tr("&Panels"));
    m_panels->setObjectName(QStringLiteral("menuPanels"));
    for (QDockWidget *dock : docks)
        addPanelToggle(dock);
    menu->addSeparator();
    menu->addAction(m_window->presentation()->toggleAction());
    menu->addMenu(m_window->presentation()->roomMenu());
}

void MainActions::addPanelToggle(QDockWidget *dock)
{
    QAction *toggle = dock->toggleViewAction();
    toggle->setStatusTip(tr("Show or hide the %1 panel").arg(dock->windowTitle()));
    m_panels->addAction(toggle);
}

void MainActions::buildHelpMenu()
{
    QMenu *menu = m_window->menuBar()->addMenu(tr("&Help"));
    QAction *help = make(QStringLiteral("actionHelp"), tr("Railyard &Help"),
                         tr("The manual, opened at the panel that has the focus (F1)"));
    help->setShortcut(QKeySequence::HelpContents);
    connect(help, &QAction::triggered, this,
            [this] { m_window->showHelp(HelpBrowser::pageFor(QApplication::focusWidget())); });
    menu->addAction(help);
    m_window->addAction(help); // F1 works in presentation mode too, without the menu bar
    const struct
    {
        const char *name;
        QString text;
        QString tip;
        const char *page;
    } pages[] = {
        { "actionHelpGettingStarted", tr("&Getting Started"),
            tr("The first ten minutes, step by step"), "getting-started.md" },
        { "actionHelpShortcuts", tr("&Keyboard and Mouse"), tr("Every shortcut and gesture"),
            "explorer.md#keyboard-and-mouse" },
        { "actionHelpLessons", tr("&Lessons and Their File Format"),
            tr("How lessons work and how to write one"), "teaching.md#lesson-files" },
        { "actionHelpWhiteboard", tr("&Whiteboard Mode"),
            tr("Presentation mode, notes, arrows and snapshots"), "whiteboard-session.md" },
    };
    for (const auto &p : pages) {
        QAction *a = make(QString::fromLatin1(p.name), p.text, p.tip);
        const QString page = QString::fromLatin1(p.page);
        connect(a, &QAction::triggered, this, [this, page] { m_window->showHelp(page); });
        menu->addAction(a);
    }
    menu->addSeparator();
    QAction *about = make(QStringLiteral("actionAbout"), tr("&About Railyard"), tr("What Railyard is"));
    about->setMenuRole(QAction::AboutRole);
    connect(about, &QAction::triggered, this, [this] { m_window->files()->dialogs()->showAbout(m_window); });
    menu->addAction(about);
    QAction *aboutQt = make(QStringLiteral("actionAboutQt"), tr("About &Qt"), tr("The Qt version in use"));
    connect(aboutQt, &QAction::triggered, qApp, &QApplication::aboutQt);
    menu->addAction(aboutQt);
}

void MainActions::buildToolBar()
{
    QToolBar *bar = m_window->addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setIconSize(QSize(20, 20));
    for (const char *name : {"actionNew", "actionOpen", "actionSave"})
        bar->addAction(action(QString::fromLatin1(name)));
    bar->addSeparator();
    for (const char *name : {"actionUndo", "actionRedo"})
        bar->addAction(action(QString::fromLatin1(name)));
    bar->addSeparator();
    const QString presetTexts[] = {tr("Packed"), tr("Rail-aligned"), tr("Scattered")};
    int i = 0;
    for (const char *name : {"actionPlacementPacked", "actionPlacementRailAligned", "actionPlacementScattered"}) {
        QAction *a = action(QString::fromLatin1(name));
        // A shorter label on the toolbar than in the menu.
        QAction *button = bar->addAction(a->icon(), presetTexts[i++], a, &QAction::trigger);
        button->setToolTip(a->statusTip());
        button->setStatusTip(a->statusTip());
    }
    bar->addSeparator();
    for (QAction *a : m_colourGroup->actions()) {
        bar->addAction(a);
        if (QWidget *w = bar->widgetForAction(a))
            w->setProperty("toolButtonStyle", int(Qt::ToolButtonIconOnly));
    }
    bar->addSeparator();
    for (const char *name : {"actionFitView", "actionZoomIn", "actionZoomOut"}) {
        QAction *a = action(QString::fromLatin1(name));
        bar->addAction(a);
        if (QWidget *w = bar->widgetForAction(a))
            w->setProperty("toolButtonStyle", int(Qt::ToolButtonIconOnly));
    }
}

void MainActions::applyPlacement(Placement placement)
{
    // The palette runs it and says what happened (under its buttons, in the status bar and on
    // the fabric), whichever of the menu, the toolbar or its buttons asked.
    m_window->rankPalette()->applyPreset(placement);
}

void MainActions::setColourBy(QChar coordinate)
{
    m_colourBy = coordinate;
    for (QAction *a : m_colourGroup->actions())
        a->setChecked(a->data().toChar() == coordinate);
    m_window->fabricView()->setColourBy(coordinate);
    m_window->showStatus(tr("Rank chips coloured by %1").arg(coordinate));
}

QString MainActions::reportSummary() const
{
    const CostReport &r = m_window->document()->report();
    return tr("iteration %1 s, bubble %2, spine share %3")
        .arg(QString::number(r.iterationTime, 'f', 3), chartformat::percent(r.bubbleFraction), chartformat::percent(r.spineBytesShare));
}

bool MainActions::exportView(const QString &what)
{
    const bool fabric = what == QLatin1String("fabric");
    UserDialogs *dialogs = m_window->files()->dialogs();
    const QString base = QString::fromStdString(m_window->document()->scenario().name)
                         + (fabric ? QStringLiteral("-fabric.png") : QStringLiteral("-timeline.png"));
    QString path = dialogs->saveFileName(m_window, fabric ? tr("Export Fabric View") : tr("Export Pipeline Timeline"),
                                         QDir(m_window->files()->startDirectory()).filePath(base),
                                         tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty()) {
        m_window->showStatus(tr("Export cancelled"));
        return false;
    }
    QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix.isEmpty()) {
        path += QStringLiteral(".png");
        suffix = QStringLiteral("png");
    }
    if (suffix != QLatin1String("png") && suffix != QLatin1String("svg")) {
        dialogs->showError(m_window, tr("Export"), tr("Choose a .png or .svg file name (got .%1)").arg(suffix));
        return false;
    }
    const bool ok = fabric ? m_window->fabricView()->exportImage(path) : m_window->timelineView()->exportImage(path);
    if (!ok) {
        dialogs->showError(m_window, tr("Export"), tr("Could not write %1").arg(QDir::toNativeSeparators(path)));
        m_window->showStatus(tr("Export failed"));
        return false;
    }
    m_window->showStatus(tr("Exported %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

void MainActions::showExportDialog()
{
    // Modeless and kept: its preview follows the edits made while it is open.
    if (!m_exportDialog) {
        m_exportDialog = new ExportDialog(m_window->document(), m_window->files()->dialogs(),
                                          m_window->files()->startDirectory(), m_window);
        connect(m_exportDialog, &ExportDialog::statusMessage, m_window, &MainWindow::showStatus);
    }
    m_exportDialog->show();
    m_exportDialog->raise();
    m_exportDialog->activateWindow();
}

ExportDialog *MainActions::exportDialog() const
{
    return m_exportDialog;
}

bool MainActions::exportPdfReport()
{
    UserDialogs *dialogs = m_window->files()->dialogs();
    const QString base = QString::fromStdString(m_window->document()->scenario().name) + QStringLiteral("-report.pdf");
    QString path = dialogs->saveFileName(m_window, tr("Export PDF Report"),
                                         QDir(m_window->files()->startDirectory()).filePath(base), tr("PDF (*.pdf)"));
    if (path.isEmpty()) {
        m_window->showStatus(tr("Export cancelled"));
        return false;
    }
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".pdf");
    QString error;
    if (!writePdfReport(path, m_window->document(), m_window->fabricView(), m_window->timelineView(),
                        m_window->chartsPanel(), &error)) {
        dialogs->showError(m_window, tr("Export PDF Report"), error);
        m_window->showStatus(tr("PDF report failed: %1").arg(error));
        return false;
    }
    m_window->showStatus(tr("Wrote the PDF report %1").arg(QDir::toNativeSeparators(path)));
    return true;
}

void MainActions::readSettings(const QSettings &settings)
{
    const QString c = settings.value(QStringLiteral("view/colourBy"), QString(m_colourBy)).toString();
    if (c.size() == 1 && QStringLiteral("dpt").contains(c[0]))
        setColourBy(c[0]);
    action(QStringLiteral("actionRelativeLoadScale"))
        ->setChecked(settings.value(QStringLiteral("view/relativeLoadScale"), false).toBool());
}

void MainActions::writeSettings(QSettings &settings) const
{
    settings.setValue(QStringLiteral("view/colourBy"), QString(m_colourBy));
    settings.setValue(QStringLiteral("view/relativeLoadScale"),
                      action(QStringLiteral("actionRelativeLoadScale"))->isChecked());
}

} // namespace railyard
