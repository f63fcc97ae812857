/**
 * `railyard-cli search` and `railyard-cli merge`: the parallel-layout search
 * (model/optimise/layoutsearch.h) over tp, pp, dp, cp, ep, micro-batch, schedule, recompute,
 * sequence parallelism, distributed optimizer and placement, on a fabric generated as
 * `generate` does; its shards (--shard I/N, for Slurm job arrays) and their merge; and the same
 * over MPI ranks when mpirun started the process. Every check runs before anything is written.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "fabricsearchmerge.h"
#include "mpisearch.h"
#include "shardoption.h"
#include "usageerror.h"

#include "base/fileio.h"
#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "cost/pipelineschedule.h"
#include "optimise/layoutsearch.h"
#include "optimise/layoutsearchjson.h"
#include "scenario/scenariofile.h"
#include "studies/fabricsearchjson.h"
#include "workload/presets.h"
#include "workload/workloadnames.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace railyard::cli {

namespace {

/// A search part's JSON through the loaders' guarded parser (linear, depth and duplicate keys
/// refused with the key path); `origin` (the file, or "rank N" under MPI) leads its messages.
nlohmann::json parsePart(const std::string &text, const std::string &origin)
{
    try {
        return parseJsonGuarded(text, limits::kMaxJsonDepth);
    } catch (const ScenarioError &e) {
        throw ScenarioError(e.field().empty() ? origin : origin + ": " + e.field(), e.reason());
    }
}

struct SearchCliOptions
{
    std::string model;
    std::string device = "h100-sxm";
    std::string fabric;
    std::map<std::string, std::int64_t> integers; ///< keyed by flag name without dashes
    double nicGbps = 0.0;
    std::string schedules, recomputes, placements, interleaves;
    std::string shard;
    std::string writeTop;
    std::string output;
    bool json = false;
    bool csv = false;
    bool progress = false;
    const CLI::App *app = nullptr;
};

struct MergeCliOptions
{
    std::vector<std::string> parts;
    std::int64_t top = 0;
    std::string writeTop;
    std::string output;
    bool json = false;
    bool csv = false;
};

/// The integer flags of search and the option field each sets.
const std::vector<std::pair<const char *, const char *>> &integerFlags()
{
    static const std::vector<std::pair<const char *, const char *>> all {
        { "gpus", "GPUs of the fabric (servers = gpus / gpus-per-server)." },
        { "gpus-per-server", "GPU slots per server (default the device's tray, else 8)." },
        { "servers-per-su", "Rail-optimised: servers per scalable unit (32)." },
        { "servers-per-leaf", "ToR: servers per leaf (0 = derived)." },
        { "switch-radix", "Ports per switch (64)." },
        { "scaleup-domain-servers", "Servers per NVLink domain (1)." },
        { "planes", "Network planes (1)." },
        { "global-batch", "Global batch in sequences (512)." },
        { "seq", "Sequence length (the model preset's)." },
        { "top", "Rows of the ranking (10)." },
        { "max-tp", "Largest tp tried (default the GPUs of one NVLink domain)." },
        { "max-pp", "Largest pp tried (64)." },
        { "max-cp", "Largest cp tried (2)." },
        { "max-ep", "Largest ep tried (default the model's experts)." },
        { "max-micro-batch", "Micro-batches 1, 2, 4, ... up to this (4)." },
    };
    return all;
}

std::string joinedNames(const std::vector<std::string> &names)
{
    std::string out;
    for (const std::string &n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

template<typename T, typename Parse>
std::vector<T> parseList(const std::string &flag, const std::string &text, Parse parse,
    const std::vector<std::string> &accepted)
{
    std::vector<T> out;
    for (const std::string &item : splitList(text)) {
        T value {};
        if (!parse(item, value))
            throw UsageError(flag + ": unknown value '" + item + "' (" + joinedNames(accepted)
                    + "; a comma-separated list)",
                false);
        out.push_back(value);
    }
    return out;
}

/// The loader's and the engine's field names as the flags that set them.
[[noreturn]] void rethrowNamingFlags(const ScenarioError &e)
{
    static const std::map<std::string, std::string> flags { { "model", "--model" },
        { "device", "--device" }, { "gpus", "--gpus" }, { "top", "--top" }, { "shard", "--shard" },
        { "interleave", "--interleave" }, { "fabric.servers", "--gpus" },
        { "fabric.gpus_per_server", "--gpus-per-server" },
        { "fabric.servers_per_su", "--servers-per-su" },
        { "fabric.servers_per_leaf", "--servers-per-leaf" },
        { "fabric.switch_radix", "--switch-radix" },
        { "fabric.scaleup_domain_servers", "--scaleup-domain-servers" },
        { "fabric.planes", "--planes" }, { "fabric.nic_gbps", "--nic-gbps" },
        { "model.seq", "--seq" }, { "training.global_batch", "--global-batch" },
        { "limits", "--max-*" } };
    const auto it = flags.find(e.field());
    if (it != flags.end())
        throw ScenarioError(it->second, e.reason());
    throw e;
}

LayoutSearchOptions searchOptions(const SearchCliOptions &o)
{
    LayoutSearchOptions s;
    s.model = o.model;
    s.device = o.device;
    if (!parseFabricKindText(o.fabric, s.fabricKind))
        throw UsageError(
            "--fabric: unknown kind '" + o.fabric + "' (rail-optimised, tor, rail-only)", false);
    if (!modelPreset(o.model))
        throw ScenarioError("--model",
            "unknown model preset '" + o.model + "' (" + joinedNames(modelPresetNames()) + ")");
    if (!devicePreset(o.device))
        throw ScenarioError("--device",
            "unknown device preset '" + o.device + "' (" + joinedNames(devicePresetNames()) + ")");
    const auto value = [&o](const char *flag, int fallback, std::int64_t least) {
        if (o.app->count(std::string("--") + flag) == 0)
            return fallback;
        const std::int64_t v = o.integers.at(flag);
        if (v < least || v > 100000000)
            throw ScenarioError(std::string("--") + flag,
                "must be at least " + std::to_string(least) + ", got " + std::to_string(v));
        return static_cast<int>(v);
    };
    s.gpus = value("gpus", s.gpus, 1);
    s.gpusPerServer = value("gpus-per-server", 0, 1);
    s.serversPerSu = value("servers-per-su", 0, 1);
    s.serversPerLeaf = value("servers-per-leaf", 0, 1);
    s.switchRadix = value("switch-radix", 0, 2);
    s.scaleUpDomainServers = value("scaleup-domain-servers", 0, 1);
    s.planes = value("planes", 0, 1);
    s.globalBatch = value("global-batch", 0, 1);
    s.seq = value("seq", 0, 1);
    s.top = value("top", s.top, 1);
    s.maxTp = value("max-tp", 0, 1);
    s.maxPp = value("max-pp", s.maxPp, 1);
    s.maxCp = value("max-cp", s.maxCp, 1);
    s.maxEp = value("max-ep", 0, 1);
    s.maxMicroBatch = value("max-micro-batch", s.maxMicroBatch, 1);
    if (o.app->count("--nic-gbps") > 0) {
        if (!(o.nicGbps > 0.0))
            throw ScenarioError("--nic-gbps", "must be above 0");
        s.nicGbps = o.nicGbps;
    }
    if (!o.schedules.empty()) {
        std::vector<std::string> names;
        for (ScheduleKind k : kScheduleKinds)
            names.emplace_back(scheduleName(k));
        s.schedules = parseList<ScheduleKind>(
            "--schedules", o.schedules,
            [](const std::string &n, ScheduleKind &k) { return parseSchedule(n, k); }, names);
    }
    if (!o.recomputes.empty())
        s.recomputes = parseList<Recompute>("--recompute", o.recomputes,
            [](const std::string &n, Recompute &r) { return parseRecompute(n, r); },
            { "none", "selective", "full" });
    if (!o.placements.empty())
        s.placements = parseList<Placement>("--placements", o.placements,
            [](const std::string &n, Placement &p) { return parsePlacement(n, p); },
            { "packed", "rail-aligned", "scattered" });
    if (!o.interleaves.empty()) {
        s.interleaves.clear();
        for (const std::string &item : splitList(o.interleaves))
            s.interleaves.push_back(toInt("--interleave", parseInteger("--interleave", item)));
    }
    if (!o.shard.empty())
        parseShard(o.shard, s.shardIndex, s.shardCount);
    return s;
}

/// Refuses a --write-top directory that is not there, before the search runs.
void checkWriteDirectory(const std::string &dir)
{
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec))
        throw ScenarioError("--write-top", "'" + dir + "' is not a directory");
}

/// Writes each top row as a scenario: DIR/01-<name>.json, ...
std::string writeTopScenarios(const LayoutSearchResult &r, const std::string &dir)
{
    std::string lines;
    if (dir.empty())
        return lines;
    const Scenario base = searchBaseScenario(r.options);
    for (std::size_t i = 0; i < r.top.size(); ++i) {
        const Scenario s = candidateScenario(base, r.top[i]);
        const std::string number = (i + 1 < 10 ? "0" : "") + std::to_string(i + 1);
        const std::string path
            = (std::filesystem::path(dir) / (number + "-" + s.name + ".json")).string();
        saveScenario(s, path);
        lines += "wrote " + path + "\n";
    }
    return lines;
}

std::string formatted(const LayoutSearchResult &r, bool asJson, bool csv)
{
    if (asJson)
        return jsonText(layoutSearchJson(r));
    if (csv)
        return layoutSearchCsv(r);
    return layoutSearchText(r);
}

/// The progress line on stderr: count/total, rate, best so far and the time left.
LayoutSearchMonitor progressLine(bool show)
{
    if (!show)
        return {};
    return [](const LayoutSearchProgress &p) {
        const double left = p.evaluated > 0 && p.total > p.evaluated
            ? p.seconds / double(p.evaluated) * double(p.total - p.evaluated)
            : 0.0;
        std::fprintf(stderr,
            "\rsearch: %lld/%lld candidates, %.0f evaluations/s, best %.0f tokens/s, ETA %.0f s   ",
            static_cast<long long>(p.evaluated), static_cast<long long>(p.total), p.rate,
            p.bestTokensPerSecond, left);
        if (p.evaluated == p.total)
            std::fputc('\n', stderr);
        std::fflush(stderr);
        return true;
    };
}

int runSearch(const SearchCliOptions &o)
{
    if (o.json && o.csv)
        throw UsageError("--json and --csv: give one of them", false);
    if (!o.shard.empty() && (o.json || o.csv || !o.writeTop.empty()))
        throw UsageError("--shard writes the shard's part as JSON for railyard-cli merge; "
                         "--json, --csv and --write-top belong to the merge",
            false);
    LayoutSearchOptions options = searchOptions(o);
    checkWriteDirectory(o.writeTop);
    try {
        searchBaseScenario(options); // every input check, before anything runs
    } catch (const ScenarioError &e) {
        rethrowNamingFlags(e);
    }
    const bool show = o.progress || isatty(STDERR_FILENO) == 1;

    if (launchedByMpirun()) {
        if (!o.shard.empty())
            throw UsageError("--shard: under mpirun the ranks are the shards; leave it out", false);
        MpiWorld world; // throws when built without MPI
        options.shardIndex = world.rank();
        options.shardCount = world.size();
        std::vector<std::string> texts;
        try {
            const LayoutSearchResult mine
                = searchLayouts(options, progressLine(show && world.rank() == 0));
            texts = world.gatherOnRoot(layoutSearchPartJson(mine).dump());
        } catch (const std::exception &e) {
            std::fprintf(stderr, "railyard-cli: rank %d: %s\n", world.rank(), e.what());
            world.abort(kExitBadInput);
        }
        if (world.rank() != 0)
            return kExitOk;
        std::vector<LayoutSearchResult> parts;
        for (std::size_t r = 0; r < texts.size(); ++r)
            parts.push_back(layoutSearchFromPartJson(
                parsePart(texts[r], "rank " + std::to_string(r)), "rank " + std::to_string(r)));
        const LayoutSearchResult merged = mergeSearchResults(parts);
        const std::string text = formatted(merged, o.json, o.csv);
        const std::string wrote = writeTopScenarios(merged, o.writeTop);
        writeOutput(o.output, text);
        if (!wrote.empty())
            std::fputs(wrote.c_str(), stderr);
        return kExitOk;
    }

    const LayoutSearchResult r = searchLayouts(options, progressLine(show));
    if (r.cancelled)
        throw ScenarioError("search", "cancelled");
    if (!o.shard.empty()) {
        writeOutput(o.output, jsonText(layoutSearchPartJson(r)));
        return kExitOk;
    }
    const std::string text = formatted(r, o.json, o.csv);
    const std::string wrote = writeTopScenarios(r, o.writeTop);
    writeOutput(o.output, text);
    if (!wrote.empty())
        std::fputs(wrote.c_str(), stderr);
    return kExitOk;
}

int runMerge(const MergeCliOptions &o)
{
    if (o.json && o.csv)
        throw UsageError("--json and --csv: give one of them", false);
    if (o.top < 0)
        throw ScenarioError("--top", "must be at least 1, got " + std::to_string(o.top));
    checkWriteDirectory(o.writeTop);
    std::vector<nlohmann::json> texts;
    for (const std::string &path : o.parts)
        texts.push_back(parsePart(readFileLimited(path, 256ll << 20, "a search part"), path));
    if (!texts.empty() && isFabricSearchPart(texts.front())) {
        if (o.top != 0 || !o.writeTop.empty())
            throw UsageError("--top and --write-top apply to parts of search, not of "
                             "fabric-search (which keeps every design)",
                false);
        return mergeFabricSearchParts(texts, o.parts, o.json, o.csv, o.output);
    }
    std::vector<LayoutSearchResult> parts;
    for (std::size_t i = 0; i < texts.size(); ++i)
        parts.push_back(layoutSearchFromPartJson(texts[i], o.parts[i]));
    LayoutSearchResult merged;
    try {
        merged = mergeSearchResults(parts, toInt("--top", o.top));
    } catch (const ScenarioError &e) {
        // "part 2" -> the file's name.
        const std::string &field = e.field();
        if (field.rfind("part ", 0) == 0) {
            const std::size_t n = std::stoul(field.substr(5));
            if (n >= 1 && n <= o.parts.size())
                throw ScenarioError(o.parts[n - 1], e.reason());
        }
        if (field == "top")
            throw ScenarioError("--top", e.reason());
        throw;
    }
    const std::string text = formatted(merged, o.json, o.csv);
    const std::string wrote = writeTopScenarios(merged, o.writeTop);
    writeOutput(o.output, text);
    if (!wrote.empty())
        std::fputs(wrote.c_str(), stderr);
    return kExitOk;
}

} // namespace

void addSearch(CommandLine &line)
{
    auto o = std::make_shared<SearchCliOptions>();
    CLI::App &app = line.addCommand("search",
        "Search parallel layouts of one model on a generated fabric: tp, pp, dp, cp, ep, "
        "micro-batch, schedule and interleave, recompute, sequence parallelism, distributed "
        "optimizer and placement. Prunes by divisibility and memory fit with the engine's own "
        "checks, evaluates the rest with the full cost engine, prints the top rows by tokens/s "
        "and the Pareto front (throughput, memory headroom, spine share). --shard I/N searches "
        "every N-th candidate and writes a part for merge; under mpirun the ranks share the "
        "list and rank 0 prints the result.",
        [o] { return runSearch(*o); });
    o->app = &app;
    Command c(line, app);
    c.choice("--model", o->model, "NAME", "Model preset.", modelPresetNames())->required();
    c.choice("--device", o->device, "NAME", "Device preset (h100-sxm).", devicePresetNames());
    c.choice("--fabric", o->fabric, "KIND", "The fabric's wiring.",
         { "rail-optimised", "tor", "rail-only" })
        ->required();
    for (const auto &[flag, help] : integerFlags())
        c.integer(std::string("--") + flag, o->integers[flag], "N", help);
    app.get_option("--gpus")->required();
    c.number("--nic-gbps", o->nicGbps, "B", "One NIC port, Gbit/s (the device's default).");
    c.text("--schedules", o->schedules, "LIST",
        "Schedules tried, comma-separated (gpipe,1f1b,interleaved,zb-h1,dualpipe).");
    c.text("--interleave", o->interleaves, "LIST", "Virtual stages tried with interleaved (2).");
    c.text("--recompute", o->recomputes, "LIST", "Recompute modes tried (none,selective,full).");
    c.text(
        "--placements", o->placements, "LIST", "Placements tried (packed,rail-aligned,scattered).");
    c.text("--shard", o->shard, "I/N", "Search shard I of N and write its part as JSON.");
    c.file("--write-top", o->writeTop, "DIR", "Write each top row as a scenario file into DIR.");
    c.flag("--progress", o->progress, "Progress line on stderr even when it is not a terminal.");
    c.output(o->output);
    c.json(o->json);
    c.flag("--csv", o->csv, "Print CSV: the top rows, then the front's other rows.");
}

void addMerge(CommandLine &line)
{
    auto o = std::make_shared<MergeCliOptions>();
    CLI::App &app = line.addCommand("merge",
        "Merge the parts that search --shard I/N (or fabric-search --shard I/N) wrote into the "
        "result of the whole search. "
        "Refuses parts of different searches and names missing or repeated shards.",
        [o] { return runMerge(*o); });
    Command c(line, app);
    CLI::Option *parts = app.add_option("PART", o->parts, "Part files of search --shard.");
    parts->required()->type_name("PART...");
    line.setFileValue(parts);
    c.integer("--top", o->top, "K", "Rows of the ranking (default the parts').");
    c.file("--write-top", o->writeTop, "DIR", "Write each top row as a scenario file into DIR.");
    c.output(o->output);
    c.json(o->json);
    c.flag("--csv", o->csv, "Print CSV: the top rows, then the front's other rows.");
}

} // namespace railyard::cli
