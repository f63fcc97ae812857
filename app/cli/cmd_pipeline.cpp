/**
 * `railyard-cli pipeline`: simulates one pipeline schedule (GPipe, 1F1B, interleaved 1F1B,
 * ZB-H1, DualPipe) for equal stages and prints the makespan, bubble, peak in-flight micro-batches
 * and the event timeline, as JSON or as a summary with an ASCII Gantt chart.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "cost/pipelineschedule.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace railyard::cli {

namespace {

/// Gantt chart width in characters, and the most stage rows it draws.
constexpr int kGanttWidth = 72;
constexpr int kGanttMaxRows = 64;

std::string formatSeconds(double seconds)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6g s", seconds);
    return buf;
}

std::string formatPercent(double fraction)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %%", 100.0 * fraction);
    return buf;
}

/**
 * One row per stage; each column is makespan / width seconds and shows what runs at its middle:
 * the micro-batch number (mod 10) for a forward, a letter for a backward (a = 0, b = 1, ...,
 * mod 26), '.' when the stage idles. Only the first kGanttMaxRows stages are drawn.
 */
std::string ganttChart(const PipelineTimeline &t, int allStages)
{
    if (t.makespan <= 0.0)
        return {};
    const int stages = std::min(allStages, kGanttMaxRows);
    std::vector<std::string> rows(static_cast<std::size_t>(stages), std::string(kGanttWidth, '.'));
    const double cell = t.makespan / kGanttWidth;
    for (const PipelineEvent &e : t.events) {
        if (e.stage >= stages || !isCompute(e))
            continue;
        const char mark = e.kind == PipelineEventKind::Forward
            ? static_cast<char>('0' + e.microbatch % 10)
            : e.kind == PipelineEventKind::Backward ? static_cast<char>('a' + e.microbatch % 26)
                                                    : static_cast<char>('A' + e.microbatch % 26);
        // Columns whose midpoint lies inside [start, end).
        const int first = std::max(0, static_cast<int>(std::ceil(e.start / cell - 0.5)));
        const int last
            = std::min(kGanttWidth - 1, static_cast<int>(std::ceil(e.end / cell - 0.5)) - 1);
        for (int c = first; c <= last; ++c)
            rows[static_cast<std::size_t>(e.stage)][static_cast<std::size_t>(c)] = mark;
    }
    std::string out;
    for (int s = 0; s < stages; ++s) {
        char label[32];
        std::snprintf(label, sizeof label, "stage %3d |", s);
        out += label + rows[static_cast<std::size_t>(s)] + "|\n";
    }
    if (allStages > stages)
        out += "          (" + std::to_string(allStages - stages) + " more stages not drawn)\n";
    out += "           0" + std::string(kGanttWidth - 1, ' ') + formatSeconds(t.makespan) + "\n";
    out += "           digits: forward of micro-batch n (mod 10); "
           "letters: backward (a = 0, mod 26); capitals: weight gradient W (A = 0); . idle\n";
    return out;
}

nlohmann::json timelineJson(const PipelineInput &in, const PipelineTimeline &t)
{
    nlohmann::json events = nlohmann::json::array();
    for (const PipelineEvent &e : t.events) {
        events.push_back({ { "stage", e.stage }, { "microbatch", e.microbatch },
            { "chunk", e.chunk }, { "kind", std::string(eventKindName(e.kind)) },
            { "start", e.start }, { "end", e.end }, { "overlapped", e.overlapped } });
    }
    return { { "schedule", std::string(scheduleName(in.kind)) }, { "stages", in.stages },
        { "microbatches", in.microbatches },
        { "chunks", in.kind == ScheduleKind::Interleaved ? in.chunks : 1 },
        { "makespan", t.makespan }, { "bubble_fraction", t.bubbleFraction },
        { "utilisation", 1.0 - t.bubbleFraction }, { "busy", t.busy },
        { "peak_inflight", t.peakInflight }, { "events", std::move(events) } };
}

std::string summaryText(const PipelineInput &in, const PipelineTimeline &t)
{
    const bool forwardOnly
        = std::all_of(in.backward.begin(), in.backward.end(), [](double b) { return b == 0.0; });
    std::string out = "schedule      " + std::string(scheduleName(in.kind));
    if (in.kind == ScheduleKind::Interleaved)
        out += " (" + std::to_string(in.chunks) + " chunks per stage)";
    out += forwardOnly ? ", forward only\n" : "\n";
    out += "stages        " + std::to_string(in.stages) + "\n";
    out += "micro-batches " + std::to_string(in.microbatches) + "\n";
    out += "makespan      " + formatSeconds(t.makespan) + "\n";
    out += "bubble        " + formatPercent(t.bubbleFraction) + "\n";
    out += "utilisation   " + formatPercent(1.0 - t.bubbleFraction) + "\n";
    out += "peak in flight per stage (micro-batches):";
    for (const double p : t.peakInflight) {
        char buf[32];
        std::snprintf(buf, sizeof buf, " %g", p);
        out += buf;
    }
    out += "\n\n" + ganttChart(t, in.stages);
    return out;
}

/// The command-line flag behind an engine field, so errors name what the user typed.
std::string pipelineFlagFor(const std::string &field)
{
    static const std::pair<const char *, const char *> kFlags[] = { { "parallel.pp", "--stages" },
        { "training.microbatches", "--microbatches" }, { "training.interleave", "--chunks" },
        { "pipeline.forward", "--tf" }, { "pipeline.backward", "--tb" },
        { "pipeline.weightGrad", "--tw" }, { "pipeline.send", "--send" } };
    for (const auto &[engine, flag] : kFlags) {
        if (field.rfind(engine, 0) == 0)
            return flag;
    }
    return field;
}

/// A time in seconds: finite and not negative.
double checkedTime(const std::string &option, double v, const std::string &text)
{
    if (!std::isfinite(v) || v < 0.0)
        throw ScenarioError(option, "expected a time in seconds >= 0, got '" + text + "'");
    return v;
}

struct PipelineOptions
{
    std::string schedule = "1f1b";
    int stages = 0;
    int microbatches = 0;
    int chunks = 2;
    const CLI::Option *chunksOption = nullptr;
    double tf = 0.0;
    double tb = 0.0;
    double tw = 0.0;
    double send = 0.0;
    const CLI::Option *tfOption = nullptr;
    const CLI::Option *tbOption = nullptr;
    const CLI::Option *twOption = nullptr;
    const CLI::Option *sendOption = nullptr;
    bool json = false;
};

/// The text the user gave for a number option (for the message of a bad value).
std::string given(const CLI::Option *option)
{
    return option->results().empty() ? std::string() : option->results().back();
}

int runPipeline(const PipelineOptions &o)
{
    PipelineInput in;
    if (!parseSchedule(o.schedule, in.kind)) {
        std::string names;
        for (const ScheduleKind k : kScheduleKinds)
            names += (names.empty() ? "" : ", ") + std::string(scheduleName(k));
        throw ScenarioError(
            "--schedule", "expected one of " + names + ", got '" + o.schedule + "'");
    }
    // --chunks shapes only the interleaved schedule: anywhere else it would be ignored.
    if (o.chunksOption->count() > 0 && in.kind != ScheduleKind::Interleaved)
        throw UsageError("--chunks applies only to --schedule interleaved, not to " + o.schedule);
    // --tw splits the backward only for the schedules that defer W.
    if (o.twOption->count() > 0 && !splitsWeightGrad(in.kind))
        throw UsageError("--tw applies only to --schedule zb-h1 or dualpipe, not to " + o.schedule);
    in.stages = o.stages;
    in.microbatches = o.microbatches;
    in.chunks = in.kind == ScheduleKind::Interleaved ? o.chunks : 1;
    const double tf = checkedTime("--tf", o.tf, given(o.tfOption));
    const double tb = checkedTime("--tb", o.tb, given(o.tbOption));
    const double tw = checkedTime("--tw", o.tw, given(o.twOption));
    const double send = checkedTime("--send", o.send, given(o.sendOption));
    // The engine checks the stage count with its limits; only size the vectors once it can.
    if (in.stages >= 1 && in.stages <= limits::kMaxDegree) {
        const auto n = static_cast<std::size_t>(in.stages);
        in.forward.assign(n, tf);
        in.backward.assign(n, tb);
        if (tw > 0.0)
            in.weightGrad.assign(n, tw);
        if (send > 0.0) {
            in.sendForward.assign(n - 1, send);
            in.sendBackward.assign(n - 1, send);
        }
    }

    PipelineTimeline timeline;
    try {
        timeline = schedulePipeline(in);
    } catch (const ScenarioError &e) {
        throw ScenarioError(pipelineFlagFor(e.field()), e.reason());
    }
    if (o.json)
        writeOutput({}, jsonText(timelineJson(in, timeline)));
    else
        writeOutput({}, terminalText(summaryText(in, timeline)));
    return kExitOk;
}

} // namespace

void addPipeline(CommandLine &line)
{
    auto o = std::make_shared<PipelineOptions>();
    Command c(line,
        line.addCommand("pipeline",
            "Simulate a pipeline schedule (GPipe, 1F1B, interleaved, ZB-H1, DualPipe) for "
            "equal stages. It prints the makespan, the bubble fraction "
            "(idle stage-time / (stages x makespan)), the peak in-flight "
            "micro-batches and the event timeline.",
            [o] { return runPipeline(*o); }));
    std::vector<std::string> schedules;
    for (ScheduleKind k : kScheduleKinds)
        schedules.emplace_back(scheduleName(k));
    c.choice("--schedule", o->schedule, "KIND", "The schedule (default 1f1b).", schedules);
    c.integer("--stages", o->stages, "P", "Pipeline stages P.")->required();
    c.integer("--microbatches", o->microbatches, "M", "Micro-batches M per iteration.")->required();
    o->chunksOption = c.integer(
        "--chunks", o->chunks, "V", "Model chunks per stage, interleaved only (>= 2, default 2).");
    o->tfOption = c.number("--tf", o->tf, "SECONDS", "Forward seconds per micro-batch per stage.")
                      ->required();
    o->tbOption = c.number("--tb", o->tb, "SECONDS",
                       "Backward seconds per micro-batch per stage (0 = forward only).")
                      ->required();
    o->twOption = c.number("--tw", o->tw, "SECONDS",
        "Weight-gradient part of --tb that zb-h1 and dualpipe run as a deferred W pass "
        "(default 0, at most --tb).");
    o->sendOption = c.number(
        "--send", o->send, "SECONDS", "Send seconds per boundary, each direction (default 0).");
    c.json(o->json, "Print JSON.");
}

} // namespace railyard::cli
