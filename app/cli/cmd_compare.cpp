#include "cliutil.h"
#include "commands.h"

#include "studies/compare.h"
#include "cost/costengine.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

namespace railyard::cli {

int runCompare(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Compare two placements: every summary figure of A and B with its change, the links "
        "whose load changed most, and the ranks that moved."));
    parser.addPositionalArgument(QStringLiteral("A"), QStringLiteral("baseline scenario file"));
    parser.addPositionalArgument(QStringLiteral("B"), QStringLiteral("scenario file to compare"));
    parser.addOption({ QStringLiteral("json"), QStringLiteral("Print one JSON object.") });
    parser.addOption(
        { QStringLiteral("top"), QStringLiteral("List at most N changed links (default 20)."),
            QStringLiteral("N"), QStringLiteral("20") });
    parser.addOption({ { QStringLiteral("o"), QStringLiteral("output") },
        QStringLiteral("Write to FILE instead of stdout."), QStringLiteral("FILE") });
    int code = 0;
    if (!parseArgs(parser, args, code))
        return code;
    const QStringList files = parser.positionalArguments();
    if (files.size() != 2)
        return fail("compare takes exactly two scenario files, A and B", kExitUsage);
    const int top = intOption(parser, QStringLiteral("top"));
    if (top < 0)
        throw ScenarioError("--top", "must be 0 or more, got " + std::to_string(top));

    const Scenario a = loadScenario(files[0].toStdString());
    const Scenario b = loadScenario(files[1].toStdString());
    const CostEngine engineA(a);
    const CostEngine engineB(b);
    const Comparison c = compareEngines(engineA, engineB, top);
    const std::string text = parser.isSet(QStringLiteral("json"))
        ? jsonText(comparisonToJson(c, engineB.fabric()))
        : comparisonToText(c, engineB.fabric(), top);
    writeOutput(parser.value(QStringLiteral("output")), text);
    return kExitOk;
}

} // namespace railyard::cli
