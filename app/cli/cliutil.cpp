#include "cliutil.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace railyard::cli {

void writeOutput(const std::string &path, const std::string &text)
{
    if (path.empty() || path == "-") {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        return;
    }
    writeFileAtomically(path, text);
}

Scenario loadScenarioFile(const std::string &path)
{
    try {
        return loadScenario(path);
    } catch (const ScenarioError &e) {
        if (!e.field().empty())
            throw;
        // "not valid JSON: parse error at line 3, column 5" says where in which file.
        throw ScenarioError(path, e.reason());
    }
}

std::string jsonText(nlohmann::json json)
{
    if (json.is_object())
        json["format_version"] = kJsonFormatVersion;
    return json.dump(2) + "\n";
}

} // namespace railyard::cli
