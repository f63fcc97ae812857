#pragma once

#include <string>

namespace railyard::cli {

class CommandLine;

/// A bash completion script for railyard-cli: the visible commands, each one's options, and
/// the values of options with fixed choices or file names, all read from the command line's
/// option table. Defines `_railyard_cli` and registers it with `complete`.
std::string bashCompletion(const CommandLine &line);

/// The railyard-cli(1) man page (man(7) macros) from the same table: one subsection per
/// command with its usage, description, arguments and every option.
std::string manPage(const CommandLine &line);

/// docs/cli.md, the manual's CLI reference (Markdown) from the same table: one section per
/// command with its usage, description, arguments and every option.
std::string markdownReference(const CommandLine &line);

} // namespace railyard::cli
