#pragma once

#include "command.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace railyard::cli {

/** The parsed flags, keyed by name without the dashes. */
struct GenerateOptions
{
    const CLI::App *app = nullptr;
    std::map<std::string, std::int64_t> integers;
    std::map<std::string, double> numbers;
    std::map<std::string, std::string> texts;
    std::map<std::string, bool> switches;
    DegreeOptions degrees;
    std::string output;

    bool given(const std::string &flag) const { return app->count("--" + flag) > 0; }
};

} // namespace railyard::cli
