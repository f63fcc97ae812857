#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace railyard::cli {

class CommandLine;

/** The parallel degrees as --tp --pp --dp --cp --ep give them (generate and groups). */
struct DegreeOptions
{
    std::int64_t tp = 1;
    std::int64_t pp = 1;
    std::int64_t dp = 1;
    std::int64_t cp = 1;
    std::int64_t ep = 1;
    const CLI::Option *dpOption = nullptr; ///< count() == 0: dp was left out
    const CLI::Option *epOption = nullptr;
};

/**
 * Adds typed options to one subcommand of the CommandLine. Values are converted and checked as
 * CLI11 parses them: a value that is not a number is refused with "--tp: expected an integer,
 * got 'x'" (exit 1, a bad value), as every command has always said. An option given twice
 * keeps its last value, except the repeatable ones (--swap, --fail), which keep all in order.
 * The options every command shares (--json, -o, --swap, the degrees) are written here once.
 */
class Command
{
public:
    Command(CommandLine &line, CLI::App &app)
        : m_line(line)
        , m_app(app)
    {
    }

    CLI::App &app() const { return m_app; }

    /// A required positional file argument ("FILE", or "A" and "B" for compare).
    CLI::Option *positionalFile(
        const std::string &name, std::string &path, const std::string &help);

    CLI::Option *integer(const std::string &names, std::int64_t &value,
        const std::string &valueName, const std::string &help);
    CLI::Option *integer(const std::string &names, int &value, const std::string &valueName,
        const std::string &help);
    CLI::Option *number(const std::string &names, double &value, const std::string &valueName,
        const std::string &help);
    CLI::Option *text(const std::string &names, std::string &value, const std::string &valueName,
        const std::string &help);
    /// A text option with a fixed set of values: the help lists them ("One of: a, b.") and
    /// completion offers them. Checking the value stays with the command or the engine, whose
    /// messages (and exit codes) name the accepted values as they always have.
    CLI::Option *choice(const std::string &names, std::string &value, const std::string &valueName,
        const std::string &help, std::vector<std::string> choices);
    /// An option whose value is a file name (completion offers files).
    CLI::Option *file(const std::string &names, std::string &path, const std::string &valueName,
        const std::string &help);
    /// A repeatable option; every value in command-line order.
    CLI::Option *texts(const std::string &names, std::vector<std::string> &values,
        const std::string &valueName, const std::string &help);
    CLI::Option *flag(const std::string &names, bool &value, const std::string &help);

    CLI::Option *json(bool &value, const std::string &help = "Print one JSON object.");
    CLI::Option *output(
        std::string &path, const std::string &help = "Write to FILE instead of stdout.");
    /// --swap A:B, repeatable: exchange the slots of global ranks A and B, in order.
    CLI::Option *swaps(std::vector<std::pair<int, int>> &swaps, const std::string &help);
    /// --tp --pp --dp --cp --ep; `dpHelp` says what happens when --dp is left out.
    void degrees(DegreeOptions &degrees, const std::string &dpHelp, const std::string &epHelp);

private:
    CommandLine &m_line;
    CLI::App &m_app;
};

/// The exact integer `text` spells (an optional sign, decimal digits); throws
/// ScenarioError(option, "expected an integer, got 'text'") otherwise.
std::int64_t parseInteger(const std::string &option, const std::string &text);
/// `value` as an int; throws ScenarioError(option, ...) when it does not fit.
int toInt(const std::string &option, std::int64_t value);

} // namespace railyard::cli
