#pragma once

/**
 * What fuzz_traininglog does with one input, shared with tst_fuzzregressions: the format is told
 * from the content (io/traininglog.h), then the training-log reader or the Kineto trace reader
 * (io/kinetotrace.h) reads it and, for a trace, measures its steps per process group. A
 * ScenarioError is a refusal; anything else escaping is a bug (HarnessFailure), and so is a
 * broken invariant: a step time that is not finite and positive, a negative or non-finite
 * figure, steps not in order, and for a trace a negative time or an exposed, compute or
 * communication time longer than its step.
 */

#include "fuzzharness.h"
#include "io/kinetotrace.h"
#include "io/traininglog.h"

#include <cmath>
#include <string>
#include <string_view>

namespace railyard::fuzz {

inline bool finiteNonNegative(double v)
{
    return std::isfinite(v) && v >= 0.0;
}

inline Outcome fuzzTrainingLog(std::string_view input)
{
    const MeasurementFormat format = detectMeasurementFormat(input);
    try {
        // '[': the bare array of events (torch 1.13 without Kineto) goes to the trace reader too.
        if (format == MeasurementFormat::KinetoTrace
            || (!input.empty() && (input.front() == '{' || input.front() == '['))) {
            const KinetoTrace trace = parseKinetoTrace(std::string(input), "fuzz.json");
            for (const TraceKernel &k : trace.kernels)
                require(k.end >= k.start, "a kernel ends before it starts");
            for (const TraceStepMeasure &s : traceStepsByGroup(trace)) {
                require(finiteNonNegative(s.stepTime), "a step time is negative or not finite");
                // 1e-9 s: the sums of microsecond spans round.
                const double slack = 1e-9 + 1e-12 * s.stepTime;
                require(finiteNonNegative(s.computeTime) && s.computeTime <= s.stepTime + slack,
                    "compute longer than its step");
                require(finiteNonNegative(s.commTime) && s.commTime <= s.stepTime + slack,
                    "communication longer than its step");
                require(finiteNonNegative(s.exposedComm) && s.exposedComm <= s.commTime + slack,
                    "exposed communication longer than the communication");
                for (const double e : s.exposed)
                    require(finiteNonNegative(e) && e <= s.stepTime + slack,
                        "exposed longer than its step");
            }
            // The first window's spans (the timeline's measured lane): inside the window, in order.
            const std::vector<TraceStepWindow> windows = traceStepWindows(trace);
            if (!windows.empty()) {
                const double length = (windows.front().end - windows.front().start) * 1e-6;
                const TraceStepSpans spans = traceStepSpans(trace, {}, 1, 0, 0);
                std::vector<TraceStepSpans::Span> all = spans.compute;
                for (const auto &c : spans.comm)
                    all.insert(all.end(), c.begin(), c.end());
                for (const TraceStepSpans::Span &sp : all)
                    require(finiteNonNegative(sp.start) && sp.end >= sp.start
                            && sp.end <= length + 1e-9 + 1e-12 * length,
                        "a span outside its step window");
            }
            return Outcome::Loaded;
        }
        const MeasurementFormat text
            = format == MeasurementFormat::NcclTests ? MeasurementFormat::Megatron : format;
        const TrainingLog log = parseTrainingLog(input, "fuzz.log", text);
        require(!log.steps.empty(), "a log without steps was accepted");
        long long previous = -1;
        std::vector<double> times;
        for (const TrainingStep &s : log.steps) {
            require(s.step > previous, "steps are not in order, or repeat");
            previous = s.step;
            require(s.stepTime > 0.0 ? std::isfinite(s.stepTime) : s.stepTime == -1.0,
                "a step time is not positive and finite");
            require(s.tokensPerSecond == -1.0
                    || (std::isfinite(s.tokensPerSecond) && s.tokensPerSecond > 0.0),
                "a throughput is not positive and finite");
            require(s.tflopsPerGpu == -1.0 || finiteNonNegative(s.tflopsPerGpu),
                "a TFLOP/s is negative");
            if (s.stepTime > 0.0)
                times.push_back(s.stepTime);
        }
        if (!times.empty()) {
            const SteadyStepTime st = steadyStepTime(times);
            require(st.used >= 1 && st.skipped + st.used == static_cast<int>(times.size())
                    && st.median > 0.0,
                "the steady state lost or invented steps");
        }
        return Outcome::Loaded;
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
}

} // namespace railyard::fuzz
