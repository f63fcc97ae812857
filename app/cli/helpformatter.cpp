#include "helpformatter.h"

#include <sstream>

namespace railyard::cli {

namespace {

constexpr std::size_t kHelpWidth = 100;
constexpr std::size_t kColumn = 30; // CLI11's default name column

} // namespace

HelpFormatter::HelpFormatter()
{
    column_width(kColumn);
    label("SUBCOMMAND", "COMMAND");
    label("REQUIRED", "(required)");
    label("Positionals", "Arguments");
}

std::string HelpFormatter::summary(const std::string &description)
{
    const std::size_t line = description.find('\n');
    const std::string first = description.substr(0, line);
    const std::size_t stop = first.find(". ");
    return stop == std::string::npos ? first : first.substr(0, stop + 1);
}

std::string HelpFormatter::wrap(const std::string &text, std::size_t width)
{
    std::ostringstream out;
    std::istringstream lines(text);
    std::string line;
    bool firstLine = true;
    while (std::getline(lines, line)) {
        if (!firstLine)
            out << '\n';
        firstLine = false;
        if (!line.empty() && line.front() == ' ') {
            out << line;
            continue;
        }
        std::istringstream words(line);
        std::string word;
        std::size_t used = 0;
        while (words >> word) {
            if (used > 0 && used + 1 + word.size() > width) {
                out << '\n';
                used = 0;
            }
            if (used > 0) {
                out << ' ';
                ++used;
            }
            out << word;
            used += word.size();
        }
    }
    return out.str();
}

std::string HelpFormatter::make_help(
    const CLI::App *app, std::string name, CLI::AppFormatMode mode) const
{
    // CLI11 puts a blank line both after one option group and before the next.
    std::string help = CLI::Formatter::make_help(app, std::move(name), mode);
    for (std::size_t at = help.find("\n\n\n"); at != std::string::npos; at = help.find("\n\n\n"))
        help.erase(at, 1);
    return help;
}

std::string HelpFormatter::make_description(const CLI::App *app) const
{
    const std::string description = app->get_description();
    return description.empty() ? std::string() : wrap(description, kHelpWidth) + "\n";
}

std::string HelpFormatter::make_subcommand(const CLI::App *sub) const
{
    std::ostringstream out;
    CLI::detail::format_help(
        out, sub->get_name(), wrap(summary(sub->get_description()), kHelpWidth - kColumn), kColumn);
    return out.str();
}

std::string HelpFormatter::make_option_desc(const CLI::Option *option) const
{
    return wrap(option->get_description(), kHelpWidth - kColumn);
}

} // namespace railyard::cli
