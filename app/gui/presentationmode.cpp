#include "presentationmode.h"

#include "fabricview.h"
#include "mainwindow.h"
#include "snapshotstrip.h"

#include <QAction>
#include <QDockWidget>
#include <QMenuBar>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>

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

    // Only while presenting: Esc leaves, the page keys (a presenter's clicker) step snapshots.
    m_leave = new QAction(tr("Leave Presentation Mode"), window);
    m_leave->setObjectName(QStringLiteral("actionLeavePresentation"));
    m_leave->setShortcut(QKeySequence(Qt::Key_Escape));
    m_leave->setEnabled(false);
    connect(m_leave, &QAction::triggered, this, [this] { setActive(false); });
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
    for (QToolBar *bar : m_window->findChildren<QToolBar *>(QString(), Qt::FindDirectChildrenOnly))
        bar->setVisible(bar == m_window->snapshotStrip());
    m_window->menuBar()->hide();
    m_window->statusBar()->hide();
    QFont big = m_font;
    big.setPointSizeF(m_font.pointSizeF() * kFontScale);
    m_window->setFont(big);
    m_leave->setEnabled(true);
    m_previous->setEnabled(true);
    m_next->setEnabled(true);
    m_window->showFullScreen();
    // Once the full-screen geometry arrives: the whole fabric, large.
    QTimer::singleShot(0, m_window, [this] { m_window->fabricView()->fitAll(); });
    m_window->fabricView()->showNotice(tr("Presentation mode: F5 or Esc leaves, Page Up / Page Down step "
                                          "through the snapshots"));
}

void PresentationMode::leave()
{
    m_active = false;
    m_leave->setEnabled(false);
    m_previous->setEnabled(false);
    m_next->setEnabled(false);
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
    QTimer::singleShot(0, m_window, [this] { m_window->fabricView()->fitDefault(); });
}

} // namespace railyard
