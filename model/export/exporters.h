#pragma once

#include "cost/costengine.h"
#include "layout/mapping.h"

#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/**
 * What the chosen mapping can be exported as (README, "Exports"): the run record (mapping-json,
 * csv), launcher inputs (rankfile, slurm, torchrun, hostfile, megatron), the pipeline timeline
 * (chrome-trace) and the seed's measurement plan (nccl-plan). Every export is derived from the
 * engine's current mapping, so a swap in the GUI or `--swap` on the CLI shows up in all of them.
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
};

/// Every format, in menu order.
const std::vector<ExportFormat> &allExportFormats();
std::string_view exportFormatName(ExportFormat f); ///< "mapping-json", "rankfile", ...
bool parseExportFormat(std::string_view name, ExportFormat &out);
/// One line for menus and --help: "Open MPI rankfile (rank N=host slot=cores)".
std::string_view exportFormatDescription(ExportFormat f);
/// Suggested file name ending, with the dot: ".mapping.json", ".rankfile", ".slurm.sh", ...
std::string_view exportFormatSuffix(ExportFormat f);

/** Knobs of the exporters; the defaults give the files documented in the README. */
struct ExportOptions
{
    /// Host name per server (index = server); empty = the fabric's server names.
    std::vector<std::string> hosts;
    /// Rankfile: logical CPU cores per host to share out over the GPU indexes (GPU g of G gets
    /// cores [g*C/G, (g+1)*C/G)); 0 = one core per GPU, core g for GPU g.
    int cpusPerHost = 0;
    /// torchrun / slurm: the rendezvous port.
    int masterPort = 29500;
    /// torchrun / slurm: the training program and its fixed arguments.
    std::string program = "pretrain_gpt.py";
    /// nccl-plan: NIC i of a server is the RDMA device <prefix><i> (NCCL_IB_HCA).
    std::string hcaPrefix = "mlx5_";
    /// nccl-plan: JSON instead of the shell script.
    bool jsonPlan = false;
    /// Written into mapping-json as "generator" (the CLI puts "railyard-cli <version>").
    std::string generator = "railyard";
};

/// The format version of mapping-json (and of the csv columns).
inline constexpr int kMappingRecordVersion = 1;

/// The text of one export of the engine's current mapping. Throws ScenarioError when the
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

/// "fnv1a64:<16 hex digits>" over the canonical JSON of the fabric spec: the fabric identity a
/// run record is checked against.
std::string fabricHash(const FabricSpec &spec);

/** A mapping read back from a run record, with the record's version and scenario name. */
struct ImportedMapping
{
    Mapping mapping;
    int mappingVersion = 1;
    std::string scenario;
};

/// Reads a mapping-json record and checks it against the engine's scenario: same fabric (hash,
/// servers, GPUs), same degrees and order, every rank once with coordinates matching the
/// layout and a slot consistent with its server and GPU, and a mapping that validates.
/// Throws ScenarioError naming the field at fault.
ImportedMapping importMappingJson(const std::string &text, const CostEngine &engine);
/// The same for the csv export (which has no fabric hash: servers and GPU indexes are checked).
ImportedMapping importMappingCsv(const std::string &text, const CostEngine &engine);

} // namespace railyard
