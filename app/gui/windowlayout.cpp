#include "windowlayout.h"

#include <QDockWidget>
#include <QGuiApplication>
#include <QMainWindow>
#include <QScreen>

#include <algorithm>
#include <utility>

namespace railyard {

namespace {

// Share of the window each area gets, and the bounds that keep the panels readable and the
// fabric large enough for its detailed drawing.
constexpr double kSideShare = 0.26;
constexpr int kSideMin = 280, kSideMax = 440;
constexpr double kRanksShare = 0.18;
constexpr int kRanksMin = 240, kRanksMax = 340;
constexpr double kBottomShare = 0.30;
constexpr int kBottomMin = 170, kBottomMax = 340;

} // namespace

QRect WindowLayout::firstLaunchGeometry(const QRect &available)
{
    const int width = std::min(available.width(), std::min(1680, available.width() * 9 / 10));
    const int height = std::min(available.height(), std::min(1050, available.height() * 9 / 10));
    QRect r(0, 0, width, height);
    r.moveCenter(available.center());
    return r;
}

bool WindowLayout::opensMaximised(const QRect &available)
{
    // A short screen (a 1280x720 projector, a 1366x768 laptop) gives the first window all of
    // its room: at 90 % the fabric view lost the 70 pixels that show the spines above the
    // leaves and the first servers (tst_stagelayout's windowOpensOnTheWholePath).
    return available.height() <= kShortScreenHeight;
}

QRect WindowLayout::availableGeometry(const QMainWindow *window)
{
    const QScreen *screen = window->screen();
    if (!screen)
        screen = QGuiApplication::primaryScreen();
    return screen ? screen->availableGeometry() : QRect(0, 0, 1280, 720);
}

QString WindowLayout::screenKey(const QScreen *screen)
{
    if (!screen)
        return QStringLiteral("default");
    const QRect g = screen->geometry();
    return QStringLiteral("%1x%2@%3")
        .arg(g.width())
        .arg(g.height())
        .arg(screen->devicePixelRatio());
}

QRect WindowLayout::clampedTo(const QRect &geometry, const QRect &available)
{
    QRect r = geometry;
    r.setWidth(std::min(r.width(), available.width()));
    r.setHeight(std::min(r.height(), available.height()));
    if (r.right() > available.right())
        r.moveRight(available.right());
    if (r.bottom() > available.bottom())
        r.moveBottom(available.bottom());
    if (r.left() < available.left())
        r.moveLeft(available.left());
    if (r.top() < available.top())
        r.moveTop(available.top());
    return r;
}

void WindowLayout::arrange(QMainWindow *window, const Docks &docks, const QSize &size)
{
    // The side areas run the full height; the bottom tab group spans between them.
    window->setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    window->setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    const bool compact = size.width() < kCompactWidth;
    // Moving a dock between areas must not show one the user (or a study) hid.
    std::vector<std::pair<QDockWidget *, bool>> hidden;
    for (QDockWidget *d :
        window->findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly))
        hidden.emplace_back(d, d->isHidden() && d->testAttribute(Qt::WA_WState_ExplicitShowHide));
    if (docks.inspector) {
        window->addDockWidget(Qt::RightDockWidgetArea, docks.inspector);
        if (docks.ranks && compact) {
            window->addDockWidget(Qt::RightDockWidgetArea, docks.ranks);
            window->tabifyDockWidget(docks.inspector, docks.ranks);
        }
        if (docks.lessons) {
            window->addDockWidget(Qt::RightDockWidgetArea, docks.lessons);
            window->tabifyDockWidget(docks.inspector, docks.lessons);
        }
    }
    if (docks.ranks && (!compact || !docks.inspector))
        window->addDockWidget(Qt::LeftDockWidgetArea, docks.ranks);
    QDockWidget *first = docks.bottom.empty() ? nullptr : docks.bottom.front();
    for (QDockWidget *d : docks.bottom) {
        window->addDockWidget(Qt::BottomDockWidgetArea, d);
        if (d != first)
            window->tabifyDockWidget(first, d);
    }
    for (const auto &[dock, wasHidden] : hidden)
        if (wasHidden)
            dock->hide();
    // Re-adding a dock stacks it in its area before tabifyDockWidget() moves it into the tab
    // group; on a short screen that moment's minimum (the Ranks, Inspector and Lessons stacked)
    // is taller than the window and grows it. Tabbed, the minimum fits again: take the size back.
    if (window->size() != size)
        window->resize(size);
    if (docks.inspector)
        docks.inspector->raise();
    if (first)
        first->raise();
}

void WindowLayout::sizeDocks(QMainWindow *window, const Docks &docks)
{
    const QSize s = window->size();
    const int side = std::clamp(static_cast<int>(s.width() * kSideShare), kSideMin, kSideMax);
    if (docks.inspector) {
        if (docks.ranks && window->dockWidgetArea(docks.ranks) == Qt::LeftDockWidgetArea
            && docks.ranks->isVisible())
            window->resizeDocks({ docks.ranks, docks.inspector },
                { std::clamp(static_cast<int>(s.width() * kRanksShare), kRanksMin, kRanksMax),
                    side },
                Qt::Horizontal);
        else
            window->resizeDocks({ docks.inspector }, { side }, Qt::Horizontal);
    }
    if (!docks.bottom.empty())
        window->resizeDocks({ docks.bottom.front() },
            { std::clamp(static_cast<int>(s.height() * kBottomShare), kBottomMin, kBottomMax) },
            Qt::Vertical);
}

} // namespace railyard
