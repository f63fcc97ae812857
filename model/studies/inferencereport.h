#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace railyard {

class Fabric;
struct InferenceReport;

/// The `"inference"` section of `railyard-cli evaluate --json` (`fabric` names the links).
nlohmann::json inferenceReportToJson(const InferenceReport &report, const Fabric &fabric);
/// The readable block `railyard-cli evaluate` appends for an inference scenario.
std::string inferenceReportToText(const InferenceReport &report, const Fabric &fabric);

} // namespace railyard
