#include "io/traininglog.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>

namespace railyard {

namespace {

// A training log of a long run prints one line per logging interval plus its start-up text;
// 256 MiB holds millions of step lines and still reads in a second or two. Larger files are
// more likely a mistake (a core dump, a trace given as text) than a log.
constexpr long long kMaxTrainingLogBytes = 256ll << 20;

// Megatron-LM, megatron/training/training.py training_log(): " iteration {:8d}/{:8d} |",
// " elapsed time per iteration (ms): {:.1f} |", " throughput per GPU (TFLOP/s/GPU): {:.1f} |";
// report_memory() (megatron/training/utils): "[Rank R] (after N iterations) memory (MB) |
// allocated: A | max allocated: M | reserved: R | max reserved: X".
constexpr std::string_view kMegatronTime = "elapsed time per iteration (ms):";
constexpr std::string_view kMegatronTflops = "throughput per GPU (TFLOP/s/GPU):";
constexpr std::string_view kMegatronMemory = "memory (MB)";
// NeMo: the metric PyTorch Lightning logs and its progress bar / NeMo 2's progress printer
// show as "train_step_timing in s=3.130" or "train_step_timing in s: 2.505" (DLLogger JSON:
// "\"train_step_timing in s\": 92.28"), beside "global_step".
constexpr std::string_view kNemoTime = "train_step_timing in s";
constexpr std::string_view kNemoTflops = "tflops_per_sec_per_gpu";
// torchtitan, torchtitan/components/metrics.py MetricsProcessor.log(): "step: {step:2}  loss:
// ... grad_norm: ...  memory: {:5.2f}GiB({:.2f}%)  tps: {round(tps):,}  tflops: {:,.2f}  mfu:
// {:.2f}%" (early versions printed "wps:" for tps); "validate step:" lines are not training.
constexpr std::string_view kTitanStep = "step:";
// Composer (MosaicML; llm-foundry trains with it), composer/loggers/console_logger.py: every
// logged batch is a block headed "[batch=N/M]:" ("[epoch=E][batch=N/M]:" when epochs are
// counted) and one "\t Train KEY: VALUE" line per metric. The SpeedMonitor callback's
// "throughput/batches_per_sec" is the whole job's batches (optimizer steps) per second over its
// window, so the step time is its inverse ("device/batches_per_sec" divides it by the ranks).
constexpr std::string_view kComposerBatch = "[batch=";
constexpr std::string_view kComposerRate = "Train throughput/batches_per_sec:";

bool logDigit(char c)
{
    return c >= '0' && c <= '9';
}

/// The line without ANSI escape sequences (ESC '[' parameters, then a final byte @..~).
std::string logWithoutAnsi(std::string_view line)
{
    std::string out;
    out.reserve(line.size());
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\x1b' && i + 1 < line.size() && line[i + 1] == '[') {
            std::size_t j = i + 2;
            while (j < line.size() && !(line[j] >= '@' && line[j] <= '~'))
                ++j;
            i = j; // the final byte too (or the line's end)
            continue;
        }
        out += line[i];
    }
    return out;
}

std::size_t logSkipBlanks(std::string_view s, std::size_t at)
{
    while (at < s.size() && (s[at] == ' ' || s[at] == '\t'))
        ++at;
    return at;
}

/// A number at `at` (after blanks): digits with an optional fraction and exponent, thousands
/// commas allowed when `commas`; "nan" / "inf" read as such so the caller can refuse them.
std::optional<double> logNumberAt(std::string_view s, std::size_t at, bool commas = false)
{
    at = logSkipBlanks(s, at);
    std::string digits;
    std::size_t i = at;
    if (i < s.size() && (s[i] == '-' || s[i] == '+'))
        digits += s[i++];
    const std::size_t first = i;
    while (i < s.size()
        && (logDigit(s[i]) || s[i] == '.' || (commas && s[i] == ',' && i > first)
            || ((s[i] == 'e' || s[i] == 'E') && i > first)
            || ((s[i] == '-' || s[i] == '+') && (s[i - 1] == 'e' || s[i - 1] == 'E')))) {
        if (s[i] != ',')
            digits += s[i];
        ++i;
    }
    if (i == first) { // "nan", "inf" as Python prints them
        const std::string_view word = s.substr(first, 3);
        if (word == "nan" || word == "inf" || word == "NaN")
            return word == "inf" ? HUGE_VAL : std::nan("");
        return std::nullopt;
    }
    double v = 0.0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || end != digits.data() + digits.size())
        return std::nullopt;
    return v;
}

/// Position just after `key` in `s`, or npos.
std::size_t logAfter(std::string_view s, std::string_view key, std::size_t from = 0)
{
    const std::size_t at = s.find(key, from);
    return at == std::string_view::npos ? at : at + key.size();
}

/// After a NeMo key: an optional closing quote, blanks, then '=' or ':'; npos when not.
std::size_t logAfterSeparator(std::string_view s, std::size_t at)
{
    if (at < s.size() && s[at] == '"')
        ++at;
    at = logSkipBlanks(s, at);
    if (at >= s.size() || (s[at] != '=' && s[at] != ':'))
        return std::string_view::npos;
    return at + 1;
}

class LogLineError
{
public:
    LogLineError(const std::string &file, int line)
        : m_where(file + ":" + std::to_string(line))
    {
    }
    [[noreturn]] void fail(const std::string &reason) const
    {
        throw ScenarioError(m_where, reason);
    }

    /// The number after `key` at `at` (npos: absent -> nullopt); refuses an unreadable one, and
    /// with `positive` one that is not finite and > 0.
    std::optional<double> figure(std::string_view s, std::size_t at, std::string_view key,
        bool positive, bool commas = false) const
    {
        if (at == std::string_view::npos)
            return std::nullopt;
        const std::optional<double> v = logNumberAt(s, at, commas);
        if (!v)
            fail("'" + std::string(key) + "' is not followed by a number");
        if (!std::isfinite(*v))
            fail("'" + std::string(key) + "' is not a finite number");
        if (positive && *v <= 0.0)
            fail("'" + std::string(key) + "' must be positive");
        if (*v < 0.0)
            fail("'" + std::string(key) + "' must not be negative");
        return v;
    }

private:
    std::string m_where;
};

/// Megatron's " iteration      100/  500000 |": the index after "iteration" (digits first).
std::optional<long long> megatronIteration(std::string_view s)
{
    for (std::size_t at = s.find("iteration"); at != std::string_view::npos;
         at = s.find("iteration", at + 1)) {
        const std::size_t i = logSkipBlanks(s, at + 9);
        if (i == at + 9 || i >= s.size() || !logDigit(s[i]))
            continue;
        const std::optional<double> v = logNumberAt(s, i);
        if (v && *v >= 0 && *v < 1e15)
            return static_cast<long long>(*v);
    }
    return std::nullopt;
}

std::optional<TrainingStep> megatronLine(
    std::string_view s, const LogLineError &err, TrainingLog &log, int lineNo)
{
    if (s.find(kMegatronMemory) != std::string_view::npos) {
        const std::size_t allocated = logAfter(s, "max allocated:");
        if (allocated != std::string_view::npos) {
            const double a = *err.figure(s, allocated, "max allocated:", false);
            log.maxAllocatedMiB = std::max(log.maxAllocatedMiB, a);
            log.memoryLine = lineNo;
            if (const auto r = err.figure(s, logAfter(s, "max reserved:"), "max reserved:", false))
                log.maxReservedMiB = std::max(log.maxReservedMiB, *r);
        }
        return std::nullopt;
    }
    const std::size_t time = logAfter(s, kMegatronTime);
    if (time == std::string_view::npos)
        return std::nullopt;
    TrainingStep step;
    const std::optional<long long> index = megatronIteration(s);
    if (!index)
        err.fail("an '" + std::string(kMegatronTime) + "' line without 'iteration N/M'");
    step.step = *index;
    step.stepTime = *err.figure(s, time, kMegatronTime, true) / 1000.0;
    if (const auto t = err.figure(s, logAfter(s, kMegatronTflops), kMegatronTflops, false))
        step.tflopsPerGpu = *t;
    return step;
}

std::optional<TrainingStep> nemoLine(std::string_view s, const LogLineError &err)
{
    const std::size_t key = logAfter(s, kNemoTime);
    if (key == std::string_view::npos)
        return std::nullopt;
    const std::size_t value = logAfterSeparator(s, key);
    if (value == std::string_view::npos)
        err.fail("'" + std::string(kNemoTime) + "' is not followed by '=' or ':'");
    TrainingStep step;
    step.stepTime = *err.figure(s, value, kNemoTime, true);
    // The step: "global_step=9.000" / "global_step: 9", else "iteration 9/99", else tqdm's
    // "| 10/100 [" counter of finished batches (global_step + 1).
    std::optional<double> index;
    if (const std::size_t g = logAfter(s, "global_step"); g != std::string_view::npos) {
        const std::size_t v = logAfterSeparator(s, g);
        if (v != std::string_view::npos)
            index = err.figure(s, v, "global_step", false);
    }
    if (!index) {
        for (std::size_t at = s.find("iteration"); !index && at != std::string_view::npos;
             at = s.find("iteration", at + 1))
            if (const std::size_t i = logSkipBlanks(s, at + 9); i < s.size() && logDigit(s[i]))
                index = logNumberAt(s, i);
    }
    if (!index) {
        for (std::size_t bar = s.find('|'); !index && bar != std::string_view::npos;
             bar = s.find('|', bar + 1)) {
            const std::size_t i = logSkipBlanks(s, bar + 1);
            std::size_t j = i;
            while (j < s.size() && logDigit(s[j]))
                ++j;
            if (j > i && j < s.size() && s[j] == '/')
                index = logNumberAt(s.substr(0, j), i).value_or(1.0) - 1.0;
        }
    }
    if (!index || *index < 0 || *index >= 1e15)
        err.fail("a '" + std::string(kNemoTime)
            + "' line without global_step, 'iteration N' or "
              "a progress counter N/M");
    step.step = static_cast<long long>(*index);
    const std::size_t tflops = logAfter(s, kNemoTflops);
    if (tflops != std::string_view::npos)
        if (const std::size_t v = logAfterSeparator(s, tflops); v != std::string_view::npos)
            step.tflopsPerGpu = *err.figure(s, v, kNemoTflops, false);
    return step;
}

/// The "step:" of a torchtitan training line: not "global_step:" nor "validate step:".
std::size_t titanStep(std::string_view s)
{
    for (std::size_t at = s.find(kTitanStep); at != std::string_view::npos;
         at = s.find(kTitanStep, at + 1)) {
        if (at > 0) {
            const char c = s[at - 1];
            if (c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
                continue;
            if (s.substr(0, at).ends_with("validate "))
                continue;
        }
        return at + kTitanStep.size();
    }
    return std::string_view::npos;
}

std::optional<TrainingStep> titanLine(std::string_view s, const LogLineError &err)
{
    const std::size_t at = titanStep(s);
    if (at == std::string_view::npos)
        return std::nullopt;
    std::size_t tps = logAfter(s, "tps:", at);
    std::string_view tpsKey = "tps:";
    if (tps == std::string_view::npos) {
        tps = logAfter(s, "wps:", at);
        tpsKey = "wps:";
    }
    if (tps == std::string_view::npos || s.find("loss:", at) == std::string_view::npos)
        return std::nullopt; // another line with "step:" in it
    TrainingStep step;
    const std::optional<double> index = err.figure(s, at, kTitanStep, false);
    if (*index >= 1e15)
        err.fail("'step:' is out of range");
    step.step = static_cast<long long>(*index);
    step.tokensPerSecond = *err.figure(s, tps, tpsKey, true, true);
    if (const auto m = err.figure(s, logAfter(s, "memory:", at), "memory:", false))
        step.memoryPeakGiB = *m;
    if (const auto t = err.figure(s, logAfter(s, "tflops:", at), "tflops:", false, true))
        step.tflopsPerGpu = *t;
    const std::size_t mfu = logAfter(s, "mfu:", at);
    if (mfu != std::string_view::npos && s.substr(logSkipBlanks(s, mfu), 3) != "N/A")
        step.mfuPercent = *err.figure(s, mfu, "mfu:", false);
    return step;
}

/// A Composer line: a "[batch=N/M]" header sets `batch`; the block's batches-per-second line
/// (on the header's line or after it) is the step.
std::optional<TrainingStep> composerLine(
    std::string_view s, const LogLineError &err, std::optional<long long> &batch)
{
    if (const std::size_t at = logAfter(s, kComposerBatch); at != std::string_view::npos) {
        const std::optional<double> n = logNumberAt(s, at);
        if (!n || *n < 0 || *n >= 1e15 || !std::isfinite(*n))
            err.fail("'" + std::string(kComposerBatch) + "' is not followed by a batch number");
        batch = static_cast<long long>(*n);
    }
    const std::size_t rate = logAfter(s, kComposerRate);
    if (rate == std::string_view::npos)
        return std::nullopt;
    if (!batch)
        err.fail("'" + std::string(kComposerRate) + "' before any '[batch=N/M]' header");
    TrainingStep step;
    step.step = *batch;
    step.stepTime = 1.0 / *err.figure(s, rate, kComposerRate, true);
    return step;
}

bool hasComposerBlock(std::string_view text)
{
    const std::size_t at = text.find(kComposerBatch);
    return at != std::string_view::npos && text.find("Train ", at) != std::string_view::npos;
}

bool hasTitanLine(std::string_view text)
{
    for (std::size_t at = text.find("tps:"); at != std::string_view::npos;
         at = text.find("tps:", at + 1)) {
        const std::size_t begin = text.rfind('\n', at);
        const std::string line = logWithoutAnsi(
            text.substr(begin == std::string_view::npos ? 0 : begin + 1, at - begin));
        if (line.find("loss:") != std::string_view::npos
            && titanStep(line) != std::string_view::npos)
            return true;
    }
    return false;
}

} // namespace

std::string_view measurementFormatName(MeasurementFormat format)
{
    switch (format) {
    case MeasurementFormat::NcclTests:
        return "nccl-tests";
    case MeasurementFormat::Megatron:
        return "megatron";
    case MeasurementFormat::NeMo:
        return "nemo";
    case MeasurementFormat::Torchtitan:
        return "torchtitan";
    case MeasurementFormat::Composer:
        return "composer";
    case MeasurementFormat::KinetoTrace:
        return "kineto-trace";
    }
    return "unknown";
}

MeasurementFormat detectMeasurementFormat(std::string_view head)
{
    std::size_t first = 0;
    if (head.substr(0, 3) == "\xEF\xBB\xBF") // a UTF-8 byte-order mark
        first = 3;
    first = head.find_first_not_of(" \t\r\n", first);
    if (first != std::string_view::npos && head[first] == '{'
        && head.find("\"traceEvents\"") != std::string_view::npos)
        return MeasurementFormat::KinetoTrace;
    // The Chrome trace format's other form, a bare array of events: what torch 1.13's profiler
    // writes without Kineto (Debian's python3-torch; torch/autograd/profiler_util.py).
    if (first != std::string_view::npos && head[first] == '['
        && head.find("\"ph\"") != std::string_view::npos
        && head.find("\"ts\"") != std::string_view::npos)
        return MeasurementFormat::KinetoTrace;
    if (head.find(kMegatronTime) != std::string_view::npos)
        return MeasurementFormat::Megatron;
    if (head.find(kNemoTime) != std::string_view::npos)
        return MeasurementFormat::NeMo;
    if (hasTitanLine(head))
        return MeasurementFormat::Torchtitan;
    if (hasComposerBlock(head))
        return MeasurementFormat::Composer;
    return MeasurementFormat::NcclTests;
}

TrainingLog parseTrainingLog(
    std::string_view text, const std::string &file, MeasurementFormat format)
{
    if (format != MeasurementFormat::Megatron && format != MeasurementFormat::NeMo
        && format != MeasurementFormat::Torchtitan && format != MeasurementFormat::Composer)
        throw ScenarioError(
            file, "not a training log format: " + std::string(measurementFormatName(format)));
    TrainingLog log;
    log.file = file;
    log.format = format;
    std::map<long long, TrainingStep> steps;
    std::optional<long long> composerBatch; // the Composer block being read
    int lineNo = 1;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find_first_of("\r\n", pos);
        if (end == std::string_view::npos)
            end = text.size();
        const std::string_view raw = text.substr(pos, end - pos);
        if (!raw.empty()) {
            const std::string line = logWithoutAnsi(raw);
            const LogLineError err(file, lineNo);
            std::optional<TrainingStep> step;
            if (format == MeasurementFormat::Megatron)
                step = megatronLine(line, err, log, lineNo);
            else if (format == MeasurementFormat::NeMo)
                step = nemoLine(line, err);
            else if (format == MeasurementFormat::Composer)
                step = composerLine(line, err, composerBatch);
            else
                step = titanLine(line, err);
            if (step) {
                step->line = lineNo;
                if (!steps.emplace(step->step, *step).second)
                    ++log.repeatedLines;
            }
        }
        if (end < text.size() && text[end] == '\n')
            ++lineNo;
        pos = end + 1;
    }
    if (steps.empty())
        throw ScenarioError(file + ":" + std::to_string(lineNo),
            "no " + std::string(measurementFormatName(format)) + " step line in the log");
    for (auto &[index, step] : steps)
        log.steps.push_back(step);
    return log;
}

TrainingLog readTrainingLog(const std::string &path)
{
    const std::string text
        = readFileLimited(path, kMaxTrainingLogBytes, "a training log", " (256 MiB)");
    const MeasurementFormat format = detectMeasurementFormat(text);
    if (format == MeasurementFormat::NcclTests || format == MeasurementFormat::KinetoTrace)
        throw ScenarioError(path, "no Megatron, NeMo, torchtitan or Composer step line found");
    return parseTrainingLog(text, path, format);
}

SteadyStepTime steadyStepTime(const std::vector<double> &times)
{
    SteadyStepTime out;
    const int n = static_cast<int>(times.size());
    if (n == 0)
        return out;
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        const std::size_t m = v.size() / 2;
        return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
    };
    if (n == 1) {
        out.median = times.front();
        out.used = 1;
        out.rule = "a single step: used as it is, no warm-up could be left out";
        return out;
    }
    // The settled level: the median of the second half.
    const double settled = median(std::vector<double>(times.begin() + n / 2, times.end()));
    // 10 %: above the step-to-step spread of a steady run (Megatron's logged iteration times
    // vary by a few per cent) and below the first steps' compile / allocator overhead.
    constexpr double kSettledTolerance = 0.10;
    int skip = 1;
    while (skip < n / 2 && times[skip] > settled * (1.0 + kSettledTolerance))
        ++skip;
    out.skipped = skip;
    out.used = n - skip;
    out.median = median(std::vector<double>(times.begin() + skip, times.end()));
    out.rule = skip == 1 ? "the first step (start-up and warm-up)"
                         : "the first step and the " + std::to_string(skip - 1)
            + " after it more than 10 % above the settled median";
    return out;
}

} // namespace railyard
