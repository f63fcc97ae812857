// railyard-cli: the headless front end of the Railyard cost engine, for scripts, CI and tests.
//
// Why CLI11 rather than QCommandLineParser: the CLI needs nothing else from Qt, and with CLI11
// (header-only, Debian's libcli11-dev) it links the engine alone, so it installs and runs
// without any Qt library. CLI11 has subcommands with their own typed options, required
// arguments and option dependencies (--links needs --json) built in, and its option tables can
// be walked, so the help, the bash completion and the man page all come from one table instead
// of three hand-kept copies.
#include "commandline.h"
#include "commands.h"

int main(int argc, char *argv[])
{
    using namespace railyard::cli;
    CommandLine line;
    addAllCommands(line);
    return line.run(argc, argv);
}
