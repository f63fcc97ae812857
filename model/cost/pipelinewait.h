#pragma once

#include "cost/pipelineschedule.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace railyard {

/**
 * What one block of a scheduled pipeline waited for before it could start. The scheduler
 * starts an operation at max(the time its stage is free, the time its input is there)
 * (schedulePipeline(), runOp()): the stage is free when its previous block ends, the input is
 * there when the send that carries it ends (the previous stage's output, or the next stage's
 * gradient). The constraint that binds is the one that ends exactly at the block's start; read
 * back from the schedule's own events, so a view shows the engine's answer and never
 * re-simulates.
 */
struct PipelineWait
{
    enum class Kind {
        None, ///< out of range
        Start, ///< the first block of its stage, at time 0: it waits on nothing
        StageBusy, ///< the same stage's previous block (`event`) ended at its start
        Input, ///< the send that carries its input (`event`) ended at its start; for a send,
               ///< the block that produced what it carries
        Ready, ///< neither: it waited for its parameters (the schedule's forward-ready time)
    };
    Kind kind = Kind::None;
    int event = -1; ///< index into PipelineTimeline::events of the block or send waited on
    double gap = 0.0; ///< seconds between that event's end and this block's start (>= 0)
};

/// The stage a send delivers to: its peer when the scheduler recorded one, else the next stage
/// (send-F) or the previous one (send-B), wrapping around as the interleaved schedule does.
inline int pipelineReceiver(const PipelineEvent &send, int stages)
{
    if (send.peer >= 0)
        return send.peer;
    return send.kind == PipelineEventKind::SendForward ? (send.stage + 1) % stages
                                                       : (send.stage - 1 + stages) % stages;
}

/**
 * What block `index` of `timeline` (a schedule of `stages` stages) waited on. Two
 * candidates: the latest compute block of the same stage that ends by its start, and the latest
 * send of the same micro-batch in its direction (send-F for a forward, send-B for a backward or
 * W) that reaches its stage by its start. The one ending at the start binds (the input when both
 * do: the stage was idle only because the data was not there). "At" allows 1e-9 of the
 * makespan: the scheduler adds durations in one order, so equal times can differ in the last
 * bits (IEEE 754 rounding of start + duration), far below anything the timeline shows.
 * A send waits on the block that computed what it carries (same stage, micro-batch and
 * direction, the latest ending by its start). One pass over the events: O(events), called on a click, not per frame.
 */
inline PipelineWait pipelineWait(const PipelineTimeline &timeline, int stages, int index)
{
    PipelineWait w;
    const std::vector<PipelineEvent> &events = timeline.events;
    if (index < 0 || static_cast<std::size_t>(index) >= events.size() || stages < 1)
        return w;
    const PipelineEvent &e = events[static_cast<std::size_t>(index)];
    const double eps = 1e-9 * std::max(timeline.makespan, 1e-12);
    const auto at = [&e, eps](const PipelineEvent &o) { return std::abs(o.end - e.start) <= eps; };
    if (!isCompute(e)) {
        // A send carries what the latest block of its stage and micro-batch in its direction
        // computed (it leaves when that block ends; DualPipe's overlapped pair, when the pair
        // does).
        const PipelineEventKind from = e.kind == PipelineEventKind::SendForward
            ? PipelineEventKind::Forward
            : PipelineEventKind::Backward;
        for (std::size_t i = 0; i < events.size(); ++i) {
            const PipelineEvent &o = events[i];
            if (o.kind == from && o.stage == e.stage && o.microbatch == e.microbatch
                && o.end <= e.start + eps
                && (w.event < 0 || o.end > events[static_cast<std::size_t>(w.event)].end)) {
                w.kind = PipelineWait::Kind::Input;
                w.event = static_cast<int>(i);
            }
        }
        if (w.event >= 0)
            w.gap = std::max(0.0, e.start - events[static_cast<std::size_t>(w.event)].end);
        return w;
    }
    // The inputs: this block's, and for the first half of DualPipe's overlapped pair the
    // second half's too (the scheduler starts the pair when both are there and records its
    // halves one after the other).
    std::vector<const PipelineEvent *> needs { &e };
    if (e.overlapped) {
        for (const PipelineEvent &o : events)
            if (&o != &e && o.overlapped && isCompute(o) && o.stage == e.stage
                && std::abs(o.start - e.end) <= eps)
                needs.push_back(&o);
    }
    const auto carries = [stages](const PipelineEvent &send, const PipelineEvent &block) {
        const PipelineEventKind kind = block.kind == PipelineEventKind::Forward
            ? PipelineEventKind::SendForward
            : PipelineEventKind::SendBackward;
        return send.kind == kind && send.microbatch == block.microbatch
            && pipelineReceiver(send, stages) == block.stage;
    };
    int previous = -1, input = -1, producer = -1;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const PipelineEvent &o = events[i];
        if (static_cast<int>(i) == index || o.end > e.start + eps)
            continue;
        if (isCompute(o) && o.stage == e.stage) {
            if (previous < 0 || o.end > events[static_cast<std::size_t>(previous)].end)
                previous = static_cast<int>(i);
            continue;
        }
        for (const PipelineEvent *n : needs) {
            if (!isCompute(o) && carries(o, *n)
                && (input < 0 || o.end > events[static_cast<std::size_t>(input)].end))
                input = static_cast<int>(i);
            // A send of no time is not an event: the data is there when the sender's block ends.
            if (isCompute(o) && o.stage != e.stage && o.microbatch == n->microbatch && at(o))
                producer = static_cast<int>(i);
        }
    }
    const auto endOf = [&events](int i) { return events[static_cast<std::size_t>(i)].end; };
    if (input >= 0 && at(events[static_cast<std::size_t>(input)])) {
        w.kind = PipelineWait::Kind::Input;
        w.event = input;
    } else if (previous >= 0 && at(events[static_cast<std::size_t>(previous)])) {
        w.kind = PipelineWait::Kind::StageBusy;
        w.event = previous;
    } else if (producer >= 0) {
        w.kind = PipelineWait::Kind::Input;
        w.event = producer;
    } else if (previous < 0 && e.start <= eps) {
        w.kind = PipelineWait::Kind::Start;
        return w;
    } else {
        // Later than everything it depends on: its parameters (the forward-ready time of an
        // all-gather); the latest of the two it followed is named.
        w.kind = PipelineWait::Kind::Ready;
        w.event
            = input >= 0 && (previous < 0 || endOf(input) >= endOf(previous)) ? input : previous;
    }
    w.gap = std::max(0.0, e.start - (w.event >= 0 ? endOf(w.event) : 0.0));
    return w;
}

} // namespace railyard
