#include "cost/iterationtiming.h"

#include "base/units.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace railyard {

namespace {

double shareOf(const SyncPlan &sync, int stage, int chunk, int chunks)
{
    if (sz(stage) < sync.share.size() && sz(chunk) < sync.share[sz(stage)].size())
        return sync.share[sz(stage)][sz(chunk)];
    return 1.0 / chunks;
}

int bucketsOf(const SyncPlan &sync, int stage, int chunk)
{
    if (sz(stage) < sync.buckets.size() && sz(chunk) < sync.buckets[sz(stage)].size())
        return std::max(1, sync.buckets[sz(stage)][sz(chunk)]);
    return 1;
}

} // namespace

IterationTiming timeIteration(
    const PipelineTimeline &timeline, int stages, int chunks, const SyncPlan &sync)
{
    IterationTiming out;
    out.stages.assign(sz(stages), StageSync {});
    // Per (stage, chunk): the last backward (the last forward when there is none): the one that
    // ends last, and of those ending together the last in the timeline's order (eventBefore()),
    // found without relying on the order the events come in (a search's timeline is unsorted).
    constexpr double kNone = -std::numeric_limits<double>::infinity();
    const std::size_t n = sz(stages) * sz(chunks);
    std::vector<const PipelineEvent *> lastForward(n, nullptr), lastBackward(n, nullptr);
    const auto later = [](const PipelineEvent *best, const PipelineEvent &e) {
        return !best || e.end > best->end || (e.end == best->end && eventBefore(*best, e));
    };
    for (const PipelineEvent &e : timeline.events) {
        // A deferred W pass (ZB-H1, DualPipe) is the backward that finishes the gradients.
        const bool backward
            = e.kind == PipelineEventKind::Backward || e.kind == PipelineEventKind::WeightGrad;
        if (!backward && e.kind != PipelineEventKind::Forward)
            continue;
        // DualPipe's events name their direction as chunk; a rank's two stages reduce their
        // gradients as one set here (chunks = 1).
        const int chunk = chunks == 1 ? 0 : e.chunk;
        if (e.stage < 0 || e.stage >= stages || chunk < 0 || chunk >= chunks)
            continue;
        StageSync &st = out.stages[sz(e.stage)];
        st.lastCompute = std::max(st.lastCompute, e.end);
        const std::size_t k = sz(chunk) * sz(stages) + sz(e.stage);
        const PipelineEvent *&best = backward ? lastBackward[k] : lastForward[k];
        if (later(best, e))
            best = &e;
    }
    std::vector<double> lastStart(n, kNone), lastEnd(n, kNone);
    for (std::size_t k = 0; k < n; ++k)
        if (const PipelineEvent *last = lastBackward[k] ? lastBackward[k] : lastForward[k]) {
            lastStart[k] = last->start;
            lastEnd[k] = last->end;
        }

    double latest = 0.0;
    for (int s = 0; s < stages; ++s) {
        StageSync &st = out.stages[sz(s)];
        st.reduceEnd = st.lastCompute;
        if (sync.present && !sync.overlapReduce) {
            st.reduceEnd = st.lastCompute + sync.reduceAlpha + sync.reduceBeta;
        } else if (sync.present) {
            std::vector<int> order(sz(chunks));
            std::iota(order.begin(), order.end(), 0);
            const auto at = [&](int c) { return sz(c) * sz(stages) + sz(s); };
            std::stable_sort(order.begin(), order.end(),
                [&](int a, int b) { return lastStart[at(a)] < lastStart[at(b)]; });
            double t = kNone;
            double firstReady = st.lastCompute;
            for (const int c : order) {
                const double ready = lastStart[at(c)] == kNone ? st.lastCompute : lastStart[at(c)];
                const double done = lastEnd[at(c)] == kNone ? st.lastCompute : lastEnd[at(c)];
                firstReady = std::min(firstReady, ready);
                const double T = sync.reduceAlpha + shareOf(sync, s, c, chunks) * sync.reduceBeta;
                const double start = std::max(ready, t);
                t = std::max(start + T, done + T / bucketsOf(sync, s, c));
            }
            st.window = st.lastCompute - firstReady;
            st.reduceEnd = std::max(st.lastCompute, t);
        }
        st.syncEnd = st.reduceEnd;
    }
    if (stages > 1 && sync.tiedEmbedding > 0.0) {
        StageSync &first = out.stages.front();
        StageSync &last = out.stages.back();
        first.syncEnd = last.syncEnd
            = std::max(first.reduceEnd, last.reduceEnd) + sync.tiedEmbedding;
    }
    for (const StageSync &st : out.stages)
        latest = std::max(latest, st.syncEnd);
    out.end = latest + sync.optimizer;
    if (sync.present && !sync.overlapGather) {
        out.gatherExposed = sync.gatherBeta > 0.0 ? sync.gatherAlpha + sync.gatherBeta : 0.0;
        out.end += out.gatherExposed;
    }
    out.beforeBound = out.end;
    out.end = std::max(out.end, sync.linkBound);
    return out;
}

std::vector<double> gatherReadyTimes(
    const SyncPlan &sync, int stages, int chunks, const std::vector<double> &forward)
{
    if (!sync.present || !sync.overlapGather || sync.gatherBeta <= 0.0)
        return {};
    std::vector<double> ready(sz(stages) * sz(chunks), 0.0);
    for (int s = 0; s < stages; ++s) {
        double t = 0.0;
        for (int c = 0; c < chunks; ++c) {
            const std::size_t k = sz(c) * sz(stages) + sz(s);
            const double T = sync.gatherAlpha + shareOf(sync, s, c, chunks) * sync.gatherBeta;
            const double L = bucketsOf(sync, s, c);
            const double F = k < forward.size() ? forward[k] : 0.0;
            ready[k] = t + std::max(T / L, T - F * (L - 1.0) / L);
            t += T;
        }
    }
    return ready;
}

} // namespace railyard
