#pragma once

#include "cost/costengine.h"
#include "cost/costreport.h"
#include "scenario/scenario.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

class Fabric;

/**
 * What the engine assumes about when the jobs of a shared fabric move their bytes
 * (docs/shared-fabric.md, "The overlap assumption"). The engine times each job's phases on its
 * own; nothing relates one job's clock to another's, so the share of a link a job gets is an
 * assumption, stated here and in every report:
 * - Worst: every job's phases overlap every other's. On a link k jobs use, each job's flows
 *   get 1/k of its bandwidth (max-min fair among greedy jobs).
 * - DutyCycle: a neighbour uses the link only the fraction of its iteration its traffic there
 *   is active, from the engine's own phase times (its busy time on the link over its iteration,
 *   alone on the fabric). That fraction is its demand; the job being timed is greedy, and the
 *   link is shared max-min fair (water-filling) among the demands.
 */
enum class PhaseOverlap { Worst, DutyCycle };

std::string_view phaseOverlapName(PhaseOverlap overlap); ///< "worst", "duty-cycle"
bool parsePhaseOverlap(std::string_view text, PhaseOverlap &overlap);

/** What one neighbour costs a job on one link. */
struct JobInterference
{
    int link = -1;
    int neighbour = -1; ///< index into SharedFabricReport::jobs
    /// How much longer the job's traffic on this link takes per iteration because the
    /// neighbour shares it: its busy time there at its share minus at the full bandwidth, the
    /// neighbour's part of it (in proportion to what the neighbour takes of the link). The
    /// iteration grows by at most this through this link (by this where the link sets the
    /// time of an exposed phase).
    double seconds = 0.0;
};

/** One job of a shared fabric: alone on the empty fabric and with its neighbours. */
struct JobReport
{
    std::string name;
    std::string colour;
    int ranks = 0;
    double aloneIterationTime = 0.0;
    double iterationTime = 0.0; ///< on the shared fabric
    int sharedLinks = 0; ///< links its traffic shares with a neighbour
    /// Per (link, neighbour), the largest first (ties: lower link, then lower neighbour).
    std::vector<JobInterference> interference;
    /// The engines behind the figures, kept rather than their reports copied (a 16,384-GPU
    /// fabric's report holds a load per link): the job alone on the fabric, and on its share of
    /// each link (the same engine when it shares none).
    std::shared_ptr<const CostEngine> aloneEngine;
    std::shared_ptr<const CostEngine> sharedEngine;

    const CostReport &alone() const { return aloneEngine->report(); }
    const CostReport &shared() const { return sharedEngine->report(); }

    double slowdown() const
    {
        return aloneIterationTime > 0.0 ? iterationTime / aloneIterationTime : 1.0;
    }
};

/** Every job of a scenario with jobs, and the fabric they share. */
struct SharedFabricReport
{
    PhaseOverlap overlap = PhaseOverlap::Worst;
    std::shared_ptr<const Fabric> fabric; ///< the fabric the jobs share (link names, bandwidths)
    std::vector<JobReport> jobs;
    int slots = 0; ///< GPU slots of the fabric
    int freeSlots = 0; ///< usable (not failed) and held by no job
    /// Per link (FabricLink::id): bytes per iteration summed over the jobs.
    std::vector<double> linkBytes;
    /// Per link: sum over the jobs of bytes / (bandwidth x the job's shared iteration time),
    /// the link's mean utilisation with every job running.
    std::vector<double> linkUtilisation;
    int bottleneckLink = -1; ///< the highest utilisation (-1 when no link carries bytes)
};

/// Evaluates every job of `scenario` (which must hold jobs) alone and on the shared fabric.
/// Throws ScenarioError for a job the single-job engine refuses, its field path prefixed with
/// the job's ("jobs[1].parallel").
SharedFabricReport evaluateJobs(
    const Scenario &scenario, PhaseOverlap overlap = PhaseOverlap::Worst);

/// The share of a link the job being timed gets (0 < share <= 1) and, per neighbour, the share
/// it takes: max-min fair (water-filling) between the greedy job and neighbours demanding
/// `demands` (fractions of the link, each > 0; 1 = greedy). Exposed for the tests.
double maxMinShare(const std::vector<double> &demands, std::vector<double> *taken = nullptr);

} // namespace railyard
