#pragma once

/**
 * What fuzz_computecal does with one input, shared with tst_fuzzregressions: a compute
 * calibration file (`evaluate --calibration`, io/computecalibration.h) read, applied to a fixed
 * one-server H100 scenario of its precision when the reader accepts it (a refusal for another
 * device or stack is fine), and the scenario evaluated: the fuzz harness's report invariants
 * hold (fuzzharness.h), and the efficiency applied is the file's, inside (0, 1].
 */

#include "fuzzharness.h"
#include "fuzzscenario.h"
#include "io/computecalibration.h"
#include "workload/presets.h"

#include <string>
#include <string_view>

namespace railyard::fuzz {

inline Outcome fuzzComputeCalibration(std::string_view input)
{
    ComputeCalibration c;
    try {
        c = parseComputeCalibration(std::string(input), "fuzz.json");
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    require(c.maxEfficiency > 0.0 && c.maxEfficiency <= 1.0, "an efficiency outside (0, 1]");
    require(c.kernelOverheadUs >= 0.0 && c.kernelOverheadUs <= 1000.0,
        "a kernel overhead out of range");
    Scenario s = smallFuzzScenario(1);
    s.device = *devicePreset("h100-sxm");
    s.device.name = c.device;
    s.training.precision = c.precision;
    try {
        applyComputeCalibration(s, c);
    } catch (const ScenarioError &) {
        return Outcome::Loaded; // another stack than the scenario's
    }
    return evaluateScenario(s);
}

} // namespace railyard::fuzz
