#pragma once

#include "base/units.h"
#include "optimise/objective.h"
#include "scenario/scenario.h"

#include <string>
#include <vector>

namespace railyard {

/** The objectives and the figures beside them, of one mapping. */
struct ObjectiveFigures
{
    double iteration = 0.0; ///< seconds
    double spineBytes = 0.0; ///< per iteration
    double p99Busy = 0.0; ///< seconds per iteration
    double maxBusy = 0.0; ///< seconds per iteration
    /// p99 iteration time over the hashed ECMP seeds (CostEngine::ecmp()); the iteration time
    /// under ideal routing
    double ecmpP99 = 0.0;
    double spineShare = 0.0; ///< leaf->spine bytes / NIC->leaf bytes
    int tpGroupsSplit = 0; ///< TP groups on more servers than they need
    int dpGroupsOffRail = 0; ///< DP groups on more than one rail (rail-optimised fabrics)

    double value(Objective o) const;
};

/** One dimension's cost before and after, from the engine's reports. */
struct DimensionChange
{
    Dim dim = Dim::Tp;
    double spineBefore = 0.0, spineAfter = 0.0; ///< bytes over spine-tier links
    double exposedBefore = 0.0, exposedAfter = 0.0; ///< critical-path seconds
};

/** How the groups of one kind within one stage sit before and after. */
struct GroupLocality
{
    GroupKind kind = GroupKind::Tp;
    int groups = 0;
    int oneServerBefore = 0, oneServerAfter = 0;
    int oneRailBefore = 0, oneRailAfter = 0; ///< rail-optimised fabrics only
    int oneLeafBefore = 0, oneLeafAfter = 0;
};

/**
 * One step of the replay that explains the result: the ranks of one pipeline stage move from
 * the start mapping to their new slots, after the earlier stages' ranks did. The objective
 * before and after the step is the engine's, so the steps add up to the whole change.
 */
struct StageStep
{
    int stage = 0;
    int ranksMoved = 0;
    double before = 0.0, after = 0.0; ///< the objective
    double iterationBefore = 0.0, iterationAfter = 0.0;
    double spineBefore = 0.0, spineAfter = 0.0;
    std::vector<GroupLocality> groups;
};

/** A constraint and how many drawn moves it refused. */
struct ConstraintCount
{
    std::string name;
    long long rejected = 0;
};

/** What `railyard-cli optimise` prints and writes. */
struct OptimiseResult
{
    Scenario scenario; ///< the input with the new mapping (explicit slots, version + 1)
    std::vector<int> startSlots; ///< rank -> slot where the search started (the options' start)
    OptimiseOptions options;
    ObjectiveFigures current; ///< the file's own mapping
    ObjectiveFigures start; ///< where the search started (--from)
    ObjectiveFigures result;
    bool improved = false; ///< the result beats the start on the objective (or ties and is faster)
    int ranksMoved = 0; ///< against the start
    long long proposed = 0, evaluated = 0, accepted = 0, improvements = 0;
    double seconds = 0.0;
    double movesPerSecond = 0.0;
    bool cancelled = false;
    std::vector<ConstraintCount> constraints; ///< most rejections first
    std::string binding; ///< the constraint that refused most moves, or "" when none refused any
    std::vector<DimensionChange> dims; ///< the dimensions the job has
    std::vector<StageStep> steps; ///< stages whose ranks moved
    std::vector<std::string> notes;
};

} // namespace railyard
