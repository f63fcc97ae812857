#include "referencetext.h"

#include <algorithm>
#include <sstream>

namespace railyard::cli {

std::vector<DescriptionLine> descriptionLines(const std::string &description)
{
    std::vector<DescriptionLine> out;
    std::istringstream lines(description);
    std::string line;
    while (std::getline(lines, line)) {
        DescriptionLine d;
        if (line.rfind("  ", 0) == 0) {
            const std::size_t nameStart = line.find_first_not_of(' ');
            const std::size_t nameEnd = line.find(' ', nameStart);
            const std::size_t textStart = nameEnd == std::string::npos
                ? std::string::npos
                : line.find_first_not_of(' ', nameEnd);
            d.item = true;
            d.name = line.substr(nameStart, nameEnd - nameStart);
            if (textStart != std::string::npos)
                d.text = line.substr(textStart);
        } else {
            d.text = line;
        }
        out.push_back(std::move(d));
    }
    return out;
}

std::vector<std::string> optionGroups(const CLI::App &command)
{
    std::vector<std::string> groups;
    for (const CLI::Option *o : command.get_options())
        if (!o->get_positional()
            && std::find(groups.begin(), groups.end(), o->get_group()) == groups.end())
            groups.push_back(o->get_group());
    return groups;
}

std::string groupTitle(const std::string &group)
{
    return group == "Options" ? std::string("Options") : group + " options";
}

std::string optionNames(const CLI::Option *o, const Markup &name, const Markup &type)
{
    std::string names;
    for (const std::string &s : o->get_snames())
        names += (names.empty() ? "" : ", ") + name("-" + s);
    for (const std::string &l : o->get_lnames())
        names += (names.empty() ? "" : ", ") + name("--" + l);
    if (o->get_type_size() != 0 && !o->get_type_name().empty())
        names += " " + type(o->get_type_name());
    return names;
}

std::string optionText(const CLI::Option *o, const Markup &prose, const Markup &name)
{
    std::string description = o->get_description();
    std::replace(description.begin(), description.end(), '\n', ' ');
    std::string text = prose(description);
    if (o->get_required())
        text += " Required.";
    for (const CLI::Option *need : o->get_needs())
        text += " Needs " + name(need->get_name()) + ".";
    for (const CLI::Option *excluded : o->get_excludes())
        text += " Not with " + name(excluded->get_name()) + ".";
    return text;
}

} // namespace railyard::cli
