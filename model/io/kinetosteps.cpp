// Per-step measurement of a read Kineto trace (io/kinetotrace.h): compute and exposed
// communication per step window, and the parallel dimension of each process group.
#include "io/kinetotrace.h"

#include "layout/parallellayout.h"

#include <algorithm>
#include <array>

namespace railyard {

namespace {

struct Span
{
    double a = 0.0, b = 0.0;
};

/// Sorted, disjoint union of spans (sorted by start on entry).
std::vector<Span> mergeSpans(std::vector<Span> spans)
{
    std::sort(spans.begin(), spans.end(), [](const Span &x, const Span &y) { return x.a < y.a; });
    std::vector<Span> out;
    for (const Span &s : spans) {
        if (s.b <= s.a)
            continue;
        if (!out.empty() && s.a <= out.back().b)
            out.back().b = std::max(out.back().b, s.b);
        else
            out.push_back(s);
    }
    return out;
}

double length(const std::vector<Span> &spans)
{
    double total = 0.0;
    for (const Span &s : spans)
        total += s.b - s.a;
    return total;
}

/// Length of the part of `u` (disjoint, sorted) not covered by `c` (disjoint, sorted).
double uncovered(const std::vector<Span> &u, const std::vector<Span> &c)
{
    double covered = 0.0;
    std::size_t j = 0;
    for (const Span &s : u) {
        while (j < c.size() && c[j].b <= s.a)
            ++j;
        for (std::size_t k = j; k < c.size() && c[k].a < s.b; ++k)
            covered += std::min(s.b, c[k].b) - std::max(s.a, c[k].a);
    }
    return std::max(0.0, length(u) - covered);
}

constexpr double kMicro = 1e-6; // trace times are microseconds

} // namespace

std::vector<TraceStepMeasure> traceSteps(
    const KinetoTrace &trace, const std::vector<int> &bucketOf, int buckets, int ungroupedBucket)
{
    std::vector<TraceStepWindow> windows = trace.windows;
    if (windows.empty() && !trace.kernels.empty()) {
        TraceStepWindow w;
        w.step = -1;
        w.start = trace.kernels.front().start;
        for (const TraceKernel &k : trace.kernels)
            w.end = std::max(w.end, k.end);
        windows.push_back(w);
    }
    double longest = 0.0;
    for (const TraceKernel &k : trace.kernels)
        longest = std::max(longest, k.end - k.start);
    std::vector<TraceStepMeasure> out;
    for (const TraceStepWindow &w : windows) {
        TraceStepMeasure m;
        m.step = w.step;
        m.stepTime = (w.end - w.start) * kMicro;
        m.exposed.assign(static_cast<std::size_t>(std::max(buckets, 0)), 0.0);
        // Kernels overlapping the window: those starting after w.start - longest, before w.end.
        const auto first = std::lower_bound(trace.kernels.begin(), trace.kernels.end(),
            w.start - longest, [](const TraceKernel &k, double t) { return k.start < t; });
        std::vector<Span> compute, comm;
        std::vector<std::vector<Span>> perBucket(m.exposed.size());
        for (auto it = first; it != trace.kernels.end() && it->start < w.end; ++it) {
            const Span s { std::max(it->start, w.start), std::min(it->end, w.end) };
            if (s.b <= s.a)
                continue;
            if (it->group == TraceKernel::kCompute) {
                compute.push_back(s);
                continue;
            }
            comm.push_back(s);
            int bucket = ungroupedBucket;
            if (it->group >= 0 && static_cast<std::size_t>(it->group) < bucketOf.size())
                bucket = bucketOf[it->group];
            if (bucket >= 0 && bucket < buckets)
                perBucket[bucket].push_back(s);
        }
        const std::vector<Span> c = mergeSpans(std::move(compute));
        const std::vector<Span> all = mergeSpans(std::move(comm));
        m.computeTime = length(c) * kMicro;
        m.commTime = length(all) * kMicro;
        m.exposedComm = uncovered(all, c) * kMicro;
        for (std::size_t b = 0; b < perBucket.size(); ++b)
            m.exposed[b] = uncovered(mergeSpans(std::move(perBucket[b])), c) * kMicro;
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<TraceStepMeasure> traceStepsByGroup(const KinetoTrace &trace)
{
    std::vector<int> bucketOf(trace.groups.size());
    for (std::size_t g = 0; g < bucketOf.size(); ++g)
        bucketOf[g] = static_cast<int>(g);
    const int n = static_cast<int>(trace.groups.size());
    return traceSteps(trace, bucketOf, n + 1, n);
}

std::vector<TraceGroupDimension> traceGroupDimensions(
    const KinetoTrace &trace, const ParallelLayout &layout)
{
    // Kinds in the order a rank set is tried; the first match wins, except that an all-to-all
    // group prefers ep (see the header).
    constexpr std::array<std::pair<GroupKind, Dim>, 7> kinds { {
        { GroupKind::Tp, Dim::Tp },
        { GroupKind::Cp, Dim::Cp },
        { GroupKind::Pp, Dim::Pp },
        { GroupKind::Dp, Dim::Dp },
        { GroupKind::DpCp, Dim::Dp },
        { GroupKind::ExpertDp, Dim::Dp },
        { GroupKind::Ep, Dim::Ep },
    } };
    std::vector<TraceGroupDimension> out(trace.groups.size());
    for (std::size_t gi = 0; gi < trace.groups.size(); ++gi) {
        const TraceProcessGroup &g = trace.groups[gi];
        if (g.ranks.empty())
            continue;
        std::vector<int> listed = g.ranks;
        std::vector<int> head = listed;
        int last = -1;
        if (g.truncated) {
            last = head.back();
            head.pop_back();
        } else {
            std::sort(listed.begin(), listed.end());
        }
        auto matches = [&](const std::vector<int> &members) {
            if (members.size() == 1 && listed.size() == 1)
                return members.front() == listed.front();
            std::vector<int> sorted = members;
            std::sort(sorted.begin(), sorted.end());
            if (!g.truncated)
                return sorted == listed;
            if (g.size > 0 && static_cast<int>(sorted.size()) != g.size)
                return false;
            return sorted.size() > head.size() && sorted.back() == last
                && std::equal(head.begin(), head.end(), sorted.begin());
        };
        // Only the groups holding a listed rank can match: try the group of the first one.
        const int probe = g.ranks.front();
        if (probe < 0 || probe >= layout.worldSize())
            continue;
        std::vector<std::pair<GroupKind, Dim>> found;
        for (const auto &[kind, dim] : kinds) {
            const std::vector<int> &members = layout.groups(kind)[layout.groupOf(kind, probe)];
            if (members.size() > 1 && matches(members))
                found.emplace_back(kind, dim);
        }
        if (found.empty())
            continue;
        std::pair<GroupKind, Dim> pick = found.front();
        for (const auto &f : found)
            if (g.allToAll && f.second == Dim::Ep)
                pick = f;
        out[gi].dim = pick.second;
        out[gi].kind = std::string(groupKindName(pick.first));
    }
    return out;
}

} // namespace railyard
