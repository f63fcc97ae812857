#pragma once

/**
 * What fuzz_nccltests does with one input, shared with tst_fuzzregressions: the nccl-tests log
 * reader (text tables or -J JSON) and, for a log it accepts, the calibration fit of its first
 * table's rows on a fixed one-server, eight-GPU scenario. A ScenarioError is a refusal; anything
 * else escaping, or a broken invariant (sizes not growing, a time that is not positive, a fitted
 * value or prediction that is not finite and non-negative) is a bug (HarnessFailure).
 */

#include "cost/calibrationfit.h"
#include "cost/costengine.h"
#include "fuzzharness.h"
#include "fuzzscenario.h"
#include "io/nccltestslog.h"

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace railyard::fuzz {

/// Logs with more rows are read but not fitted: a fit costs the fuzzer tens of milliseconds.
inline constexpr std::size_t kMaxFittedRows = 40;

inline Outcome fuzzNcclTestsLog(std::string_view input)
{
    std::vector<NcclTestsLog> logs;
    try {
        logs = parseNcclTestsLogs(input, "fuzz.log");
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    require(!logs.empty(), "a file without tables was accepted");
    std::size_t rows = 0;
    for (const NcclTestsLog &l : logs) {
        require(!l.rows.empty(), "a log without rows was accepted");
        rows += l.rows.size();
        long long previous = -1;
        for (const NcclTestsRow &r : l.rows) {
            // Sizes grow; only nccl-tests' 0-byte rows (small sizes rounded down) repeat.
            require(r.bytes > previous || (r.bytes == 0 && previous == 0), "sizes do not grow");
            previous = r.bytes;
            for (const NcclTestsTiming *t : { &r.outOfPlace, &r.inPlace })
                if (t->present)
                    require((t->timeUs > 0.0 || r.bytes == 0) && std::isfinite(t->timeUs)
                            && t->algbw >= 0.0 && t->busbw >= 0.0 && std::isfinite(t->algbw)
                            && std::isfinite(t->busbw),
                        "a timing is not positive and finite");
        }
    }
    require(rows <= 4096, "more rows than the reader's cap");
    const NcclTestsLog &log = logs.front();
    if (log.rows.size() > kMaxFittedRows)
        return Outcome::Loaded;

    const Scenario s = smallFuzzScenario(1);
    MeasuredRun m;
    m.id = "fuzz";
    m.op = log.op.value_or(Collective::AllReduce);
    // sendrecv_perf on these 8 ranks is nccl-tests' ring of sends, which the engine models.
    m.ranks = { 0, 1, 2, 3, 4, 5, 6, 7 };
    for (const NcclTestsRow &r : log.rows)
        for (const NcclTestsTiming *t : { &r.outOfPlace, &r.inPlace })
            if (t->present && r.bytes > 0 && t->timeUs < 1e15)
                m.samples.emplace_back(r.bytes, t->timeUs * 1e-6);
    if (m.samples.empty())
        return Outcome::Loaded;
    try {
        CostEngine engine(s);
        const CalibrationSpec spec = fitCalibration(engine, { m });
        for (const CalibratedTier &t : spec.tiers)
            require(std::isfinite(t.stepLatencyUs) && std::isfinite(t.bandwidthScale)
                    && std::isfinite(t.rmsResidual),
                "a fitted value is not finite");
        for (const CalibrationPoint &p : spec.runs.front().points)
            require(std::isfinite(p.calibratedUs) && p.calibratedUs >= 0.0 && p.weight >= 0.0
                    && p.weight <= 1.0,
                "a calibrated prediction is not finite and non-negative");
    } catch (const ScenarioError &) {
        return Outcome::Loaded;
    }
    return Outcome::Evaluated;
}

} // namespace railyard::fuzz
