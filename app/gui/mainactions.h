#pragma once

#include <QObject>
#include <QPointer>
#include <QString>

#include <initializer_list>

class QAction;
class QActionGroup;
class QDockWidget;
class QMenu;
class QSettings;
class QWidget;

namespace railyard {

class ExportDialog;
class MainWindow;
enum class Placement;

/**
 * The window's menus and toolbar: File (New, Open, Open Recent, Save, Save As, Export,
 * Quit), Edit (Undo, Redo, the placement presets), View (chip colouring, fit and zoom, the
 * docks) and Help. Each action has a shortcut, a status tip and a status-bar message when it
 * runs; actions are found by objectName ("actionUndo", "actionPlacementScattered", ...).
 */
class MainActions : public QObject
{
    Q_OBJECT

public:
    MainActions(MainWindow *window, std::initializer_list<QDockWidget *> docks);

    /// The action with this objectName, or nullptr.
    QAction *action(const QString &objectName) const;

    /// Asks for a file name and renders a view to it (.png or .svg by the chosen suffix).
    /// `what` is "fabric" or "timeline". False when cancelled or failed.
    bool exportView(const QString &what);
    /// File > Export > Mapping / Launcher Files: shows the (modeless) ExportDialog.
    void showExportDialog();
    ExportDialog *exportDialog() const;
    /// File > Export > PDF Report: asks for a file name, writes the report (pdfreport.h).
    bool exportPdfReport();

    /// Adds a dock's show/hide action to View > Panels.
    void addPanelToggle(QDockWidget *dock);

    void readSettings(const QSettings &settings);
    void writeSettings(QSettings &settings) const;

private:
    QAction *make(const QString &objectName, const QString &text, const QString &statusTip);
    void buildFileMenu();
    void buildEditMenu();
    void buildViewMenu(std::initializer_list<QDockWidget *> docks);
    void buildHelpMenu();
    void buildToolBar();
    void applyPlacement(Placement placement);
    void setColourBy(QChar coordinate);
    QString reportSummary() const;

    MainWindow *m_window;
    QActionGroup *m_colourGroup = nullptr;
    QChar m_colourBy = QLatin1Char('t');
    QPointer<ExportDialog> m_exportDialog;
    QMenu *m_panels = nullptr;
};

} // namespace railyard
