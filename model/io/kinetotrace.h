#pragma once

#include "base/units.h"

#include <optional>
#include <string>
#include <vector>

namespace railyard {

class ParallelLayout;

/** A process group the trace's collectives ran on. */
struct TraceProcessGroup
{
    std::string name; ///< "Process Group Name" (pg_name: "0", "1", ...)
    std::string description; ///< "Process Group Description" / pg_desc, "" when absent
    std::vector<int> ranks; ///< global ranks as listed (all, unless `truncated`)
    /// PyTorch's record_param_comms lists at most 30 ranks ("[0, 1, ..., 28, ..., 63]"): then
    /// `ranks` holds the listed head and the last rank, and `size` the group's size.
    bool truncated = false;
    int size = 0; ///< "Group size", else the number of ranks
    long long kernels = 0; ///< NCCL kernels that ran on it
    bool allToAll = false; ///< one of them was an all-to-all (SendRecv kernels of all_to_all)
};

/** One NCCL or compute kernel of the trace, microseconds as the trace has them. */
struct TraceKernel
{
    double start = 0.0;
    double end = 0.0;
    int group
        = -1; ///< communication: index into KinetoTrace::groups, or kUngrouped; compute: kCompute
    static constexpr int kCompute = -2;
    static constexpr int kUngrouped = -1;
};

/** One profiler step window: ProfilerStep#N. */
struct TraceStepWindow
{
    long long step = 0;
    double start = 0.0; ///< microseconds
    double end = 0.0;
};

/**
 * What a PyTorch profiler (Kineto) Chrome trace says about one rank's steps. Read: complete
 * events ("ph": "X") of category "kernel" (GPU kernels; NCCL kernels are the ones named
 * nccl* - ncclDevKernel_AllReduce_Sum_bf16_RING_LL(...), ncclKernel_... - or carrying
 * "Collective name"), their args "Process Group Name", "Process Group Description", "Process
 * Group Ranks" and "Group size" (the names of torch/csrc/profiler/util.h, kGroupRanks etc.),
 * the step ranges "ProfilerStep#N" (category "user_annotation", "gpu_user_annotation" or, in
 * older releases, "cpu_op"), and the top-level "distributedInfo" (rank, world_size,
 * nccl_version, pg_config[] of pg_name / pg_desc / pg_size / ranks). Memory copies and sets are
 * neither compute nor communication.
 *
 * A CPU job's trace (gloo, no GPU kernel) is read too: its collectives are the "gloo:OP" ranges
 * ProcessGroupGloo records, its compute the "aten::" operators outside their threads. So is
 * the form torch 1.13 writes without Kineto (Debian's python3-torch: a bare array of events
 * with no "cat" and no distributedInfo, hence no rank and no process-group args: its
 * collectives are ungrouped, see ungroupedTraceDimension()).
 */
struct KinetoTrace
{
    std::string file;
    int rank = -1; ///< distributedInfo.rank; -1 when absent
    int worldSize = 0; ///< distributedInfo.world_size; 0 when absent
    std::string ncclVersion;
    std::vector<TraceProcessGroup> groups;
    std::vector<TraceKernel> kernels; ///< sorted by start
    std::vector<TraceStepWindow> windows; ///< sorted; the GPU's ProfilerStep ranges when present
    bool gpuWindows = false; ///< windows are "gpu_user_annotation" ranges (else CPU ranges)
    long long events = 0; ///< trace events read
    long long ncclKernels = 0; ///< NCCL kernels, or in a CPU trace gloo collectives
    long long ungroupedNcclKernels = 0; ///< NCCL kernels without process-group args
    /// No GPU kernel: a CPU (gloo) job's trace. Its compute is the "aten::" operator ranges on
    /// the threads that ran no collective, its communication the "gloo:OP" ranges.
    bool cpuTrace = false;
};

/** The measurement of one step: the window's length and how its time was spent. */
struct TraceStepMeasure
{
    long long step = 0;
    double stepTime = 0.0; ///< seconds
    double computeTime = 0.0; ///< seconds with at least one compute kernel running
    double commTime = 0.0; ///< seconds with at least one NCCL kernel running
    double exposedComm = 0.0; ///< of those, seconds with no compute kernel running
    std::vector<double> exposed; ///< per bucket (see traceSteps), seconds; each <= stepTime
};

/**
 * Per step window: the union of compute kernels, of NCCL kernels, and per bucket the union of
 * its NCCL kernels not covered by a compute kernel (on any other stream), kernels clipped to
 * the window. `bucketOf` gives each group's bucket (size groups.size(), values in
 * [0, buckets) or -1 for none); ungrouped NCCL kernels go to `ungroupedBucket` (or nowhere
 * when -1). A trace without ProfilerStep ranges is one window from its first kernel's start to
 * its last kernel's end (step -1).
 */
std::vector<TraceStepMeasure> traceSteps(
    const KinetoTrace &trace, const std::vector<int> &bucketOf, int buckets, int ungroupedBucket);

/// The step windows traceSteps() measures: the trace's ProfilerStep ranges, or without them one
/// window from the first kernel's start to the last kernel's end (step -1).
std::vector<TraceStepWindow> traceStepWindows(const KinetoTrace &trace);

/** One step window drawn: its compute and each bucket's communication, as the trace ran them. */
struct TraceStepSpans
{
    struct Span
    {
        double start = 0.0; ///< seconds from the window's start
        double end = 0.0;
    };
    std::vector<Span> compute; ///< the union of compute kernels, sorted and disjoint
    std::vector<std::vector<Span>> comm; ///< per bucket, the union of its NCCL kernels
};

/**
 * The spans of window `window` (an index into traceStepWindows()): kernels clipped to it,
 * merged per kind, buckets as for traceSteps() (a kernel of no bucket is left out). Empty for
 * an index out of range.
 */
TraceStepSpans traceStepSpans(const KinetoTrace &trace, const std::vector<int> &bucketOf,
    int buckets, int ungroupedBucket, std::size_t window);

/// traceSteps() with one bucket per group and the last one for ungrouped kernels.
std::vector<TraceStepMeasure> traceStepsByGroup(const KinetoTrace &trace);

/**
 * Parses a Kineto trace held in memory (tests, the fuzzer). Throws ScenarioError whose field is
 * "FILE:LINE" (JSON syntax, with the parser's line) or "FILE: traceEvents[i].KEY" (a kernel or
 * step range without a number for ts / dur, a negative or non-finite one, a step range not
 * named ProfilerStep#N), for a trace with no kernel and no step range, and for nesting deeper
 * than 32 levels. Nothing is returned partly read.
 */
KinetoTrace parseKinetoTrace(const std::string &text, const std::string &file);

/// The same from a file, streamed: a 1 GB trace is read in bounded memory (the kernels'
/// intervals are kept, 24 bytes each, not the events).
KinetoTrace readKinetoTrace(const std::string &path);

/** Which parallel dimension each of the trace's groups is, by its rank set. */
struct TraceGroupDimension
{
    std::optional<Dim> dim; ///< unset: no group of the layout has these ranks
    std::string kind; ///< the layout's group kind that matched ("tp", "dp-cp", ...), or ""
};

/**
 * The dimension a collective without process-group args must belong to: the layout's only
 * parallel dimension of degree above 1 (every group of more than one rank is then that
 * dimension's, or the world, which is the same ranks); unset when there are several or none.
 */
std::optional<Dim> ungroupedTraceDimension(const ParallelLayout &layout);

/**
 * Ties each process group of the trace to the layout's group with the same rank set (Megatron's
 * groups, layout/parallellayout.h): tp, pp, cp and ep to their dimension, dp, dp-cp and the
 * expert-data-parallel group to dp; tp-pp to none. When one rank set is the group of two
 * dimensions (ep = dp, say), an all-to-all on it is ep, anything else the other dimension. A
 * truncated rank list matches a group of its size whose sorted ranks start with the listed
 * head and end with the listed last rank.
 */
std::vector<TraceGroupDimension> traceGroupDimensions(
    const KinetoTrace &trace, const ParallelLayout &layout);

} // namespace railyard
