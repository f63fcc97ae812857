#include "presentationmode.h"

#include "fabricview.h"
#include "laserpointer.h"
#include "mainwindow.h"
#include "snapshotstrip.h"
#include "spotlightcontroller.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QEvent>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

#include <algorithm>
#include <cmath>

namespace railyard {

PresentationMode::PresentationMode(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_toggle = new QAction(tr("&Presentation Mode"), window);
    m_toggle->setObjectName(QStringLiteral("actionPresentation"));
    m_toggle->setCheckable(true);
    m_toggle->setShortcut(QKeySequence(Qt::Key_F5));
    m_toggle->setStatusTip(tr("Full screen with large fonts and the docks hidden, for a room (F5 or Esc leaves)"));
    m_toggle->setToolTip(m_toggle->statusTip());
    connect(m_toggle, &QAction::toggled, this, &PresentationMode::setActive);
    window->addAction(m_toggle);

    // The room, kept between sessions.
    const int saved = QSettings().value(QStringLiteral("presentation/room"), 0).toInt();
    m_room = saved >= 0 && saved <= static_cast<int>(Room::LargeHall) ? static_cast<Room>(saved)
                                                                      : Room::Small;
    m_roomMenu = new QMenu(tr("&Room Size"), window);
    m_roomMenu->setObjectName(QStringLiteral("menuRoomSize"));
    m_roomGroup = new QActionGroup(this);
    for (const Room r : { Room::Small, Room::Medium, Room::LargeHall }) {
        QAction *a = m_roomMenu->addAction(roomName(r));
        a->setObjectName(QStringLiteral("actionRoom%1").arg(static_cast<int>(r)));
        a->setCheckable(true);
        a->setChecked(r == m_room);
        a->setStatusTip(tr("Presentation mode's type size for a %1").arg(roomName(r).toLower()));
        m_roomGroup->addAction(a);
        connect(a, &QAction::triggered, this, [this, r] { setRoom(r); });
    }

    // The laser pointer (L, while presenting) and the spotlight of a group.
    m_laserPointer = new LaserPointer(window->fabricView());
    m_laser = new QAction(tr("&Laser Pointer"), window);
    m_laser->setObjectName(QStringLiteral("actionLaserPointer"));
    m_laser->setCheckable(true);
    m_laser->setShortcut(QKeySequence(Qt::Key_L));
    m_laser->setStatusTip(tr("A red dot with a short trail follows the mouse over the fabric (L)"));
    m_laser->setToolTip(m_laser->statusTip());
    m_laser->setEnabled(false);
    connect(m_laser, &QAction::toggled, m_laserPointer, &LaserPointer::setEnabled);
    window->addAction(m_laser);
    m_spotlight = new SpotlightController(window);

    // Only while presenting: Esc clears a spotlight, else leaves; the page keys (a presenter's
    // clicker) step snapshots.
    m_leave = new QAction(tr("Leave Presentation Mode"), window);
    m_leave->setObjectName(QStringLiteral("actionLeavePresentation"));
    m_leave->setShortcut(QKeySequence(Qt::Key_Escape));
    m_leave->setEnabled(false);
    connect(m_leave, &QAction::triggered, this, [this] {
        if (m_spotlight->isActive())
            m_spotlight->clear();
        else
            setActive(false);
    });
    window->addAction(m_leave);
    m_previous = new QAction(tr("Previous Snapshot"), window);
    m_previous->setShortcut(QKeySequence(Qt::Key_PageUp));
    m_previous->setEnabled(false);
    connect(m_previous, &QAction::triggered, this, [this] { m_window->snapshotStrip()->step(-1); });
    window->addAction(m_previous);
    m_next = new QAction(tr("Next Snapshot"), window);
    m_next->setShortcut(QKeySequence(Qt::Key_PageDown));
    m_next->setEnabled(false);
    connect(m_next, &QAction::triggered, this, [this] { m_window->snapshotStrip()->step(+1); });
    window->addAction(m_next);
}

double PresentationMode::fontScale(int screenHeight)
{
    return std::clamp(kFontScale * screenHeight / 720.0, 1.0, kFontScale);
}

double PresentationMode::roomFactor(Room room)
{
    switch (room) {
    case Room::Small:
        return 1.0;
    case Room::Medium:
        return 1.25;
    case Room::LargeHall:
        return 1.6;
    }
    return 1.0;
}

QString PresentationMode::roomName(Room room)
{
    switch (room) {
    case Room::Small:
        return tr("Small Room");
    case Room::Medium:
        return tr("Medium Room");
    case Room::LargeHall:
        return tr("Large Hall");
    }
    return QString();
}

double PresentationMode::stagePixels(int screenHeight) const
{
    return std::round(roomFactor(m_room) * screenHeight / kScreenLines);
}

void PresentationMode::setRoom(Room room, bool remember)
{
    m_room = room;
    if (remember)
        QSettings().setValue(QStringLiteral("presentation/room"), static_cast<int>(room));
    for (QAction *a : m_roomGroup->actions())
        a->setChecked(
            a->objectName() == QStringLiteral("actionRoom%1").arg(static_cast<int>(room)));
    if (m_toolBar)
        if (auto *button = m_toolBar->findChild<QToolButton *>(QStringLiteral("roomButton")))
            button->setText(roomName(room));
    if (m_active)
        applyStage();
}

void PresentationMode::applyStage()
{
    if (!m_active)
        return;
    m_window->fabricView()->setStage(stagePixels(m_window->height()));
}

bool PresentationMode::eventFilter(QObject *watched, QEvent *event)
{
    // Full screen arrives after enter(), and a screen may change: the stage follows the size.
    if (watched == m_window && event->type() == QEvent::Resize && m_active)
        applyStage();
    return QObject::eventFilter(watched, event);
}

void PresentationMode::setActive(bool on)
{
    if (on == m_active) {
        m_toggle->setChecked(on);
        return;
    }
    if (on)
        enter();
    else
        leave();
    m_toggle->setChecked(on);
    Q_EMIT activeChanged(on);
}

void PresentationMode::enter()
{
    m_active = true;
    m_state = m_window->saveState();
    m_geometry = m_window->saveGeometry();
    m_windowState = m_window->windowState();
    m_fontSet = m_window->testAttribute(Qt::WA_SetFont);
    m_font = m_window->font();

    // The menu bar goes too: its actions stay reachable by their shortcuts from the window.
    for (QMenu *menu : m_window->menuBar()->findChildren<QMenu *>())
        m_window->addActions(menu->actions());
    for (QDockWidget *dock : m_window->findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly))
        if (dock->objectName() != QLatin1String("summaryDock"))
            dock->hide();
    if (!m_toolBar) {
        m_toolBar = new QToolBar(tr("Presentation"), m_window);
        m_toolBar->setObjectName(QStringLiteral("presentationToolBar"));
        m_toolBar->setMovable(false);
        auto *room = new QToolButton(m_toolBar);
        room->setObjectName(QStringLiteral("roomButton"));
        room->setText(roomName(m_room));
        room->setToolTip(tr("Room size: the type over the fabric grows with it"));
        room->setMenu(m_roomMenu);
        room->setPopupMode(QToolButton::InstantPopup);
        m_toolBar->addWidget(room);
        m_toolBar->addAction(m_laser);
        m_toolBar->addAction(m_spotlight->clearAction());
        m_window->addToolBar(Qt::TopToolBarArea, m_toolBar);
    }
    for (QToolBar *bar : m_window->findChildren<QToolBar *>(QString(), Qt::FindDirectChildrenOnly))
        bar->setVisible(bar == m_window->snapshotStrip() || bar == m_toolBar);
    m_window->menuBar()->hide();
    m_window->statusBar()->hide();
    QFont big = m_font;
    const QScreen *screen = m_window->screen();
    big.setPointSizeF(m_font.pointSizeF() * fontScale(screen ? screen->geometry().height() : 720));
    m_window->setFont(big);
    m_leave->setEnabled(true);
    m_previous->setEnabled(true);
    m_next->setEnabled(true);
    m_laser->setEnabled(true);
    m_window->installEventFilter(this);
    m_window->showFullScreen();
    applyStage();
    // Once the full-screen geometry arrives: the whole fabric, at the screen's sizes.
    QTimer::singleShot(0, m_window, [this] { applyStage(); });
    m_window->fabricView()->showNotice(tr("Presentation mode: F5 or Esc leaves, Page Up / Page Down step "
                                          "through the snapshots"));
}

void PresentationMode::leave()
{
    m_active = false;
    m_leave->setEnabled(false);
    m_previous->setEnabled(false);
    m_next->setEnabled(false);
    m_laser->setChecked(false);
    m_laser->setEnabled(false);
    m_spotlight->clear();
    m_window->removeEventFilter(this);
    m_window->fabricView()->setStage(0.0);
    if (m_fontSet)
        m_window->setFont(m_font);
    else
        m_window->setFont(QFont()); // back to following the application font
    m_window->setAttribute(Qt::WA_SetFont, m_fontSet);
    m_window->menuBar()->show();
    m_window->statusBar()->show();
    if (m_windowState & Qt::WindowFullScreen)
        m_window->showFullScreen();
    else if (m_windowState & Qt::WindowMaximized)
        m_window->showMaximized();
    else
        m_window->showNormal();
    m_window->restoreGeometry(m_geometry);
    m_window->restoreState(m_state); // docks and toolbars as they were
    if (m_toolBar)
        m_toolBar->hide(); // made after the state was saved: restoreState() leaves it
    QTimer::singleShot(0, m_window, [this] { m_window->fabricView()->fitDefault(); });
}

} // namespace railyard
