#pragma once

#include <QByteArray>
#include <QFont>
#include <QObject>

class QAction;

namespace railyard {

class MainWindow;

/**
 * Whiteboard mode for design sessions in front of a room: full screen, fonts one and a half
 * times larger, the docks, toolbar and menu bar out of the way, so the fabric (with its notes),
 * the summary numbers and the snapshot strip fill the screen. F5 toggles it, Esc leaves it;
 * Page Up and Page Down step through the snapshots. Leaving puts back the window, the docks and
 * the fonts exactly as they were. Every window action keeps its shortcut meanwhile.
 */
class PresentationMode : public QObject
{
    Q_OBJECT

public:
    static constexpr double kFontScale = 1.5;

    explicit PresentationMode(MainWindow *window);

    bool isActive() const { return m_active; }
    QAction *toggleAction() const { return m_toggle; }
    void setActive(bool on);

Q_SIGNALS:
    void activeChanged(bool active);

private:
    void enter();
    void leave();

    MainWindow *m_window;
    QAction *m_toggle = nullptr;
    QAction *m_leave = nullptr;
    QAction *m_previous = nullptr;
    QAction *m_next = nullptr;
    bool m_active = false;
    QByteArray m_state;
    QByteArray m_geometry;
    QFont m_font;
    bool m_fontSet = false;
    Qt::WindowStates m_windowState;
};

} // namespace railyard
