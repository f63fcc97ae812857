#pragma once

#include "base/units.h"

#include <QObject>
#include <QString>

#include <vector>

class QAction;
class QColor;
class QMenu;

namespace railyard {

class MainWindow;

/**
 * The spotlight on one communication group of a rank (its TP, PP or DP group): the group's
 * ranks and the routes the engine planned for them (ScenarioDocument::partnerRoutes, the
 * dimension's own links) stay bright while the rest of the fabric is dimmed
 * (FabricView::setSpotlight). Chosen from a chip's context menu; the same entry, Clear
 * Spotlight or Esc (in presentation mode) clears it; an edit of the mapping clears it too
 * (the routes it showed are gone).
 */
class SpotlightController : public QObject
{
    Q_OBJECT

public:
    explicit SpotlightController(MainWindow *window);

    /// Adds "Spotlight Its TP / PP / DP Group" (dimensions of degree > 1) for `rank`, and
    /// "Clear Spotlight" while one is shown.
    void extendMenu(QMenu *menu, int rank);
    /// Lights `rank`'s group in `dim`; true when it has one (degree > 1).
    bool spotlight(int rank, Dim dim);
    /// Lights `slots` and `links` under `caption` (what waits on a slow part, docs/stragglers.md);
    /// Clear Spotlight, Esc or an edit clears it as any other.
    void spotlightParts(const std::vector<int> &slots, const std::vector<int> &links,
        const QColor &colour, const QString &caption);
    void clear();
    bool isActive() const;
    QAction *clearAction() const { return m_clear; }
    /// What is lit: "TP group of rank 3 (8 ranks)", or empty.
    QString caption() const { return m_caption; }

private:
    MainWindow *m_window;
    QAction *m_clear = nullptr;
    QString m_caption;
    int m_rank = -1;
    Dim m_dim = Dim::Tp;
};

} // namespace railyard
