/**
 * The predicted iteration as Chrome Trace Event JSON, which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open. Format: Google's "Trace Event Format" document - the JSON Object
 * Format {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}, complete events
 * ("ph": "X") with "ts" and "dur" in microseconds, flow events ("ph": "s" / "f" with one "id",
 * "bp": "e" binding the end to the slice it lands in) and metadata events ("ph": "M")
 * process_name / thread_name / thread_sort_index naming the tracks.
 *
 * Every phase of the iteration has its own track, per stage s: its compute (forward
 * "F mb3 c0", backward "B mb3 c0": micro-batch 3, model chunk 0), the exposed TP, EP and CP
 * communication of each pass, its pipeline sends (with a flow arrow to the pass that receives
 * them), its data-parallel gradient sync (the part overlapped with backward and the exposed
 * tail, the parameter all-gather) and its optimizer step. A forward or backward of the
 * engine's timeline is its compute followed by its exposed communication (the engine adds the
 * two per pass); the exposed part is split over TP, EP and CP in proportion to their phases'
 * exposed time. The "iteration" track spans [0, iteration_time_s], with the link bound after
 * the optimizer step when the busiest link sets the iteration.
 *
 * Times are whole nanoseconds (written as microseconds with three decimals), each slice's start
 * and end rounded on their own and a slice never starting before the previous one on its track
 * ends, so rounding cannot make two slices of a track overlap.
 */
#include "export/chrometrace.h"

#include "export/exportcommon.h"

#include "cost/pipelineschedule.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace railyard::exportdetail {

namespace {

using ojson = nlohmann::ordered_json;

long long toNs(double seconds)
{
    return std::llround(seconds * 1e9);
}

std::string usText(long long ns)
{
    return strf("%lld.%03lld", ns / 1000, ns % 1000);
}

/** Track ids: per stage a block of kTracks; the iteration track comes first. */
enum Track { Compute, Tp, Ep, Cp, Send, Dp, Optimizer, kTracks };
constexpr int kIterationTid = 0;
int tid(int stage, Track t)
{
    return 1 + stage * kTracks + t;
}

class TraceWriter
{
public:
    /// A complete slice on `track` from `start` to `end` (seconds); returns its [start, end) ns.
    std::pair<long long, long long> slice(int track, const std::string &name, const char *cat,
        double start, double end, ojson args = ojson::object())
    {
        long long &last = m_lastEnd[track];
        const long long s = std::max(toNs(start), last);
        const long long e = std::max(s, toNs(end));
        if (e <= s)
            return { s, s };
        last = e;
        m_end = std::max(m_end, e);
        m_lines.push_back("{\"name\":" + jsonString(name) + ",\"cat\":\"" + cat
            + "\",\"ph\":\"X\",\"pid\":1,\"tid\":" + std::to_string(track) + ",\"ts\":" + usText(s)
            + ",\"dur\":" + usText(e - s) + ",\"args\":" + jsonDump(args) + "}");
        return { s, e };
    }
    void flow(int id, int fromTrack, long long fromNs, int toTrack, long long toNs)
    {
        m_lines.push_back("{\"name\":\"boundary\",\"cat\":\"pp\",\"ph\":\"s\",\"id\":"
            + std::to_string(id) + ",\"pid\":1,\"tid\":" + std::to_string(fromTrack)
            + ",\"ts\":" + usText(fromNs) + "}");
        m_lines.push_back("{\"name\":\"boundary\",\"cat\":\"pp\",\"ph\":\"f\",\"bp\":\"e\",\"id\":"
            + std::to_string(id) + ",\"pid\":1,\"tid\":" + std::to_string(toTrack)
            + ",\"ts\":" + usText(toNs) + "}");
    }
    void track(int track, const std::string &name)
    {
        for (const auto &[key, args] :
            { std::pair<const char *, ojson> { "thread_name", { { "name", name } } },
                std::pair<const char *, ojson> {
                    "thread_sort_index", { { "sort_index", track } } } }) {
            ojson e;
            e["name"] = key;
            e["ph"] = "M";
            e["pid"] = 1;
            e["tid"] = track;
            e["args"] = args;
            m_lines.push_back(jsonDump(e));
        }
    }
    void process(const std::string &name)
    {
        ojson e;
        e["name"] = "process_name";
        e["ph"] = "M";
        e["pid"] = 1;
        e["tid"] = 0;
        e["args"] = { { "name", name } };
        m_lines.push_back(jsonDump(e));
    }
    long long end() const { return m_end; }
    const std::vector<std::string> &lines() const { return m_lines; }

private:
    std::vector<std::string> m_lines;
    std::map<int, long long> m_lastEnd;
    long long m_end = 0;
};

/// Per stage and pass, the exposed seconds of TP, EP and CP phases per micro-batch: the
/// weights that split the pass's exposed communication over the three tracks.
struct CommWeights
{
    double tp = 0.0, ep = 0.0, cp = 0.0;
    double sum() const { return tp + ep + cp; }
};
CommWeights weightsOf(const CostReport &r, int stage, OpPass pass)
{
    CommWeights w;
    for (const PhaseResult &p : r.phases) {
        if (p.stage != stage || p.pass != pass)
            continue;
        const double exposed = std::max(0.0, p.time - p.hidden) * p.count;
        if (p.dim == Dim::Tp)
            w.tp += exposed;
        else if (p.dim == Dim::Ep)
            w.ep += exposed;
        else if (p.dim == Dim::Cp)
            w.cp += exposed;
    }
    return w;
}

} // namespace

std::string exportChromeTrace(const CostEngine &engine, const ExportOptions &)
{
    const Scenario &s = engine.scenario();
    const CostReport &r = engine.report();
    const PipelineTimeline &tl = r.timeline;
    const ParallelDegrees &deg = engine.layout().degrees();
    const int stages = deg.pp;
    const double T = r.iterationTime;

    TraceWriter w;
    const std::string schedule(scheduleName(s.training.schedule));
    w.process(s.name + " iteration (" + schedule + ", " + std::to_string(stages) + " stages, "
        + std::to_string(engine.plan().microbatches) + " micro-batches)");
    w.track(kIterationTid, "iteration");
    const bool dpPresent = r.dpReduceTime > 0.0 || r.dpGatherTime > 0.0;
    for (int st = 0; st < stages; ++st) {
        const std::string name = "stage " + std::to_string(st);
        w.track(tid(st, Compute), name + " compute");
        if (deg.tp > 1)
            w.track(tid(st, Tp), name + " TP");
        if (deg.ep > 1)
            w.track(tid(st, Ep), name + " EP");
        if (deg.cp > 1)
            w.track(tid(st, Cp), name + " CP");
        if (stages > 1)
            w.track(tid(st, Send), name + " PP send/recv");
        if (dpPresent)
            w.track(tid(st, Dp), name + " DP");
        w.track(tid(st, Optimizer), name + " optimizer");
    }
    w.slice(kIterationTid, "iteration", "iteration", 0.0, T,
        { { "iteration_time_s", T }, { "pipeline_makespan_s", tl.makespan },
            { "bubble_fraction", tl.bubbleFraction } });

    // Compute and exposed communication of every forward and backward.
    std::vector<std::pair<long long, long long>> computeNs(tl.events.size(), { -1, -1 });
    for (std::size_t i = 0; i < tl.events.size(); ++i) {
        const PipelineEvent &ev = tl.events[i];
        const bool fwd = ev.kind == PipelineEventKind::Forward;
        if (ev.kind == PipelineEventKind::WeightGrad) {
            // ZB-H1 / DualPipe: the deferred weight-gradient GEMMs, compute only.
            computeNs[i] = w.slice(tid(ev.stage, Compute),
                "W mb" + std::to_string(ev.microbatch) + " c" + std::to_string(ev.chunk),
                "weight-gradient", ev.start, ev.end,
                { { "stage", ev.stage }, { "microbatch", ev.microbatch }, { "chunk", ev.chunk } });
            continue;
        }
        if (!fwd && ev.kind != PipelineEventKind::Backward)
            continue;
        const StageReport &sr = r.stages[static_cast<std::size_t>(ev.stage)];
        const double compute = fwd ? sr.computeForward : sr.computeBackward;
        const double comm = fwd ? sr.commForward : sr.commBackward;
        const double d = ev.end - ev.start;
        const double computeShare = compute + comm > 0.0 ? compute / (compute + comm) : 1.0;
        const double computeEnd = ev.start + d * computeShare;
        const std::string label = std::string(fwd ? "F" : "B") + " mb"
            + std::to_string(ev.microbatch) + " c" + std::to_string(ev.chunk);
        ojson args
            = { { "stage", ev.stage }, { "microbatch", ev.microbatch }, { "chunk", ev.chunk } };
        // DualPipe's overlapped pair hides its communication behind the other chunk's compute:
        // one slice per half, no exposed part.
        if (ev.overlapped)
            args["overlapped"] = true;
        const bool lastSlice = comm <= 0.0 || ev.overlapped;
        computeNs[i] = w.slice(tid(ev.stage, Compute), label, fwd ? "forward" : "backward",
            ev.start, lastSlice ? ev.end : computeEnd, args);
        if (lastSlice)
            continue;
        CommWeights cw = weightsOf(r, ev.stage, fwd ? OpPass::Forward : OpPass::Backward);
        if (cw.sum() <= 0.0)
            (deg.tp > 1 ? cw.tp : deg.ep > 1 ? cw.ep : cw.cp) = 1.0;
        double t = computeEnd;
        const double rest = ev.end - computeEnd;
        const std::pair<Track, double> parts[] = { { Tp, cw.tp }, { Ep, cw.ep }, { Cp, cw.cp } };
        const char *names[] = { "TP", "EP", "CP" };
        double given = 0.0;
        for (int k = 0; k < 3; ++k) {
            const auto &[track, weight] = parts[k];
            if (weight <= 0.0)
                continue;
            given += weight;
            // The last part ends exactly at the pass's end.
            const double end = given >= cw.sum() ? ev.end : t + rest * weight / cw.sum();
            w.slice(tid(ev.stage, track), std::string(names[k]) + " " + label + " (exposed)",
                names[k], t, end, args);
            t = end;
        }
    }

    // Pipeline sends, each with a flow arrow to the pass that consumes it.
    int flowId = 0;
    for (const PipelineEvent &ev : tl.events) {
        const bool fwd = ev.kind == PipelineEventKind::SendForward;
        if (!fwd && ev.kind != PipelineEventKind::SendBackward)
            continue;
        // The scheduler names the receiver (DualPipe's direction 1 runs down the ranks, the
        // interleaved wrap-around from the last stage to stage 0); older timelines do not.
        int to = ev.peer >= 0 ? ev.peer : fwd ? ev.stage + 1 : ev.stage - 1;
        if (to < 0 || to >= stages)
            to = fwd ? 0 : stages - 1;
        const auto ns = w.slice(tid(ev.stage, Send),
            std::string(eventKindName(ev.kind)) + " mb" + std::to_string(ev.microbatch) + " c"
                + std::to_string(ev.chunk) + " -> stage " + std::to_string(to),
            "send", ev.start, ev.end,
            { { "stage", ev.stage }, { "microbatch", ev.microbatch }, { "chunk", ev.chunk },
                { "to_stage", to } });
        // The receiving pass: the earliest of its kind on `to`, same micro-batch, starting
        // once the send has arrived.
        const PipelineEventKind want
            = fwd ? PipelineEventKind::Forward : PipelineEventKind::Backward;
        long long best = -1;
        for (std::size_t i = 0; i < tl.events.size(); ++i) {
            const PipelineEvent &rcv = tl.events[i];
            if (rcv.kind == want && rcv.stage == to && rcv.microbatch == ev.microbatch
                && computeNs[i].first >= ns.second - 1 && std::abs(rcv.chunk - ev.chunk) <= 1
                && (best < 0 || computeNs[i].first < best))
                best = computeNs[i].first;
        }
        if (best >= 0 && ns.second > ns.first)
            w.flow(++flowId, tid(ev.stage, Send), ns.first, tid(to, Compute), best);
    }

    // The data-parallel sync, the optimizer step and what follows it.
    double latest = 0.0;
    for (const StageReport &sr : r.stages)
        latest = std::max({ latest, sr.dpReduceEnd, sr.tiedEmbeddingEnd });
    const bool overlapGather = s.training.overlapParamGather && s.training.distributedOptimizer;
    const double gatherAfter = dpPresent && !overlapGather ? r.dpGatherTime : 0.0;
    double afterOptimizer = latest;
    for (int st = 0; st < stages; ++st) {
        const StageReport &sr = r.stages[static_cast<std::size_t>(st)];
        const int dpTrack = tid(st, Dp);
        if (dpPresent && overlapGather && r.dpGatherOverlapped > 0.0)
            w.slice(dpTrack, "DP parameter all-gather (overlapped with forward)", "DP", 0.0,
                std::min(r.dpGatherOverlapped, sr.lastCompute - sr.dpWindow));
        if (dpPresent && sr.dpWindow > 0.0)
            w.slice(dpTrack, "DP gradient reduction (overlapped with backward)", "DP",
                sr.lastCompute - sr.dpWindow, sr.lastCompute);
        if (dpPresent && sr.dpReduceEnd > sr.lastCompute)
            w.slice(dpTrack, "DP gradient reduction (exposed)", "DP", sr.lastCompute,
                sr.dpReduceEnd, { { "exposed_s", sr.dpExposed } });
        if (sr.tiedEmbeddingEnd > sr.tiedEmbeddingStart)
            w.slice(tid(st, Send), "tied embedding gradient all-reduce", "PP",
                sr.tiedEmbeddingStart, sr.tiedEmbeddingEnd);
        const double opt = engine.plan().stages[static_cast<std::size_t>(st)].optimizerTime;
        const double optEnd = std::min(T, latest + opt);
        w.slice(tid(st, Optimizer), "optimizer step", "optimizer", latest, optEnd);
        afterOptimizer = std::max(afterOptimizer, optEnd);
    }
    double modelEnd = afterOptimizer;
    if (gatherAfter > 0.0) {
        modelEnd = std::min(T, afterOptimizer + gatherAfter);
        for (int st = 0; st < stages; ++st)
            w.slice(tid(st, Dp), "DP parameter all-gather (after the optimizer step)", "DP",
                afterOptimizer, modelEnd);
    }
    if (T > modelEnd && toNs(T) > toNs(modelEnd)) {
        const std::string why = !r.linkBound ? std::string("not attributed to a phase")
            : r.bottleneckLink >= 0
            ? "link bound: " + engine.fabric().linkName(r.bottleneckLink) + " still carries bytes"
            : std::string("link bound: the busiest link still carries bytes");
        // On its own track (the iteration track holds the whole iteration's slice).
        w.track(kIterationTid + 1000, "link bound");
        w.slice(kIterationTid + 1000, why, "link", modelEnd, T);
    }

    std::string out = "{\"traceEvents\":[\n";
    const auto &lines = w.lines();
    for (std::size_t i = 0; i < lines.size(); ++i)
        out += lines[i] + (i + 1 < lines.size() ? ",\n" : "\n");
    out += "],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"scenario\":" + jsonString(s.name)
        + strf(",\"makespan_s\":%.9g,\"bubble_fraction\":%.6g,\"iteration_time_s\":%.9g",
            tl.makespan, tl.bubbleFraction, T)
        + ",\"trace_end_us\":" + usText(w.end()) + "}}\n";
    return out;
}

} // namespace railyard::exportdetail
