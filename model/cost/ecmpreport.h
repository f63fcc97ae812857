#pragma once

#include "fabric/ecmprouting.h"

#include <vector>

namespace railyard {

/** One link equal-cost paths share, under hashed or adaptive ECMP (CostEngine::ecmp()). */
struct EcmpLinkFigure
{
    int link = -1;
    double idealBytes = 0.0; ///< per iteration, the even split (ideal mode)
    double expectedBytes = 0.0; ///< the mean over the seeds
    double p99Bytes = 0.0; ///< the 99th percentile over the seeds
    double worstBytes = 0.0; ///< in the worst seed (the one with the longest iteration)
    int flows = 0; ///< queue pairs hashed onto it in the worst seed
    /// The other ECMP links out of the same switch and tier (its siblings), and in the worst
    /// seed their mean bytes per iteration and queue pairs.
    int siblings = 0;
    double siblingMeanBytes = 0.0;
    double siblingMeanFlows = 0.0;
    /// Hot by collision: in the worst seed it carries at least kCollisionRatio times its even
    /// share and more than its siblings' mean (hot by design: its even share is high already).
    bool collision = false;
    /// Half again its even share: a link past it carries a whole extra flow of two, the least
    /// collision two paths can show; below it hashing has only jittered the split.
    static constexpr double kCollisionRatio = 1.5;
};

/** What hashed or adaptive ECMP does to the current mapping (CostEngine::ecmp()). */
struct EcmpReport
{
    EcmpRouting routing;
    int worstSeed = -1; ///< index of the seed with the longest iteration
    double idealIterationTime = 0.0;
    double expectedIterationTime = 0.0;
    double p99IterationTime = 0.0;
    std::vector<double> iterationTimes; ///< per seed (adaptive: one)
    double idealDpSyncTime = 0.0, expectedDpSyncTime = 0.0, p99DpSyncTime = 0.0;
    /// Per op of the workload plan (the report's phases, in plan order): one run's time.
    struct Op
    {
        double ideal = 0.0, expected = 0.0, p99 = 0.0;
    };
    std::vector<Op> ops;
    /// The busiest ECMP link's bytes per iteration: ideal, mean and p99 over seeds.
    double idealMaxLinkBytes = 0.0, expectedMaxLinkBytes = 0.0, p99MaxLinkBytes = 0.0;
    /// The largest link utilisation (busy time / iteration time) any seed reaches; never
    /// above 1 (each seed's iteration lasts at least its busiest link's busy time).
    double maxUtilisation = 0.0;
    /// Every link the ECMP choice loads, the highest p99 first.
    std::vector<EcmpLinkFigure> links;
};

} // namespace railyard
