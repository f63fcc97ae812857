#pragma once

#include <QObject>
#include <QString>

class QDockWidget;

namespace railyard {

class BomDock;
class MainWindow;

/**
 * The Bill of Materials dock (View ▸ Panels) and its Load Catalogue…: the file is read and
 * checked (scenario/cataloguesection.h) before the document takes it as one undo step; a bad
 * file is an error box naming the file and the field, and the document stays as it was.
 */
class BomController : public QObject
{
    Q_OBJECT

public:
    explicit BomController(MainWindow *window);

    BomDock *dock() const { return m_panel; }
    QDockWidget *dockWidget() const { return m_dock; }

    /// Asks for a catalogue file and loads it.
    void askAndLoad();
    /// Loads `path` into the scenario (one undo step); false and an error box when it cannot.
    bool loadCatalogue(const QString &path);

private:
    MainWindow *m_window;
    BomDock *m_panel = nullptr;
    QDockWidget *m_dock = nullptr;
};

} // namespace railyard
