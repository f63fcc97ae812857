#pragma once

#include "base/scenarioerror.h"
#include "scenario/scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace railyard::cli {

/** Exit codes: 0 ok, 1 bad input (file, degrees, sizes), 2 bad command line. */
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

/// The version of every JSON object railyard-cli prints (its "format_version" field): raised
/// when a field is renamed or removed or changes meaning, not when one is added.
inline constexpr int kJsonFormatVersion = 1;

/// Writes text to `path` atomically, or to stdout when path is empty or "-". Before a file
/// is written, stale temporary files of killed earlier writes of it are swept
/// (base/stalefiles.h).
void writeOutput(const std::string &path, const std::string &text);

/// A text report as it may reach a terminal: control characters other than line feed and tab
/// escaped (escapeControls, base/text.h), so a name holding ESC or NUL shows as \x1b or \x00
/// instead of acting on the terminal.
std::string terminalText(const std::string &text);
/// Prints "railyard-cli: warning: <text>" on stderr, the text on one line (escapeControls).
void printWarning(const std::string &text);
/// The whole message of an error, field first, up to its end: what() stops at a NUL byte.
std::string errorMessage(const ScenarioError &error);

/// loadScenario(path), naming the file in the messages the loader ties to no field: a JSON
/// syntax error reads "x.json: not valid JSON: parse error at line 3, column 5: ...".
Scenario loadScenarioFile(const std::string &path);

/// Pretty-printed JSON text with a trailing newline, with "format_version" added to an object.
std::string jsonText(nlohmann::json json);

/// An option's comma-separated list, each item as given (empty items kept, for the caller to
/// refuse by name): "1,2,,4" -> "1", "2", "", "4".
std::vector<std::string> splitList(const std::string &text);

} // namespace railyard::cli
