#pragma once

#include "cost/costenginejobs.h"
#include "fabric/fabricspec.h"
#include "scenario/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace railyard {

/**
 * One fabric design to build under a job: the fabric parameters that change against the job's
 * own fabric. Everything a design does not name (servers, GPUs per server, NICs per server,
 * switch radix, link latencies, scale-up and PCIe links, routing) stays the job's, so two
 * designs differ only in what they name.
 */
struct FabricDesign
{
    FabricKind kind = FabricKind::RailOptimised;
    double leafOversubscription = 1.0; ///< leaf downlink : uplink (1 = non-blocking)
    double spineOversubscription = 1.0; ///< spine downlink : uplink (three tiers only)
    int planes = 1; ///< network planes (a NIC's ports split its bandwidth, fabricspec.h)
    int spines = 0; ///< spines per pod; 0 = derived from the radix, as `generate` does
    double nicGbps = 0.0; ///< one NIC's speed; 0 = the job's
    /// Servers per NVLink domain; 0 = the job's. An NVL72 design sets the device's rack trays.
    int scaleUpDomainServers = 0;
    bool operator==(const FabricDesign &) const = default;
};

/// "rail-optimised 2:1 leaves, 2 planes, 200G NICs": the design's name, its non-default
/// parameters only ("rail-optimised" alone is the non-blocking baseline).
std::string fabricDesignName(const FabricDesign &design);

/// The non-blocking rail-optimised design every slowdown is measured against.
FabricDesign baselineDesign();

/// The job's fabric with the design's parameters: the way `generate` builds a fabric kind from
/// its flags (the counts left at 0 derived by the builder, fabric.cpp), the job's servers and
/// links kept. A rail-optimised design keeps the job's servers per SU only when the job's
/// fabric was rail-optimised (else the generator's default, 32).
FabricSpec designFabricSpec(const FabricSpec &jobFabric, const FabricDesign &design);

/// The job on the design's fabric, re-placed the way `generate` places ranks: the explicit
/// slots of the job's mapping (if any) are dropped and its named placement (packed unless the
/// file says otherwise) places the ranks on the new fabric; failures name slots of the old
/// fabric, so they are dropped too.
///
/// A scenario with jobs (a job mix) keeps every job's slots instead: a design changes only the
/// network above the servers, never the servers or their GPUs (designFabricSpec() keeps
/// `servers` and `gpus_per_server`), and a slot is a (server, GPU) pair on every fabric kind
/// (Fabric::serverOfSlot), so each job stays on the same servers and GPUs. Were a design ever
/// to change the slot count, the jobs would be re-packed in file order, each job's ranks in
/// its slot order onto the next free slots (packMixSlots()).
Scenario jobOnDesign(const Scenario &job, const FabricDesign &design);

/// The re-pack rule for a job mix whose fabric changes its slot count: job 0's ranks on slots
/// 0..n0-1 in the order of its own slots, job 1's on the next n1, and so on. Throws
/// ScenarioError when the jobs hold more ranks than `slotCount`. Exposed for the tests.
void packMixSlots(Scenario &mix, int slotCount);

/** One design evaluated for a job (or a job mix: the worst job decides). */
struct FabricDesignResult
{
    std::int64_t index = -1; ///< the design's position in the enumeration (fabric search)
    FabricDesign design;
    std::string name;
    bool evaluated = false;
    std::string problem; ///< why not evaluated: the builder's or the engine's message
    double iterationSeconds = 0.0; ///< of the worst job (largest slowdown)
    double baselineSeconds = 0.0; ///< that job's on the non-blocking rail-optimised fabric
    double slowdown = 0.0; ///< iterationSeconds / baselineSeconds - 1, the worst over the jobs
    int worstJob = 0; ///< which job of the mix set the slowdown
    int switches = 0;
    std::int64_t transceivers = 0;
    double capexUsd = 0.0; ///< the whole fabric's (GPUs, servers, network, racks)
    double networkCapexUsd = 0.0; ///< NICs, switches, cables, transceivers
    double networkPowerW = 0.0; ///< typical
    double usdPerIteration = 0.0; ///< whole fabric charged to one iteration of the worst job
    double kwhPerIteration = 0.0;
    bool illustrativePrices = false; ///< some priced line uses an illustrative catalogue part
};

/**
 * The jobs a fabric is chosen for: the scenario's one job, or the jobs of a scenario with a
 * `jobs` list (a job mix, docs/shared-fabric.md) evaluated together on each design.
 *
 * A mix is evaluated SHARED (evaluateJobs()): every job keeps its slots (jobOnDesign()) and
 * gets its share of each link its neighbours use, under the overlap assumption. Each job's
 * slowdown compares its shared time on the design with its shared time on the non-blocking
 * rail-optimised reference (the same mix on the same slots): only the fabric changes between
 * the two, so the reference itself reads 0 % and a design is charged only for the sharing it
 * makes worse. The design's slowdown is the worst job's.
 */
struct FabricJobs
{
    Scenario scenario; ///< one job, or several in `jobs` sharing its fabric
    PhaseOverlap overlap = PhaseOverlap::Worst; ///< how a mix's jobs share links
    bool isMix() const { return !scenario.jobs.empty(); }
    std::size_t count() const { return isMix() ? scenario.jobs.size() : 1; }
    /// The job's name ("a"), or the scenario's for a single job.
    std::string jobName(std::size_t index) const;
};

/// The scenario's jobs with the overlap assumption. Throws ScenarioError for a mix the shared
/// evaluation does not model (hashed or adaptive ECMP, inference pools), naming the field.
FabricJobs fabricJobsOf(const Scenario &scenario, PhaseOverlap overlap = PhaseOverlap::Worst);

/// The iteration time of each job on the non-blocking rail-optimised fabric (the slowdown's
/// denominator; a mix's jobs shared there). Throws ScenarioError when a job cannot be evaluated
/// there.
std::vector<double> baselineSeconds(const FabricJobs &jobs);

/// Builds the design's fabric, evaluates every job on it with the cost engine (a mix shared)
/// and prices the fabric with the worst job's figures and the scenario's catalogue (bill of
/// materials, studies/bomcost.h). A design the builder or the engine refuses comes back with
/// evaluated = false and the message.
FabricDesignResult evaluateDesign(
    const FabricJobs &jobs, const FabricDesign &design, const std::vector<double> &baseline);

/// The jobs as they are, on their own fabric with their own mapping (the "current" point of the
/// comparison), measured and priced like a design; `design` is left at the baseline's values.
FabricDesignResult evaluateOwnFabric(const FabricJobs &jobs, const std::vector<double> &baseline);

/// The designs the comparison shows for a job: rail-optimised (the baseline), rail-optimised
/// with 2:1 leaves, with 2:1 spines (only when the fabric has three tiers), ToR, ToR 2:1,
/// rail-only, two planes, and NVL72 racks when the job's device has them and its servers are
/// the device's trays.
std::vector<FabricDesign> standardDesigns(const Scenario &job);

/** The side-by-side comparison of designs for one job or mix. */
struct FabricComparison
{
    std::vector<double> baselineSeconds; ///< per job
    std::vector<FabricDesignResult> rows;
    FabricDesignResult current; ///< the jobs on their own fabric (evaluateOwnFabric())
    std::string catalogueName;
};

FabricComparison compareFabrics(const FabricJobs &jobs, const std::vector<FabricDesign> &designs);

/// Rows on the Pareto front of iteration time against capital cost (no other evaluated row is
/// at most as slow and as cheap, and strictly better in one), by increasing cost.
std::vector<std::size_t> paretoFront(const std::vector<FabricDesignResult> &rows);

} // namespace railyard
