#pragma once

#include "scenario/scenario.h"

#include <optional>
#include <string>

namespace railyard {

/**
 * A compute calibration carried from one run to another layout: the file `railyard-cli
 * calibrate ... --compute-out CAL.json` writes ({"calibration": {"compute": {...}}}, version 1):
 * the device's GEMM efficiency fitted so the whole engine predicts a measured step time, with
 * the device, precision and software stack it was measured on and its provenance.
 *
 * Applied to a scenario of the same device, precision and stack (`evaluate --calibration`,
 * `generate --calibration`) it sets DeviceSpec::maxEfficiency (maxEfficiencyFp8 for fp8) and
 * kernelOverheadUs: how a small run's measurement carries to the design of a large one. A
 * calibration of another device, precision or stack is refused with both named; "unknown"
 * (a trace or a bare step time says no stack) matches any stack.
 */
struct ComputeCalibration
{
    std::string file;
    std::string device;
    Precision precision = Precision::Bf16;
    std::optional<SoftwareStack> stack; ///< unset: "unknown"
    double maxEfficiency = 0.0;
    double kernelOverheadUs = 0.0;
    double measuredStepTime = 0.0;
    std::string measuredAt;
    std::string measuredScenario; ///< the scenario the step was measured on
};

/// Parses the file's text; throws ScenarioError naming `file` and the field.
ComputeCalibration parseComputeCalibration(const std::string &text, const std::string &file);
/// Reads a regular file of at most 1 MiB and parses it.
ComputeCalibration loadComputeCalibration(const std::string &path);

/// Sets `scenario`'s device efficiency and kernel overhead from `calibration`; throws
/// ScenarioError("--calibration", ...) naming both sides when the device, the precision or the
/// stack differ.
void applyComputeCalibration(Scenario &scenario, const ComputeCalibration &calibration);

/// One line for reports: "compute calibration CAL.json: h100-sxm bf16 megatron-core-te, max
/// efficiency 0.571 (measured 4.21 s on job8, 2026-12-06)".
std::string computeCalibrationText(const ComputeCalibration &calibration);

} // namespace railyard
