#pragma once

#include "scenario/scenario.h"

#include <string>
#include <vector>

namespace railyard {

class Fabric;

/** The free servers of one leaf group or NVLink domain. */
struct FreeBlock
{
    std::string name; ///< the leaf ("tor-2") or the domain ("rack0")
    int servers = 0; ///< servers in the block
    int freeServers = 0;
    /// The longest run of free servers with consecutive indices inside the block.
    int largestRun = 0;
};

/**
 * How fragmented the free part of a shared fabric is, for a job of `serversPerJob` servers
 * (docs/shared-fabric.md, "Place a new job"): the free servers, per leaf group (the servers
 * whose first NIC sits on one leaf: a ToR, or a rail-optimised scalable unit's rail-0 leaf) and
 * per NVLink domain of more than one server, the longest run of consecutive free servers, and
 * how many more jobs of that size still fit, anywhere and each inside one leaf group.
 */
struct Fragmentation
{
    int serversPerJob = 0;
    int freeServers = 0;
    int largestRun = 0; ///< over the leaf groups
    std::vector<FreeBlock> leaves;
    std::vector<FreeBlock> domains; ///< empty when every NVLink domain is one server
    int jobsFit = 0; ///< floor(freeServers / serversPerJob): the jobs that fit anywhere
    int jobsFitInOneLeaf = 0; ///< sum over leaf groups of floor(free there / serversPerJob)
};

/// Per server, true when every GPU slot of it is usable (no failure, cabled) and no job holds
/// it: a scenario with jobs, its jobs' slots; a single-job scenario, its `slots`.
std::vector<char> freeServers(const Fabric &fabric, const Scenario &scenario);

/// The fragmentation of `serverFree` (one flag per server of `fabric`).
Fragmentation fragmentation(
    const Fabric &fabric, const std::vector<char> &serverFree, int serversPerJob);

/// A few lines for a report: free servers, the leaf groups and domains with free servers, and
/// how many more jobs of the size fit.
std::string fragmentationText(const Fragmentation &f);

} // namespace railyard
