#include "studies/trainingcomparison.h"

#include "base/fileio.h"
#include "base/quantityformat.h"
#include "base/scenarioerror.h"
#include "base/sha256.h"
#include "cost/computefit.h"
#include "cost/costengine.h"
#include "io/kinetotrace.h"
#include "workload/workloadnames.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>

#include <unistd.h>

namespace railyard {

namespace {

// The first MiB tells every format apart: a trace names "traceEvents" after its short metadata
// (deviceProperties, distributedInfo), a log shows its first step line within it unless its
// start-up text is longer, in which case the whole file is searched (measuredFileFormat).
constexpr long long kFormatHeadBytes = 1ll << 20;

double trainingMedian(std::vector<double> v)
{
    if (v.empty())
        return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/// (predicted - measured) / measured, the sign of the engine's error.
double trainingError(double predicted, double measured)
{
    return measured > 0.0 ? (predicted - measured) / measured : 0.0;
}

std::string trainingPercent(double fraction)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f %%", 100.0 * fraction);
    return buf;
}

nlohmann::json trainingSteadyJson(const SteadyStepTime &s, double predicted)
{
    return { { "step_time_s", s.median }, { "skipped_steps", s.skipped }, { "used_steps", s.used },
        { "warmup_rule", s.rule }, { "predicted_step_time_s", predicted },
        { "step_time_error", trainingError(predicted, s.median) } };
}

std::string trainingSteadyText(const std::string &what, const SteadyStepTime &s, double predicted)
{
    return "  " + what + ": " + formatSeconds(s.median) + " (median of " + std::to_string(s.used)
        + " steady " + (s.used == 1 ? "step" : "steps") + "; skipped " + std::to_string(s.skipped)
        + ": " + s.rule + "); predicted " + formatSeconds(predicted) + ", error "
        + trainingPercent(trainingError(predicted, s.median)) + "\n";
}

/// The engine's compute seconds per step on `rank`'s pipeline stage: its micro-batches (the
/// distinct ones its timeline runs forward) times its forward and backward compute per
/// micro-batch, exposed communication left out, as a trace's compute kernels count.
double predictedComputePerStep(const CostEngine &engine, int rank)
{
    const CostReport &report = engine.report();
    const int world = engine.layout().worldSize();
    const int stage = engine.layout().coord(rank >= 0 && rank < world ? rank : 0).p;
    if (stage < 0 || static_cast<std::size_t>(stage) >= report.stages.size())
        return 0.0;
    std::vector<int> microbatches;
    for (const PipelineEvent &e : report.timeline.events)
        if (e.stage == stage && e.kind == PipelineEventKind::Forward)
            microbatches.push_back(e.microbatch);
    std::sort(microbatches.begin(), microbatches.end());
    const auto m = std::unique(microbatches.begin(), microbatches.end()) - microbatches.begin();
    const StageReport &st = report.stages[static_cast<std::size_t>(stage)];
    return static_cast<double>(m) * (st.computeForward + st.computeBackward);
}

void compareTrainingLog(const CostEngine &engine, const TrainingLog &log, TrainingComparison &out)
{
    const std::string &path = log.file;
    const double predicted = engine.report().iterationTime;
    const Scenario &sc = engine.scenario();
    // torchtitan's tps = local tokens / (time x non-data-parallel size) per device
    // (torchtitan/components/metrics.py), so a step of global_batch x seq tokens over `world`
    // GPUs takes tokens / (tps x world).
    const double tokensPerStep = static_cast<double>(sc.training.globalBatch) * sc.model.seq;
    const double world = engine.layout().worldSize();
    std::vector<double> times, tflops;
    for (const TrainingStep &s : log.steps) {
        times.push_back(
            s.stepTime > 0.0 ? s.stepTime : tokensPerStep / (s.tokensPerSecond * world));
        if (s.tflopsPerGpu >= 0.0)
            tflops.push_back(s.tflopsPerGpu);
    }
    const SteadyStepTime steady = steadyStepTime(times);
    nlohmann::json j = { { "file", path }, { "format", measurementFormatName(log.format) },
        { "steps", log.steps.size() }, { "repeated_lines", log.repeatedLines } };
    j.update(trainingSteadyJson(steady, predicted));
    out.sources.push_back({ path, log.format, false, steady.median });
    j["step_time_from"] = log.format == MeasurementFormat::Torchtitan ? "tps" : "log";
    const std::vector<double> steadyTflops = tflops.size() == times.size()
        ? std::vector<double>(tflops.begin() + steady.skipped, tflops.end())
        : tflops;
    j["tflops_per_gpu"] = steadyTflops.empty() ? nlohmann::json(nullptr)
                                               : nlohmann::json(trainingMedian(steadyTflops));
    double peakGiB = -1.0;
    for (const TrainingStep &s : log.steps)
        peakGiB = std::max(peakGiB, s.memoryPeakGiB);
    if (log.maxAllocatedMiB >= 0.0)
        peakGiB = std::max(peakGiB, log.maxAllocatedMiB / 1024.0);
    j["memory_peak_gib"] = peakGiB >= 0.0 ? nlohmann::json(peakGiB) : nlohmann::json(nullptr);
    j["predicted_memory_gib"] = engine.report().maxMemoryPerRank / double(1ll << 30);
    out.text += path + " (" + std::string(measurementFormatName(log.format)) + ", "
        + std::to_string(log.steps.size()) + " steps)\n";
    out.text += trainingSteadyText(
        log.format == MeasurementFormat::Torchtitan ? "step time from tps" : "step time", steady,
        predicted);
    if (peakGiB >= 0.0) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
            "  peak memory: %.2f GiB measured, %.2f GiB predicted per rank\n", peakGiB,
            engine.report().maxMemoryPerRank / double(1ll << 30));
        out.text += buf;
    }
    out.json.push_back(std::move(j));
    // The GUI's view: a log measures the step and nothing finer, drawn as one bar.
    MeasuredRunView v;
    v.file = path;
    v.format = log.format;
    v.stepTime = steady.median;
    v.predictedStepTime = predicted;
    v.rows.push_back({ "step", steady.median, predicted, true });
    v.why = explainStepDifference(steady.median, predicted, {})
        + "; a training log gives only the step time: a profiler trace tells which part differs";
    v.phases.push_back({ MeasuredPhase::Kind::Step, std::nullopt, 0.0, steady.median });
    out.runs.push_back(std::move(v));
}

/// The lane of the steady step whose time is nearest the median (the first such): what a
/// typical step looked like, compute and each dimension's communication.
void traceLane(const KinetoTrace &trace, const std::vector<int> &bucketOf, int ungroupedBucket,
    const std::vector<TraceStepMeasure> &steps, const SteadyStepTime &steady, MeasuredRunView &v)
{
    std::size_t pick = static_cast<std::size_t>(steady.skipped);
    for (std::size_t i = pick; i < steps.size(); ++i)
        if (std::abs(steps[i].stepTime - steady.median)
            < std::abs(steps[pick].stepTime - steady.median))
            pick = i;
    if (pick >= steps.size())
        return;
    v.laneStep = steps[pick].step;
    const TraceStepSpans spans
        = traceStepSpans(trace, bucketOf, kDimCount + 1, ungroupedBucket, pick);
    for (const TraceStepSpans::Span &c : spans.compute)
        v.phases.push_back({ MeasuredPhase::Kind::Compute, std::nullopt, c.start, c.end });
    for (std::size_t b = 0; b < spans.comm.size(); ++b)
        for (const TraceStepSpans::Span &c : spans.comm[b])
            v.phases.push_back({ MeasuredPhase::Kind::Communication,
                b < static_cast<std::size_t>(kDimCount) ? std::optional<Dim>(kAllDims[b])
                                                        : std::nullopt,
                c.start, c.end });
}

void compareTraceFile(const CostEngine &engine, const KinetoTrace &trace, TrainingComparison &out)
{
    const std::string &path = trace.file;
    const CostReport &report = engine.report();
    if (trace.worldSize > 0 && trace.worldSize != engine.layout().worldSize())
        throw ScenarioError(path,
            "the trace's job has " + std::to_string(trace.worldSize)
                + " ranks (distributedInfo.world_size), the scenario "
                + std::to_string(engine.layout().worldSize()));
    const std::vector<TraceGroupDimension> dims = traceGroupDimensions(trace, engine.layout());
    std::vector<int> bucketOf(trace.groups.size(), kDimCount); // unmatched: the last bucket
    nlohmann::json groups = nlohmann::json::array();
    for (std::size_t g = 0; g < trace.groups.size(); ++g) {
        if (dims[g].dim)
            bucketOf[g] = static_cast<int>(*dims[g].dim);
        const TraceProcessGroup &pg = trace.groups[g];
        groups.push_back({ { "name", pg.name }, { "description", pg.description },
            { "ranks", pg.ranks }, { "ranks_truncated", pg.truncated }, { "size", pg.size },
            { "nccl_kernels", pg.kernels },
            { "dimension",
                dims[g].dim ? nlohmann::json(std::string(dimName(*dims[g].dim)))
                            : nlohmann::json(nullptr) },
            { "layout_group", dims[g].kind } });
    }
    // Collectives without process-group args (torch 1.13's traces, NCCL kernels of older
    // releases) go to the layout's one parallel dimension when it has only one.
    // (A bucket, not an optional<Dim>: GCC 12 takes the optional's byte for uninitialised.)
    int ungroupedBucket = kDimCount;
    if (trace.ungroupedNcclKernels > 0)
        if (const std::optional<Dim> d = ungroupedTraceDimension(engine.layout()))
            ungroupedBucket = index(*d);
    const bool ungroupedToDim = ungroupedBucket < kDimCount;
    const std::string ungroupedName = ungroupedToDim
        ? std::string(dimName(kAllDims[static_cast<std::size_t>(ungroupedBucket)]))
        : std::string();
    const std::vector<TraceStepMeasure> steps
        = traceSteps(trace, bucketOf, kDimCount + 1, ungroupedBucket);
    std::vector<double> times;
    for (const TraceStepMeasure &s : steps)
        times.push_back(s.stepTime);
    if (times.empty() || *std::min_element(times.begin(), times.end()) <= 0.0)
        throw ScenarioError(path,
            "a step of zero length (a ProfilerStep range, or the kernels' span when the trace has "
            "none)");
    const SteadyStepTime steady = steadyStepTime(times);
    const auto steadyMedian = [&](auto field) {
        std::vector<double> v;
        for (std::size_t i = static_cast<std::size_t>(steady.skipped); i < steps.size(); ++i)
            v.push_back(field(steps[i]));
        return trainingMedian(v);
    };
    nlohmann::json j = { { "file", path }, { "format", "kineto-trace" }, { "steps", steps.size() },
        { "rank", trace.rank }, { "world_size", trace.worldSize }, { "groups", groups },
        { "step_windows",
            trace.gpuWindows ? "gpu" : (trace.windows.empty() ? "kernel-span" : "cpu") } };
    j.update(trainingSteadyJson(steady, report.iterationTime));
    out.sources.push_back({ path, MeasurementFormat::KinetoTrace, false, steady.median });
    j["compute_time_s"] = steadyMedian([](const TraceStepMeasure &s) { return s.computeTime; });
    j["exposed_comm_s"] = steadyMedian([](const TraceStepMeasure &s) { return s.exposedComm; });
    out.text += path + " (kineto trace, rank " + std::to_string(trace.rank) + ", "
        + std::to_string(steps.size()) + " steps)\n";
    out.text += trainingSteadyText("step time", steady, report.iterationTime);
    out.text += "  compute " + formatSeconds(j["compute_time_s"].get<double>())
        + ", exposed communication " + formatSeconds(j["exposed_comm_s"].get<double>())
        + " per step\n";
    out.text += "  exposed per dimension   measured   predicted   error\n";
    nlohmann::json exposed = nlohmann::json::object();
    for (const Dim d : kAllDims) {
        const int b = static_cast<int>(d);
        const double measured
            = steadyMedian([b](const TraceStepMeasure &s) { return s.exposed[b]; });
        const double predicted = report.dimExposed[b];
        bool present = ungroupedBucket == b;
        for (std::size_t g = 0; g < trace.groups.size(); ++g)
            present = present || bucketOf[g] == b;
        exposed[std::string(dimName(d))]
            = { { "measured_s", measured }, { "predicted_s", predicted }, { "traced", present } };
        if (!present && predicted <= 0.0)
            continue;
        char buf[160];
        std::snprintf(buf, sizeof buf, "    %-20s %10s  %10s   %s\n",
            std::string(dimName(d)).c_str(), present ? formatSeconds(measured).c_str() : "-",
            formatSeconds(predicted).c_str(),
            present && measured > 0.0 ? trainingPercent(trainingError(predicted, measured)).c_str()
                                      : "-");
        out.text += buf;
    }
    const double computeMeasured = j["compute_time_s"].get<double>();
    const double computePredicted = predictedComputePerStep(engine, trace.rank);
    j["predicted_compute_time_s"] = computePredicted;
    std::vector<StepPart> parts { { "compute", computeMeasured, computePredicted } };
    for (const Dim d : kAllDims) {
        const nlohmann::json &e = exposed[std::string(dimName(d))];
        if (e["traced"].get<bool>())
            parts.push_back({ std::string(dimName(d)) + " exposed communication",
                e["measured_s"].get<double>(), e["predicted_s"].get<double>() });
    }
    j["why"] = explainStepDifference(steady.median, report.iterationTime, parts);
    out.text += "  why: " + j["why"].get<std::string>() + "\n";
    const double unassigned
        = steadyMedian([](const TraceStepMeasure &s) { return s.exposed[kDimCount]; });
    j["exposed_s"] = exposed;
    j["unassigned_exposed_s"] = unassigned;
    j["ungrouped_nccl_kernels"] = trace.ungroupedNcclKernels;
    j["ungrouped_dimension"]
        = ungroupedToDim ? nlohmann::json(ungroupedName) : nlohmann::json(nullptr);
    if (ungroupedToDim)
        out.text += "    (" + std::to_string(trace.ungroupedNcclKernels)
            + " collectives without process-group args counted as " + ungroupedName
            + ", the layout's only parallel dimension of degree above 1)\n";
    if (unassigned > 0.0)
        out.text += "    (" + formatSeconds(unassigned)
            + " exposed on groups matching no group of the layout, or without process-group "
              "args)\n";
    MeasuredRunView v;
    v.file = path;
    v.format = MeasurementFormat::KinetoTrace;
    v.rank = trace.rank;
    if (trace.rank >= 0 && trace.rank < engine.layout().worldSize())
        v.stage = engine.layout().coord(trace.rank).p;
    v.stepTime = steady.median;
    v.predictedStepTime = report.iterationTime;
    v.rows.push_back({ "step", steady.median, report.iterationTime, true });
    v.rows.push_back({ "compute", computeMeasured, computePredicted, true });
    for (const Dim d : kAllDims) {
        const nlohmann::json &e = exposed[std::string(dimName(d))];
        const bool traced = e["traced"].get<bool>();
        const double predicted = e["predicted_s"].get<double>();
        if (traced || predicted > 0.0)
            v.rows.push_back({ std::string(dimName(d)) + " exposed communication",
                traced ? e["measured_s"].get<double>() : 0.0, predicted, traced });
    }
    v.why = j["why"].get<std::string>();
    traceLane(trace, bucketOf, ungroupedBucket, steps, steady, v);
    out.runs.push_back(std::move(v));
    out.json.push_back(std::move(j));
}

/// --step-time: one more measured step time, beside the files'.
void compareStepTimeOption(const CostEngine &engine, double stepTime, TrainingComparison &out)
{
    if (stepTime <= 0.0)
        return;
    SteadyStepTime s;
    s.median = stepTime;
    s.used = 1;
    s.rule = "given with --step-time";
    nlohmann::json j = { { "file", nullptr }, { "format", "step-time" } };
    j.update(trainingSteadyJson(s, engine.report().iterationTime));
    out.json.push_back(std::move(j));
    out.sources.push_back({ "", MeasurementFormat::Megatron, true, stepTime });
    out.text += "--step-time\n" + trainingSteadyText("step time", s, engine.report().iterationTime);
}

} // namespace

MeasurementFormat measuredFileFormat(const std::string &path)
{
    const int fd = openRegularFile(path, "an nccl-tests log, training log or profiler trace");
    std::string head(static_cast<std::size_t>(kFormatHeadBytes), '\0');
    std::size_t got = 0;
    while (got < head.size()) {
        const ssize_t n = ::read(fd, head.data() + got, head.size() - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    head.resize(got);
    const MeasurementFormat f = detectMeasurementFormat(head);
    if (f != MeasurementFormat::NcclTests || got < static_cast<std::size_t>(kFormatHeadBytes))
        return f;
    // A long start-up text: search the whole log (readTrainingLog's limit applies).
    try {
        return readTrainingLog(path).format;
    } catch (const ScenarioError &) {
        return MeasurementFormat::NcclTests;
    }
}

MeasuredFile readMeasuredFile(const std::string &path)
{
    MeasuredFile f;
    f.path = path;
    f.format = measuredFileFormat(path);
    if (f.format == MeasurementFormat::KinetoTrace)
        f.trace = std::make_shared<const KinetoTrace>(readKinetoTrace(path));
    else if (f.format != MeasurementFormat::NcclTests)
        f.log = std::make_shared<const TrainingLog>(readTrainingLog(path));
    else
        throw ScenarioError(path,
            "not a training log or profiler trace: no Megatron-LM, NeMo or torchtitan step line "
            "and no \"traceEvents\" (nccl-tests output calibrates the network instead)");
    return f;
}

TrainingComparison compareTraining(const CostEngine &engine, const std::vector<std::string> &paths,
    const std::vector<MeasurementFormat> &formats, double stepTime)
{
    // File by file, each dropped once compared: a 1 GB trace's kernels are not kept beside the
    // next file's.
    TrainingComparison out;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        if (formats[i] == MeasurementFormat::KinetoTrace)
            compareTraceFile(engine, readKinetoTrace(paths[i]), out);
        else
            compareTrainingLog(engine, readTrainingLog(paths[i]), out);
    }
    compareStepTimeOption(engine, stepTime, out);
    return out;
}

TrainingComparison compareMeasured(
    const CostEngine &engine, const std::vector<MeasuredFile> &files, double stepTime)
{
    TrainingComparison out;
    for (const MeasuredFile &f : files) {
        if (f.trace)
            compareTraceFile(engine, *f.trace, out);
        else if (f.log)
            compareTrainingLog(engine, *f.log, out);
    }
    compareStepTimeOption(engine, stepTime, out);
    return out;
}

nlohmann::json computeCalibrationSection(
    const Scenario &scenario, const TrainingComparison &comparison, const std::string &measuredAt)
{
    if (comparison.sources.size() != 1)
        throw ScenarioError("--compute-out",
            "fits one measured step time: give exactly one training log, trace or --step-time (got "
                + std::to_string(comparison.sources.size()) + ")");
    const MeasuredStepSource &src = comparison.sources.front();
    const ComputeFit fit = fitComputeEfficiency(scenario, src.stepTime);
    if (!fit.fitted)
        throw ScenarioError("--compute-out", "cannot fit the compute efficiency: " + fit.reason);
    // The software stack: the scenario's (training.stack) when it names one. A log format is
    // not a stack (Megatron-LM's lines come from Megatron-LM and Megatron-Core runs alike), so
    // without it the stack is "unknown", which carries to any stack; the format is kept.
    const std::string stack = scenario.training.stack
        ? std::string(stackName(*scenario.training.stack))
        : std::string("unknown");
    nlohmann::json files = nlohmann::json::array();
    if (!src.stepTimeOption)
        files.push_back({ { "path", src.file }, { "sha256", sha256OfFile(src.file) },
            { "format", measurementFormatName(src.format) } });
    const ParallelDegrees &d = scenario.degrees;
    nlohmann::json compute = { { "version", 1 }, { "device", scenario.device.name },
        { "precision", precisionName(scenario.training.precision) }, { "stack", stack },
        { "log_format",
            src.stepTimeOption ? std::string("step-time")
                               : std::string(measurementFormatName(src.format)) },
        { "max_efficiency", fit.maxEfficiency }, { "kernel_overhead_us", fit.kernelOverheadUs },
        { "fitted", nlohmann::json::array({ "max_efficiency" }) },
        { "table_max_efficiency", fit.tableEfficiency }, { "measured_step_time_s", src.stepTime },
        { "predicted_step_time_s",
            { { "before", fit.predictedBefore }, { "after", fit.predictedAfter } } },
        { "engine_evaluations", fit.evaluations },
        { "provenance",
            { { "files", files }, { "step_time_option", src.stepTimeOption },
                { "measured_at", measuredAt }, { "scenario", scenario.name },
                { "layout",
                    { { "tp", d.tp }, { "pp", d.pp }, { "dp", d.dp }, { "cp", d.cp },
                        { "ep", d.ep } } } } } };
    return { { "calibration", { { "compute", compute } } } };
}

std::string explainStepDifference(
    double measuredStep, double predictedStep, const std::vector<StepPart> &parts)
{
    std::string out = "the step took " + formatSeconds(measuredStep) + " against "
        + formatSeconds(predictedStep) + " predicted";
    if (predictedStep > 0.0 && measuredStep != predictedStep) {
        char buf[48];
        std::snprintf(buf, sizeof buf, " (%.1f %% %s)",
            100.0 * std::abs(measuredStep - predictedStep) / predictedStep,
            measuredStep > predictedStep ? "slower" : "faster");
        out += buf;
    }
    const StepPart *largest = nullptr;
    for (const StepPart &p : parts)
        if (p.measured >= 0.0
            && (!largest
                || std::abs(p.measured - p.predicted)
                    > std::abs(largest->measured - largest->predicted)))
            largest = &p;
    if (!largest || largest->measured == largest->predicted)
        return out + "; no part of it differs from the prediction";
    const double diff = largest->measured - largest->predicted;
    const double gap = measuredStep - predictedStep;
    out += "; the part that differs most is " + largest->what + ": "
        + formatSeconds(largest->measured) + " measured against "
        + formatSeconds(largest->predicted) + " predicted per step (" + (diff > 0.0 ? "+" : "-")
        + formatSeconds(std::abs(diff));
    if (gap != 0.0 && (gap > 0.0) == (diff > 0.0))
        out += ", "
            + std::to_string(static_cast<int>(std::lround(100.0 * std::min(1.0, diff / gap))))
            + " % of the difference";
    return out + ")";
}

} // namespace railyard
