#pragma once

#include "studies/fabriccompare.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace railyard {

/**
 * What `railyard-cli fabric-search` enumerates and the constraints a design must meet. The
 * space is the product of the lists, less the combinations a kind does not have (a rail-only
 * fabric has no uplinks, so no oversubscription and no spine count; spine oversubscription
 * only where the fabric has three tiers).
 */
struct FabricSearchOptions
{
    std::vector<FabricKind> kinds { FabricKind::RailOptimised, FabricKind::Tor,
        FabricKind::RailOnly };
    /// 1 (non-blocking), 2 and 3: the ratios vendor designs offer for leaf uplinks (NVIDIA's
    /// SuperPOD is 1:1; 2:1 and 3:1 are the common oversubscribed Ethernet builds).
    std::vector<double> leafOversubscriptions { 1.0, 2.0, 3.0 };
    std::vector<double> spineOversubscriptions { 1.0 };
    /// 1 and 2 planes (Alibaba HPN's dual plane, SIGCOMM 2024); 8 (DeepSeek-V3) on request.
    std::vector<int> planes { 1, 2 };
    std::vector<int> spines { 0 }; ///< spines per pod; 0 = derived from the radix
    std::vector<double> nicGbps; ///< empty = the job's NIC speed only
    bool nvl72 = true; ///< add NVL72 racks where the job fits them (standardDesigns' rule)

    double maxSlowdown = 0.03; ///< against the non-blocking rail-optimised fabric; < 0 = none
    std::int64_t maxSwitches = 0; ///< 0 = no bound
    double maxCostUsd = 0.0; ///< capital cost of the whole fabric; 0 = no bound

    int shardIndex = 0; ///< this process evaluates designs i with i % shardCount == shardIndex
    int shardCount = 1;
    bool operator==(const FabricSearchOptions &) const = default;
};

/// The designs of the space, in a fixed order (kinds outermost, then NIC speed, planes, spines,
/// leaf and spine oversubscription); `job` decides whether spine oversubscription and NVL72
/// apply. Throws ScenarioError for an empty list or a value out of range, naming the option.
std::vector<FabricDesign> enumerateFabricDesigns(
    const Scenario &job, const FabricSearchOptions &options);

/** A fabric search, or one shard of it. */
struct FabricSearchResult
{
    FabricSearchOptions options;
    std::string jobName; ///< the scenario's name
    /// A job mix's job names, in file order (empty for a single job); with `overlap`, the
    /// assumption the jobs share links under.
    std::vector<std::string> mixJobs;
    std::string overlap;
    std::vector<double> baselineSeconds; ///< per job, non-blocking rail-optimised
    std::int64_t enumerated = 0; ///< designs in the whole space
    std::vector<int> shards; ///< the shards this result holds
    std::vector<FabricDesignResult> rows; ///< every design of those shards, by index
    std::string catalogueName;
};

/// Whether an evaluated row meets the options' slowdown, switch and cost bounds.
bool meetsFabricConstraints(const FabricDesignResult &row, const FabricSearchOptions &options);

/// The cheapest row that meets the constraints (capital cost, then iteration time, then index);
/// none when no row does.
std::optional<std::size_t> cheapestMeeting(const FabricSearchResult &result);

/// Evaluates this shard's designs for the job or job mix (fabricJobsOf()).
FabricSearchResult searchFabrics(const FabricJobs &jobs, const FabricSearchOptions &options);

/// Joins the shards' parts into the whole search's result; refuses parts of different searches
/// and names missing or repeated shards ("part N" names the part).
FabricSearchResult mergeFabricSearches(const std::vector<FabricSearchResult> &parts);

} // namespace railyard
