#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace railyard::cli {

/**
 * railyard-cli's command line: one CLI11 app with a subcommand per command, each with its typed
 * options. It is the one table that `--help`, the bash completion and the man page are all
 * generated from. Beside the app it keeps what CLI11 has no field for: the code each command
 * runs, the values an option accepts and which values are file names (for completion).
 */
class CommandLine
{
public:
    /// Runs a parsed command; returns the exit code or throws (ScenarioError, UsageError).
    using Runner = std::function<int()>;

    CommandLine();
    CommandLine(const CommandLine &) = delete;
    CommandLine &operator=(const CommandLine &) = delete;

    CLI::App &root() { return m_root; }
    const CLI::App &root() const { return m_root; }

    /// A new subcommand. Hidden ones (the generators of completion and man page) are left out
    /// of the help, the completion and the man page.
    CLI::App &addCommand(
        const std::string &name, const std::string &description, Runner run, bool hidden = false);
    /// The visible subcommands in the order they were added.
    std::vector<const CLI::App *> commands() const;

    void setChoices(const CLI::Option *option, std::vector<std::string> values);
    /// The values `option` accepts, empty when any value goes.
    const std::vector<std::string> &choices(const CLI::Option *option) const;
    void setFileValue(const CLI::Option *option);
    bool isFileValue(const CLI::Option *option) const;

    /// Parses argv, runs the chosen command and returns the exit code. Every error is printed
    /// here, as one line on stderr (a JSON object when the command was given --json).
    int run(int argc, char **argv);

private:
    /// Refuses (UsageError) an empty -o and an -o naming a file the command reads (compared by
    /// device and inode), before the command runs and writes anything.
    void checkOutput(const CLI::App &command) const;
    /// Prints the error and returns `code`; `command` is empty for the top level.
    int report(int code, const std::string &command, const std::string &message) const;
    /// The parse error to show: an unknown command or option (with a suggestion) comes before
    /// whatever CLI11 stopped at, since fixing a typo often fixes the rest.
    std::string unknownArgumentMessage(const CLI::App *command) const;
    std::string usageMessage(const CLI::ParseError &error) const;

    CLI::App m_root;
    std::map<const CLI::App *, Runner> m_runners;
    std::map<const CLI::Option *, std::vector<std::string>> m_choices;
    std::vector<const CLI::Option *> m_fileValues;
    bool m_jsonErrors = false;
};

} // namespace railyard::cli
