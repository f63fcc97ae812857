#pragma once

#include <QStringList>

namespace railyard::cli {

// Each subcommand takes its own arguments (argv[0] = "railyard-cli <command>") and returns
// the process exit code. Errors go to stderr as one line; nothing is written on failure.
int runGenerate(const QStringList &args);
int runEvaluate(const QStringList &args);
int runGroups(const QStringList &args);
int runPipeline(const QStringList &args);
int runCollective(const QStringList &args);
int runExport(const QStringList &args);
int runImportMapping(const QStringList &args);
int runCompare(const QStringList &args);
int runRemap(const QStringList &args);

} // namespace railyard::cli
