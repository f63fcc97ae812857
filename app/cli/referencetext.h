#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace railyard::cli {

/**
 * What the man page and the Markdown reference both read from the option table, each then
 * marking it up in its own language (man(7) or CommonMark): a description's lines and lists,
 * the help groups of a command, an option's names and the rules it is under.
 */

/** One line of a description: prose, or a "  name   text" item of a list (formats, strategies). */
struct DescriptionLine
{
    bool item = false;
    std::string name; ///< the item's name; empty for prose
    std::string text; ///< the prose, or the item's text (may be empty)
};
std::vector<DescriptionLine> descriptionLines(const std::string &description);

/// The help groups of a command's options, in the order --help lists them.
std::vector<std::string> optionGroups(const CLI::App &command);
/// "Options", or "<group> options" for a named group.
std::string groupTitle(const std::string &group);

/// Marks a literal (an option or value name) up in the output language.
using Markup = std::function<std::string(const std::string &)>;

/// "-o, --output" with each name marked up by `name`, then " " + `type` of the value's type
/// when the option takes one.
std::string optionNames(const CLI::Option *o, const Markup &name, const Markup &type);
/// The option's description on one line, escaped by `prose`, then " Required.", " Needs X."
/// and " Not with Y." with the other options marked up by `name`.
std::string optionText(const CLI::Option *o, const Markup &prose, const Markup &name);

} // namespace railyard::cli
