#pragma once

#include "base/fileio.h"
#include "scenario/scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace railyard {

inline constexpr int kScenarioFormatVersion = 1;

/**
 * Scenario files: JSON with a `format_version`, read and written with nlohmann_json.
 * Loading checks every field (type, range, consistency) and throws ScenarioError naming the
 * exact field path and the reason; it never crashes on any input. Saving is atomic.
 * The schema is documented in the README ("Scenario files").
 */
Scenario scenarioFromJson(const nlohmann::json &json);
/// As above; a relative `model.routing.hotness_file` is read from `baseDir` (empty: the current
/// directory).
Scenario scenarioFromJson(const nlohmann::json &json, const std::string &baseDir);
nlohmann::json scenarioToJson(const Scenario &scenario);

/// Parses text (size and nesting limits checked first). Throws ScenarioError.
Scenario parseScenario(const std::string &text);
/// Reads a file; the message names the path on I/O errors. Throws ScenarioError.
Scenario loadScenario(const std::string &path);
/// Writes `path` via a temporary file in the same directory and a rename, so a failed save
/// never leaves a partial file. Throws ScenarioError on I/O failure.
void saveScenario(const Scenario &scenario, const std::string &path);
/// Pretty JSON text of a scenario (2-space indent, trailing newline).
std::string scenarioToText(const Scenario &scenario);


} // namespace railyard
