#pragma once

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace railyard::cli {

/** Exit codes: 0 ok, 1 bad input (file, degrees, sizes), 2 bad command line. */
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;
inline constexpr int kExitUsage = 2;

/// Prints "railyard-cli: <message>" on one line to stderr and returns `code`.
int fail(const std::string &message, int code = kExitBadInput);

/// Parses args with `parser` (adds --help); on error prints the parser's message and returns
/// false with `exitCode` set.
bool parseArgs(QCommandLineParser &parser, const QStringList &args, int &exitCode);

/// Integer option value; throws ScenarioError("--name", ...) when it is not an integer.
int intOption(const QCommandLineParser &parser, const QString &name);
double doubleOption(const QCommandLineParser &parser, const QString &name);

/// Writes text to `path` atomically, or to stdout when path is empty or "-".
void writeOutput(const QString &path, const std::string &text);

/// Pretty-printed JSON text with a trailing newline.
std::string jsonText(const nlohmann::json &json);

} // namespace railyard::cli
