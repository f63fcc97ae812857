#pragma once

#include <QObject>
#include <QPointer>

#include "findbar.h"
#include "welcomepanel.h"

class QAction;

namespace railyard {

class MainWindow;

/**
 * The first start and the ways to what the window holds: the welcome panel (on a first start
 * with a fresh settings folder, and Help > Welcome) and its three tries, the Lessons button on
 * the toolbar, Find (Ctrl+F, Edit > Find) with "go to bottleneck", and a click on the summary
 * bar's bottleneck name going to that link. Adds its actions to the window's menus and toolbar
 * (objectNames actionWelcome, actionShowLessons, actionFind, actionGoToBottleneck).
 */
class GuideController : public QObject
{
    Q_OBJECT

public:
    explicit GuideController(MainWindow *window);

    /// Shows the welcome panel (Help > Welcome), creating it on first use.
    WelcomePanel *showWelcome();
    /// On a first start (WelcomePanel::showAtStart()), shows the panel; true when shown.
    bool showWelcomeIfFirstStart();
    WelcomePanel *welcomePanel() const { return m_welcome; }
    FindBar *findBar() const { return m_find; }

    /// The welcome panel's tries, callable without it.
    void tryDrag(); ///< highlights a rank to drag and says where to drop it
    void tryLessons(); ///< raises the Lessons panel
    void tryCompare(); ///< pins the document as baseline A and raises Compare

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void addActions();

    MainWindow *m_window;
    QPointer<FindBar> m_find; ///< the fabric view's child: gone with it
    /// The summary bar's bottleneck name, a link to the bottleneck: compared with an event
    /// filter's object only (while the window closes, the label sees events after the bar's
    /// destructor and its own have begun, when a cast to QLabel is no longer valid).
    const QObject *m_bottleneck = nullptr;
    QPointer<WelcomePanel> m_welcome;
};

} // namespace railyard
