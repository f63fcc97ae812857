/**
 * `railyard-cli export` writes the chosen mapping for deployment (run record, launcher files,
 * Megatron-LM arguments, the pipeline trace, the nccl-tests measurement plan), and
 * `railyard-cli import-mapping` turns a run record back into a scenario with explicit slots.
 * Both use the engine's exporters (model/export/exporters.h), as the GUI does. Nothing is written when
 * anything fails: the text is built first and written atomically.
 */
#include "cliutil.h"
#include "commands.h"

#include "cost/costengine.h"
#include "export/exporters.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QFile>

#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace railyard::cli {

namespace {

/// "A:B" -> {A, B}; throws ScenarioError naming the option.
std::pair<int, int> parseSwap(const QString &text)
{
    const QStringList parts = text.split(QLatin1Char(':'));
    bool okA = false, okB = false;
    const int a = parts.size() == 2 ? parts[0].toInt(&okA) : 0;
    const int b = parts.size() == 2 ? parts[1].toInt(&okB) : 0;
    if (!okA || !okB)
        throw ScenarioError(
            "--swap", "expected two global ranks as A:B, got '" + text.toStdString() + "'");
    return { a, b };
}

/// A small text file (host lists, run records up to 64 MiB); throws ScenarioError naming it.
std::string readText(const QString &path, const std::string &option, qint64 limit)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw ScenarioError(option,
            "cannot read '" + path.toStdString() + "': " + file.errorString().toStdString());
    const QByteArray data = file.read(limit + 1);
    if (data.size() > limit)
        throw ScenarioError(option,
            "'" + path.toStdString() + "' is larger than " + std::to_string(limit) + " bytes");
    return data.toStdString();
}

std::string formatList()
{
    std::string out;
    for (ExportFormat f : allExportFormats())
        out += "  " + std::string(exportFormatName(f))
            + std::string(14 - exportFormatName(f).size(), ' ')
            + std::string(exportFormatDescription(f)) + "\n";
    return out;
}

} // namespace

int runExport(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QString::fromStdString(
        "Export the scenario's mapping (after any --swap) for deployment. Formats:\n"
        + formatList()));
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("scenario file"));
    parser.addOption({ QStringLiteral("format"), QStringLiteral("Export format (see above)."),
        QStringLiteral("F") });
    parser.addOption({ { QStringLiteral("o"), QStringLiteral("output") },
        QStringLiteral("Write to FILE (atomically) instead of stdout."), QStringLiteral("FILE") });
    parser.addOption({ QStringLiteral("hosts"),
        QStringLiteral("Host names per server: one per line, or 'index hostname'."),
        QStringLiteral("HOSTFILE") });
    parser.addOption({ QStringLiteral("swap"),
        QStringLiteral("Exchange the slots of global ranks A and B first (repeatable)."),
        QStringLiteral("A:B") });
    parser.addOption({ QStringLiteral("cpus-per-host"),
        QStringLiteral("rankfile: logical cores per host shared over the GPUs "
                       "(default 0: core g for GPU g)."),
        QStringLiteral("N"), QStringLiteral("0") });
    parser.addOption({ QStringLiteral("master-port"),
        QStringLiteral("torchrun/slurm: rendezvous port (default 29500)."), QStringLiteral("PORT"),
        QStringLiteral("29500") });
    parser.addOption({ QStringLiteral("program"),
        QStringLiteral("torchrun/slurm: the training program (default pretrain_gpt.py)."),
        QStringLiteral("CMD"), QStringLiteral("pretrain_gpt.py") });
    parser.addOption({ QStringLiteral("hca-prefix"),
        QStringLiteral("nccl-plan: NIC i is RDMA device PREFIXi (default mlx5_)."),
        QStringLiteral("PREFIX"), QStringLiteral("mlx5_") });
    parser.addOption({ QStringLiteral("json-plan"),
        QStringLiteral("nccl-plan: write the plan as JSON instead of a shell script.") });
    int code = 0;
    if (!parseArgs(parser, args, code))
        return code;
    if (parser.positionalArguments().size() != 1)
        return fail("export takes exactly one scenario FILE", kExitUsage);
    if (!parser.isSet(QStringLiteral("format")))
        return fail(
            "export needs --format (" +
                [] {
                    std::string names;
                    for (ExportFormat f : allExportFormats())
                        names += (names.empty() ? "" : ", ") + std::string(exportFormatName(f));
                    return names;
                }()
                + ")",
            kExitUsage);
    ExportFormat format;
    const std::string formatName = parser.value(QStringLiteral("format")).toStdString();
    if (!parseExportFormat(formatName, format))
        return fail(
            "--format: unknown format '" + formatName + "' (try export --help)", kExitUsage);

    std::vector<std::pair<int, int>> swaps;
    for (const QString &s : parser.values(QStringLiteral("swap")))
        swaps.push_back(parseSwap(s));
    ExportOptions options;
    options.cpusPerHost = intOption(parser, QStringLiteral("cpus-per-host"));
    if (options.cpusPerHost < 0)
        throw ScenarioError("--cpus-per-host", "must be 0 or a positive core count");
    options.masterPort = intOption(parser, QStringLiteral("master-port"));
    if (options.masterPort < 1 || options.masterPort > 65535)
        throw ScenarioError("--master-port", "must be a TCP port, 1..65535");
    options.program = parser.value(QStringLiteral("program")).toStdString();
    options.hcaPrefix = parser.value(QStringLiteral("hca-prefix")).toStdString();
    options.jsonPlan = parser.isSet(QStringLiteral("json-plan"));
    options.generator = "railyard-cli " RAILYARD_VERSION;

    const Scenario scenario = loadScenario(parser.positionalArguments().front().toStdString());
    CostEngine engine(scenario); // refuses an invalid mapping with the validator's message
    if (parser.isSet(QStringLiteral("hosts")))
        options.hosts
            = parseHostsFile(readText(parser.value(QStringLiteral("hosts")), "--hosts", 1 << 20),
                engine.fabric().servers());
    for (const auto &[a, b] : swaps)
        engine.swapRanks(a, b);

    const std::string text = exportText(engine, format, options);
    for (const std::string &w : exportWarnings(engine, format, options))
        std::cerr << "railyard-cli: warning: " << w << "\n";
    writeOutput(parser.value(QStringLiteral("output")), text);
    return kExitOk;
}

int runImportMapping(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Apply a run record (mapping-json or csv export) to a scenario on the same fabric and "
        "write the scenario with explicit slots and the record's mapping version."));
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("scenario file"));
    parser.addOption({ QStringLiteral("mapping"),
        QStringLiteral("The record: a mapping-json (.json) or csv export."),
        QStringLiteral("MAP") });
    parser.addOption({ { QStringLiteral("o"), QStringLiteral("output") },
        QStringLiteral("Write the scenario to FILE (atomically) instead of stdout."),
        QStringLiteral("FILE") });
    int code = 0;
    if (!parseArgs(parser, args, code))
        return code;
    if (parser.positionalArguments().size() != 1)
        return fail("import-mapping takes exactly one scenario FILE", kExitUsage);
    if (!parser.isSet(QStringLiteral("mapping")))
        return fail("import-mapping needs --mapping MAP", kExitUsage);

    Scenario scenario = loadScenario(parser.positionalArguments().front().toStdString());
    Scenario base = scenario;
    base.slots.clear(); // the record replaces the mapping: the file's own need not be valid
    const CostEngine engine(base);
    const std::string text
        = readText(parser.value(QStringLiteral("mapping")), "--mapping", 64 << 20);
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    const ImportedMapping imported = first != std::string::npos && text[first] == '{'
        ? importMappingJson(text, engine)
        : importMappingCsv(text, engine);
    scenario.slots = imported.mapping.slots();
    scenario.mappingVersion = imported.mappingVersion;
    writeOutput(parser.value(QStringLiteral("output")), scenarioToText(scenario));
    return kExitOk;
}

} // namespace railyard::cli
