#pragma once

#include "scenario/scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace railyard::cli {

/** Exit codes: 0 ok, 1 bad input (file, degrees, sizes), 2 bad command line. */
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

/// The version of every JSON object railyard-cli prints (its "format_version" field): raised
/// when a field is renamed or removed or changes meaning, not when one is added.
inline constexpr int kJsonFormatVersion = 1;

/// Writes text to `path` atomically, or to stdout when path is empty or "-".
void writeOutput(const std::string &path, const std::string &text);

/// loadScenario(path), naming the file in the messages the loader ties to no field: a JSON
/// syntax error reads "x.json: not valid JSON: parse error at line 3, column 5: ...".
Scenario loadScenarioFile(const std::string &path);

/// Pretty-printed JSON text with a trailing newline, with "format_version" added to an object.
std::string jsonText(nlohmann::json json);

} // namespace railyard::cli
