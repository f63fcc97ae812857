#pragma once

#include "cost/costengine.h"
#include "export/exportdirectory.h"
#include "export/exportoptions.h"
#include "export/runrecord.h" // the run record's import side belongs to this API too

#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/**
 * What the chosen mapping can be exported as (README, "Exports"): the run record (mapping-json,
 * csv), launcher inputs (rankfile, slurm, torchrun, hostfile, megatron), the pipeline timeline
 * (chrome-trace), an nccl-tests measurement plan of its groups (nccl-plan) and the inputs of the
 * packet-level simulators ASTRA-sim (astra-sim, a directory) and SimAI (simai-topo), and the
 * server's topology as NCCL reads it from NCCL_TOPO_FILE (nccl-topo), and the scheduler
 * constraints that reproduce the placement: Slurm topology.conf for topology/tree
 * (slurm-topology) and topology/block (slurm-topology-block), and Kueue Topology-Aware
 * Scheduling manifests (kueue). Every export
 * is derived from the engine's current mapping, so a swap in the GUI or `--swap` on the CLI shows
 * up in all of them.
 */
enum class ExportFormat {
    MappingJson,
    Csv,
    Rankfile,
    Slurm,
    Torchrun,
    Hostfile,
    Megatron,
    ChromeTrace,
    NcclPlan,
    PyTorchJob,
    AstraSim,
    SimAiTopo,
    NcclTopo,
    SlurmTopology,
    SlurmTopologyBlock,
    Kueue,
};

/// Every format, in menu order.
const std::vector<ExportFormat> &allExportFormats();
std::string_view exportFormatName(ExportFormat f); ///< "mapping-json", "rankfile", ...
bool parseExportFormat(std::string_view name, ExportFormat &out);
/// One line for menus and --help: "Open MPI rankfile (rank N=host slot=cores)".
std::string_view exportFormatDescription(ExportFormat f);
/// Suggested file name ending, with the dot: ".mapping.json", ".rankfile", ".slurm.sh", ...
std::string_view exportFormatSuffix(ExportFormat f);

/// Formats that write a directory of files (astra-sim) rather than one file.
bool exportWritesDirectory(ExportFormat f);
/// Formats whose text names hosts (the launchers, the run record, the plan); --hosts and the
/// GUI's hosts field apply only to these (not chrome-trace, astra-sim, simai-topo, nccl-topo).
bool exportUsesHosts(ExportFormat f);
/// Why the fabric cannot give this format ("" when it can): nccl-topo without PCI bus ids says
/// which fields are missing and that import-topology fills them.
std::string exportUnavailableReason(const CostEngine &engine, ExportFormat f);

/// The files of a directory format (exportWritesDirectory()), built completely before anything
/// is written (writeExportDirectory() then writes them all or nothing). Throws ScenarioError
/// as exportText() does, and for a format that writes one file.
std::vector<ExportFile> exportFiles(
    const CostEngine &engine, ExportFormat format, const ExportOptions &options = {});

/// The text of one export of the engine's current mapping; for a directory format, every file
/// after a "==> name <==" line (exportFilesListing()), for a preview. Throws ScenarioError when the
/// export is impossible (a host name unusable in a launcher file, a bad --hosts list).
/// nccl-plan routes each planned collective through the engine's router (CostEngine::collective):
/// do not call it while another thread uses the same engine.
std::string exportText(
    const CostEngine &engine, ExportFormat format, const ExportOptions &options = {});

/// Caveats of an export, one line each (e.g. "torchrun: node000 holds ranks 0-6 and 9: ..."):
/// the same warnings the text carries as comments, for a GUI or the CLI's stderr.
std::vector<std::string> exportWarnings(
    const CostEngine &engine, ExportFormat format, const ExportOptions &options = {});

/// A --hosts file: one host name per line (line i = server i), or "index hostname" lines
/// covering every server once; blank lines and '#' comments are skipped. Throws ScenarioError
/// naming the line for a wrong count, a repeated index or an unusable name.
std::vector<std::string> parseHostsFile(const std::string &text, int servers);

} // namespace railyard
