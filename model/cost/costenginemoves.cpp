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
    const int slots = d->fabric.slotCount();
    if (!d->scenario.failures.empty() && d->usable.empty())
        d->usable = usableSlots(d->fabric, d->scenario.failures);
    const std::vector<int> ranks
        = checkRankMoves(d->mapping, d->layout.worldSize(), d->usable, rankToSlot);
    if (rankToSlot.empty())
        return;
    std::vector<int> next = d->mapping.slots();
    for (const auto &[rank, slot] : rankToSlot)
        next[static_cast<std::size_t>(rank)] = slot;
    d->traffic->beginMove(d->mapping, ranks);
    d->mapping = Mapping(std::move(next), slots);
    d->traffic->endMove(d->mapping);
    d->stale = true;
    if (refresh)
        this->refresh();
}

void CostEngine::refresh()
{
    if (!d->stale)
        return;
    d->recompute(false);
    d->stale = false;
}

} // namespace railyard
