/**
 * `railyard-cli export` writes the chosen mapping for deployment (run record, launcher files,
 * Megatron-LM arguments, the pipeline trace, the nccl-tests measurement plan, the ASTRA-sim and
 * SimAI inputs, the NCCL_TOPO_FILE of a server), and `railyard-cli import-mapping` turns a run
 * record back into a scenario with explicit slots. Both use the engine's exporters
 * (model/export/exporters.h), as the GUI does. Nothing is written when anything fails: the text (or
 * every file of a directory export) is built first and written atomically.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exporters.h"
#include "scenario/scenariofile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace railyard::cli {

namespace {

/// A small text file (host lists, run records up to 64 MiB); throws ScenarioError naming the
/// option and the file.
std::string readText(
    const std::string &path, const std::string &option, long long limit, const std::string &what)
{
    try {
        // Refuses a FIFO, directory or device at once (base/fileio.h).
        return readFileLimited(path, limit, what);
    } catch (const ScenarioError &e) {
        throw ScenarioError(option, "'" + path + "': " + e.reason());
    }
}

std::string formatList()
{
    std::string out;
    std::size_t width = 0; // the longest name and two blanks: the descriptions line up
    for (ExportFormat f : allExportFormats())
        width = std::max(width, exportFormatName(f).size() + 2);
    for (ExportFormat f : allExportFormats())
        out += "  " + std::string(exportFormatName(f))
            + std::string(width - exportFormatName(f).size(), ' ')
            + std::string(exportFormatDescription(f)) + "\n";
    return out;
}

struct ExportCommandOptions
{
    std::string file;
    std::string format;
    std::string output;
    std::string hosts;
    std::vector<std::pair<int, int>> swaps;
    ExportOptions options;
    bool noPreflight = false;
    const CLI::App *app = nullptr;

    bool given(const char *option) const { return app->count(option) > 0; }
};

/**
 * The exporter options each format reads (model/export/): an option the chosen format would
 * ignore is refused, so a mistyped --format does not quietly drop --cpus-per-host.
 */
void refuseOptionsThatDoNotApply(const ExportCommandOptions &o, ExportFormat format)
{
    const std::string name(exportFormatName(format));
    const auto only = [&](const char *option, std::initializer_list<ExportFormat> formats,
                          const char *which) {
        if (o.given(option) && std::find(formats.begin(), formats.end(), format) == formats.end())
            throw UsageError(
                std::string(option) + " applies only to --format " + which + ", not to " + name);
    };
    only("--cpus-per-host", { ExportFormat::Rankfile, ExportFormat::Slurm, ExportFormat::NcclTopo },
        "rankfile, slurm or nccl-topo");
    only("--nccl-topo",
        { ExportFormat::Rankfile, ExportFormat::Slurm, ExportFormat::Torchrun,
            ExportFormat::PyTorchJob },
        "rankfile, slurm, torchrun or pytorchjob");
    only("--master-port", { ExportFormat::Torchrun, ExportFormat::Slurm, ExportFormat::Kueue },
        "torchrun, slurm or kueue");
    only("--program",
        { ExportFormat::Torchrun, ExportFormat::Slurm, ExportFormat::PyTorchJob,
            ExportFormat::Kueue },
        "torchrun, slurm, pytorchjob or kueue");
    only("--image", { ExportFormat::PyTorchJob, ExportFormat::Kueue }, "pytorchjob or kueue");
    only("--json-plan", { ExportFormat::NcclPlan }, "nccl-plan");
    only("--hca-prefix",
        { ExportFormat::NcclPlan, ExportFormat::Slurm, ExportFormat::Torchrun,
            ExportFormat::MappingJson, ExportFormat::Csv, ExportFormat::PyTorchJob,
            ExportFormat::NcclTopo },
        "nccl-plan, slurm, torchrun, pytorchjob, mapping-json, csv or nccl-topo");
    const std::initializer_list<ExportFormat> preflighted
        = { ExportFormat::Torchrun, ExportFormat::Slurm, ExportFormat::PyTorchJob };
    only("--record", preflighted, "torchrun, slurm or pytorchjob");
    only("--no-preflight", preflighted, "torchrun, slurm or pytorchjob");
    if (o.given("--record") && o.given("--no-preflight"))
        throw UsageError("--record names the preflight's run record; --no-preflight turns the "
                         "preflight off");
    if (o.given("--hosts") && !exportUsesHosts(format))
        throw UsageError("--hosts does not apply to --format " + name + ", which names no hosts");
    if (exportWritesDirectory(format) && (o.output.empty() || o.output == "-"))
        throw UsageError("--format " + name
            + " writes a directory of files: give -o DIR (created if it does not exist)");
}

int runExport(const ExportCommandOptions &o)
{
    ExportFormat format;
    if (!parseExportFormat(o.format, format))
        throw UsageError("--format: unknown format '" + o.format + "' (try export --help)", false);
    refuseOptionsThatDoNotApply(o, format);

    ExportOptions options = o.options;
    options.preflight = !o.noPreflight;
    if (options.cpusPerHost < 0)
        throw ScenarioError("--cpus-per-host", "must be 0 or a positive core count");
    if (options.masterPort < 1 || options.masterPort > 65535)
        throw ScenarioError("--master-port", "must be a TCP port, 1..65535");
    options.generator = "railyard-cli " RAILYARD_VERSION;

    const Scenario scenario = loadScenarioFile(o.file);
    // Refuses an invalid mapping with the validator's message.
    auto engine = std::make_unique<CostEngine>(scenario);
    if (o.given("--hosts"))
        options.hosts = parseHostsFile(
            readText(o.hosts, "--hosts", 1 << 20, "a hosts file"), engine->fabric().servers());
    for (const auto &[a, b] : o.swaps)
        engine->swapRanks(a, b);
    if (!o.swaps.empty() && !(engine->mapping() == CostEngine(scenario).mapping())) {
        // The swaps made a new mapping: its records carry the next mapping version.
        Scenario moved = scenario;
        moved.slots = engine->mapping().slots();
        moved.mappingVersion = scenario.mappingVersion + 1;
        engine = std::make_unique<CostEngine>(moved);
    }

    if (exportWritesDirectory(format)) {
        const std::vector<ExportFile> files = exportFiles(*engine, format, options);
        for (const std::string &w : exportWarnings(*engine, format, options))
            printWarning(w);
        writeExportDirectory(o.output, files);
        return kExitOk;
    }
    const std::string text = exportText(*engine, format, options);
    for (const std::string &w : exportWarnings(*engine, format, options))
        printWarning(w);
    writeOutput(o.output, text);
    return kExitOk;
}

struct ImportOptions
{
    std::string file;
    std::string mapping;
    std::string output;
};

int runImportMapping(const ImportOptions &o)
{
    Scenario scenario = loadScenarioFile(o.file);
    // The record replaces the mapping, so the file's own need not be valid; when it is, it is
    // the current mapping the record is compared with (a changed mapping is a new version, and
    // a record edited in its slot column only may keep the old slot's derived columns).
    std::unique_ptr<CostEngine> own;
    try {
        own = std::make_unique<CostEngine>(scenario);
    } catch (const ScenarioError &) {
        Scenario base = scenario;
        base.slots.clear();
        own = std::make_unique<CostEngine>(base);
    }
    const CostEngine &engine = *own;
    const std::string text = readText(o.mapping, "--mapping", 64 << 20, "a run record");
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    ImportedMapping imported;
    try {
        imported = first != std::string::npos && text[first] == '{'
            ? importMappingJson(text, engine)
            : importMappingCsv(text, engine);
    } catch (const ScenarioError &e) {
        // "ranks[3].slot: ..." and "csv row 3.slot: ..." say where in the record: name it too.
        throw ScenarioError(
            e.field().empty() ? o.mapping : o.mapping + ": " + e.field(), e.reason());
    }
    scenario.slots = imported.mapping.slots();
    scenario.mappingVersion = imported.mappingVersion;
    writeOutput(o.output, scenarioToText(scenario));
    return kExitOk;
}

} // namespace

void addExport(CommandLine &line)
{
    auto o = std::make_shared<ExportCommandOptions>();
    CLI::App &app = line.addCommand("export",
        "Export the scenario's mapping (after any --swap) for deployment. Formats:\n"
            + formatList(),
        [o] { return runExport(*o); });
    o->app = &app;
    Command c(line, app);
    c.positionalFile("FILE", o->file, "Scenario file.");
    std::vector<std::string> formats;
    for (ExportFormat f : allExportFormats())
        formats.emplace_back(exportFormatName(f));
    c.choice("--format", o->format, "F", "Export format (see above).", formats)->required();
    c.output(o->output,
        "Write to FILE (atomically) instead of stdout; astra-sim: the directory to write "
        "(required).");
    c.file("--hosts", o->hosts, "HOSTFILE",
        "Host names per server: one per line, or 'index hostname' (every format but "
        "chrome-trace).");
    c.swaps(o->swaps, "Exchange the slots of global ranks A and B first (repeatable, in order).");
    c.integer("--cpus-per-host", o->options.cpusPerHost, "N",
        "rankfile/slurm/nccl-topo: logical cores per host (at least one per GPU), an equal block "
        "per NUMA "
        "node shared over its GPUs (default 0: rankfile core g for GPU g, slurm no binding).");
    c.integer("--master-port", o->options.masterPort, "PORT",
        "torchrun/slurm/kueue: rendezvous port (default 29500).");
    c.text("--program", o->options.program, "CMD",
        "torchrun/slurm/kueue: the training program (default pretrain_gpt.py).");
    c.text("--hca-prefix", o->options.hcaPrefix, "PREFIX",
        "NIC i is RDMA device PREFIXi unless the fabric names its NICs (default mlx5_).");
    c.file("--nccl-topo", o->options.ncclTopoFile, "XML",
        "slurm/torchrun/pytorchjob/rankfile: the NCCL_TOPO_FILE the ranks use when it exists "
        "(default railyard.nccl-topo.xml, the nccl-topo export; only for fabrics with PCI bus "
        "ids).");
    c.file("--record", o->options.record, "RECORD",
        "torchrun/slurm: the run record every rank's preflight checks (default "
        "railyard.mapping.json; RAILYARD_RECORD overrides it at run time).");
    c.text("--image", o->options.image, "IMAGE",
        "pytorchjob/kueue: the training container image (default "
        "nvcr.io/nvidia/pytorch:24.12-py3).");
    c.flag("--no-preflight", o->noPreflight,
        "torchrun/slurm: do not run 'railyard-cli preflight' before the program.");
    c.flag("--json-plan", o->options.jsonPlan,
        "nccl-plan: write the plan as JSON instead of a shell script.");
}

void addImportMapping(CommandLine &line)
{
    auto o = std::make_shared<ImportOptions>();
    Command c(line,
        line.addCommand("import-mapping",
            "Apply a run record (mapping-json or csv export) to a scenario on the same fabric. It "
            "writes the scenario with explicit slots and the record's mapping version.",
            [o] { return runImportMapping(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    c.file("--mapping", o->mapping, "MAP", "The record: a mapping-json (.json) or csv export.")
        ->required();
    c.output(o->output, "Write the scenario to FILE (atomically) instead of stdout.");
}

} // namespace railyard::cli
