#include "command.h"

#include "commandline.h"

#include "base/scenarioerror.h"

#include <charconv>
#include <limits>
#include <system_error>

namespace railyard::cli {

namespace {

/// "-o,--output" -> "--output": the name errors use (CLI11's own choice, the long one).
std::string displayName(const std::string &names)
{
    std::string shortName;
    std::size_t start = 0;
    while (start <= names.size()) {
        const std::size_t comma = std::min(names.find(',', start), names.size());
        const std::string name = names.substr(start, comma - start);
        if (name.rfind("--", 0) == 0)
            return name;
        if (shortName.empty())
            shortName = name;
        start = comma + 1;
    }
    return shortName;
}

/// A one-value option: typed help, and a second use replaces the first (as before the port).
CLI::Option *single(CLI::Option *option, const std::string &valueName)
{
    return option->type_name(valueName)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

double parseNumber(const std::string &option, const std::string &text)
{
    const std::size_t skip = !text.empty() && text.front() == '+' ? 1 : 0;
    double v = 0.0;
    const char *begin = text.data() + skip;
    const char *end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(begin, end, v);
    if (begin == end || ec != std::errc() || stop != end || (skip && *begin == '-'))
        throw ScenarioError(option, "expected a number, got '" + text + "'");
    return v;
}

} // namespace

std::int64_t parseInteger(const std::string &option, const std::string &text)
{
    const std::size_t skip = !text.empty() && text.front() == '+' ? 1 : 0;
    std::int64_t v = 0;
    const char *begin = text.data() + skip;
    const char *end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(begin, end, v);
    if (begin == end || ec != std::errc() || stop != end || (skip && *begin == '-'))
        throw ScenarioError(option, "expected an integer, got '" + text + "'");
    return v;
}

int toInt(const std::string &option, std::int64_t value)
{
    if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
        throw ScenarioError(option, "expected an integer, got '" + std::to_string(value) + "'");
    return static_cast<int>(value);
}

CLI::Option *Command::positionalFile(
    const std::string &name, std::string &path, const std::string &help)
{
    CLI::Option *o = m_app.add_option(name, path, help)->required()->type_name("");
    m_line.setFileValue(o);
    return o;
}

CLI::Option *Command::integer(const std::string &names, std::int64_t &value,
    const std::string &valueName, const std::string &help)
{
    const std::string name = displayName(names);
    return single(m_app.add_option(
                      names,
                      [&value, name](const CLI::results_t &r) {
                          value = parseInteger(name, r.back());
                          return true;
                      },
                      help),
        valueName);
}

CLI::Option *Command::integer(
    const std::string &names, int &value, const std::string &valueName, const std::string &help)
{
    const std::string name = displayName(names);
    return single(
        m_app.add_option(
            names,
            [&value, name](const CLI::results_t &r) {
                const std::int64_t v = parseInteger(name, r.back());
                if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
                    throw ScenarioError(name, "expected an integer, got '" + r.back() + "'");
                value = static_cast<int>(v);
                return true;
            },
            help),
        valueName);
}

CLI::Option *Command::number(
    const std::string &names, double &value, const std::string &valueName, const std::string &help)
{
    const std::string name = displayName(names);
    return single(m_app.add_option(
                      names,
                      [&value, name](const CLI::results_t &r) {
                          value = parseNumber(name, r.back());
                          return true;
                      },
                      help),
        valueName);
}

CLI::Option *Command::text(const std::string &names, std::string &value,
    const std::string &valueName, const std::string &help)
{
    return single(m_app.add_option(names, value, help), valueName);
}

CLI::Option *Command::choice(const std::string &names, std::string &value,
    const std::string &valueName, const std::string &help, std::vector<std::string> choices)
{
    std::string list;
    for (const std::string &v : choices)
        list += (list.empty() ? "" : ", ") + v;
    CLI::Option *o = text(names, value, valueName, help + "\nOne of: " + list + ".");
    m_line.setChoices(o, std::move(choices));
    return o;
}

CLI::Option *Command::file(const std::string &names, std::string &path,
    const std::string &valueName, const std::string &help)
{
    CLI::Option *o = text(names, path, valueName, help);
    m_line.setFileValue(o);
    return o;
}

CLI::Option *Command::texts(const std::string &names, std::vector<std::string> &values,
    const std::string &valueName, const std::string &help)
{
    return m_app.add_option(names, values, help)
        ->type_name(valueName)
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

CLI::Option *Command::flag(const std::string &names, bool &value, const std::string &help)
{
    return m_app.add_flag(names, value, help)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

CLI::Option *Command::json(bool &value, const std::string &help)
{
    return flag("--json", value, help);
}

CLI::Option *Command::output(std::string &path, const std::string &help)
{
    return file("-o,--output", path, "FILE", help);
}

CLI::Option *Command::swaps(std::vector<std::pair<int, int>> &swaps, const std::string &help)
{
    return m_app
        .add_option(
            "--swap",
            [&swaps](const CLI::results_t &r) {
                swaps.clear();
                for (const std::string &text : r) {
                    const std::size_t colon = text.find(':');
                    try {
                        if (colon == std::string::npos)
                            throw ScenarioError("", "");
                        swaps.emplace_back(
                            toInt("--swap", parseInteger("--swap", text.substr(0, colon))),
                            toInt("--swap", parseInteger("--swap", text.substr(colon + 1))));
                    } catch (const ScenarioError &) {
                        throw ScenarioError(
                            "--swap", "expected two global ranks as A:B, got '" + text + "'");
                    }
                }
                return true;
            },
            help)
        ->type_name("A:B")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

void Command::degrees(DegreeOptions &degrees, const std::string &dpHelp, const std::string &epHelp)
{
    integer("--tp", degrees.tp, "T", "Tensor-parallel degree (default 1).");
    integer("--pp", degrees.pp, "P", "Pipeline-parallel degree (default 1).");
    degrees.dpOption = integer("--dp", degrees.dp, "D", dpHelp);
    integer("--cp", degrees.cp, "C", "Context-parallel degree (default 1).");
    degrees.epOption = integer("--ep", degrees.ep, "E", epHelp);
}

} // namespace railyard::cli
