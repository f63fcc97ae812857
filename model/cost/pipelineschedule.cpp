#include "cost/pipelineschedule.h"

#include "cost/pipelinecheck.h"
#include "cost/pipelineorders.h"

#include "base/units.h"

#include <algorithm>
#include <cassert>
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
 *  - ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, §3.1) and DualPipe
 *    (DeepSeek-V3 Technical Report, §3.2.1): pipelineorders.cpp gives their orders. Their
 *    backwards may split into B (input gradient, backward - weightGrad) and a later W pass
 *    (weightGrad) on the same stage; DualPipe's rank s runs stage s of direction 0 and stage
 *    p-1-s of direction 1 (chunk = direction), and its overlapped forward-and-backward pair
 *    takes one slot (pairTime()).
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
 *  - Sends and W passes of zero duration are not emitted as events (they would only clutter
 *    the timeline).
 *  - `chunks` is ignored by every schedule but interleaved (treated as 1).
 *  - Peak in flight: see Simulation::peakInflight(); forward only it is one chunk (1, or 1/v).
 * With equal stages and no sends this reproduces (m+p-1)(tf+tb) for GPipe and 1F1B and
 * (m + (p-1)/v)(tf+tb), i.e. bubble (p-1)/(v*m+p-1), for interleaved (SC'21 §2.2.2), and
 * the closed forms of ZB-H1 and DualPipe given in pipelineorders.cpp; the tests check them.
 */

namespace railyard {

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
    case PipelineEventKind::WeightGrad:
        return "W";
    }
    return "F";
}

namespace {

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
    Simulation(const PipelineInput &in, EventOrder order)
        : m_in(in)
        , m_order(order)
        , m_p(in.stages)
        , m_dual(in.kind == ScheduleKind::DualPipe)
        , m_m(m_dual ? in.microbatches / 2 : in.microbatches)
        , m_v(in.kind == ScheduleKind::Interleaved ? in.chunks
                  : m_dual                         ? 2
                                                   : 1)
        , m_withBackward(
              std::any_of(in.backward.begin(), in.backward.end(), [](double t) { return t > 0.0; })
              || std::any_of(in.chunkBackward.begin(), in.chunkBackward.end(),
                  [](double t) { return t > 0.0; }))
    {
        const std::size_t n = sz(m_p) * sz(m_v) * sz(m_m);
        m_forwardStart.assign(n, 0.0);
        m_forwardEnd.assign(n, -1.0);
        m_backwardEnd.assign(n, -1.0);
        m_freedAt.assign(n, -1.0);
        // The wrap from the last stage's chunk c to stage 0's chunk c+1 (interleaved only)
        // carries the same activation (or gradient) shape as any other boundary: without its
        // own time it costs the mean boundary send time.
        if (m_p > 1) {
            m_wrapForward = in.wrapForward.value_or(mean(in.sendForward));
            m_wrapBackward = in.wrapBackward.value_or(mean(in.sendBackward));
        }
    }

    /// Into `out`, whose vectors keep their capacity (a search schedules move after move).
    void run(PipelineTimeline &out)
    {
        const auto orders = pipelineOrders(m_in.kind, m_p, m_in.microbatches, m_v, m_withBackward);
        std::vector<std::size_t> next(sz(m_p), 0);
        std::vector<char> queued(sz(m_p), 1);
        std::vector<int> work(sz(m_p), 0);
        std::iota(work.rbegin(), work.rend(), 0); // pop_back() takes stage 0 first
        m_freeAt.assign(sz(m_p), 0.0);

        out.makespan = 0.0;
        out.bubbleFraction = 0.0;
        out.busy.assign(sz(m_p), 0.0);
        out.peakInflight.clear();
        out.events.clear();
        std::size_t totalOps = 0;
        for (const auto &o : orders)
            totalOps += o.size();
        out.events.reserve(totalOps * 2);

        std::vector<int> consumers; // one op's, reused: an allocation per op was a tenth of a run
        while (!work.empty()) {
            const int s = work.back();
            work.pop_back();
            queued[sz(s)] = 0;
            const auto &order = orders[sz(s)];
            auto &i = next[sz(s)];
            while (i < order.size()) {
                consumers.clear();
                if (!runOp(s, order[i], out, consumers))
                    break; // input not there yet: the producing stage re-queues us
                ++i;
                for (const int consumer : consumers) {
                    if (!queued[sz(consumer)]) {
                        queued[sz(consumer)] = 1;
                        work.push_back(consumer);
                    }
                }
            }
        }
        for (int s = 0; s < m_p; ++s) {
            // Every order respects the data dependencies, so this cannot happen.
            if (next[sz(s)] != orders[sz(s)].size())
                throw std::logic_error(
                    "pipeline schedule deadlocked at stage " + std::to_string(s));
        }

        finish(out);
    }

private:
    std::size_t index(int s, int chunk, int mb) const
    {
        return (sz(chunk) * sz(m_p) + sz(s)) * sz(m_m) + sz(mb);
    }
    /// DualPipe: rank s computes pipeline stage s of direction 0 and stage p-1-s of direction 1.
    int modelStage(int s, int chunk) const { return m_dual && chunk == 1 ? m_p - 1 - s : s; }
    /// The event's micro-batch: DualPipe's direction 1 counts on from m/2.
    int eventMicrobatch(int chunk, int mb) const { return m_dual ? chunk * m_m + mb : mb; }

    /// Runs op on stage s if its inputs are there: events, the stages to wake; false if not.
    bool runOp(int s, const PipelineOp &op, PipelineTimeline &out, std::vector<int> &consumers)
    {
        const std::size_t at = index(s, op.chunk, op.microbatch);
        const int mb = eventMicrobatch(op.chunk, op.microbatch);
        double ready = 0.0;
        double duration = 0.0;
        switch (op.kind) {
        case PipelineOpKind::Forward:
            ready = forwardReady(s, op.chunk, op.microbatch);
            duration = forwardTime(s, op.chunk);
            break;
        case PipelineOpKind::Backward:
        case PipelineOpKind::InputGrad:
            ready = backwardReady(s, op.chunk, op.microbatch);
            duration = backwardTime(s, op.chunk)
                - (op.kind == PipelineOpKind::InputGrad ? weightTime(s, op.chunk) : 0.0);
            break;
        case PipelineOpKind::WeightGrad:
            ready = m_backwardEnd[at];
            duration = m_withBackward ? weightTime(s, op.chunk) : 0.0;
            break;
        case PipelineOpKind::ForwardBackward: {
            const double f = forwardReady(s, op.chunk, op.microbatch);
            const double b = backwardReady(s, op.chunk2, op.microbatch2);
            ready = f < 0.0 || b < 0.0 ? -1.0 : std::max(f, b);
            duration = pairTime(s, op.chunk, op.chunk2);
            break;
        }
        }
        if (ready < 0.0)
            return false;
        const double start = std::max(m_freeAt[sz(s)], ready);
        const double end = start + duration;
        m_freeAt[sz(s)] = end;
        out.busy[sz(s)] += duration;

        switch (op.kind) {
        case PipelineOpKind::Forward:
            m_forwardStart[at] = start;
            m_forwardEnd[at] = end;
            out.events.push_back({ s, mb, op.chunk, PipelineEventKind::Forward, start, end });
            emitSend(s, op.chunk, op.microbatch, false, end, out, consumers);
            break;
        case PipelineOpKind::Backward:
        case PipelineOpKind::InputGrad:
            m_backwardEnd[at] = end;
            if (op.kind == PipelineOpKind::Backward)
                m_freedAt[at] = end;
            out.events.push_back({ s, mb, op.chunk, PipelineEventKind::Backward, start, end });
            emitSend(s, op.chunk, op.microbatch, true, end, out, consumers);
            break;
        case PipelineOpKind::WeightGrad:
            m_freedAt[at] = end;
            if (duration > 0.0) // no W to defer (weightGrad 0): no block to draw
                out.events.push_back(
                    { s, mb, op.chunk, PipelineEventKind::WeightGrad, start, end });
            break;
        case PipelineOpKind::ForwardBackward: {
            // One slot for both chunks; drawn as the forward then the backward, each its share
            // of the slot. Their outputs leave when the pair ends (DualPipe sends after
            // _forward_backward_compute_chunk).
            const double f = forwardTime(s, op.chunk);
            const double b = backwardTime(s, op.chunk2);
            const double split = f + b > 0.0 ? start + duration * f / (f + b) : start;
            const std::size_t back = index(s, op.chunk2, op.microbatch2);
            m_forwardStart[at] = start;
            m_forwardEnd[at] = end;
            m_backwardEnd[back] = end;
            m_freedAt[back] = end;
            out.events.push_back(
                { s, mb, op.chunk, PipelineEventKind::Forward, start, split, true });
            out.events.push_back({ s, eventMicrobatch(op.chunk2, op.microbatch2), op.chunk2,
                PipelineEventKind::Backward, split, end, true });
            emitSend(s, op.chunk, op.microbatch, false, end, out, consumers);
            emitSend(s, op.chunk2, op.microbatch2, true, end, out, consumers);
            break;
        }
        }
        return true;
    }

    /// The send of a forward's (or backward's) output to its consumer, and the stage to wake.
    void emitSend(int s, int chunk, int mb, bool backward, double end, PipelineTimeline &out,
        std::vector<int> &consumers) const
    {
        const auto [consumer, send] = consumerOf(s, chunk, backward);
        if (consumer < 0 || consumer == s)
            return; // the pipeline's ends, or a stage's own backward
        if (send > 0.0) {
            out.events.push_back({ s, eventMicrobatch(chunk, mb), chunk,
                backward ? PipelineEventKind::SendBackward : PipelineEventKind::SendForward, end,
                end + send, false, consumer });
        }
        consumers.push_back(consumer);
    }

    double backwardAt(int s) const { return m_in.backward.empty() ? 0.0 : m_in.backward[sz(s)]; }
    /// Index of per-chunk inputs: virtual stage c*p + s (interleaved), the model stage otherwise.
    std::size_t chunkIndex(int s, int chunk) const
    {
        return m_in.kind == ScheduleKind::Interleaved ? sz(chunk) * sz(m_p) + sz(s)
                                                      : sz(modelStage(s, chunk));
    }
    /// One forward's time: its chunk's own time when given, else the stage's over v.
    double forwardTime(int s, int chunk) const
    {
        const int v = m_in.kind == ScheduleKind::Interleaved ? m_v : 1;
        return m_in.chunkForward.empty() ? m_in.forward[sz(modelStage(s, chunk))] / double(v)
                                         : m_in.chunkForward[chunkIndex(s, chunk)];
    }
    /// One whole backward's time (B + W), as forwardTime().
    double backwardTime(int s, int chunk) const
    {
        if (!m_withBackward)
            return 0.0;
        const int v = m_in.kind == ScheduleKind::Interleaved ? m_v : 1;
        return m_in.chunkBackward.empty() ? backwardAt(modelStage(s, chunk)) / double(v)
                                          : m_in.chunkBackward[chunkIndex(s, chunk)];
    }
    /// The weight-gradient part W of one backward (validate() keeps it <= the backward).
    double weightTime(int s, int chunk) const
    {
        if (m_in.weightGrad.empty())
            return 0.0;
        return std::min(m_in.weightGrad[sz(modelStage(s, chunk))], backwardTime(s, chunk));
    }
    double commPart(const std::vector<double> &comm, int s, int chunk, double total) const
    {
        return comm.empty() ? 0.0 : std::min(comm[sz(modelStage(s, chunk))], total);
    }
    /**
     * DualPipe's overlapped pair (DeepSeek-V3 §3.2.1, Figure 4): the two chunks' compute runs
     * back to back while each chunk's communication (all-to-all dispatch and combine, TP, CP)
     * runs during the other chunk's compute; what exceeds that compute stays exposed.
     */
    double pairTime(int s, int forwardChunk, int backwardChunk) const
    {
        const double f = forwardTime(s, forwardChunk);
        const double b = backwardTime(s, backwardChunk);
        const double fComm = commPart(m_in.forwardComm, s, forwardChunk, f);
        const double bComm = commPart(m_in.backwardComm, s, backwardChunk, b);
        const double fCompute = f - fComm;
        const double bCompute = b - bComm;
        return fCompute + bCompute + std::max(0.0, fComm - bCompute)
            + std::max(0.0, bComm - fCompute);
    }
    double sendForwardAt(int boundary) const
    {
        return m_in.sendForward.empty() ? 0.0 : m_in.sendForward[sz(boundary)];
    }
    double sendBackwardAt(int boundary) const
    {
        return m_in.sendBackward.empty() ? 0.0 : m_in.sendBackward[sz(boundary)];
    }
    /**
     * DualPipe's direction 1 runs the other way over the same links: its activations go from
     * rank s+1 to s on the route that carries direction 0's gradients (sendBackward[s]), its
     * gradients from s to s+1 on the activations' route (sendForward[s]). Both tensors have
     * the boundary activation's shape.
     */
    double linkTime(int from, int to) const
    {
        return to == from + 1 ? sendForwardAt(from) : sendBackwardAt(to);
    }

    /// When chunk's forward of mb may start on stage s, or -1 when its input is not there yet.
    double forwardReady(int s, int c, int mb) const
    {
        const double held = m_in.forwardReady.empty()
            ? 0.0
            : m_in.forwardReady[m_dual ? sz(s) : sz(c) * sz(m_p) + sz(s)];
        if (m_dual) {
            const int from = c == 0 ? s - 1 : s + 1;
            if (from < 0 || from >= m_p)
                return held; // the direction's first stage
            const double e = m_forwardEnd[index(from, c, mb)];
            return e < 0.0 ? -1.0 : std::max(held, e + linkTime(from, s));
        }
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

    /// When chunk's backward of mb may start on stage s: its own forward's activations and the
    /// gradient from downstream; -1 when either is missing.
    double backwardReady(int s, int c, int mb) const
    {
        const double own = m_forwardEnd[index(s, c, mb)];
        if (own < 0.0)
            return -1.0;
        if (m_dual) {
            const int from = c == 0 ? s + 1 : s - 1;
            if (from < 0 || from >= m_p)
                return own; // the direction's last stage turns its own forward around
            const double e = m_backwardEnd[index(from, c, mb)];
            return e < 0.0 ? -1.0 : std::max(own, e + linkTime(from, s));
        }
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

    /// The stage that consumes a forward's (backward's) output and the send time to it; -1 at
    /// the pipeline's ends.
    std::pair<int, double> consumerOf(int s, int chunk, bool backward) const
    {
        if (m_dual) {
            // Direction 0 runs up the ranks, 1 down; gradients the other way.
            const int to = (chunk == 0) != backward ? s + 1 : s - 1;
            if (to >= 0 && to < m_p)
                return { to, linkTime(s, to) };
            return { !backward && m_withBackward ? s : -1, 0.0 };
        }
        if (!backward) {
            if (s < m_p - 1)
                return { s + 1, sendForwardAt(s) };
            if (chunk < m_v - 1)
                return { 0, m_wrapForward };
            return { m_withBackward ? s : -1, 0.0 }; // its own backward
        }
        if (s > 0)
            return { s - 1, sendBackwardAt(s - 1) };
        if (chunk > 0)
            return { m_p - 1, m_wrapBackward };
        return { -1, 0.0 };
    }

    void finish(PipelineTimeline &out) const
    {
        // No two events compare equal (eventBefore()), so the plain sort gives the stable
        // sort's order without its merge buffer (checked below in builds with assertions).
        if (m_order == EventOrder::Sorted) {
            std::sort(out.events.begin(), out.events.end(), eventBefore);
            assert(std::adjacent_find(out.events.begin(), out.events.end(),
                       [](const PipelineEvent &a, const PipelineEvent &b) {
                           return !eventBefore(a, b);
                       })
                == out.events.end());
        }

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
     * forward's start until its stash is freed, at the end of its backward, or of its W pass
     * when the schedule defers it (W reads the stored layer inputs, Qi et al. §2), the quantity
     * that sizes activation memory. An interleaved chunk counts 1/v; DualPipe's two
     * directions are each a whole stage's micro-batch and count 1. Forward only, nothing is
     * stashed: it is in flight while its forward runs, so the peak is one chunk (1, or 1/v).
     * Zero-length intervals never overlap anything and are skipped.
     */
    std::vector<double> peakInflight() const
    {
        const double weight = m_in.kind == ScheduleKind::Interleaved ? 1.0 / double(m_v) : 1.0;
        std::vector<double> peaks(sz(m_p), 0.0);
        std::vector<std::pair<double, int>> marks; // (time, +1 start / -1 end)
        for (int s = 0; s < m_p; ++s) {
            marks.clear();
            for (int c = 0; c < m_v; ++c) {
                for (int mb = 0; mb < m_m; ++mb) {
                    const std::size_t i = index(s, c, mb);
                    const double end = m_withBackward ? m_freedAt[i] : m_forwardEnd[i];
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
            peaks[sz(s)] = double(peak) * weight;
        }
        return peaks;
    }

    const PipelineInput &m_in;
    EventOrder m_order;
    int m_p;
    bool m_dual;
    int m_m; ///< micro-batches per chunk index (DualPipe: per direction)
    int m_v; ///< chunk indices: interleaved chunks, DualPipe's 2 directions, else 1
    bool m_withBackward;
    double m_wrapForward = 0.0;
    double m_wrapBackward = 0.0;
    std::vector<double> m_freeAt; ///< per stage: when its current op ends
    std::vector<double> m_forwardStart; ///< [chunk][stage][micro-batch]
    std::vector<double> m_forwardEnd; ///< [chunk][stage][micro-batch], -1 = not yet run
    std::vector<double> m_backwardEnd; ///< the whole backward, or B alone
    std::vector<double> m_freedAt; ///< when the stash is freed (backward or W end)
};

} // namespace

bool eventBefore(const PipelineEvent &a, const PipelineEvent &b)
{
    if (a.start != b.start)
        return a.start < b.start;
    if (a.stage != b.stage)
        return a.stage < b.stage;
    // compute before sends, then micro-batch and chunk: deterministic
    const bool ac = isCompute(a);
    if (ac != isCompute(b))
        return ac;
    if (a.kind != b.kind)
        return int(a.kind) < int(b.kind);
    if (a.microbatch != b.microbatch)
        return a.microbatch < b.microbatch;
    return a.chunk < b.chunk;
}

PipelineTimeline schedulePipeline(const PipelineInput &input, EventOrder order)
{
    PipelineTimeline out;
    schedulePipeline(input, order, out);
    return out;
}

void schedulePipeline(const PipelineInput &input, EventOrder order, PipelineTimeline &out)
{
    checkPipelineInput(input);
    Simulation(input, order).run(out);
}

} // namespace railyard
