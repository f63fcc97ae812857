#include "commands.h"

namespace railyard::cli {

void addAllCommands(CommandLine &line)
{
    addGenerate(line);
    addEvaluate(line);
    addGroups(line);
    addPipeline(line);
    addCollective(line);
    addExport(line);
    addImportMapping(line);
    addImportTopology(line);
    addPreflight(line);
    addCompare(line);
    addRemap(line);
    addOptimise(line);
    addSearch(line);
    addMerge(line);
    addCompose(line);
    addPlaceJob(line);
    addCalibrate(line);
    addRailAudit(line);
    addNcclLog(line);
    addBom(line);
    addFabricSearch(line);
    addCounters(line);
    addDocumentation(line);
}

} // namespace railyard::cli
