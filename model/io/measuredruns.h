#pragma once

#include "cost/calibrationfit.h"
#include "io/nccltestslog.h"

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

/** One run of the scenario's nccl-tests measurement plan (`export --format nccl-plan`). */
struct PlanRun
{
    std::string id; ///< the plan's run name; its log is $RESULTS/<id>.log
    Collective op = Collective::AllReduce;
    long long bytes = 0;
    int groups = 1; ///< > 1: every group of its kind at once ("-all" runs)
    std::vector<std::vector<int>> members; ///< the groups, global ranks in member order
};

/// The plan's runs, in the plan's order (export/ncclplan.h's JSON form, read back).
std::vector<PlanRun> ncclPlanRuns(const CostEngine &engine);

/** How the user ties a log to a run (`--run ID=FILE`): a plan run id, or an explicit group. */
struct RunBinding
{
    std::string file;
    std::string id;         ///< a plan run id, or the label of `ranks`
    std::vector<int> ranks; ///< non-empty: this group of global ranks instead of a plan run
};

/**
 * Ties each log to a group of the scenario: its binding when one names the file (or, for one
 * table of a file of several, "FILE#BINARY" as NcclTestsLog::name has it), else the plan
 * run whose id is the file's name without directory and extension (the plan writes
 * $RESULTS/<id>.log; for a file of several tables, the table of that run's collective), else the one single-group plan run of the log's collective whose size the
 * log's command line sweeps alone (-b N -e N). Checks the log against the run: the collective
 * the log's binary runs (mixed ops) and the rank count it lists. Runs of every group at once are
 * kept with fit = false (the fit takes one group alone). NCCL_ALGO in the log forces the
 * algorithm (Ring, Tree, NVLS / NVLSTree, PAT). Throws ScenarioError(file, ...) naming the
 * problem and the plan's run ids when a log matches nothing.
 */
std::vector<MeasuredRun> matchMeasuredRuns(const CostEngine &engine,
    const std::vector<NcclTestsLog> &logs, const std::vector<RunBinding> &bindings);

/// The algorithm a NCCL_ALGO value forces, if it names exactly one Railyard models.
std::optional<CollectiveAlgorithm> algorithmOfNcclAlgo(const std::string &value);

} // namespace railyard
