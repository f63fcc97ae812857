#pragma once

#include <QByteArray>
#include <QFont>
#include <QObject>

class QAction;
class QActionGroup;
class QMenu;
class QToolBar;

namespace railyard {

class LaserPointer;
class MainWindow;
class SpotlightController;

/**
 * Whiteboard mode for design sessions in front of a room: full screen, fonts one and a half
 * times larger, the docks, toolbar and menu bar out of the way, so the fabric (with its notes),
 * the summary numbers and the snapshot strip fill the screen. F5 toggles it, Esc leaves it;
 * Page Up and Page Down step through the snapshots. Leaving puts back the window, the docks and
 * the fonts exactly as they were. Every window action keeps its shortcut meanwhile.
 *
 * A stage, not a zoomed window: everything over the fabric (the parts' names, the notes, the
 * arrow labels, the legend) is drawn at a type size set by the screen and the room
 * (stagePixels(): a fortieth of the screen's height in a small room, more in a larger one),
 * the fabric fitted whole on entering and on every resize. A toolbar of its own chooses the
 * room (kept in QSettings "presentation/room"), the laser pointer (L) and clears the
 * spotlight of a group (SpotlightController; Esc clears it before leaving).
 */
class PresentationMode : public QObject
{
    Q_OBJECT

public:
    static constexpr double kFontScale = 1.5;
    /// The window's font scale on a screen `screenHeight` logical pixels high: kFontScale from
    /// a 720-line screen up, less below (a 960x540 logical screen, QT_SCALE_FACTOR=2 on
    /// 1920x1080: the summary's columns would not fit its width), never under 1.
    static double fontScale(int screenHeight);

    /// The room the screen is shown in: how far its back row sits, in screen heights.
    enum class Room { Small, Medium, LargeHall };
    /// Type size over the fabric as a fraction of the screen's height in a small room: 1/40
    /// gives 18 px on a 720-line screen, the floor for a room (and about the body text
    /// of a slide: 40 lines a screen is the most a projected page is read at).
    static constexpr double kScreenLines = 40.0;
    /// Each room's factor over the small room's size: a medium room's back row is ~1.25 times,
    /// a lecture hall's ~1.6 times as far, and type grows with the distance it is read from.
    static double roomFactor(Room room);
    static QString roomName(Room room);
    explicit PresentationMode(MainWindow *window);

    bool isActive() const { return m_active; }
    QAction *toggleAction() const { return m_toggle; }
    void setActive(bool on);

    Room room() const { return m_room; }
    /// `remember`: kept in QSettings for the next start.
    void setRoom(Room room, bool remember = true);
    /// The stage's type size for a screen `screenHeight` logical pixels high, in this room.
    double stagePixels(int screenHeight) const;
    /// The room's choices (a menu of checkable actions), for the View menu and the toolbar.
    QMenu *roomMenu() const { return m_roomMenu; }
    QAction *laserAction() const { return m_laser; }
    LaserPointer *laserPointer() const { return m_laserPointer; }
    SpotlightController *spotlight() const { return m_spotlight; }
    /// The toolbar shown while presenting (room, laser, spotlight), or null before the first time.
    QToolBar *toolBar() const { return m_toolBar; }
Q_SIGNALS:
    void activeChanged(bool active);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void enter();
    void leave();
    void applyStage();

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
    Room m_room = Room::Small;
    QMenu *m_roomMenu = nullptr;
    QActionGroup *m_roomGroup = nullptr;
    QAction *m_laser = nullptr;
    LaserPointer *m_laserPointer = nullptr;
    SpotlightController *m_spotlight = nullptr;
    QToolBar *m_toolBar = nullptr;
};

} // namespace railyard
