#include "spotlightcontroller.h"

#include "colorscale.h"
#include "document/scenariodocument.h"
#include "fabricview.h"
#include "layout/parallellayout.h"
#include "mainwindow.h"

#include <QAction>
#include <QMenu>

#include <algorithm>

namespace railyard {

namespace {

GroupKind groupKindOf(Dim dim)
{
    switch (dim) {
    case Dim::Tp:
        return GroupKind::Tp;
    case Dim::Pp:
        return GroupKind::Pp;
    case Dim::Dp:
        return GroupKind::Dp;
    case Dim::Ep:
        return GroupKind::Ep;
    case Dim::Cp:
        return GroupKind::Cp;
    }
    return GroupKind::Tp;
}

} // namespace

SpotlightController::SpotlightController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_clear = new QAction(tr("Clear Spotlight"), this);
    m_clear->setObjectName(QStringLiteral("actionClearSpotlight"));
    m_clear->setEnabled(false);
    connect(m_clear, &QAction::triggered, this, &SpotlightController::clear);
    // The lit routes were the old mapping's.
    connect(
        window->document(), &ScenarioDocument::mappingChanged, this, &SpotlightController::clear);
    connect(
        window->document(), &ScenarioDocument::scenarioChanged, this, &SpotlightController::clear);
}

bool SpotlightController::isActive() const
{
    return m_window->fabricView()->hasSpotlight();
}

void SpotlightController::extendMenu(QMenu *menu, int rank)
{
    const ParallelLayout &layout = m_window->document()->engine().layout();
    if (rank < 0 || rank >= layout.worldSize())
        return;
    menu->addSeparator();
    for (const Dim dim : { Dim::Tp, Dim::Pp, Dim::Dp }) {
        const auto &groups = layout.groups(groupKindOf(dim));
        if (groups.empty() || groups.front().size() < 2)
            continue;
        const bool lit = isActive() && m_rank >= 0 && m_rank < layout.worldSize() && m_dim == dim
            && layout.groupOf(groupKindOf(dim), m_rank) == layout.groupOf(groupKindOf(dim), rank);
        QAction *a = menu->addAction(tr("Spotlight Its %1 Group").arg(ColorScale::dimLabel(dim)));
        a->setObjectName(QStringLiteral("actionSpotlight%1").arg(ColorScale::dimLabel(dim)));
        a->setCheckable(true);
        a->setChecked(lit); // the same entry again clears it
        connect(a, &QAction::triggered, this, [this, rank, dim, lit] {
            if (lit)
                clear();
            else
                spotlight(rank, dim);
        });
    }
    if (isActive())
        menu->addAction(m_clear);
}

bool SpotlightController::spotlight(int rank, Dim dim)
{
    ScenarioDocument *doc = m_window->document();
    doc->waitForEvaluation();
    const ParallelLayout &layout = doc->engine().layout();
    if (rank < 0 || rank >= layout.worldSize() || layout.worldSize() != doc->mapping().rankCount())
        return false;
    const GroupKind kind = groupKindOf(dim);
    const auto &groups = layout.groups(kind);
    if (groups.empty() || groups.front().size() < 2)
        return false;
    const std::span<const int> members
        = groups[static_cast<std::size_t>(layout.groupOf(kind, rank))];
    std::vector<int> slots, links;
    const unsigned bit = 1u << index(dim);
    for (const int member : members) {
        slots.push_back(doc->mapping().slotOf(member));
        // The routes the engine planned for this dimension (its collective's, not every pair).
        for (const auto &[link, dims] : doc->partnerRoutes(member).links)
            if (dims & bit)
                links.push_back(link);
    }
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    m_window->fabricView()->setSpotlight(slots, links, ColorScale::dimColour(dim));
    m_rank = rank;
    m_dim = dim;
    m_caption = tr("%1 group of rank %2 (%3 ranks)")
                    .arg(ColorScale::dimLabel(dim))
                    .arg(rank)
                    .arg(members.size());
    m_clear->setEnabled(true);
    m_window->fabricView()->showNotice(tr("Spotlight: %1 · Esc clears it").arg(m_caption));
    return true;
}

void SpotlightController::spotlightParts(const std::vector<int> &slots,
    const std::vector<int> &links, const QColor &colour, const QString &caption)
{
    m_window->fabricView()->setSpotlight(slots, links, colour);
    m_rank = -1; // no rank's group: the menu's entries stay unchecked
    m_caption = caption;
    m_clear->setEnabled(true);
    m_window->fabricView()->showNotice(tr("Spotlight: %1 · Esc clears it").arg(m_caption));
}

void SpotlightController::clear()
{
    if (!m_clear->isEnabled() && !isActive())
        return;
    m_window->fabricView()->clearSpotlight();
    m_rank = -1;
    m_caption.clear();
    m_clear->setEnabled(false);
}

} // namespace railyard
