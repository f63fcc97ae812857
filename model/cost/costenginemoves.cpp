// Batch moves of the cost engine: several ranks re-placed in one step, the report refreshed
// when asked (for searches that undo most of their moves).
#include "cost/costengine.h"

#include "cost/costengineimpl.h"
#include "cost/rankmoves.h"
#include "fabric/failedcomponent.h"

#include <utility>

namespace railyard {

void CostEngine::moveRanks(const std::vector<std::pair<int, int>> &rankToSlot, bool refresh)
{
    if (!d->scenario.failures.empty() && d->usable.empty())
        d->usable = usableSlots(d->fabric, d->scenario.failures);
    const std::vector<int> ranks
        = checkRankMoves(d->mapping, d->layout.worldSize(), d->usable, rankToSlot);
    d->lastUndo.clear();
    if (rankToSlot.empty())
        return;
    for (const auto &[rank, slot] : rankToSlot)
        d->lastUndo.emplace_back(rank, d->mapping.slotOf(rank));
    d->traffic->beginMove(d->mapping, ranks);
    d->mapping.placeRanks(rankToSlot);
    d->traffic->endMove(d->mapping); // settles a deferred revert's patterns too
    d->trafficBehind = false;
    d->stale = true;
    if (refresh)
        this->refresh();
}

void CostEngine::revertMove(bool refresh)
{
    if (d->lastUndo.empty())
        return;
    const std::vector<std::pair<int, int>> undo = std::exchange(d->lastUndo, {});
    std::vector<int> ranks;
    ranks.reserve(undo.size());
    for (const auto &[rank, slot] : undo)
        ranks.push_back(rank);
    d->traffic->beginMove(d->mapping, ranks, true);
    d->mapping.placeRanks(undo);
    // A search that rejected a move reads nothing before its next move: the maxima of the
    // patterns both touch are settled once, with the next move's (TrafficModel::endMove()).
    d->traffic->endMove(d->mapping, refresh);
    d->trafficBehind = !refresh;
    d->stale = true;
    if (refresh)
        this->refresh();
}

void CostEngine::refresh()
{
    if (!d->stale && !d->partial)
        return;
    d->recompute(false); // after refreshFigures() no link changed since: only the rest is new
    d->stale = false;
}

void CostEngine::refreshFigures()
{
    if (!d->stale)
        return;
    d->recompute(false, false);
    d->stale = false;
}

} // namespace railyard
