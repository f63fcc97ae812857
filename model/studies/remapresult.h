#pragma once

#include "layout/parallellayout.h"
#include "scenario/scenario.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

class CostEngine;

/**
 * How a job carries on after hardware fails (failureremap.h runs the strategies):
 *  - DropDp: keep tp, pp (and cp); drop whole data-parallel replicas, the ones the failure hit
 *    first, down to the largest dp whose TP groups still fit whole on servers;
 *  - Spares: keep every degree; move the TP groups hit by the failure to unused healthy slots;
 *  - ShrinkPp: keep tp and dp; the largest pp' < pp that splits the layers evenly and fits.
 */
enum class RemapStrategy { DropDp, Spares, ShrinkPp };
const std::vector<RemapStrategy> &allRemapStrategies();
std::string_view remapStrategyName(RemapStrategy s); ///< "drop-dp", "spares", "shrink-pp"
bool parseRemapStrategy(std::string_view name, RemapStrategy &out);
std::string_view remapStrategyDescription(RemapStrategy s); ///< one line for menus and --help

/**
 * The spares strategy as a hot-spare swap (remap --spare): each rank on failed hardware moves
 * alone onto a spare slot that keeps its TP group inside one NVLink (scale-up) domain and its
 * GPU on the rail its NIC had, so DP groups stay same-rail; every other rank stays. `part` names
 * the spare (server:S for its GPUs in order, gpu:N for one slot); none = the first free usable
 * slot that keeps both rules. Off (`use` false): the spares strategy moves hit TP groups whole.
 */
struct HotSpare
{
    bool use = false;
    std::optional<FailedComponent> part;
};

/** One rank of the healthy mapping and what the remap did to it (unchanged ranks not listed). */
struct RemappedRank
{
    enum class Kind { Moved, Renumbered, Dropped };
    Kind kind = Kind::Moved;
    int oldRank = -1;
    RankCoord oldCoord;
    int oldSlot = -1;
    bool oldSlotFailed = false; ///< the rank sat on a slot the failures made unusable
    int newRank = -1; ///< -1 when dropped
    RankCoord newCoord; ///< Renumbered: new coordinates on the same slot
    int newSlot = -1;
};
std::string_view remappedRankKindName(
    RemappedRank::Kind kind); ///< "moved", "renumbered", "dropped"

/** The headline numbers of one evaluated scenario, healthy or degraded, for a comparison. */
struct RemapSummary
{
    int ranks = 0;
    ParallelDegrees degrees;
    int globalBatch = 0;
    int microbatches = 0; ///< per replica per iteration
    double iterationTime = 0.0;
    double samplesPerSecond = 0.0; ///< global batch / iteration time
    double tokensPerSecond = 0.0; ///< samples/s x sequence length
    double bubble = 0.0;
    double mfu = 0.0;
    double maxMemoryPerRank = 0.0;
    /// The HBM the memory must fit, and the ledger held against it: the largest per rank on one
    /// device kind; with mixed devices the stage closest to its ranks' smallest HBM, whose device
    /// memoryDevice names (tightestMemory(), costreport.h).
    double deviceMemory = 0.0;
    double memoryUsed = 0.0;
    std::string memoryDevice; ///< "" on one device kind
    bool memoryFits = true;
    int tpGroupsAcrossServers = 0; ///< more servers than ceil(tp/G)
    int dpGroupsAcrossRails = 0; ///< rail-optimised fabrics only
    double spineShare = 0.0;
    double linkP99 = 0.0;
    double linkMax = 0.0;
    double stageImbalance = 1.0; ///< max / mean (forward + backward) time per stage
};

/**
 * One strategy's answer: the degraded scenario (a new mapping version with explicit slots on
 * usable slots only and the failures recorded), evaluated exactly as `evaluate` does, and what
 * changed: memory and balance per stage, TP groups forced across servers, the ranks moved,
 * renumbered and dropped. When `possible` is false only `reason` and `healthy` are meaningful.
 */
struct RemapResult
{
    RemapStrategy strategy = RemapStrategy::DropDp;
    bool possible = false;
    std::string reason; ///< one line, why the strategy cannot be applied
    Scenario degraded;
    RemapSummary healthy;
    RemapSummary result;
    std::vector<double> stageMemory; ///< bytes per rank of each stage (the engine's ledger)
    std::vector<int> stageLayers; ///< layers per stage (all chunks)
    double memoryGrowth = 1.0; ///< result max bytes per rank / healthy max
    double layerImbalance = 1.0; ///< max / mean layers per stage
    double computeImbalance = 1.0; ///< max / mean (forward + backward) time per stage
    std::vector<std::string> tpGroupsAcross; ///< "tp group 3 (d 0, p 1): node004, node005"
    int ranksUnchanged = 0;
    int ranksMoved = 0;
    int ranksRenumbered = 0;
    int ranksDropped = 0;
    int ranksOnFailedSlots = 0; ///< healthy ranks the failures hit
    std::vector<RemappedRank> moves; ///< in healthy rank order
    std::vector<std::string> notes; ///< what changed beyond the mapping, and why
};

/// The headline numbers of an evaluated scenario (healthy or degraded).
RemapSummary remapSummary(const CostEngine &engine);
/// TP groups on more servers than they need (ceil(tp / G)), one line each:
/// "tp group 3 (d 0, p 1): node004, node005".
std::vector<std::string> splitTpGroups(const CostEngine &engine);
/// max / mean of per-stage values: 1 for a balanced pipeline (and for no or all-zero values).
double maxOverMean(const std::vector<double> &values);

} // namespace railyard
