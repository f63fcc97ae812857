#pragma once

#include <QRect>
#include <QSize>
#include <QString>

#include <vector>

class QDockWidget;
class QMainWindow;
class QScreen;

namespace railyard {

/**
 * Where the main window and its docks go on a given screen, from 1280x720 to 4K and at scale
 * factors 1 to 2 (logical sizes down to 960x540). The window opens inside the screen's
 * available area; side panels go right (with the rank palette tabbed in when the window is
 * narrow), the timeline, charts and studies tab at the bottom where they have the width; every
 * panel gets a share of the window between readable bounds. Saved window states are kept per
 * screen (its logical size and pixel ratio), so a laptop's layout never lands on a projector.
 */
class WindowLayout
{
public:
    /// The docks, by role (any may be null).
    struct Docks
    {
        QDockWidget *ranks = nullptr;
        QDockWidget *inspector = nullptr;
        QDockWidget *lessons = nullptr;
        std::vector<QDockWidget *> bottom; ///< timeline first, then charts and the studies
    };

    /// Below this window width the rank palette joins the right-hand tab group.
    static constexpr int kCompactWidth = 1500;

    /// Screens up to this tall (available area) open the first window maximised.
    static constexpr int kShortScreenHeight = 800;
    /// The first-launch window rectangle on a screen whose available area is `available`:
    /// 90 % of it up to 1680x1050, centred, never larger than the area (on a short screen the
    /// window's size when it is no longer maximised).
    static QRect firstLaunchGeometry(const QRect &available);
    /// Whether the first launch opens maximised on this available area (kShortScreenHeight).
    static bool opensMaximised(const QRect &available);
    /// The available area of the screen `window` is on (the primary screen before it is shown).
    static QRect availableGeometry(const QMainWindow *window);
    /// "1920x1080@2": the key a window state is saved under for this screen.
    static QString screenKey(const QScreen *screen);

    /// Puts the docks into their areas and tab groups for a window of `size`.
    static void arrange(QMainWindow *window, const Docks &docks, const QSize &size);
    /// Sizes the side and bottom areas for the window's current size (after it is laid out).
    static void sizeDocks(QMainWindow *window, const Docks &docks);
    /// Moves a restored geometry back inside `available` (a screen that shrank, a scale that grew).
    static QRect clampedTo(const QRect &geometry, const QRect &available);
};

} // namespace railyard
