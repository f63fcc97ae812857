#pragma once

#include "base/units.h"

#include <string>
#include <vector>

namespace railyard {

/**
 * Fitted values for one fabric tier (and one collective algorithm, or all of them), from
 * measured nccl-tests runs (cost/calibrationfit.h). The engine (cost/nccltuning.h) uses them in
 * place of its defaults: `stepLatencyUs` is the per-step start-up α of the steps a chain takes
 * at this tier (scale-up steps for `scale_up`; the network steps of chains whose farthest hop
 * reaches this tier otherwise), in place of the fabric's hop latency; `bandwidthScale`
 * multiplies the achievable share of line rate (NCCL's protocol efficiency) of this tier's
 * links. A value below 0 is not calibrated.
 */
struct CalibratedTier
{
    Tier tier = Tier::ScaleUp;
    std::string algorithm; ///< a plan algorithm name ("ring", "nvls", ...); "" = every algorithm
    double stepLatencyUs = -1.0;
    double bandwidthScale = -1.0;
    /// The fitted achievable bandwidth per link of the tier, Gb/s (bandwidthScale x the default
    /// share x the line rate of the links it was fitted on): what the report shows.
    double bandwidthGbps = -1.0;
    double defaultStepLatencyUs = 0.0; ///< what the engine used before (for the report)
    double defaultBandwidthGbps = 0.0;
    int runs = 0;   ///< measured runs the values were fitted on
    int points = 0; ///< (run, size) measurements the fit kept (weight above 0)
    /// Root mean square of ln(predicted / measured) after the fit, over the kept measurements.
    double rmsResidual = 0.0;
    double maxResidual = 0.0; ///< the largest |ln(predicted / measured)| over all measurements
    double rSquared = 0.0;    ///< 1 - SSE / SST of ln(time) over the kept ones: goodness of fit
    bool operator==(const CalibratedTier &) const = default;
};

/** One measured size of a run: what nccl-tests printed and what the engine predicts. */
struct CalibrationPoint
{
    long long bytes = 0;
    double measuredUs = 0.0;
    double defaultUs = 0.0;    ///< the engine without calibration
    double calibratedUs = 0.0; ///< the engine with the fitted values
    double weight = 1.0;       ///< the robust fit's final weight (small = treated as an outlier)
    bool operator==(const CalibrationPoint &) const = default;
};

/** One measured nccl-tests run matched to a group of the scenario. */
struct CalibrationRun
{
    std::string id;   ///< the nccl-plan run id, or the log's name
    std::string file; ///< the log it was read from (as given)
    std::string collective; ///< "all-reduce", ...
    std::vector<int> ranks; ///< the group, in member order
    Tier tier = Tier::ScaleUp; ///< the farthest tier its chain reaches
    Tier bottleneckTier = Tier::ScaleUp;
    std::string algorithm; ///< the algorithm the log names, "" = the engine's choice
    bool fitted = true; ///< false: matched and reported, but not used by the fit
    std::string note;   ///< why not fitted, or what to know about the run
    std::vector<CalibrationPoint> points;
    bool operator==(const CalibrationRun &) const = default;
};

/**
 * The scenario's "calibration" section: what was measured, when, on which run record, and
 * what the fit made of it. Empty `tiers` = not calibrated (the section is then absent).
 */
struct CalibrationSpec
{
    int version = 1; ///< of this section's layout
    std::string measuredAt; ///< when `calibrate` ran (ISO 8601, UTC), or the log's start time
    std::string fabricHash; ///< the run record's fabric hash the runs were matched on
    int mappingVersion = 0; ///< the run record's mapping version
    std::string ncclVersion; ///< as the logs print it, "" when they do not
    std::vector<CalibratedTier> tiers;
    std::vector<CalibrationRun> runs;
    bool empty() const { return tiers.empty(); }
    bool operator==(const CalibrationSpec &) const = default;
};

} // namespace railyard
