/**
 * The pipeline timeline as Chrome Trace Event JSON, which Perfetto (ui.perfetto.dev) and
 * chrome://tracing open. Format: Google's "Trace Event Format" document — the JSON Object
 * Format {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": {...}}, complete events
 * ("ph": "X") with "ts" and "dur" in microseconds, and metadata events ("ph": "M")
 * process_name / thread_name / thread_sort_index naming the tracks.
 *
 * Tracks: pid 1 is the pipeline; tid s is stage s's compute (forward "F mb3 c0", backward
 * "B mb3 c0": micro-batch 3, model chunk 0); tid pp + s holds the sends stage s starts
 * ("send-F"/"send-B"), on their own track because they overlap the stage's compute.
 */
#include "export/chrometrace.h"

#include "export/exportcommon.h"

#include <nlohmann/json.hpp>

namespace railyard::exportdetail {

std::string exportChromeTrace(const CostEngine &engine, const ExportOptions &)
{
    using ojson = nlohmann::ordered_json;
    const Scenario &s = engine.scenario();
    const CostReport &r = engine.report();
    const PipelineTimeline &tl = r.timeline;
    const int stages = engine.layout().degrees().pp;

    std::vector<std::string> lines;
    const auto meta = [&lines](const char *name, int tid, ojson args) {
        ojson e;
        e["name"] = name;
        e["ph"] = "M";
        e["pid"] = 1;
        e["tid"] = tid;
        e["args"] = std::move(args);
        lines.push_back(e.dump());
    };
    const std::string schedule = s.training.schedule == ScheduleKind::GPipe ? "gpipe"
        : s.training.schedule == ScheduleKind::Interleaved                  ? "interleaved"
                                                                            : "1f1b";
    meta("process_name", 0,
        { { "name",
            s.name + " pipeline (" + schedule + ", " + std::to_string(stages) + " stages, "
                + std::to_string(engine.plan().microbatches) + " micro-batches)" } });
    for (int st = 0; st < stages; ++st) {
        meta("thread_name", st, { { "name", "stage " + std::to_string(st) } });
        meta("thread_sort_index", st, { { "sort_index", 2 * st } });
        meta("thread_name", stages + st, { { "name", "stage " + std::to_string(st) + " sends" } });
        meta("thread_sort_index", stages + st, { { "sort_index", 2 * st + 1 } });
    }
    for (const PipelineEvent &ev : tl.events) {
        const bool send = ev.kind == PipelineEventKind::SendForward
            || ev.kind == PipelineEventKind::SendBackward;
        const char *cat = ev.kind == PipelineEventKind::Forward ? "forward"
            : ev.kind == PipelineEventKind::Backward            ? "backward"
                                                                : "send";
        // Written by hand: fixed-point microseconds (ns resolution) keep the file stable.
        std::string line = "{\"name\":"
            + ojson(std::string(eventKindName(ev.kind)) + " mb" + std::to_string(ev.microbatch)
                + " c" + std::to_string(ev.chunk))
                  .dump()
            + ",\"cat\":\"" + cat + "\",\"ph\":\"X\",\"pid\":1,\"tid\":"
            + std::to_string(send ? stages + ev.stage : ev.stage)
            + strf(",\"ts\":%.3f,\"dur\":%.3f", ev.start * 1e6, (ev.end - ev.start) * 1e6)
            + ",\"args\":{\"stage\":" + std::to_string(ev.stage) + ",\"microbatch\":"
            + std::to_string(ev.microbatch) + ",\"chunk\":" + std::to_string(ev.chunk);
        if (send)
            line += ",\"to_stage\":"
                + std::to_string(
                    ev.kind == PipelineEventKind::SendForward ? ev.stage + 1 : ev.stage - 1);
        lines.push_back(line + "}}");
    }

    std::string out = "{\"traceEvents\":[\n";
    for (std::size_t i = 0; i < lines.size(); ++i)
        out += lines[i] + (i + 1 < lines.size() ? ",\n" : "\n");
    out += "],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"scenario\":" + ojson(s.name).dump()
        + strf(",\"makespan_s\":%.9g,\"bubble_fraction\":%.6g,\"iteration_time_s\":%.9g}}\n",
            tl.makespan, tl.bubbleFraction, r.iterationTime);
    return out;
}

} // namespace railyard::exportdetail
