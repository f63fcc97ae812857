#pragma once

#include "base/units.h"
#include "cost/linkloadtable.h"
#include "cost/pipelineschedule.h"
#include "workload/workloadplan.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace railyard {

/**
 * One phase: a set of collectives that run at the same time (e.g. every TP group of stage 2
 * doing one attention all-reduce). Its time is its alpha terms plus its most loaded link's
 * bytes over that link's (achievable) bandwidth; TP and DP collectives say which algorithm
 * and protocol ran.
 */
struct PhaseResult
{
    std::string name; ///< "tp fwd stage 0: attention all-reduce"
    Dim dim = Dim::Tp;
    Collective collective = Collective::AllReduce;
    OpPass pass = OpPass::Forward;
    int stage = -1; ///< -1 when the phase spans all stages (DP sync)
    double bytes = 0.0; ///< message size S of one op
    double count = 0.0; ///< runs per micro-batch (fwd/bwd) or per iteration
    double alphaTime = 0.0; ///< latency part of one run
    double time = 0.0; ///< one run, seconds
    double hidden = 0.0; ///< of one run, what overlaps a TP GEMM or CP SDPA step (<= time)
    int bottleneckLink = -1;
    std::string algorithm; ///< TP and DP collectives: what runs ("ring", "nvls", ...); else ""
    std::string protocol; ///< its NCCL protocol ("LL", "LL128", "Simple"); else ""
};

/**
 * One pipeline stage as the timeline and the inspector show it: its layers (per model chunk),
 * what it computes and exposes per micro-batch, and how its gradient sync ends the iteration.
 */
struct StageReport
{
    int layers = 0;
    std::vector<int> chunkLayers; ///< per model chunk (one entry unless interleaved)
    bool embedding = false; ///< holds the word embedding (the first stage)
    bool outputLayer = false; ///< holds the LM head and the loss (the last stage)
    double computeForward = 0.0; ///< per micro-batch, compute only (all chunks)
    double computeBackward = 0.0; ///< including recompute
    double commForward = 0.0; ///< exposed TP/EP/CP communication per micro-batch
    double commBackward = 0.0;
    double lastCompute = 0.0; ///< end of its last forward or backward in the timeline
    double dpWindow = 0.0; ///< how long its gradient reduction could overlap backward
    double dpReduceEnd = 0.0; ///< when its gradient reduction ends
    double dpExposed = 0.0; ///< dpReduceEnd - lastCompute
    /// The tied embedding's gradient all-reduce (first and last stage; else 0): from
    /// dpReduceEnd, or the other end's if later, to tiedEmbeddingEnd.
    double tiedEmbeddingStart = 0.0;
    double tiedEmbeddingEnd = 0.0;
    double paramGatherWait = 0.0; ///< overlap_param_gather: earliest start of its first forward
};

struct LinkStats
{
    int count = 0; ///< directed links in the fabric (all of them enter the distribution)
    double p50 = 0.0, p95 = 0.0, p99 = 0.0, max = 0.0;
};

/** Everything one evaluation predicts for one scenario and mapping. */
struct CostReport
{
    int ranks = 0;
    double iterationTime = 0.0;
    double bubbleFraction = 0.0;
    double pipelineMakespan = 0.0;
    double mfu = 0.0; ///< model FLOPs utilisation of the whole job
    /// Link bytes per iteration, per dim: every byte counted once per directed link it
    /// crosses (a GPU -> NVSwitch -> GPU send counts twice); what loads the fabric.
    DimArray dimBytes {};
    /// Bytes the ranks send per iteration, per dim (nccl-tests definition, cost/bytessent.h).
    DimArray dimBytesSent {};
    DimArray dimExposed {}; ///< exposed (critical-path) seconds per iteration
    std::array<DimArray, kTierCount> tierBytes {}; ///< [tier][dim]
    double spineBytesShare = 0.0; ///< leaf->spine bytes / NIC->leaf bytes
    LinkStats linkStats;
    int bottleneckLink = -1; ///< the link with the highest utilisation
    Dim bottleneckDim = Dim::Tp;
    LinkLoadTable links; ///< indexed by FabricLink::id
    std::vector<PhaseResult> phases;
    PipelineTimeline timeline;
    std::vector<double> stageForward; ///< per stage per micro-batch, incl. exposed TP/EP/CP
    std::vector<double> stageBackward;
    std::vector<double> boundaryForward; ///< per boundary s -> s+1
    std::vector<double> boundaryBackward;
    double wrapForward = 0.0; ///< interleaved wrap-around send, last stage -> 0
    double wrapBackward = 0.0; ///< and its gradient, stage 0 -> last
    std::vector<StageReport> stages; ///< per stage
    std::vector<MemoryLedger> memory; ///< per stage (every rank of a stage holds the same)
    double maxMemoryPerRank = 0.0;
    bool memoryFits = true;
    double dpSyncTime = 0.0; ///< the full gradient sync, before overlap
    double dpReduceTime = 0.0; ///< its gradient reduce-scatter / all-reduce part
    double dpGatherTime = 0.0; ///< its parameter all-gather part
    /// The reduction and the all-gather as they run overlapped, sharing links with the
    /// traffic beside them (equal to the above when nothing shares a link or nothing overlaps).
    double dpReduceOverlapped = 0.0;
    double dpGatherOverlapped = 0.0;
    double dpOverlapWindow = 0.0; ///< the shortest stage window (0 without overlap)
    /// The busiest link's busy time: no iteration is shorter. linkBound says whether it set the
    /// iteration (the phase model packed more onto a link than it can carry in that time).
    double linkBoundTime = 0.0;
    bool linkBound = false;
    /// Mixed devices (fabric.device_pools, docs/mixed-devices.md); all empty on a fabric of one
    /// device kind. Per stage: the device of its slowest rank (what sets its compute), and the
    /// smallest HBM among its ranks' devices with that device's name (what its memory must fit).
    std::vector<std::string> stageDevices;
    std::vector<double> stageHbmBytes;
    std::vector<std::string> stageHbmDevices;
    /// Layers per stage that would balance the stages' compute on their devices (for
    /// training.layers_per_stage); empty when every stage computes on one device kind or the
    /// schedule is interleaved.
    std::vector<int> suggestedLayersPerStage;
    std::vector<std::string>
        warnings; ///< model caveats (memory); see CostEngine::mappingWarnings()

    /// Busy time / iteration time of one directed link.
    double utilisation(int link) const
    {
        return iterationTime > 0.0 ? links[link].busyTime / iterationTime : 0.0;
    }
};

/** What a summary shows of memory: one stage's ledger against the HBM it must fit. */
struct TightestMemory
{
    double used = 0.0;
    double capacity = 0.0;
    std::string device; ///< the HBM's device with mixed devices; "" on one device kind
};

/// The stage closest to filling its ranks' smallest HBM (each stage fits its own devices with
/// mixed devices: stageHbmBytes), with that device named; on one device kind the largest
/// ledger per rank against `deviceHbm`.
inline TightestMemory tightestMemory(const CostReport &report, double deviceHbm)
{
    TightestMemory out { report.maxMemoryPerRank, deviceHbm, {} };
    for (std::size_t st = 0; st < report.stageHbmBytes.size() && st < report.memory.size(); ++st)
        if (st == 0
            || report.memory[st].total() * out.capacity > out.used * report.stageHbmBytes[st]) {
            out.used = report.memory[st].total();
            out.capacity = report.stageHbmBytes[st];
            out.device = st < report.stageHbmDevices.size() ? report.stageHbmDevices[st] : "";
        }
    return out;
}

/// The least HBM left on any rank: each stage's ranks' smallest HBM (stageHbmBytes, mixed
/// devices) less the stage's ledger, or `deviceHbm` less the largest ledger on one device kind.
inline double memoryHeadroom(const CostReport &report, double deviceHbm)
{
    if (report.stageHbmBytes.empty() || report.stageHbmBytes.size() != report.memory.size())
        return deviceHbm - report.maxMemoryPerRank;
    double least = report.stageHbmBytes.front() - report.memory.front().total();
    for (std::size_t st = 1; st < report.memory.size(); ++st)
        least = std::min(least, report.stageHbmBytes[st] - report.memory[st].total());
    return least;
}

} // namespace railyard
