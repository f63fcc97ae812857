#pragma once

namespace railyard::cli {

class CommandLine;

// Each adds its subcommand to the command line: its options (bound to the values it runs
// with) and the code that runs once they are parsed. That code returns the exit code and
// reports failures by throwing (ScenarioError: exit 1, UsageError: exit 2); nothing is written
// on failure.
void addGenerate(CommandLine &line);
void addEvaluate(CommandLine &line);
void addGroups(CommandLine &line);
void addPipeline(CommandLine &line);
void addCollective(CommandLine &line);
void addExport(CommandLine &line);
void addImportMapping(CommandLine &line);
void addImportTopology(CommandLine &line);
void addPreflight(CommandLine &line);
void addCompare(CommandLine &line);
void addRemap(CommandLine &line);
void addOptimise(CommandLine &line);
void addSearch(CommandLine &line);
void addMerge(CommandLine &line);
void addCompose(CommandLine &line);
void addPlaceJob(CommandLine &line);
void addCalibrate(CommandLine &line);
void addRailAudit(CommandLine &line);
void addNcclLog(CommandLine &line);
void addBom(CommandLine &line);
void addFabricSearch(CommandLine &line);
void addCounters(CommandLine &line);
/// The hidden `completion bash` and `man`, which print what the build installs.
void addDocumentation(CommandLine &line);

/// Every command above, in the order --help lists them (main() and the fuzz target fuzz_cli).
void addAllCommands(CommandLine &line);

} // namespace railyard::cli
