#pragma once

/**
 * fuzz_cli: railyard-cli's command line (app/cli, CLI11) on an argument vector made from the
 * input, one argument per line (at most kMaxCliArguments), shared with tst_fuzzregressions.
 *
 * The real CommandLine with every command (addAllCommands, as main() builds it) runs
 * CommandLine::run(), so the typed option callbacks, the typo suggestions and the usage messages
 * are the CLI's own. No command ever runs: a final callback on the top-level app, called by
 * CLI11 once a parse has passed every check, throws a value that is no std::exception, which
 * CommandLine::run() does not catch; the harness catches it as "parsed". What run() reports
 * instead (help, version, a refusal) must be an exit code of 0, 1 or 2 with a message on stderr
 * for 1 and 2 and never an "internal error" (an exception other than a ScenarioError or CLI11's
 * own). std::cout and std::cerr are captured for the call.
 */

#include "fuzzharness.h"

#include "commandline.h"
#include "commands.h"

#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace railyard::fuzz {

/// Longer argument vectors are cut here (a command line of the shell holds far fewer).
inline constexpr std::size_t kMaxCliArguments = 256;

/** Thrown by the top-level final callback: the line parsed and a command would run now. */
struct CliParsed
{
};

/** Swaps a stream's buffer for a string buffer while alive. */
class CapturedStream
{
public:
    explicit CapturedStream(std::ostream &stream)
        : m_stream(stream)
        , m_old(stream.rdbuf(m_text.rdbuf()))
    {
    }
    ~CapturedStream() { m_stream.rdbuf(m_old); }
    CapturedStream(const CapturedStream &) = delete;
    CapturedStream &operator=(const CapturedStream &) = delete;
    std::string text() const { return m_text.str(); }

private:
    std::ostream &m_stream;
    std::ostringstream m_text;
    std::streambuf *m_old;
};

inline Outcome fuzzCli(std::string_view input)
{
    std::vector<std::string> args { "railyard-cli" };
    while (args.size() < kMaxCliArguments + 1) {
        const std::size_t nl = input.find('\n');
        args.emplace_back(input.substr(0, nl));
        if (nl == std::string_view::npos)
            break;
        input.remove_prefix(nl + 1);
    }
    if (args.size() == 2 && args.back().empty())
        args.pop_back(); // an empty input: the bare command
    std::vector<char *> argv;
    for (std::string &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    cli::CommandLine line;
    cli::addAllCommands(line);
    line.root().final_callback([] { throw CliParsed {}; });
    int code = 0;
    std::string err;
    {
        const CapturedStream out(std::cout);
        const CapturedStream errors(std::cerr);
        try {
            code = line.run(static_cast<int>(args.size()), argv.data());
        } catch (const CliParsed &) {
            return Outcome::Loaded;
        }
        err = errors.text();
    }
    require(code == 0 || code == 1 || code == 2,
        "railyard-cli's command line gave exit code " + std::to_string(code));
    if (code != 0)
        require(!err.empty(), "a refused command line printed nothing");
    // CommandLine::report's spelling of an exception that is no ScenarioError or CLI11 error
    // (the top-level prefix, then the message; or the JSON object, its keys sorted). Arguments
    // may spell "internal error" themselves: only the message's start counts.
    for (const std::string_view internal : { std::string_view("railyard-cli: internal error:"),
             std::string_view("{\"error\":{\"code\":1,\"message\":\"internal error:") })
        require(err.compare(0, internal.size(), internal) != 0,
            "a command line gave an internal error: " + err.substr(0, 300));
    return Outcome::Rejected;
}

} // namespace railyard::fuzz
