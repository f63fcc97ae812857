#include "commandline.h"

#include "cliutil.h"
#include "helpformatter.h"
#include "suggest.h"
#include "usageerror.h"

#include "base/scenarioerror.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <exception>
#include <iostream>

namespace railyard::cli {

namespace {

/// Every spelling of every option of `app` ("-o", "--output", "--json", ...).
std::vector<std::string> optionSpellings(const CLI::App &app)
{
    std::vector<std::string> names;
    for (const CLI::Option *o : app.get_options()) {
        for (const std::string &s : o->get_snames())
            names.push_back("-" + s);
        for (const std::string &l : o->get_lnames())
            names.push_back("--" + l);
    }
    return names;
}

constexpr const char *kExitStatusText = "Exit status: 0 ok, 1 a bad file or value, 2 a bad "
                                        "command line; nothing is written to -o on failure.";

std::string inQuotes(const std::string &text)
{
    return "'" + text + "'";
}

} // namespace

CommandLine::CommandLine()
    : m_root("Predict how a parallel layout of an AI training job lands on a datacenter fabric "
             "(the engine of the Railyard explorer, for scripts and CI).",
        "railyard-cli")
{
    m_root.set_version_flag("--version", "railyard-cli " RAILYARD_VERSION,
        "Print 'railyard-cli " RAILYARD_VERSION "' and exit.");
    m_root.set_help_flag("-h,--help", "Print this help and exit.");
    m_root.require_subcommand(1);
    // Subcommands copy the formatter when they are added: set it first.
    m_root.formatter(std::make_shared<HelpFormatter>());
    m_root.footer(std::string("'railyard-cli COMMAND --help' describes each command's options.\n")
        + kExitStatusText);
}

CLI::App &CommandLine::addCommand(
    const std::string &name, const std::string &description, Runner run, bool hidden)
{
    CLI::App *app = m_root.add_subcommand(name, description);
    app->group(hidden ? std::string() : std::string("Commands"));
    app->footer(kExitStatusText);
    m_runners[app] = std::move(run);
    return *app;
}

std::vector<const CLI::App *> CommandLine::commands() const
{
    return m_root.get_subcommands([](const CLI::App *app) { return !app->get_group().empty(); });
}

void CommandLine::setChoices(const CLI::Option *option, std::vector<std::string> values)
{
    m_choices[option] = std::move(values);
}

const std::vector<std::string> &CommandLine::choices(const CLI::Option *option) const
{
    static const std::vector<std::string> none;
    const auto it = m_choices.find(option);
    return it == m_choices.end() ? none : it->second;
}

void CommandLine::setFileValue(const CLI::Option *option)
{
    m_fileValues.push_back(option);
}

bool CommandLine::isFileValue(const CLI::Option *option) const
{
    return std::find(m_fileValues.begin(), m_fileValues.end(), option) != m_fileValues.end();
}

int CommandLine::report(int code, const std::string &command, const std::string &message) const
{
    if (m_jsonErrors) {
        // The hint in a usage message names the command ("try 'railyard-cli remap --help'").
        const nlohmann::json error = { { "message", message }, { "code", code } };
        // The message may quote an argument that is not UTF-8 (an unknown command's bytes):
        // replace such bytes with U+FFFD rather than throw from the error path (fuzz_cli,
        // tests/fuzz/regressions/cli-json-error-invalid-utf8).
        std::cerr << nlohmann::json { { "error", error } }.dump(
            -1, ' ', false, nlohmann::json::error_handler_t::replace)
                  << std::endl;
    } else {
        std::cerr << "railyard-cli" << (command.empty() ? "" : " " + command) << ": " << message
                  << std::endl;
    }
    return code;
}

std::string CommandLine::unknownArgumentMessage(const CLI::App *command) const
{
    // Arguments before the command are the top level's ("railyard-cli --verison").
    const std::vector<std::string> top = m_root.remaining();
    if (!top.empty()) {
        const std::string &word = top.front();
        std::string what;
        std::string match;
        if (word.size() > 1 && word.front() == '-') {
            const std::string name = word.substr(0, word.find('='));
            what = "unknown option " + inQuotes(name);
            match = closestMatch(name, optionSpellings(m_root));
        } else {
            std::vector<std::string> names;
            for (const CLI::App *c : commands())
                names.push_back(c->get_name());
            what = "unknown command " + inQuotes(word);
            match = closestMatch(word, names);
        }
        return what + (match.empty() ? "" : "; did you mean " + inQuotes(match) + "?")
            + " (try 'railyard-cli --help')";
    }
    if (!command)
        return {};
    const std::vector<std::string> extra = command->remaining();
    if (extra.empty())
        return {};
    const std::string hint = " (try 'railyard-cli " + command->get_name() + " --help')";
    // An unknown option explains more than a stray argument after it (often its value).
    const auto option = std::find_if(extra.begin(), extra.end(),
        [](const std::string &s) { return s.size() > 1 && s.front() == '-'; });
    if (option == extra.end())
        return "unexpected argument " + inQuotes(extra.front()) + hint;
    const std::string name = option->substr(0, option->find('='));
    const std::string match = closestMatch(name, optionSpellings(*command));
    return "unknown option " + inQuotes(name)
        + (match.empty() ? "" : "; did you mean " + inQuotes(match) + "?") + hint;
}

std::string CommandLine::usageMessage(const CLI::ParseError &error) const
{
    std::string message = error.what();
    // CLI11 says "--swap: 1 required A:B missing" for an option without its value.
    const std::size_t colon = message.find(": 1 required ");
    if (colon != std::string::npos && message.size() > 8
        && message.compare(message.size() - 8, 8, " missing") == 0) {
        const std::size_t typeStart = colon + std::strlen(": 1 required ");
        message = message.substr(0, colon) + " needs a value ("
            + message.substr(typeStart, message.size() - 8 - typeStart) + ")";
    }
    return message;
}

int CommandLine::run(int argc, char **argv)
{
    if (argc < 2) { // a bare command is a question, answered where errors go
        std::cerr << m_root.help();
        return kExitUsage;
    }
    const auto selected = [this]() -> const CLI::App * {
        const std::vector<CLI::App *> parsed = m_root.get_subcommands();
        return parsed.empty() ? nullptr : parsed.front();
    };
    const auto helpAsked = [](const CLI::App *app) {
        return app && app->get_help_ptr() && app->get_help_ptr()->count() > 0;
    };
    const auto decideJson = [&] {
        const CLI::App *command = selected();
        if (command) {
            const CLI::Option *json = command->get_option_no_throw("--json");
            m_jsonErrors = json && json->count() > 0;
        } else {
            m_jsonErrors = false;
            for (int i = 1; i < argc; ++i)
                m_jsonErrors = m_jsonErrors || std::strcmp(argv[i], "--json") == 0;
        }
    };

    try {
        m_root.parse(argc, argv);
    } catch (const CLI::CallForVersion &e) {
        std::cout << e.what() << std::endl;
        return kExitOk;
    } catch (const CLI::Success &) { // --help
        std::cout << m_root.help();
        return kExitOk;
    } catch (const std::exception &e) {
        const CLI::App *command = selected();
        if (helpAsked(command) || helpAsked(&m_root)) {
            std::cout << m_root.help();
            return kExitOk;
        }
        decideJson();
        const std::string unknown = unknownArgumentMessage(command);
        const std::string name = command ? command->get_name() : std::string();
        if (!unknown.empty())
            return report(kExitUsage, m_root.remaining().empty() ? name : std::string(), unknown);
        if (const auto *bad = dynamic_cast<const ScenarioError *>(&e))
            return report(kExitBadInput, {}, bad->what()); // a value of the wrong kind
        if (const auto *parse = dynamic_cast<const CLI::ParseError *>(&e)) {
            if (!command) // "A subcommand is required": options but no command
                return report(kExitUsage, {}, "no command given (try 'railyard-cli --help')");
            return report(kExitUsage, name,
                usageMessage(*parse) + " (try 'railyard-cli " + name + " --help')");
        }
        return report(kExitBadInput, {}, std::string("internal error: ") + e.what());
    }

    const CLI::App *command = selected();
    decideJson();
    if (!command) // require_subcommand(1) makes this unreachable; say so rather than crash
        return report(kExitUsage, {}, "no command given (try 'railyard-cli --help')");
    const std::string name = command->get_name();
    try {
        return m_runners.at(command)();
    } catch (const UsageError &e) {
        if (!e.hint())
            return report(kExitUsage, {}, e.what());
        return report(
            kExitUsage, name, std::string(e.what()) + " (try 'railyard-cli " + name + " --help')");
    } catch (const ScenarioError &e) {
        return report(kExitBadInput, {}, e.what());
    } catch (const std::exception &e) {
        return report(kExitBadInput, {}, std::string("internal error: ") + e.what());
    }
}

} // namespace railyard::cli
