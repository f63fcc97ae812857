#include "cost/pipelineorders.h"

#include "base/units.h"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <utility>

/**
 * Program orders of the pipeline schedules: the sequence of compute ops each stage issues.
 * The scheduler (pipelineschedule.cpp) runs each op as soon as its stage is free and its input
 * has arrived, so the order alone defines the schedule.
 *
 *  - GPipe, 1F1B and interleaved 1F1B: the orders of Megatron-LM's
 *    `megatron/core/pipeline_parallel/schedules.py` (pipelineschedule.cpp describes them).
 *  - ZB-H1 (Qi, Wan, Huang, Lin, "Zero Bubble Pipeline Parallelism", ICLR 2024, arXiv
 *    2401.10241, §3.1 "handcrafted schedules", Figure 3 top): the backward splits into B (input
 *    gradient, on the critical path) and W (weight gradient, needed only by the optimizer
 *    step). Forwards and B passes keep 1F1B's order (stage s warms up with p - s - 1
 *    forwards); stage s holds back up to s W passes and runs the oldest one whenever more are
 *    pending, so the W passes move into the cool-down, where 1F1B idles waiting for gradients.
 *    A micro-batch is in flight from its forward to its W: stage s has at most p - s - 1 + 1
 *    forwards without B plus s deferred W passes, i.e. p on every stage, 1F1B's peak on stage 0
 *    (the paper's "same peak memory as 1F1B"). With equal stages and T_W <= T_B the bubble is
 *    (p-1)(T_F + T_B - T_W) per stage against 1F1B's (p-1)(T_F + T_B + T_W) (§3.1).
 *  - DualPipe (DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv 2412.19437, §3.2.1,
 *    Figure 5; the order of `DualPipe.step()` in the public repository deepseek-ai/DualPipe,
 *    dualpipe/dualpipe.py): rank r holds pipeline stage r of direction 0 and stage p-1-r of
 *    direction 1; half of the m micro-batches enter at rank 0, half at rank p-1. Each rank runs
 *    the repository's eight steps (warm-up forwards, forward pairs, B-W-F, the main
 *    forward-and-backward pairs, ...); its "phase 0" is the direction that enters at its own
 *    end of the pipeline (direction 0 on the first half of the ranks, 1 on the second). Steps
 *    the repository runs with zero bubble (`enable_zb`) emit InputGrad and queue the W, popped
 *    first-in first-out by its weight steps; the others emit a whole Backward.
 */

namespace railyard {

namespace {

void megatronOrder(std::vector<PipelineOp> &order, ScheduleKind kind, int p, int m, int v, int s,
    bool withBackward)
{
    if (kind == ScheduleKind::Interleaved) {
        const int total = m * v;
        // get_model_chunk_id / get_microbatch_id_in_model_chunk in schedules.py.
        const auto virtualOp = [p, v](int k, bool backward) {
            const int inGroup = k % (p * v);
            int chunk = inGroup / p;
            if (backward)
                chunk = v - 1 - chunk;
            return PipelineOp { backward ? PipelineOpKind::Backward : PipelineOpKind::Forward,
                chunk, (k / (p * v)) * p + k % p };
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
        return;
    }
    // GPipe fills first; 1F1B warms up with p - s - 1 forwards. Forward only: all forwards.
    const int warmup = !withBackward || kind == ScheduleKind::GPipe ? m : std::min(p - s - 1, m);
    for (int i = 0; i < warmup; ++i)
        order.push_back({ PipelineOpKind::Forward, 0, i });
    for (int i = 0; i < m - warmup; ++i) {
        order.push_back({ PipelineOpKind::Forward, 0, warmup + i });
        order.push_back({ PipelineOpKind::Backward, 0, i });
    }
    if (withBackward) {
        for (int i = m - warmup; i < m; ++i)
            order.push_back({ PipelineOpKind::Backward, 0, i });
    }
}

/// ZB-H1 on stage s: 1F1B's forwards and B passes, at most s W passes held back.
void zbH1Order(std::vector<PipelineOp> &order, int p, int m, int s)
{
    const int warmup = std::min(p - s - 1, m);
    const auto held = sz(s);
    std::deque<int> pending;
    const auto inputGrad = [&](int i) {
        order.push_back({ PipelineOpKind::InputGrad, 0, i });
        pending.push_back(i);
        while (pending.size() > held) {
            order.push_back({ PipelineOpKind::WeightGrad, 0, pending.front() });
            pending.pop_front();
        }
    };
    for (int i = 0; i < warmup; ++i)
        order.push_back({ PipelineOpKind::Forward, 0, i });
    for (int i = 0; i < m - warmup; ++i) {
        order.push_back({ PipelineOpKind::Forward, 0, warmup + i });
        inputGrad(i);
    }
    for (int i = std::max(m - warmup, 0); i < m; ++i)
        inputGrad(i);
    for (const int i : pending)
        order.push_back({ PipelineOpKind::WeightGrad, 0, i });
}

/** DualPipe's program on one rank: the eight steps of DualPipe.step() in deepseek-ai/DualPipe. */
class DualPipeRank
{
public:
    DualPipeRank(std::vector<PipelineOp> &order, int p, int r)
        : m_order(order)
        , m_second(r >= p / 2)
    {
    }

    void forward(int phase)
    {
        const int d = direction(phase);
        m_order.push_back({ PipelineOpKind::Forward, d, m_forwards[d]++ });
    }
    void backward(int phase, bool zeroBubble = false)
    {
        const int d = direction(phase);
        const int mb = m_backwards[d]++;
        m_order.push_back(
            { zeroBubble ? PipelineOpKind::InputGrad : PipelineOpKind::Backward, d, mb });
        if (zeroBubble)
            m_weights.emplace_back(d, mb);
    }
    void weight()
    {
        const auto [d, mb] = m_weights.front();
        m_weights.pop_front();
        m_order.push_back({ PipelineOpKind::WeightGrad, d, mb });
    }
    void forwardBackward(int forwardPhase, int backwardPhase)
    {
        const int f = direction(forwardPhase);
        const int b = direction(backwardPhase);
        m_order.push_back(
            { PipelineOpKind::ForwardBackward, f, m_forwards[f]++, b, m_backwards[b]++ });
    }

private:
    /// The repository's `phase ^= is_in_second_half`: phase 0 enters at this rank's own end.
    int direction(int phase) const { return phase ^ (m_second ? 1 : 0); }

    std::vector<PipelineOp> &m_order;
    bool m_second;
    int m_forwards[2] = { 0, 0 };
    int m_backwards[2] = { 0, 0 };
    std::deque<std::pair<int, int>> m_weights;
};

void dualPipeOrder(std::vector<PipelineOp> &order, int p, int m, int r)
{
    const int halfRanks = p / 2;
    const int half = std::min(r, p - 1 - r);
    const bool middle = r == halfRanks - 1 || r == halfRanks;
    DualPipeRank rank(order, p, r);
    // Step 1: nF0.
    for (int i = 0; i < (halfRanks - half - 1) * 2; ++i)
        rank.forward(0);
    // Step 2: nF0F1.
    for (int i = 0; i < half + 1; ++i) {
        rank.forward(0);
        rank.forward(1);
    }
    // Step 3: nB1W1F1, zero bubble.
    for (int i = 0; i < halfRanks - half - 1; ++i) {
        rank.backward(1, true);
        rank.weight();
        rank.forward(1);
    }
    // Step 4, the main step: nF0B1F1B0. The middle ranks do not overlap their first pair (the
    // repository's note: it shrinks the bubble further).
    for (int i = 0; i < m / 2 - p + half + 1; ++i) {
        if (i == 0 && middle) {
            rank.forward(0);
            rank.backward(1);
        } else {
            rank.forwardBackward(0, 1);
        }
        rank.forwardBackward(1, 0);
    }
    // Step 5: nB1F1B0.
    for (int i = 0; i < halfRanks - half - 1; ++i) {
        rank.backward(1);
        rank.forwardBackward(1, 0);
    }
    // Step 6: nB1B0, the second half with zero bubble.
    const int step6 = half + 1;
    bool zeroBubble = false;
    for (int i = 0; i < step6; ++i) {
        if (i == step6 / 2 && half % 2 == 1)
            zeroBubble = true;
        rank.backward(1, zeroBubble);
        if (i == step6 / 2 && half % 2 == 0)
            zeroBubble = true;
        rank.backward(0, zeroBubble);
    }
    // Step 7: nWB0, zero bubble.
    for (int i = 0; i < halfRanks - half - 1; ++i) {
        rank.weight();
        rank.backward(0, true);
    }
    // Step 8: nW.
    for (int i = 0; i < half + 1; ++i)
        rank.weight();
}

/// Forward only: the forwards of an order, a ForwardBackward pair reduced to its forward.
void keepForwards(std::vector<PipelineOp> &order)
{
    std::vector<PipelineOp> kept;
    kept.reserve(order.size());
    for (PipelineOp op : order) {
        if (op.kind == PipelineOpKind::ForwardBackward)
            op.kind = PipelineOpKind::Forward;
        if (op.kind == PipelineOpKind::Forward)
            kept.push_back(op);
    }
    order = std::move(kept);
}

} // namespace

std::vector<std::vector<PipelineOp>> pipelineOrders(
    ScheduleKind kind, int p, int m, int v, bool withBackward)
{
    std::vector<std::vector<PipelineOp>> orders(sz(p));
    for (int s = 0; s < p; ++s) {
        auto &order = orders[sz(s)];
        order.reserve(sz(m) * sz(std::max(1, v)) * 3);
        switch (kind) {
        case ScheduleKind::ZbH1:
            if (withBackward)
                zbH1Order(order, p, m, s);
            else
                megatronOrder(order, ScheduleKind::OneFOneB, p, m, 1, s, false);
            break;
        case ScheduleKind::DualPipe:
            dualPipeOrder(order, p, m, s);
            if (!withBackward)
                keepForwards(order);
            break;
        case ScheduleKind::GPipe:
        case ScheduleKind::OneFOneB:
        case ScheduleKind::Interleaved:
            megatronOrder(order, kind, p, m, v, s, withBackward);
            break;
        }
    }
    return orders;
}

} // namespace railyard
