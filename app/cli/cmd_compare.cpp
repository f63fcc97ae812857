/**
 * `railyard-cli compare A B`: every summary figure of two placements with its change, the links
 * whose load changed most and the ranks that moved (model/studies/compare.h).
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "scenario/scenariofile.h"
#include "studies/compare.h"

#include <nlohmann/json.hpp>

#include <memory>

namespace railyard::cli {

namespace {

struct CompareOptions
{
    std::string a;
    std::string b;
    bool json = false;
    int top = 20;
    std::string output;
};

int runCompare(const CompareOptions &o)
{
    if (o.top < 0)
        throw ScenarioError("--top", "must be 0 or more, got " + std::to_string(o.top));
    const Scenario a = loadScenarioFile(o.a);
    const Scenario b = loadScenarioFile(o.b);
    const CostEngine engineA(a);
    const CostEngine engineB(b);
    const Comparison c = compareEngines(engineA, engineB, o.top);
    const std::string text = o.json ? jsonText(comparisonToJson(c, engineB.fabric()))
                                    : comparisonToText(c, engineB.fabric(), o.top);
    writeOutput(o.output, o.json ? text : terminalText(text));
    return kExitOk;
}

} // namespace

void addCompare(CommandLine &line)
{
    auto o = std::make_shared<CompareOptions>();
    Command c(line,
        line.addCommand("compare",
            "Compare two placements: every summary figure of A and B "
            "with its change, the links whose load changed most, and the "
            "ranks that moved.",
            [o] { return runCompare(*o); }));
    c.positionalFile("A", o->a, "Baseline scenario file.");
    c.positionalFile("B", o->b, "Scenario file to compare with A.");
    c.json(o->json);
    c.integer("--top", o->top, "N", "List at most N changed links (default 20).");
    c.output(o->output);
}

} // namespace railyard::cli
