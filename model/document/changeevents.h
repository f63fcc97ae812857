#pragma once

#include "document/rankmove.h"

#include <QMetaType>

#include <vector>

namespace railyard {

/**
 * The numbers on screen changed: which directed links' loads moved since the previous change
 * event (FabricLink ids), so that a view repaints only those. The iteration time, bottleneck
 * and percentiles are read from the report itself; a view that colours by utilisation (load
 * over iteration time) must also follow a change of the iteration time.
 */
struct ReportChange
{
    std::vector<int> links;
    bool allLinks = false; ///< everything may have changed (a rebuild, a new mapping)
    bool preview = false; ///< the report is a drag preview's; the document did not change
};

/**
 * Ranks moved on screen (an edit, its undo or redo): each moved rank with its old and new
 * slot, and the report change that came with it. Carries both, so a view syncs its chips and
 * recolours its links once per edit.
 */
struct MappingChange
{
    MovedRanks moves;
    bool allRanks = false; ///< any rank may have moved (a preset, a rebuild)
    ReportChange report;
};

} // namespace railyard

Q_DECLARE_METATYPE(railyard::ReportChange)
Q_DECLARE_METATYPE(railyard::MappingChange)
