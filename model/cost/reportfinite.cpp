#include "cost/reportfinite.h"

#include "base/scenarioerror.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

namespace railyard {

namespace {

/// Collects the non-finite figures under their report paths.
class FiniteWalk
{
public:
    void add(const std::string &path, double v)
    {
        if (!std::isfinite(v))
            m_found.push_back(path + " = " + (std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"));
    }

    template<typename Container> void addAll(const std::string &path, const Container &values)
    {
        std::size_t i = 0;
        for (const double v : values) {
            if (!std::isfinite(v)) // the path only for what it names
                add(path + "[" + std::to_string(i) + "]", v);
            ++i;
        }
    }

    std::vector<std::string> take() { return std::move(m_found); }

private:
    std::vector<std::string> m_found;
};

std::string item(const char *list, std::size_t i, const char *field)
{
    return std::string(list) + "[" + std::to_string(i) + "]." + field;
}

/// Every value finite: the per-item loops below build an item's path strings only when one of
/// its values is not, since building them for every link, phase and timeline event was most of
/// a 16,384-GPU evaluation (its 1.2 million link paths).
template<typename... Values> bool allFinite(const Values &...values)
{
    auto finite = [](const auto &v) {
        if constexpr (std::is_arithmetic_v<std::decay_t<decltype(v)>>)
            return std::isfinite(v);
        else
            return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
    };
    return (finite(values) && ...);
}

} // namespace

std::vector<std::string> nonFiniteFigures(const CostReport &r)
{
    FiniteWalk w;
    w.add("iteration_time_s", r.iterationTime);
    w.add("bubble_fraction", r.bubbleFraction);
    w.add("pipeline_makespan_s", r.pipelineMakespan);
    w.add("mfu", r.mfu);
    w.addAll("dim_bytes", r.dimBytes);
    w.addAll("dim_bytes_sent", r.dimBytesSent);
    w.addAll("dim_exposed_s", r.dimExposed);
    for (std::size_t t = 0; t < r.tierBytes.size(); ++t)
        w.addAll("tier_bytes[" + std::to_string(t) + "]", r.tierBytes[t]);
    w.add("spine_bytes_share", r.spineBytesShare);
    w.add("link_stats.p50", r.linkStats.p50);
    w.add("link_stats.p95", r.linkStats.p95);
    w.add("link_stats.p99", r.linkStats.p99);
    w.add("link_stats.max", r.linkStats.max);
    for (std::size_t i = 0; i < r.links.size(); ++i) {
        const LinkLoad &l = r.links[i];
        if (allFinite(l.bytes, l.dimBytes, l.busyTime))
            continue;
        w.add(item("links", i, "bytes"), l.bytes);
        w.addAll(item("links", i, "dim_bytes"), l.dimBytes);
        w.add(item("links", i, "busy_time_s"), l.busyTime);
    }
    for (std::size_t i = 0; i < r.phases.size(); ++i) {
        const PhaseResult &p = r.phases[i];
        if (allFinite(p.bytes, p.count, p.alphaTime, p.time, p.hidden))
            continue;
        w.add(item("phases", i, "bytes"), p.bytes);
        w.add(item("phases", i, "count"), p.count);
        w.add(item("phases", i, "alpha_time_s"), p.alphaTime);
        w.add(item("phases", i, "time_s"), p.time);
        w.add(item("phases", i, "hidden_s"), p.hidden);
    }
    w.add("timeline.makespan_s", r.timeline.makespan);
    w.add("timeline.bubble_fraction", r.timeline.bubbleFraction);
    w.addAll("timeline.busy_s", r.timeline.busy);
    w.addAll("timeline.peak_inflight", r.timeline.peakInflight);
    for (std::size_t i = 0; i < r.timeline.events.size(); ++i) {
        if (allFinite(r.timeline.events[i].start, r.timeline.events[i].end))
            continue;
        w.add(item("timeline.events", i, "start_s"), r.timeline.events[i].start);
        w.add(item("timeline.events", i, "end_s"), r.timeline.events[i].end);
    }
    w.addAll("stage_forward_s", r.stageForward);
    w.addAll("stage_backward_s", r.stageBackward);
    w.addAll("boundary_forward_s", r.boundaryForward);
    w.addAll("boundary_backward_s", r.boundaryBackward);
    w.add("wrap_forward_s", r.wrapForward);
    w.add("wrap_backward_s", r.wrapBackward);
    for (std::size_t i = 0; i < r.stages.size(); ++i) {
        const StageReport &s = r.stages[i];
        for (const auto &[name, v] : { std::pair { "compute_forward_s", s.computeForward },
                 std::pair { "compute_backward_s", s.computeBackward },
                 std::pair { "comm_forward_s", s.commForward },
                 std::pair { "comm_backward_s", s.commBackward },
                 std::pair { "last_compute_s", s.lastCompute },
                 std::pair { "dp_window_s", s.dpWindow },
                 std::pair { "dp_reduce_end_s", s.dpReduceEnd },
                 std::pair { "dp_exposed_s", s.dpExposed },
                 std::pair { "tied_embedding_start_s", s.tiedEmbeddingStart },
                 std::pair { "tied_embedding_end_s", s.tiedEmbeddingEnd },
                 std::pair { "param_gather_wait_s", s.paramGatherWait } })
            w.add(item("stages", i, name), v);
    }
    for (std::size_t i = 0; i < r.memory.size(); ++i) {
        const MemoryLedger &m = r.memory[i];
        for (const auto &[name, v] : { std::pair { "parameters", m.parameters },
                 std::pair { "gradients", m.gradients }, std::pair { "optimizer", m.optimizer },
                 std::pair { "activations_per_microbatch", m.activationsPerMicrobatch },
                 std::pair { "activations", m.activations },
                 std::pair { "recompute_workspace", m.recomputeWorkspace },
                 std::pair { "optimizer_step", m.optimizerStep },
                 std::pair { "cuda_context", m.cudaContext }, std::pair { "nccl", m.nccl },
                 std::pair { "fragmentation_share", m.fragmentationShare },
                 std::pair { "total", m.total() } })
            w.add(item("memory", i, name), v);
    }
    w.add("max_memory_per_rank", r.maxMemoryPerRank);
    w.add("dp_sync_time_s", r.dpSyncTime);
    w.add("dp_reduce_time_s", r.dpReduceTime);
    w.add("dp_gather_time_s", r.dpGatherTime);
    w.add("dp_reduce_overlapped_s", r.dpReduceOverlapped);
    w.add("dp_gather_overlapped_s", r.dpGatherOverlapped);
    w.add("dp_overlap_window_s", r.dpOverlapWindow);
    w.add("link_bound_time_s", r.linkBoundTime);
    return w.take();
}

void checkReportFinite(const CostReport &report)
{
    const std::vector<std::string> bad = nonFiniteFigures(report);
    if (bad.empty())
        return;
    std::string shown;
    for (std::size_t i = 0; i < bad.size() && i < 3; ++i)
        shown += (i ? ", " : "") + bad[i];
    if (bad.size() > 3)
        shown += " and " + std::to_string(bad.size() - 3) + " more";
    // Every time is bytes over a bandwidth, FLOPs over a peak or a sum of latencies: these are
    // the inputs that can make one infinite or undefined.
    throw ScenarioError("report",
        "the evaluation produced figures that are not finite (" + shown
            + "); they come from the scenario's speeds and sizes: fabric.*_gbps and "
              "*_latency_us, the cabling's gbps, device.peak_tflops_*, device.hbm_gbps, "
              "device.max_efficiency, calibration bandwidth_scale and the model's sizes");
}

} // namespace railyard
