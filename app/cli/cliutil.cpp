#include "cliutil.h"

#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace railyard::cli {

int fail(const std::string &message, int code)
{
    std::cerr << "railyard-cli: " << message << std::endl;
    return code;
}

bool parseArgs(QCommandLineParser &parser, const QStringList &args, int &exitCode)
{
    parser.addHelpOption();
    if (!parser.parse(args)) {
        exitCode = fail(parser.errorText().toStdString(), kExitUsage);
        return false;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        std::cout << parser.helpText().toStdString();
        exitCode = kExitOk;
        return false;
    }
    return true;
}

int intOption(const QCommandLineParser &parser, const QString &name)
{
    bool ok = false;
    const QString text = parser.value(name);
    const int v = text.toInt(&ok);
    if (!ok)
        throw ScenarioError("--" + name.toStdString(),
                            "expected an integer, got '" + text.toStdString() + "'");
    return v;
}

double doubleOption(const QCommandLineParser &parser, const QString &name)
{
    bool ok = false;
    const QString text = parser.value(name);
    const double v = text.toDouble(&ok);
    if (!ok)
        throw ScenarioError("--" + name.toStdString(),
                            "expected a number, got '" + text.toStdString() + "'");
    return v;
}

void writeOutput(const QString &path, const std::string &text)
{
    if (path.isEmpty() || path == QLatin1String("-")) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
        return;
    }
    writeFileAtomically(path.toStdString(), text);
}

std::string jsonText(const nlohmann::json &json)
{
    return json.dump(2) + "\n";
}

} // namespace railyard::cli
