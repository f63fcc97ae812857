/**
 * The hidden `railyard-cli completion bash`, `railyard-cli man` and `railyard-cli markdown`: they
 * print the bash completion, the man page and the manual's CLI reference (docs/cli.md) from the
 * command line's own option table. The build runs them
 * and installs what they print, so neither can drift from --help.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "documentation.h"
#include "usageerror.h"

#include <memory>

namespace railyard::cli {

namespace {

struct DocumentationOptions
{
    std::string shell;
    std::string output;
};

/// A hidden command that writes what `print` makes of the option table (stdout or -o).
void addPrintCommand(CommandLine &line, const char *name, const char *description,
    std::string (*print)(const CommandLine &))
{
    auto options = std::make_shared<DocumentationOptions>();
    Command command(line,
        line.addCommand(
            name, description,
            [options, &line, print] {
                writeOutput(options->output, print(line));
                return kExitOk;
            },
            true));
    command.output(options->output);
}

} // namespace

void addDocumentation(CommandLine &line)
{
    auto completion = std::make_shared<DocumentationOptions>();
    Command c(line,
        line.addCommand(
            "completion", "Print the bash completion script for railyard-cli.",
            [completion, &line] {
                if (completion->shell != "bash")
                    throw UsageError("only bash is supported, not '" + completion->shell + "'");
                writeOutput(completion->output, bashCompletion(line));
                return kExitOk;
            },
            true));
    c.choice("SHELL", completion->shell, "", "The shell.", { "bash" })->required();
    c.output(completion->output);

    addPrintCommand(line, "man", "Print the railyard-cli(1) man page.", manPage);
    addPrintCommand(line, "markdown", "Print docs/cli.md, the manual's CLI reference (Markdown).",
        markdownReference);
}

} // namespace railyard::cli
