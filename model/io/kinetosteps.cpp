// Per-step measurement of a read Kineto trace (io/kinetotrace.h): compute and exposed
// communication per step window, and the parallel dimension of each process group.
#include "io/kinetotrace.h"

#include "layout/parallellayout.h"

#include <algorithm>
#include <array>

namespace railyard {

namespace {

struct StepSpan
{
    double a = 0.0, b = 0.0;
};

/// Sorted, disjoint union of spans (sorted by start on entry).
std::vector<StepSpan> mergeStepSpans(std::vector<StepSpan> spans)
{
    std::sort(
        spans.begin(), spans.end(), [](const StepSpan &x, const StepSpan &y) { return x.a < y.a; });
    std::vector<StepSpan> out;
    for (const StepSpan &s : spans) {
        if (s.b <= s.a)
            continue;
        if (!out.empty() && s.a <= out.back().b)
            out.back().b = std::max(out.back().b, s.b);
        else
            out.push_back(s);
    }
    return out;
}

double stepSpansLength(const std::vector<StepSpan> &spans)
{
    double total = 0.0;
    for (const StepSpan &s : spans)
        total += s.b - s.a;
    return total;
}

/// Length of the part of `u` (disjoint, sorted) not covered by `c` (disjoint, sorted).
double uncoveredLength(const std::vector<StepSpan> &u, const std::vector<StepSpan> &c)
{
    double covered = 0.0;
    std::size_t j = 0;
    for (const StepSpan &s : u) {
        while (j < c.size() && c[j].b <= s.a)
            ++j;
        for (std::size_t k = j; k < c.size() && c[k].a < s.b; ++k)
            covered += std::min(s.b, c[k].b) - std::max(s.a, c[k].a);
    }
    return std::max(0.0, stepSpansLength(u) - covered);
}

constexpr double kTraceMicro = 1e-6; // trace times are microseconds

} // namespace

std::vector<TraceStepWindow> traceStepWindows(const KinetoTrace &trace)
{
    std::vector<TraceStepWindow> windows = trace.windows;
    if (windows.empty() && !trace.kernels.empty()) {
        TraceStepWindow w;
        w.step = -1;
        w.start = trace.kernels.front().start;
        w.end = w.start;
        for (const TraceKernel &k : trace.kernels)
            w.end = std::max(w.end, k.end);
        windows.push_back(w);
    }
    return windows;
}

TraceStepSpans traceStepSpans(const KinetoTrace &trace, const std::vector<int> &bucketOf,
    int buckets, int ungroupedBucket, std::size_t window)
{
    TraceStepSpans out;
    const std::vector<TraceStepWindow> windows = traceStepWindows(trace);
    if (window >= windows.size())
        return out;
    const TraceStepWindow &w = windows[window];
    buckets = std::max(buckets, 0);
    std::vector<StepSpan> compute;
    std::vector<std::vector<StepSpan>> comm(static_cast<std::size_t>(buckets));
    // Kernels are sorted by start: those starting after the window's end cannot overlap it.
    for (const TraceKernel &k : trace.kernels) {
        if (k.start >= w.end)
            break;
        const StepSpan s { std::max(k.start, w.start), std::min(k.end, w.end) };
        if (s.b <= s.a)
            continue;
        int bucket = -1;
        if (k.group == TraceKernel::kCompute) {
            compute.push_back(s);
            continue;
        }
        if (k.group >= 0 && static_cast<std::size_t>(k.group) < bucketOf.size())
            bucket = bucketOf[static_cast<std::size_t>(k.group)];
        else if (k.group == TraceKernel::kUngrouped)
            bucket = ungroupedBucket;
        if (bucket >= 0 && bucket < buckets)
            comm[static_cast<std::size_t>(bucket)].push_back(s);
    }
    const auto toSeconds = [&w](const std::vector<StepSpan> &spans) {
        std::vector<TraceStepSpans::Span> v;
        v.reserve(spans.size());
        for (const StepSpan &s : mergeStepSpans(spans))
            v.push_back({ (s.a - w.start) * kTraceMicro, (s.b - w.start) * kTraceMicro });
        return v;
    };
    out.compute = toSeconds(compute);
    for (const std::vector<StepSpan> &c : comm)
        out.comm.push_back(toSeconds(c));
    return out;
}

std::vector<TraceStepMeasure> traceSteps(
    const KinetoTrace &trace, const std::vector<int> &bucketOf, int buckets, int ungroupedBucket)
{
    const std::vector<TraceStepWindow> windows = traceStepWindows(trace);
    buckets = std::max(buckets, 0);
    // Each kernel goes to the windows it overlaps, clipped: windows are sorted by start, so they
    // are those before the first starting after the kernel's end, back to the first whose running
    // maximum of ends is not after the kernel's start (ProfilerStep ranges do not overlap, so
    // that is one window or two; a long-hanging kernel costs no scan of the others).
    std::vector<double> maxEnd(windows.size());
    for (std::size_t i = 0; i < windows.size(); ++i)
        maxEnd[i] = std::max(i ? maxEnd[i - 1] : windows[i].end, windows[i].end);
    struct StepPiece
    {
        StepSpan span;
        int bucket; ///< -2 compute, -1 communication of no bucket, else the bucket
    };
    std::vector<std::vector<StepPiece>> pieces(windows.size());
    for (const TraceKernel &k : trace.kernels) {
        int bucket = -1;
        if (k.group == TraceKernel::kCompute)
            bucket = -2;
        else if (k.group >= 0 && static_cast<std::size_t>(k.group) < bucketOf.size())
            bucket = bucketOf[k.group] < buckets ? bucketOf[k.group] : -1;
        else if (k.group == TraceKernel::kUngrouped && ungroupedBucket < buckets)
            bucket = ungroupedBucket;
        std::size_t i = static_cast<std::size_t>(
            std::lower_bound(windows.begin(), windows.end(), k.end,
                [](const TraceStepWindow &w, double t) { return w.start < t; })
            - windows.begin());
        while (i > 0 && maxEnd[i - 1] > k.start) {
            --i;
            const StepSpan s { std::max(k.start, windows[i].start),
                std::min(k.end, windows[i].end) };
            if (s.b > s.a)
                pieces[i].push_back({ s, bucket });
        }
    }
    std::vector<TraceStepMeasure> out;
    for (std::size_t i = 0; i < windows.size(); ++i) {
        const TraceStepWindow &w = windows[i];
        TraceStepMeasure m;
        m.step = w.step;
        m.stepTime = (w.end - w.start) * kTraceMicro;
        m.exposed.assign(static_cast<std::size_t>(buckets), 0.0);
        std::vector<StepSpan> compute, comm;
        std::vector<std::vector<StepSpan>> perBucket(m.exposed.size());
        for (const StepPiece &p : pieces[i]) {
            if (p.bucket == -2) {
                compute.push_back(p.span);
                continue;
            }
            comm.push_back(p.span);
            if (p.bucket >= 0)
                perBucket[static_cast<std::size_t>(p.bucket)].push_back(p.span);
        }
        std::vector<StepPiece>().swap(pieces[i]);
        const std::vector<StepSpan> c = mergeStepSpans(std::move(compute));
        const std::vector<StepSpan> all = mergeStepSpans(std::move(comm));
        m.computeTime = stepSpansLength(c) * kTraceMicro;
        m.commTime = stepSpansLength(all) * kTraceMicro;
        m.exposedComm = uncoveredLength(all, c) * kTraceMicro;
        for (std::size_t b = 0; b < perBucket.size(); ++b)
            m.exposed[b]
                = uncoveredLength(mergeStepSpans(std::move(perBucket[b])), c) * kTraceMicro;
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

std::optional<Dim> ungroupedTraceDimension(const ParallelLayout &layout)
{
    const ParallelDegrees &d = layout.degrees();
    std::optional<Dim> only;
    int above = 0;
    for (const auto &[dim, degree] :
        { std::pair { Dim::Tp, d.tp }, std::pair { Dim::Pp, d.pp }, std::pair { Dim::Dp, d.dp },
            std::pair { Dim::Ep, d.ep }, std::pair { Dim::Cp, d.cp } })
        if (degree > 1) {
            ++above;
            only = dim;
        }
    return above == 1 ? only : std::nullopt;
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
        auto matches = [&](std::span<const int> members) {
            if (members.size() == 1 && listed.size() == 1)
                return members.front() == listed.front();
            std::vector<int> sorted = toVector(members);
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
            const std::span<const int> members = layout.groups(kind)[layout.groupOf(kind, probe)];
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
