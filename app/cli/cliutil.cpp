#include "cliutil.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "base/stalefiles.h"
#include "base/text.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace railyard::cli {

void writeOutput(const std::string &path, const std::string &text)
{
    if (path.empty() || path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        return;
    }
    sweepStaleFiles(path);
    writeFileAtomically(path, text);
}

std::string terminalText(const std::string &text)
{
    return escapeControls(text, true);
}

void printWarning(const std::string &text)
{
    std::cerr << "railyard-cli: warning: " << escapeControls(text) << "\n";
}

std::string errorMessage(const ScenarioError &error)
{
    const std::string where = error.location().empty() ? "" : error.location() + ": ";
    return where + (error.field().empty() ? error.reason() : error.field() + ": " + error.reason());
}

Scenario loadScenarioFile(const std::string &path)
{
    try {
        return loadScenario(path);
    } catch (const ScenarioError &e) {
        if (!e.field().empty() || !e.location().empty())
            throw; // "FILE:LINE: field: reason" (scenario/scenariofile.cpp loadScenario)
        // "not valid JSON: parse error at line 3, column 5" says where in which file.
        throw ScenarioError(path, e.reason());
    }
}

std::string jsonText(nlohmann::json json)
{
    if (json.is_object())
        json["format_version"] = kJsonFormatVersion;
    // Bytes that are not UTF-8 (a file name from the command line) become U+FFFD rather than
    // an exception.
    return json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::vector<std::string> splitList(const std::string &text)
{
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        out.push_back(text.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

} // namespace railyard::cli
