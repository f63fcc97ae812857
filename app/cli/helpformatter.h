#pragma once

#include <CLI/CLI.hpp>

#include <string>

namespace railyard::cli {

/**
 * CLI11's help layout with railyard-cli's wording: "COMMAND" and "Arguments", each command
 * listed by the first sentence of its description, and descriptions wrapped to 100 columns
 * (CLI11 2.1 prints them on one line however long).
 */
class HelpFormatter : public CLI::Formatter
{
public:
    HelpFormatter();

    std::string make_help(
        const CLI::App *app, std::string name, CLI::AppFormatMode mode) const override;
    std::string make_description(const CLI::App *app) const override;
    std::string make_subcommand(const CLI::App *sub) const override;
    std::string make_option_desc(const CLI::Option *option) const override;

    /// "First sentence. More." -> "First sentence." (up to the first ". " or line end).
    static std::string summary(const std::string &description);
    /// Words refilled to lines of at most `width` characters; lines that start with a space
    /// (tables such as the export formats) are kept as they are.
    static std::string wrap(const std::string &text, std::size_t width);
};

} // namespace railyard::cli
