#pragma once

#include "scenario/calibrationspec.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace railyard {

class CostEngine;

/// What `calibrate` prints: per tier the fitted α and bandwidth beside the defaults they
/// replace with the fit's quality, then per run its busbw at the largest size (measured,
/// default, calibrated), the worst error at its bandwidth-bound sizes and its notes.
std::string calibrationFitText(const CalibrationSpec &spec);

/// The part of `evaluate`'s report that says which figures are calibrated: every tier of the
/// fabric with its step latency and link bandwidth, each "calibrated" or "default", which
/// phases use them, and a warning when the calibration was measured on another fabric.
std::string calibrationStatusText(const CostEngine &engine);
/// The same as JSON (`evaluate --json`'s "calibration" object).
nlohmann::json calibrationStatusJson(const CostEngine &engine);

} // namespace railyard
