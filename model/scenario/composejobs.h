#pragma once

#include "scenario/scenario.h"

#include <string>
#include <vector>

namespace railyard {

/** One single-job scenario to put on a shared fabric, on the servers it takes. */
struct ComposeJob
{
    std::string source; ///< what names it in errors: "a.json@0-3"
    Scenario scenario; ///< a single-job scenario (no jobs of its own)
    std::vector<int> servers; ///< in order; its ranks are packed on their GPUs
};

/// "0-3,8-11" -> {0,1,2,3,8,9,10,11}: servers, each below `servers`, none twice. ScenarioError
/// naming `source` for a malformed list.
std::vector<int> parseServerList(const std::string &text, int servers, const std::string &source);

/// The first field in which two fabrics differ, as a scenario file writes it ("servers",
/// "nic_gbps"), with both values: "fabric.servers: 16 here, 32 in the fabric file"; "" when
/// they agree.
std::string fabricDifference(const FabricSpec &job, const FabricSpec &shared);

/**
 * The scenario `railyard-cli compose` writes (docs/shared-fabric.md): `fabricFile`'s fabric,
 * device, failures, collectives and calibration, with one job per entry, its ranks packed in
 * rank order on the GPUs of its servers (server by server, GPU by GPU). Each job's fabric must
 * agree with the shared one; a job whose servers hold too few GPUs, a job file that already
 * holds jobs, or two jobs on one server are refused naming the job's source.
 */
Scenario composeJobs(const Scenario &fabricFile, const std::vector<ComposeJob> &jobs);

} // namespace railyard
