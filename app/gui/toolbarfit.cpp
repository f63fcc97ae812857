#include "toolbarfit.h"

#include <QEvent>
#include <QMainWindow>
#include <QToolBar>

namespace railyard {

ToolBarFit::ToolBarFit(QMainWindow *window)
    : QObject(window)
    , m_window(window)
{
    window->installEventFilter(this);
}

void ToolBarFit::fit()
{
    QToolBar *main = m_window->findChild<QToolBar *>(QStringLiteral("mainToolBar"));
    if (!main)
        return;
    // The width the top line's toolbars ask for, the main one with its words.
    const auto needed = [this](Qt::ToolButtonStyle style, QToolBar *mainBar) {
        const Qt::ToolButtonStyle was = mainBar->toolButtonStyle();
        mainBar->setToolButtonStyle(style);
        int width = 0;
        for (QToolBar *bar :
            m_window->findChildren<QToolBar *>(QString(), Qt::FindDirectChildrenOnly))
            if (!bar->isHidden() && m_window->toolBarArea(bar) == Qt::TopToolBarArea
                && !m_window->toolBarBreak(bar))
                width += bar->sizeHint().width();
        mainBar->setToolButtonStyle(was);
        return width;
    };
    // A few pixels for the toolbars' handles and the layout's margins.
    const int room = m_window->width() - 8;
    const Qt::ToolButtonStyle style = needed(Qt::ToolButtonTextBesideIcon, main) <= room
        ? Qt::ToolButtonTextBesideIcon
        : Qt::ToolButtonIconOnly;
    if (main->toolButtonStyle() != style)
        main->setToolButtonStyle(style);
}

bool ToolBarFit::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_window
        && (event->type() == QEvent::Resize || event->type() == QEvent::FontChange
            || event->type() == QEvent::Show))
        fit();
    return QObject::eventFilter(watched, event);
}

} // namespace railyard
