/**
 * `railyard-cli pipeline`: simulates one pipeline schedule (GPipe, 1F1B, interleaved 1F1B) for
 * equal stages and prints the makespan, bubble, peak in-flight micro-batches and the event
 * timeline, as JSON or as a summary with an ASCII Gantt chart.
 */
#include "cliutil.h"
#include "commands.h"

#include "cost/pipelineschedule.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <QCommandLineOption>
#include <QCommandLineParser>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
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
        if (e.stage >= stages
            || (e.kind != PipelineEventKind::Forward && e.kind != PipelineEventKind::Backward))
            continue;
        const char mark = e.kind == PipelineEventKind::Forward
            ? static_cast<char>('0' + e.microbatch % 10)
            : static_cast<char>('a' + e.microbatch % 26);
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
           "letters: backward (a = 0, mod 26); . idle\n";
    return out;
}

nlohmann::json timelineJson(const PipelineInput &in, const PipelineTimeline &t)
{
    nlohmann::json events = nlohmann::json::array();
    for (const PipelineEvent &e : t.events) {
        events.push_back({ { "stage", e.stage }, { "microbatch", e.microbatch },
            { "chunk", e.chunk }, { "kind", std::string(eventKindName(e.kind)) },
            { "start", e.start }, { "end", e.end } });
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
std::string flagFor(const std::string &field)
{
    static const std::pair<const char *, const char *> kFlags[]
        = { { "parallel.pp", "--stages" }, { "training.microbatches", "--microbatches" },
              { "training.interleave", "--chunks" }, { "pipeline.forward", "--tf" },
              { "pipeline.backward", "--tb" }, { "pipeline.send", "--send" } };
    for (const auto &[engine, flag] : kFlags) {
        if (field.rfind(engine, 0) == 0)
            return flag;
    }
    return field;
}

/// A non-negative time option; ScenarioError("--name", ...) otherwise.
double timeOption(const QCommandLineParser &parser, const QString &name)
{
    const double v = doubleOption(parser, name);
    if (!std::isfinite(v) || v < 0.0)
        throw ScenarioError("--" + name.toStdString(),
            "expected a time in seconds >= 0, got '" + parser.value(name).toStdString() + "'");
    return v;
}

} // namespace

int runPipeline(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Simulate a pipeline schedule for equal stages: makespan, bubble fraction (idle "
        "stage-time / (stages x makespan)), peak in-flight micro-batches and the event timeline."));
    const QCommandLineOption scheduleOpt(QStringLiteral("schedule"),
        QStringLiteral("gpipe, 1f1b or interleaved (default 1f1b)."), QStringLiteral("kind"),
        QStringLiteral("1f1b"));
    const QCommandLineOption stagesOpt(QStringLiteral("stages"),
        QStringLiteral("Pipeline stages P (required)."), QStringLiteral("P"));
    const QCommandLineOption microOpt(QStringLiteral("microbatches"),
        QStringLiteral("Micro-batches M per iteration (required)."), QStringLiteral("M"));
    const QCommandLineOption chunksOpt(QStringLiteral("chunks"),
        QStringLiteral("Model chunks per stage, interleaved only (>= 2, default 2)."),
        QStringLiteral("V"), QStringLiteral("2"));
    const QCommandLineOption tfOpt(QStringLiteral("tf"),
        QStringLiteral("Forward seconds per micro-batch per stage (required)."),
        QStringLiteral("seconds"));
    const QCommandLineOption tbOpt(QStringLiteral("tb"),
        QStringLiteral("Backward seconds per micro-batch per stage "
                       "(required; 0 = forward only)."),
        QStringLiteral("seconds"));
    const QCommandLineOption sendOpt(QStringLiteral("send"),
        QStringLiteral("Send seconds per boundary, each direction (default 0)."),
        QStringLiteral("seconds"), QStringLiteral("0"));
    const QCommandLineOption jsonOpt(QStringLiteral("json"), QStringLiteral("Print JSON."));
    parser.addOptions(
        { scheduleOpt, stagesOpt, microOpt, chunksOpt, tfOpt, tbOpt, sendOpt, jsonOpt });

    int exitCode = kExitOk;
    if (!parseArgs(parser, args, exitCode))
        return exitCode;
    if (!parser.positionalArguments().isEmpty())
        return fail(
            "unexpected argument '" + parser.positionalArguments().first().toStdString() + "'",
            kExitUsage);
    for (const QCommandLineOption *required : { &stagesOpt, &microOpt, &tfOpt, &tbOpt }) {
        if (!parser.isSet(*required))
            return fail(
                "--" + required->names().first().toStdString() + " is required (see --help)",
                kExitUsage);
    }

    PipelineInput in;
    const std::string schedule = parser.value(scheduleOpt).toStdString();
    if (!parseSchedule(schedule, in.kind))
        throw ScenarioError(
            "--schedule", "expected gpipe, 1f1b or interleaved, got '" + schedule + "'");
    in.stages = intOption(parser, stagesOpt.names().first());
    in.microbatches = intOption(parser, microOpt.names().first());
    // --chunks only matters for the interleaved schedule; ignore its default elsewhere.
    in.chunks
        = in.kind == ScheduleKind::Interleaved ? intOption(parser, chunksOpt.names().first()) : 1;
    const double tf = timeOption(parser, tfOpt.names().first());
    const double tb = timeOption(parser, tbOpt.names().first());
    const double send = timeOption(parser, sendOpt.names().first());
    // The engine checks the stage count with its limits; only size the vectors once it can.
    if (in.stages >= 1 && in.stages <= limits::kMaxDegree) {
        const auto n = static_cast<std::size_t>(in.stages);
        in.forward.assign(n, tf);
        in.backward.assign(n, tb);
        if (send > 0.0) {
            in.sendForward.assign(n - 1, send);
            in.sendBackward.assign(n - 1, send);
        }
    }

    PipelineTimeline timeline;
    try {
        timeline = schedulePipeline(in);
    } catch (const ScenarioError &e) {
        throw ScenarioError(flagFor(e.field()), e.reason()); // main.cpp prints it, exit 1
    }
    if (parser.isSet(jsonOpt))
        writeOutput(QString(), jsonText(timelineJson(in, timeline)));
    else
        writeOutput(QString(), summaryText(in, timeline));
    return kExitOk;
}

} // namespace railyard::cli
