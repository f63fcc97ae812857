// railyard-cli: the headless front end of the Railyard cost engine, for scripts, CI and tests.
#include "cliutil.h"
#include "commands.h"

#include "base/scenarioerror.h"

#include <QCoreApplication>

#include <exception>
#include <iostream>

namespace {

constexpr const char *kUsage =
    "usage: railyard-cli <command> [options]\n"
    "\n"
    "commands:\n"
    "  generate    write a scenario (fabric, layout, workload) from flags\n"
    "  evaluate    predict link loads, phase times, pipeline and memory for a scenario\n"
    "  groups      list Megatron-LM communication groups for given degrees\n"
    "  pipeline    simulate a pipeline schedule (GPipe, 1F1B, interleaved)\n"
    "  collective  predict one collective on a scenario's fabric and mapping\n"
    "  export      write the mapping for deployment (run record, launchers, nccl-tests plan)\n"
    "  import-mapping  apply an exported run record to a scenario\n"
    "  compare     compare two placements (A = baseline, B): figures, changed links, moved ranks\n"
    "  remap       mark servers/GPUs/NICs/leaves failed and remap (drop-dp, spares, shrink-pp)\n"
    "\n"
    "'railyard-cli <command> --help' describes each command's options.\n";

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("railyard-cli"));
    QCoreApplication::setApplicationVersion(QStringLiteral(RAILYARD_VERSION));

    QStringList args = QCoreApplication::arguments();
    if (args.size() < 2 || args[1] == QLatin1String("--help") || args[1] == QLatin1String("-h")) {
        std::cout << kUsage;
        return args.size() < 2 ? railyard::cli::kExitUsage : railyard::cli::kExitOk;
    }
    if (args[1] == QLatin1String("--version")) {
        std::cout << "railyard-cli " << RAILYARD_VERSION << "\n";
        return 0;
    }
    const QString command = args[1];
    args.removeAt(1);
    args[0] = QStringLiteral("railyard-cli ") + command;

    using namespace railyard::cli;
    try {
        if (command == QLatin1String("generate"))
            return runGenerate(args);
        if (command == QLatin1String("evaluate"))
            return runEvaluate(args);
        if (command == QLatin1String("groups"))
            return runGroups(args);
        if (command == QLatin1String("pipeline"))
            return runPipeline(args);
        if (command == QLatin1String("collective"))
            return runCollective(args);
        if (command == QLatin1String("export"))
            return runExport(args);
        if (command == QLatin1String("import-mapping"))
            return runImportMapping(args);
        if (command == QLatin1String("compare"))
            return runCompare(args);
        if (command == QLatin1String("remap"))
            return runRemap(args);
    } catch (const railyard::ScenarioError &e) {
        return fail(e.what(), kExitBadInput);
    } catch (const std::exception &e) {
        return fail(std::string("internal error: ") + e.what(), kExitBadInput);
    }
    return fail("unknown command '" + command.toStdString() + "' (try --help)", kExitUsage);
}
