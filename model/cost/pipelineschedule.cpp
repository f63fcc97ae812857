#include "cost/pipelineschedule.h"

#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/units.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

/**
 * The pipeline scheduler: a list-scheduling simulation of one training iteration's pipeline.
 *
 * Every stage runs its compute ops one at a time in the order its schedule prescribes (the
 * orders are those of Megatron-LM's `megatron/core/pipeline_parallel/schedules.py`); an op
 * starts as soon as its stage is free and its input has arrived. Sends are separate events on
 * the sender's stage: they occupy a link, not the sender's compute, and the receiver may start
 * once the send has ended. Links are not shared, so two sends never delay each other.
 *
 * Schedules:
 *  - GPipe (Huang et al., "GPipe: Efficient Training of Giant Neural Networks using Pipeline
 *    Parallelism", NeurIPS 2019): all m forwards, then all m backwards, micro-batches in order.
 *  - 1F1B (Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
 *    Using Megatron-LM", SC'21, §2.2.1; Megatron-LM's
 *    `forward_backward_pipelining_without_interleaving`): stage s runs
 *    w = min(p - s - 1, m) warm-up forwards, then alternates one forward and one backward,
 *    then drains the w remaining backwards.
 *  - Interleaved 1F1B (SC'21 §2.2.2; `forward_backward_pipelining_with_interleaving`): each
 *    stage holds v model chunks; virtual stage c*p + s is chunk c on stage s. Virtual
 *    micro-batch k maps to chunk (k mod p*v) / p and micro-batch (k / p*v)*p + k mod p
 *    (backwards take the chunks in reverse), so micro-batches go through each chunk in groups
 *    of p. Warm-up is (p - s - 1)*2 + (v - 1)*p virtual micro-batches, or all of them when
 *    m == p, as in Megatron-LM.
 *
 * Forward only (every backward time zero, or `backward` empty): each stage runs its forwards in
 * order; GPipe and 1F1B then give the same fill/drain timeline.
 *
 * Choices the papers leave open, made here:
 *  - Interleaved compute per chunk is forward[s]/v and backward[s]/v, or the input's per-chunk
 *    times when the chunks differ. The wrap from the last stage's chunk c to stage 0's chunk
 *    c+1 (and back for gradients) is a send of its own (the engine times it on its own route);
 *    an input that does not size it costs the mean boundary send time of its direction.
 *  - A chunk's forwards may be held back until a given time (forwardReady: the parameters they
 *    wait for); the wait is idle time of the stage like any other.
 *  - Sends of zero duration are not emitted as events (they would only clutter the timeline).
 *  - `chunks` is ignored by GPipe and 1F1B (treated as 1).
 *  - Peak in flight: see Simulation::peakInflight(); forward only it is one chunk (1, or 1/v).
 * With equal stages and no sends this reproduces (m+p-1)(tf+tb) for GPipe and 1F1B and
 * (m + (p-1)/v)(tf+tb), i.e. bubble (p-1)/(v*m+p-1), for interleaved (SC'21 §2.2.2); the
 * tests check both.
 */

namespace railyard {

std::string_view scheduleName(ScheduleKind k)
{
    switch (k) {
    case ScheduleKind::GPipe:
        return "gpipe";
    case ScheduleKind::OneFOneB:
        return "1f1b";
    case ScheduleKind::Interleaved:
        return "interleaved";
    }
    return "1f1b";
}

bool parseSchedule(std::string_view name, ScheduleKind &out)
{
    for (const ScheduleKind k :
        { ScheduleKind::GPipe, ScheduleKind::OneFOneB, ScheduleKind::Interleaved }) {
        if (name == scheduleName(k)) {
            out = k;
            return true;
        }
    }
    return false;
}

std::string_view eventKindName(PipelineEventKind k)
{
    switch (k) {
    case PipelineEventKind::Forward:
        return "F";
    case PipelineEventKind::Backward:
        return "B";
    case PipelineEventKind::SendForward:
        return "send-F";
    case PipelineEventKind::SendBackward:
        return "send-B";
    }
    return "F";
}

namespace {

/**
 * Upper bound on stages x micro-batches x chunks. The simulation keeps a few doubles and up to
 * four events per compute op, so this caps memory near 300 MB; real runs (p = 64, m = 4096,
 * v = 8 is 2^21) sit at or below it.
 */
constexpr std::int64_t kMaxPipelineOps = std::int64_t { 1 } << 21;

std::string formatNumber(double v)
{
    std::string s = std::to_string(v);
    // std::to_string gives fixed 6 decimals; trim the zeros for a readable message.
    if (s.find('.') != std::string::npos) {
        while (!s.empty() && s.back() == '0')
            s.pop_back();
        if (!s.empty() && s.back() == '.')
            s.pop_back();
    }
    return s;
}

/// Checks size (`expected`, or 0 when `allowEmpty`) and that every entry is finite and >= 0.
void checkTimes(const std::vector<double> &times, std::size_t expected, bool allowEmpty,
    const std::string &field, const char *what)
{
    if (times.size() != expected && !(allowEmpty && times.empty())) {
        throw ScenarioError(field,
            "expected " + std::to_string(expected) + " " + what + (allowEmpty ? " (or none)" : "")
                + ", got " + std::to_string(times.size()));
    }
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (!std::isfinite(times[i]) || times[i] < 0.0) {
            throw ScenarioError(field + "[" + std::to_string(i) + "]",
                "time must be a finite number of seconds >= 0, got " + formatNumber(times[i]));
        }
    }
}

void validate(const PipelineInput &in)
{
    if (in.stages < 1)
        throw ScenarioError(
            "parallel.pp", "a pipeline needs at least 1 stage, got " + std::to_string(in.stages));
    if (in.stages > limits::kMaxDegree)
        throw ScenarioError("parallel.pp",
            "at most " + std::to_string(limits::kMaxDegree) + " stages, got "
                + std::to_string(in.stages));
    if (in.microbatches < 1)
        throw ScenarioError("training.microbatches",
            "a pipeline needs at least 1 micro-batch, got " + std::to_string(in.microbatches));
    if (in.microbatches > limits::kMaxMicrobatches)
        throw ScenarioError("training.microbatches",
            "at most " + std::to_string(limits::kMaxMicrobatches) + " micro-batches, got "
                + std::to_string(in.microbatches));

    std::int64_t chunks = 1;
    if (in.kind == ScheduleKind::Interleaved) {
        if (in.chunks < 2)
            throw ScenarioError("training.interleave",
                "the interleaved schedule needs at least 2 model chunks per "
                "stage, got "
                    + std::to_string(in.chunks));
        if (in.chunks > limits::kMaxLayers)
            throw ScenarioError("training.interleave",
                "at most " + std::to_string(limits::kMaxLayers) + " model chunks per stage, got "
                    + std::to_string(in.chunks));
        // Megatron-LM asserts this too: micro-batches enter each chunk in groups of pp.
        if (in.microbatches % in.stages != 0)
            throw ScenarioError("training.microbatches",
                "the interleaved schedule needs a multiple of the "
                "pipeline stages ("
                    + std::to_string(in.stages) + "), got " + std::to_string(in.microbatches));
        chunks = in.chunks;
    }
    const std::int64_t ops = std::int64_t(in.stages) * in.microbatches * chunks;
    if (ops > kMaxPipelineOps)
        throw ScenarioError("training.microbatches",
            "stages x micro-batches x chunks = " + std::to_string(ops)
                + " exceeds the scheduler's limit of " + std::to_string(kMaxPipelineOps));

    const auto n = static_cast<std::size_t>(in.stages);
    checkTimes(in.forward, n, false, "pipeline.forward", "per-stage forward times");
    checkTimes(in.backward, n, true, "pipeline.backward", "per-stage backward times");
    checkTimes(in.sendForward, n - 1, true, "pipeline.sendForward", "per-boundary send times");
    checkTimes(in.sendBackward, n - 1, true, "pipeline.sendBackward", "per-boundary send times");
    const std::size_t virtualStages = n * static_cast<std::size_t>(chunks);
    checkTimes(in.chunkForward, virtualStages, true, "pipeline.chunkForward",
        "per-chunk forward times (stages x chunks)");
    checkTimes(in.chunkBackward, virtualStages, true, "pipeline.chunkBackward",
        "per-chunk backward times (stages x chunks)");
    checkTimes(in.forwardReady, virtualStages, true, "pipeline.forwardReady",
        "per-chunk ready times (stages x chunks)");
    for (const auto &[wrap, field] :
        { std::pair { in.wrapForward, "pipeline.wrapForward" },
            std::pair { in.wrapBackward, "pipeline.wrapBackward" } }) {
        if (wrap && (!std::isfinite(*wrap) || *wrap < 0.0))
            throw ScenarioError(field,
                "time must be a finite number of seconds >= 0, got " + formatNumber(*wrap));
    }
}

/** One compute op in a stage's program order. */
struct Op
{
    int chunk = 0;
    int microbatch = 0;
    bool backward = false;
};

/** Program order of every stage, as Megatron-LM's schedules.py issues the ops. */
std::vector<std::vector<Op>> stageOrders(ScheduleKind kind, int p, int m, int v, bool withBackward)
{
    std::vector<std::vector<Op>> orders(static_cast<std::size_t>(p));
    for (int s = 0; s < p; ++s) {
        auto &order = orders[static_cast<std::size_t>(s)];
        order.reserve(static_cast<std::size_t>(m) * static_cast<std::size_t>(v) * 2);
        if (kind == ScheduleKind::Interleaved) {
            const int total = m * v;
            // get_model_chunk_id / get_microbatch_id_in_model_chunk in schedules.py.
            const auto virtualOp = [p, v](int k, bool backward) {
                const int inGroup = k % (p * v);
                int chunk = inGroup / p;
                if (backward)
                    chunk = v - 1 - chunk;
                return Op { chunk, (k / (p * v)) * p + k % p, backward };
            };
            int warmup = total;
            if (withBackward && m != p)
                warmup = std::min((p - s - 1) * 2 + (v - 1) * p, total);
            for (int k = 0; k < warmup; ++k)
                order.push_back(virtualOp(k, false));
            for (int k = 0; k < total - warmup; ++k) {
                order.push_back(virtualOp(k + warmup, false));
                order.push_back(virtualOp(k, true));
            }
            if (withBackward) {
                for (int k = std::max(total - warmup, 0); k < total; ++k)
                    order.push_back(virtualOp(k, true));
            }
            continue;
        }
        // GPipe fills first; 1F1B warms up with p - s - 1 forwards. Forward only: all forwards.
        const int warmup
            = !withBackward || kind == ScheduleKind::GPipe ? m : std::min(p - s - 1, m);
        for (int i = 0; i < warmup; ++i)
            order.push_back(Op { 0, i, false });
        for (int i = 0; i < m - warmup; ++i) {
            order.push_back(Op { 0, warmup + i, false });
            order.push_back(Op { 0, i, true });
        }
        if (withBackward) {
            for (int i = m - warmup; i < m; ++i)
                order.push_back(Op { 0, i, true });
        }
    }
    return orders;
}

double mean(const std::vector<double> &values)
{
    if (values.empty())
        return 0.0;
    return std::accumulate(values.begin(), values.end(), 0.0) / double(values.size());
}

/** The list-scheduling simulation over the stage orders. */
class Simulation
{
public:
    explicit Simulation(const PipelineInput &in)
        : m_in(in)
        , m_p(in.stages)
        , m_m(in.microbatches)
        , m_v(in.kind == ScheduleKind::Interleaved ? in.chunks : 1)
        , m_withBackward(
              std::any_of(in.backward.begin(), in.backward.end(), [](double t) { return t > 0.0; })
              || std::any_of(in.chunkBackward.begin(), in.chunkBackward.end(),
                  [](double t) { return t > 0.0; }))
    {
        const std::size_t n = sz(m_p) * sz(m_v) * sz(m_m);
        m_forwardStart.assign(n, 0.0);
        m_forwardEnd.assign(n, -1.0);
        m_backwardEnd.assign(n, -1.0);
        // The wrap from the last stage's chunk c to stage 0's chunk c+1 (interleaved only)
        // carries the same activation (or gradient) shape as any other boundary: without its
        // own time it costs the mean boundary send time.
        if (m_p > 1) {
            m_wrapForward = in.wrapForward.value_or(mean(in.sendForward));
            m_wrapBackward = in.wrapBackward.value_or(mean(in.sendBackward));
        }
    }

    PipelineTimeline run()
    {
        const auto orders = stageOrders(m_in.kind, m_p, m_m, m_v, m_withBackward);
        std::vector<std::size_t> next(sz(m_p), 0);
        std::vector<double> freeAt(sz(m_p), 0.0);
        std::vector<char> queued(sz(m_p), 1);
        std::vector<int> work(sz(m_p), 0);
        std::iota(work.rbegin(), work.rend(), 0); // pop_back() takes stage 0 first

        PipelineTimeline out;
        out.busy.assign(sz(m_p), 0.0);
        std::size_t totalOps = 0;
        for (const auto &o : orders)
            totalOps += o.size();
        out.events.reserve(totalOps * 2);

        while (!work.empty()) {
            const int s = work.back();
            work.pop_back();
            queued[sz(s)] = 0;
            const auto &order = orders[sz(s)];
            auto &i = next[sz(s)];
            while (i < order.size()) {
                const Op &op = order[i];
                const double ready = readyTime(s, op);
                if (ready < 0.0)
                    break; // input not there yet: the producing stage re-queues us
                const double duration = durationOf(s, op);
                const double start = std::max(freeAt[sz(s)], ready);
                const double end = start + duration;
                freeAt[sz(s)] = end;
                out.busy[sz(s)] += duration;
                const std::size_t at = index(s, op.chunk, op.microbatch);
                if (!op.backward)
                    m_forwardStart[at] = start;
                (op.backward ? m_backwardEnd : m_forwardEnd)[at] = end;
                out.events.push_back(PipelineEvent { s, op.microbatch, op.chunk,
                    op.backward ? PipelineEventKind::Backward : PipelineEventKind::Forward, start,
                    end });
                ++i;

                // The send to the consumer (none for the pipeline's ends or a stage to itself).
                const auto [consumer, send] = consumerOf(s, op);
                if (consumer >= 0 && consumer != s && send > 0.0) {
                    out.events.push_back(PipelineEvent { s, op.microbatch, op.chunk,
                        op.backward ? PipelineEventKind::SendBackward
                                    : PipelineEventKind::SendForward,
                        end, end + send });
                }
                if (consumer >= 0 && consumer != s && !queued[sz(consumer)]) {
                    queued[sz(consumer)] = 1;
                    work.push_back(consumer);
                }
            }
        }
        for (int s = 0; s < m_p; ++s) {
            // Every Megatron-LM order respects the data dependencies, so this cannot happen.
            if (next[sz(s)] != orders[sz(s)].size())
                throw std::logic_error(
                    "pipeline schedule deadlocked at stage " + std::to_string(s));
        }

        finish(out);
        return out;
    }

private:
    std::size_t index(int s, int chunk, int mb) const
    {
        return (sz(chunk) * sz(m_p) + sz(s)) * sz(m_m) + sz(mb);
    }

    double backwardAt(int s) const { return m_in.backward.empty() ? 0.0 : m_in.backward[sz(s)]; }
    /// One compute op's time: its chunk's own time when given, else the stage's over v.
    double durationOf(int s, const Op &op) const
    {
        const std::size_t k = sz(op.chunk) * sz(m_p) + sz(s);
        if (op.backward) {
            if (!m_withBackward)
                return 0.0;
            return m_in.chunkBackward.empty() ? backwardAt(s) / double(m_v) : m_in.chunkBackward[k];
        }
        return m_in.chunkForward.empty() ? m_in.forward[sz(s)] / double(m_v) : m_in.chunkForward[k];
    }
    double sendForwardAt(int boundary) const
    {
        return m_in.sendForward.empty() ? 0.0 : m_in.sendForward[sz(boundary)];
    }
    double sendBackwardAt(int boundary) const
    {
        return m_in.sendBackward.empty() ? 0.0 : m_in.sendBackward[sz(boundary)];
    }

    /// When op's input is available on stage s, or -1 when its producer has not run yet.
    double readyTime(int s, const Op &op) const
    {
        const int c = op.chunk;
        const int mb = op.microbatch;
        if (!op.backward) {
            const double held = m_in.forwardReady.empty()
                ? 0.0
                : m_in.forwardReady[sz(c) * sz(m_p) + sz(s)];
            if (s > 0) {
                const double e = m_forwardEnd[index(s - 1, c, mb)];
                return e < 0.0 ? -1.0 : std::max(held, e + sendForwardAt(s - 1));
            }
            if (c > 0) { // wrap: stage p-1, chunk c-1 feeds stage 0, chunk c
                const double e = m_forwardEnd[index(m_p - 1, c - 1, mb)];
                return e < 0.0 ? -1.0 : std::max(held, e + m_wrapForward);
            }
            return held;
        }
        // A backward needs its own forward's activations and the gradient from downstream.
        const double own = m_forwardEnd[index(s, c, mb)];
        if (own < 0.0)
            return -1.0;
        if (s < m_p - 1) {
            const double e = m_backwardEnd[index(s + 1, c, mb)];
            return e < 0.0 ? -1.0 : std::max(own, e + sendBackwardAt(s));
        }
        if (c < m_v - 1) { // wrap: stage 0, chunk c+1 returns to stage p-1, chunk c
            const double e = m_backwardEnd[index(0, c + 1, mb)];
            return e < 0.0 ? -1.0 : std::max(own, e + m_wrapBackward);
        }
        return own; // the last virtual stage turns its own forward around
    }

    /// The stage that consumes op's output and the send time to it; -1 at the pipeline's ends.
    std::pair<int, double> consumerOf(int s, const Op &op) const
    {
        if (!op.backward) {
            if (s < m_p - 1)
                return { s + 1, sendForwardAt(s) };
            if (op.chunk < m_v - 1)
                return { 0, m_wrapForward };
            return { m_withBackward ? s : -1, 0.0 }; // its own backward
        }
        if (s > 0)
            return { s - 1, sendBackwardAt(s - 1) };
        if (op.chunk > 0)
            return { m_p - 1, m_wrapBackward };
        return { -1, 0.0 };
    }

    void finish(PipelineTimeline &out) const
    {
        std::stable_sort(out.events.begin(), out.events.end(),
            [](const PipelineEvent &a, const PipelineEvent &b) {
                if (a.start != b.start)
                    return a.start < b.start;
                if (a.stage != b.stage)
                    return a.stage < b.stage;
                // compute before sends, then micro-batch and chunk: deterministic
                if (a.kind != b.kind)
                    return int(a.kind) < int(b.kind);
                if (a.microbatch != b.microbatch)
                    return a.microbatch < b.microbatch;
                return a.chunk < b.chunk;
            });

        out.makespan = 0.0;
        for (const PipelineEvent &e : out.events)
            out.makespan = std::max(out.makespan, e.end);
        const double busyTotal = std::accumulate(out.busy.begin(), out.busy.end(), 0.0);
        // Bubble = idle stage-time / (stages x makespan), 1 - utilisation: (p-1)/(m+p-1) for
        // equal stages without sends (Huang et al., GPipe, 2019). No time at all: no idle.
        out.bubbleFraction = out.makespan > 0.0
            ? std::max(0.0, 1.0 - busyTotal / (double(m_p) * out.makespan))
            : 0.0;
        out.peakInflight = peakInflight();
    }

    /**
     * Peak micro-batches in flight per stage: a (micro-batch, chunk) is in flight from its
     * forward's start to its backward's end (its activations are stashed, the quantity that
     * sizes activation memory), and counts 1/v. Forward only, nothing is stashed: it is in
     * flight while its forward runs, so the peak is one chunk (1, or 1/v interleaved).
     * Zero-length intervals never overlap anything and are skipped.
     */
    std::vector<double> peakInflight() const
    {
        std::vector<double> peaks(sz(m_p), 0.0);
        std::vector<std::pair<double, int>> marks; // (time, +1 start / -1 end)
        for (int s = 0; s < m_p; ++s) {
            marks.clear();
            for (int c = 0; c < m_v; ++c) {
                for (int mb = 0; mb < m_m; ++mb) {
                    const std::size_t i = index(s, c, mb);
                    const double end = m_withBackward ? m_backwardEnd[i] : m_forwardEnd[i];
                    const double start = m_forwardStart[i];
                    if (end > start) {
                        marks.emplace_back(start, +1);
                        marks.emplace_back(end, -1);
                    }
                }
            }
            // Ends before starts at the same instant: a slot handed over is not double-counted.
            std::sort(marks.begin(), marks.end());
            int count = 0;
            int peak = 0;
            for (const auto &mark : marks) {
                count += mark.second;
                peak = std::max(peak, count);
            }
            peaks[sz(s)] = double(peak) / double(m_v);
        }
        return peaks;
    }

    const PipelineInput &m_in;
    int m_p;
    int m_m;
    int m_v;
    bool m_withBackward;
    double m_wrapForward = 0.0;
    double m_wrapBackward = 0.0;
    std::vector<double> m_forwardStart; ///< [chunk][stage][micro-batch]
    std::vector<double> m_forwardEnd; ///< [chunk][stage][micro-batch], -1 = not yet run
    std::vector<double> m_backwardEnd;
};

} // namespace

PipelineTimeline schedulePipeline(const PipelineInput &input)
{
    validate(input);
    return Simulation(input).run();
}

} // namespace railyard
