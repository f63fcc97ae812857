#pragma once

#include "fabric/fabricspec.h"
#include "layout/placement.h"
#include "scenario/scenario.h"
#include "workload/workload.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/**
 * What a parallel-layout search explores: one model on one device and one generated fabric of
 * `gpus` GPUs, with the global batch and the sequence fixed, and the limits of the enumeration.
 * The fabric fields are `railyard-cli generate`'s (0 = generate's default); the base scenario is
 * built from them by the scenario loader, as generate builds its file (layoutsearch.cpp).
 */
struct LayoutSearchOptions
{
    std::string model = "llama2-70b"; ///< model preset name (workload/presets.h)
    std::string device = "h100-sxm"; ///< device preset name
    FabricKind fabricKind = FabricKind::RailOptimised;
    int gpus = 1024;
    int gpusPerServer = 0; ///< 0 = the device's tray size (GB200/GB300: 4), else 8
    int serversPerSu = 0; ///< rail-optimised: 0 = generate's default (32)
    int serversPerLeaf = 0; ///< ToR: 0 = derived
    int switchRadix = 0; ///< 0 = generate's default (64)
    int scaleUpDomainServers = 0; ///< 0 = one server per NVLink domain
    int planes = 0; ///< 0 = one plane
    double nicGbps = 0.0; ///< 0 = the device's default
    int globalBatch = 0; ///< 0 = the training default (512)
    int seq = 0; ///< 0 = the model preset's sequence length

    // Limits on the enumeration (degrees run over the divisors of the GPU count).
    int maxTp = 0; ///< 0 = the GPUs of one scale-up domain
    int maxPp = 64;
    int maxCp = 2;
    int maxEp = 0; ///< 0 = the model's experts (dense models: 1)
    int maxMicroBatch = 4; ///< micro-batches 1, 2, 4, ... up to this
    std::vector<int> interleaves { 2 }; ///< virtual stages tried with the interleaved schedule
    std::vector<ScheduleKind> schedules { ScheduleKind::GPipe, ScheduleKind::OneFOneB,
        ScheduleKind::Interleaved, ScheduleKind::ZbH1, ScheduleKind::DualPipe };
    std::vector<Recompute> recomputes { Recompute::None, Recompute::Selective, Recompute::Full };
    std::vector<Placement> placements { Placement::Packed, Placement::RailAligned,
        Placement::Scattered };

    int top = 10; ///< rows kept in the ranking
    int shardIndex = 0; ///< this process evaluates candidates i with i % shardCount == shardIndex
    int shardCount = 1;
};

/** One point of the search space and, once evaluated, the engine's figures for it. */
struct LayoutCandidate
{
    std::int64_t index = 0; ///< position in the deterministic enumeration (the stable key)
    ParallelDegrees degrees;
    int microBatch = 1;
    ScheduleKind schedule = ScheduleKind::OneFOneB;
    int interleave = 1;
    Recompute recompute = Recompute::Selective;
    bool sequenceParallel = true;
    bool distributedOptimizer = true;
    Placement placement = Placement::Packed;

    double iterationTime = 0.0; ///< seconds
    double tokensPerSecond = 0.0; ///< global batch x seq / iteration time (throughput)
    double memoryHeadroomGB = 0.0; ///< device HBM - the ledger's peak per rank, 10^9 bytes
    double spineShare = 0.0; ///< leaf -> spine bytes / NIC -> leaf bytes
    bool pareto = false; ///< on the front of (throughput max, headroom max, spine share min)

    bool operator==(const LayoutCandidate &) const = default;
};

/** Progress of a running search, for a progress line or a dialog. */
struct LayoutSearchProgress
{
    std::int64_t evaluated = 0; ///< candidates of this shard done (pruned or evaluated)
    std::int64_t total = 0; ///< candidates of this shard
    double rate = 0.0; ///< full engine evaluations per second so far
    double bestTokensPerSecond = 0.0; ///< 0 until one candidate was evaluated
    double seconds = 0.0; ///< wall time so far
};

/// Called now and then during the search; returning false cancels it (the result holds what
/// was evaluated so far and `cancelled`).
using LayoutSearchMonitor = std::function<bool(const LayoutSearchProgress &)>;

/**
 * The outcome of a search (or of one shard, or of merged shards): the counts, the top rows by
 * throughput and the Pareto front. Deterministic: no timing is part of it, so a serial run, the
 * merge of its shards and an MPI run give equal results.
 */
struct LayoutSearchResult
{
    LayoutSearchOptions options;
    std::string baseName; ///< the base scenario's model name
    std::int64_t enumerated = 0; ///< the whole deterministic list (every shard)
    std::int64_t considered = 0; ///< this shard's part of it (or the merged shards')
    std::int64_t evaluated = 0; ///< full engine evaluations
    /// Candidates pruned before evaluation, by the field the check named ("model.heads",
    /// "training.global_batch", ...) or "memory" for a ledger over the device's HBM.
    std::map<std::string, std::int64_t> pruned;
    std::vector<LayoutCandidate> top; ///< by throughput, ties by index; at most options.top
    std::vector<LayoutCandidate> front; ///< the Pareto front, in the same order
    bool cancelled = false;
    double seconds = 0.0; ///< wall time (not part of any output that must compare equal)

    /// The shards that went into this result (one entry for a plain run).
    std::vector<int> shards;
};

/// The scenario every candidate starts from: the options' fabric, model, device, batch and
/// sequence through the scenario loader. Throws ScenarioError naming the option at fault.
Scenario searchBaseScenario(const LayoutSearchOptions &options);

/// The whole deterministic candidate list (before pruning), in enumeration order.
std::vector<LayoutCandidate> enumerateLayouts(const LayoutSearchOptions &options);

/// `candidate` applied to the base scenario: degrees, training switches, placement and a name
/// such as "llama2-70b-tp8-pp4-dp32-mb1-1f1b". Evaluating it gives the candidate's figures.
Scenario candidateScenario(const LayoutSearchOptions &options, const LayoutCandidate &candidate);
/// The same on an already built base scenario (what the search itself uses).
Scenario candidateScenario(const Scenario &base, const LayoutCandidate &candidate);
/// "llama2-70b-tp8-pp4-dp32-mb1-1f1b-selective-sp-do-packed": the written scenario's name.
std::string candidateName(const std::string &model, const LayoutCandidate &candidate);
/// "rail-optimised", "tor", "rail-only" (the scenario loader's names).
std::string_view fabricKindText(FabricKind kind);
bool parseFabricKindText(std::string_view name, FabricKind &out);

/// Why `scenario` cannot run before any routing: the field named by the workload and pipeline
/// checks ("model.heads", ...), or "memory" when the ledger's peak per rank exceeds the HBM.
/// Empty when it may be evaluated. Uses checkWorkload(), planWorkload() and schedulePipeline(),
/// the engine's own code.
std::string pruneReason(const Scenario &scenario);

/// Searches this options' shard: enumerates, prunes, evaluates each survivor with the full
/// CostEngine on the generated fabric, ranks by throughput and finds the Pareto front.
LayoutSearchResult searchLayouts(
    const LayoutSearchOptions &options, const LayoutSearchMonitor &monitor = {});

/// The order of the ranking: throughput descending, ties by index.
bool rankedBefore(const LayoutCandidate &a, const LayoutCandidate &b);
/**
 * A candidate's three objectives as the search's table and the CLI print them: tokens/s to 1,
 * memory headroom to 0.1 GB, spine share to 0.1 %. The front compares these. The engine's
 * figures carry floating-point noise (equal layouts differing in the last bit of tokens/s,
 * 1e-16 relative) and differences nobody can choose by (6.7 kB of headroom, 1.5e-7 of spine
 * share): compared exactly, each made a row that looks equal to another, or a twin, a front
 * row of its own, and a 1,024-GPU llama2-70b search marked 195 of its 5,292 candidates (121
 * once twins count once; 99 on the shown figures: `railyard-cli search --model llama2-70b
 * --fabric rail-optimised --gpus 1024 --json`).
 */
struct ShownObjectives
{
    long long tokensPerSecond = 0;
    long long headroomTenthsGB = 0;
    long long spinePermille = 0;
    bool operator==(const ShownObjectives &) const = default;
};
ShownObjectives shownObjectives(const LayoutCandidate &c);
/// Whether `a` dominates `b` on the shown objectives: no worse in throughput, headroom and
/// spine share, better in one.
bool dominates(const LayoutCandidate &a, const LayoutCandidate &b);
/// The Pareto front of `candidates` (each with pareto = true), in ranking order: the
/// candidates no other dominates (dominates()), one per point (of candidates showing the same
/// three figures, the first in the ranking).
std::vector<LayoutCandidate> paretoFront(std::vector<LayoutCandidate> candidates);

/// Merges shard results of one search into the result the serial search gives. Throws
/// ScenarioError naming the problem: parts of different searches, a missing or a repeated shard,
/// or `top` above the parts' own.
LayoutSearchResult mergeSearchResults(const std::vector<LayoutSearchResult> &parts, int top = 0);

} // namespace railyard
