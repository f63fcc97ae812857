#include "guidecontroller.h"

#include "actionicons.h"
#include "document/scenariodocument.h"
#include "fabricview.h"
#include "findbar.h"
#include "lessoncontroller.h"
#include "mainwindow.h"
#include "studycontroller.h"
#include "summarybar.h"
#include "welcomepanel.h"

#include <QAction>
#include <QDockWidget>
#include <QEvent>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMouseEvent>
#include <QSettings>
#include <QStyle>
#include <QToolBar>

namespace railyard {

namespace {

/// The menu holding the action named `member` (MainActions names actions, not menus).
QMenu *menuWith(MainWindow *window, const QString &member)
{
    for (QAction *top : window->menuBar()->actions()) {
        if (QMenu *menu = top->menu())
            for (QAction *a : menu->actions())
                if (a->objectName() == member)
                    return menu;
    }
    return nullptr;
}

} // namespace

GuideController::GuideController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_find = new FindBar(window->document(), window->fabricView());
    connect(m_find.data(), &FindBar::statusMessage, window, &MainWindow::showStatus);
    // The summary bar's bottleneck name goes to the link (the bar keeps its own look).
    QLabel *bottleneck = window->summaryBar()->bottleneckLabel();
    bottleneck->setCursor(Qt::PointingHandCursor);
    bottleneck->installEventFilter(this);
    m_bottleneck = bottleneck;
    addActions();
}

void GuideController::addActions()
{
    const auto make = [this](const QString &name, const QString &text, const QString &tip) {
        auto *a = new QAction(text, m_window);
        a->setObjectName(name);
        a->setStatusTip(tip);
        a->setToolTip(tip);
        m_window->addAction(a); // its shortcut works with the menu bar hidden (presentation)
        return a;
    };

    QAction *find = make(QStringLiteral("actionFind"), tr("&Find…"),
        tr("Find a rank, (d,p,t), server, switch or link and go to it (Ctrl+F)"));
    find->setShortcut(QKeySequence::Find);
    find->setIcon(themedIcon("edit-find", QStyle::SP_FileDialogContentsView));
    connect(find, &QAction::triggered, m_find.data(), &FindBar::open);
    QAction *bottleneck = make(QStringLiteral("actionGoToBottleneck"), tr("Go to &Bottleneck"),
        tr("Select and centre the bottleneck link"));
    connect(bottleneck, &QAction::triggered, m_find.data(), &FindBar::goToBottleneck);
    if (QMenu *edit = menuWith(m_window, QStringLiteral("actionUndo"))) {
        edit->addSeparator();
        edit->addAction(find);
        edit->addAction(bottleneck);
    }

    QAction *lessons = make(QStringLiteral("actionShowLessons"), tr("&Lessons"),
        tr("Show the Lessons panel: short exercises the engine checks"));
    lessons->setIcon(themedIcon("help-contents", QStyle::SP_FileDialogInfoView));
    connect(lessons, &QAction::triggered, this, &GuideController::tryLessons);
    QAction *welcome = make(QStringLiteral("actionWelcome"), tr("&Welcome"),
        tr("What the window shows and three things to try"));
    connect(welcome, &QAction::triggered, this, &GuideController::showWelcome);
    if (QMenu *help = menuWith(m_window, QStringLiteral("actionHelp"))) {
        QAction *first = help->actions().value(1);
        help->insertAction(first, welcome);
        help->insertAction(first, lessons);
    }
    // First on the toolbar: a narrow window moves the last buttons into its » menu.
    if (auto *bar = m_window->findChild<QToolBar *>(QStringLiteral("mainToolBar"))) {
        QAction *before = bar->actions().value(0);
        bar->insertAction(before, lessons);
        bar->insertAction(before, find);
        bar->insertSeparator(before);
        if (QWidget *w = bar->widgetForAction(find))
            w->setProperty("toolButtonStyle", int(Qt::ToolButtonIconOnly));
    }
}

WelcomePanel *GuideController::showWelcome()
{
    if (!m_welcome) {
        m_welcome = new WelcomePanel(m_window);
        connect(m_welcome, &WelcomePanel::dragRequested, this, &GuideController::tryDrag);
        connect(m_welcome, &WelcomePanel::lessonsRequested, this, &GuideController::tryLessons);
        connect(m_welcome, &WelcomePanel::compareRequested, this, &GuideController::tryCompare);
    }
    m_welcome->show();
    m_welcome->raise();
    m_welcome->activateWindow();
    return m_welcome;
}

bool GuideController::showWelcomeIfFirstStart()
{
    if (!WelcomePanel::showAtStart(QSettings()))
        return false;
    showWelcome();
    return true;
}

void GuideController::tryDrag()
{
    ScenarioDocument *doc = m_window->document();
    const Mapping &mapping = doc->mapping();
    const Fabric &fabric = doc->engine().fabric();
    FabricView *view = m_window->fabricView();
    // Rank 1 and the first rank of the next server: on a rail-optimised fabric their NICs sit
    // on different rails, so the swap sends rank 1's tensor-parallel traffic over the spines.
    const int rank = mapping.rankCount() > 1 ? 1 : 0;
    view->fitAll(); // the spines and the servers in one picture
    view->selectRank(rank);
    const int server = fabric.serverOfSlot(mapping.slotOf(rank));
    const int target = fabric.servers() > 1
        ? mapping.rankAt(((server + 1) % fabric.servers()) * fabric.gpusPerServer())
        : -1;
    const QString text = target >= 0
        ? tr("Drag rank %1 (outlined) onto rank %2 on %3 and watch the spine links at the top "
             "change colour; Ctrl+Z puts it back")
              .arg(rank)
              .arg(target)
              .arg(QString::fromStdString(fabric.serverName((server + 1) % fabric.servers())))
        : tr("Drag rank %1 (outlined) onto another GPU slot and watch the links change colour; "
             "Ctrl+Z puts it back")
              .arg(rank);
    view->showNotice(text);
    m_window->showStatus(text);
    view->setFocus();
}

void GuideController::tryLessons()
{
    m_window->showPanel(m_window->lessons()->dock());
}

void GuideController::tryCompare()
{
    m_window->studies()->pinBaseline();
    m_window->showPanel(m_window->studies()->compareDock());
    m_window->fabricView()->showNotice(
        tr("This layout is baseline A. Now move a rank or apply a preset: the Compare panel "
           "shows every figure of A against the current layout"));
}

bool GuideController::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_bottleneck && event->type() == QEvent::MouseButtonRelease
        && static_cast<QMouseEvent *>(event)->button() == Qt::LeftButton && m_find) {
        m_find->goToBottleneck();
        return true;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace railyard
