#pragma once

#include "scenario/calibrationspec.h"
#include "scenario/collectivespec.h"
#include "workload/workloadplan.h"

#include <optional>
#include <string>
#include <vector>

namespace railyard {

class CostEngine;

/** One measured run, matched to a group of the scenario (io/measuredruns.h builds these). */
struct MeasuredRun
{
    std::string id;
    std::string file;
    Collective op = Collective::AllReduce;
    std::vector<int> ranks; ///< the group, global ranks in member order
    /// The algorithm the run was forced to (NCCL_ALGO); unset = the scenario's option.
    std::optional<CollectiveAlgorithm> algorithm;
    /// (bytes, seconds) per measurement; a size may appear twice (out-of-place and in-place).
    std::vector<std::pair<long long, double>> samples;
    bool fit = true; ///< false: report the run, do not fit on it (e.g. every group at once)
    std::string note;
};

/** Knobs of the robust fit. */
struct CalibrationFitOptions
{
    /// false: ordinary least squares on every size, nothing trimmed (for comparison)
    bool robust = true;
    /// Tukey's biweight constant in units of the residuals' robust scale: 4.685 gives 95 %
    /// efficiency at normal errors (Huber & Ronchetti, Robust Statistics, 2nd ed., 2009, s. 4.8).
    double tuning = 4.685;
    int maxIterations = 60;
    std::string measuredAt; ///< recorded as is
    std::string ncclVersion;
};

/**
 * Fits, per fabric tier and algorithm, the per-step start-up α and a factor on the achievable
 * bandwidth so that the engine's own time for each measured run (estimateCollective(), i.e.
 * NCCL's "latency + size / bandwidth" of cost/nccltuning.h: base + passes x (α x steps +
 * extras) + S x load / (B x efficiency)) matches the measurements. The runs are grouped by the
 * tier their chain reaches (scale-up first, so the network fits see the fitted scale-up α) and
 * by the algorithm they were forced to ("any" otherwise); each group's α is the reach tier's,
 * its bandwidth factor the bottleneck link's tier.
 *
 * Least squares on the relative residual r = ln(T_engine / T_measured) at the two limits of
 * T = α + S / B (Hockney): the sizes whose measured time is within 1.5 x the run's shortest
 * (latency-bound) and those whose measured busbw is at least 90 % of the run's best (the
 * plateau). The sizes in between - where NCCL hands over between protocols and its pipeline
 * fills, which the two-parameter form cannot follow - are trimmed (weight 0, residuals still
 * reported). Then the kept sizes again with Tukey's biweight at 4.685 x the robust scale
 * (1.4826 x the median absolute deviation) of the first residuals, an MM-estimate solved as
 * iteratively reweighted least squares (Holland & Welsch, "Robust regression using iteratively
 * reweighted least-squares", Commun. Stat. 6(9), 1977), so a stray slow row does not move the
 * fit. Each step is Gauss-Newton with Levenberg-Marquardt damping (Nocedal & Wright, Numerical
 * Optimization, 2nd ed., s. 10.3) on derivatives by finite differences of the engine itself.
 * A group whose runs measure fewer than two sizes fits only the parameter its points are most
 * sensitive to.
 *
 * Returns the section for the scenario (the tiers, and every run with its points: measured,
 * engine default, calibrated, final weight). Throws ScenarioError("runs", ...) when no run can
 * be fitted, and the engine's ScenarioError for a group outside the world.
 */
CalibrationSpec fitCalibration(
    CostEngine &engine, const std::vector<MeasuredRun> &runs, const CalibrationFitOptions &options = {});

/// The largest |calibrated / measured - 1| of a run's bus bandwidth at its bandwidth-bound
/// sizes (measured busbw at least 95 % of the run's best): the "within 5 %" figure.
double plateauBusbwError(const CalibrationRun &run);

} // namespace railyard
