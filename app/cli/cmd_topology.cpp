/**
 * `railyard-cli import-topology FILE --topology XML...`: sets the scenario's server model (GPU
 * <-> NIC affinity, NICs per server, NIC speed, NVLink bandwidth) from the topology NCCL dumps
 * with NCCL_TOPO_DUMP_FILE (model/io/nccltopology.h), and says where the wiring is not what a
 * rail-optimised layout assumes. The scenario goes to stdout or -o; the affinity table and the
 * warnings to stderr.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"

#include "cost/costengine.h"
#include "io/nccltopology.h"
#include "scenario/scenariofile.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace railyard::cli {

namespace {

struct TopologyOptions
{
    std::string file;
    std::vector<std::string> topologies;
    std::string output;
};

int runImportTopology(const TopologyOptions &o)
{
    Scenario scenario = loadScenarioFile(o.file);
    std::vector<ServerTopology> servers;
    for (const std::string &path : o.topologies)
        servers.push_back(loadNcclTopology(path));
    const ServerTopology &t = servers.front();
    applyTopology(scenario.fabric, t);
    // The loader's checks (bus ids, device names) and the engine's, before anything is written.
    const std::string text = scenarioToText(scenario);
    const CostEngine check(parseScenario(text));

    std::string summary = t.file + ": " + std::to_string(t.gpus.size()) + " GPUs, "
        + std::to_string(t.rails.size()) + " rail NICs";
    if (t.scaleUpGbps > 0.0)
        summary += ", NVLink " + std::to_string(static_cast<long long>(t.scaleUpGbps / 8.0)) + " GB/s per GPU and direction";
    summary += "\n";
    for (const TopologyGpu &g : t.gpus) {
        const TopologyNic &nic = t.nics[static_cast<std::size_t>(t.rails[static_cast<std::size_t>(g.nic)])];
        char line[256];
        std::snprintf(line, sizeof line, "  GPU %d %-14s -> %-8s rail %d  %s  numa %d\n", g.dev,
                      g.busId.c_str(), nic.name.c_str(), g.nic, g.pathType.c_str(), g.numa);
        summary += line;
    }
    std::vector<std::string> warnings;
    for (const ServerTopology &s : servers)
        warnings.insert(warnings.end(), s.warnings.begin(), s.warnings.end());
    const std::vector<std::string> across = compareTopologies(servers);
    warnings.insert(warnings.end(), across.begin(), across.end());
    for (const std::string &w : warnings)
        summary += "warning: " + w + "\n";
    writeOutput(o.output, text);
    std::fputs(summary.c_str(), stderr);
    return kExitOk;
}

} // namespace

void addImportTopology(CommandLine &line)
{
    auto o = std::make_shared<TopologyOptions>();
    Command c(line,
        line.addCommand("import-topology",
            "Set the scenario's server model from NCCL topology XML (NCCL_TOPO_DUMP_FILE): GPU "
            "<-> NIC affinity by PCIe proximity as NCCL ranks paths, NICs per server, NIC speed "
            "and NVLink bandwidth. Several files (one per server) are compared: a GPU index on "
            "different rails is a warning. Writes the scenario; the affinity and the warnings go "
            "to stderr.",
            [o] { return runImportTopology(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    c.texts("--topology", o->topologies, "XML",
            "An NCCL topology file (repeatable: the first sets the server model).")
        ->required();
    c.output(o->output, "Write the scenario to FILE (atomically) instead of stdout.");
}

} // namespace railyard::cli
