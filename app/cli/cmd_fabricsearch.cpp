/**
 * `railyard-cli fabric-search`: for the scenario's job, evaluates fabric designs (kind, leaf and
 * spine oversubscription, planes, spine count, NIC speed, NVL72 racks where the job fits) with
 * the cost engine and the priced bill of materials (model/studies/fabricsearch.h), prints the
 * Pareto front of iteration time against capital cost and the cheapest design meeting the
 * constraints. Sharded like `search`: --shard I/N writes a part for `merge`, and under mpirun
 * the ranks share the designs (shardoption.h, mpisearch.h). Every check runs before anything
 * is written.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "fabricsearchmerge.h"
#include "mpisearch.h"
#include "shardoption.h"
#include "usageerror.h"

#include "base/scenarioerror.h"
#include "scenario/cataloguesection.h"
#include "scenario/scenariofile.h"
#include "scenario/scenariosections.h"
#include "studies/fabricsearch.h"
#include "studies/fabricsearchjson.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace railyard::cli {

namespace {

struct FabricSearchCliOptions
{
    std::string file;
    std::string kinds, oversubscription, spineOversubscription, planes, spines, nicGbps;
    bool noNvl72 = false;
    std::string maxSlowdown = "3%";
    std::int64_t maxSwitches = 0;
    double maxCost = 0.0;
    std::string catalogue;
    std::string overlap = "worst";
    const CLI::Option *overlapOption = nullptr;
    std::string shard;
    std::string writeCheapest;
    std::string output;
    bool json = false;
    bool csv = false;
};

double fabricSearchNumber(const std::string &flag, const std::string &item)
{
    std::size_t used = 0;
    double v = 0.0;
    try {
        v = std::stod(item, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (item.empty() || used != item.size() || !std::isfinite(v))
        throw ScenarioError(flag, "expected a number, got '" + item + "'");
    return v;
}

std::vector<double> fabricSearchNumberList(const std::string &flag, const std::string &text)
{
    std::vector<double> out;
    for (const std::string &item : splitList(text))
        out.push_back(fabricSearchNumber(flag, item));
    return out;
}

std::vector<int> fabricSearchIntegerList(const std::string &flag, const std::string &text)
{
    std::vector<int> out;
    for (const std::string &item : splitList(text))
        out.push_back(toInt(flag, parseInteger(flag, item)));
    return out;
}

/// "3%", "3" (both 3 %) or "none".
double fabricSearchSlowdown(const std::string &text)
{
    if (text == "none")
        return -1.0;
    std::string number = text;
    if (!number.empty() && number.back() == '%')
        number.pop_back();
    const double percent = fabricSearchNumber("--max-slowdown", number);
    if (percent < 0.0)
        throw ScenarioError("--max-slowdown", "must be 0 % or more, or none, got '" + text + "'");
    return percent / 100.0;
}

FabricSearchOptions fabricSearchOptionsFrom(const FabricSearchCliOptions &o)
{
    FabricSearchOptions s;
    if (!o.kinds.empty()) {
        s.kinds.clear();
        for (const std::string &item : splitList(o.kinds)) {
            bool known = false;
            for (FabricKind k :
                { FabricKind::RailOptimised, FabricKind::Tor, FabricKind::RailOnly })
                if (scenariosections::fabricKindText(k) == item) {
                    s.kinds.push_back(k);
                    known = true;
                }
            if (!known)
                throw UsageError("--kinds: unknown kind '" + item
                        + "' (rail-optimised, tor, rail-only; a comma-separated list)",
                    false);
        }
    }
    if (!o.oversubscription.empty())
        s.leafOversubscriptions = fabricSearchNumberList("--oversubscription", o.oversubscription);
    if (!o.spineOversubscription.empty())
        s.spineOversubscriptions
            = fabricSearchNumberList("--spine-oversubscription", o.spineOversubscription);
    if (!o.planes.empty())
        s.planes = fabricSearchIntegerList("--planes", o.planes);
    if (!o.spines.empty())
        s.spines = fabricSearchIntegerList("--spines", o.spines);
    if (!o.nicGbps.empty())
        s.nicGbps = fabricSearchNumberList("--nic-gbps", o.nicGbps);
    s.nvl72 = !o.noNvl72;
    s.maxSlowdown = fabricSearchSlowdown(o.maxSlowdown);
    s.maxSwitches = o.maxSwitches;
    s.maxCostUsd = o.maxCost;
    if (!o.shard.empty())
        parseShard(o.shard, s.shardIndex, s.shardCount);
    return s;
}

/// The engine's option names ("planes") as the flags that set them ("--planes").
[[noreturn]] void rethrowNamingFabricFlags(const ScenarioError &e)
{
    static const std::set<std::string> flags { "kinds", "oversubscription",
        "spine-oversubscription", "planes", "spines", "nic-gbps", "max-slowdown", "max-switches",
        "max-cost", "shard" };
    if (flags.count(e.field()))
        throw ScenarioError("--" + e.field(), e.reason());
    throw e;
}

std::string fabricSearchFormatted(const FabricSearchResult &r, bool asJson, bool csv)
{
    if (asJson)
        return jsonText(nlohmann::json(fabricSearchJson(r)));
    if (csv)
        return fabricSearchCsv(r);
    return terminalText(fabricSearchText(r));
}

int runFabricSearch(const FabricSearchCliOptions &o)
{
    if (o.json && o.csv)
        throw UsageError("--json and --csv: give one of them", false);
    if (!o.shard.empty() && (o.json || o.csv || !o.writeCheapest.empty()))
        throw UsageError("--shard writes the shard's part as JSON for railyard-cli merge; "
                         "--json, --csv and --write-cheapest belong to the merge",
            false);
    if (o.maxSwitches < 0)
        throw ScenarioError("--max-switches", "must be 0 (no bound) or more");
    if (!(o.maxCost >= 0.0))
        throw ScenarioError("--max-cost", "must be 0 (no bound) or a positive amount in USD");
    FabricSearchOptions options = fabricSearchOptionsFrom(o);
    Scenario scenario = loadScenarioFile(o.file);
    if (!o.catalogue.empty())
        scenario.catalogue = cataloguesection::loadCatalogueFile(o.catalogue);
    PhaseOverlap overlap = PhaseOverlap::Worst;
    if (!parsePhaseOverlap(o.overlap, overlap))
        throw ScenarioError(
            "--overlap", "unknown assumption '" + o.overlap + "' (worst, duty-cycle)");
    if (scenario.jobs.empty() && o.overlapOption->count() > 0)
        throw ScenarioError("--overlap",
            "the scenario holds one job: the overlap assumption is for jobs sharing a fabric");
    const FabricJobs jobs = fabricJobsOf(scenario, overlap);
    try {
        enumerateFabricDesigns(jobs.scenario, options); // every option check, before anything runs
    } catch (const ScenarioError &e) {
        rethrowNamingFabricFlags(e);
    }

    if (launchedByMpirun()) {
        if (!o.shard.empty())
            throw UsageError("--shard: under mpirun the ranks are the shards; leave it out", false);
        MpiWorld world; // throws when built without MPI
        options.shardIndex = world.rank();
        options.shardCount = world.size();
        std::vector<std::string> texts;
        try {
            texts = world.gatherOnRoot(fabricSearchPartJson(searchFabrics(jobs, options)).dump());
        } catch (const std::exception &e) {
            std::fprintf(stderr, "railyard-cli: rank %d: %s\n", world.rank(), e.what());
            world.abort(kExitBadInput);
        }
        if (world.rank() != 0)
            return kExitOk;
        std::vector<nlohmann::json> parts;
        std::vector<std::string> names;
        for (std::size_t r = 0; r < texts.size(); ++r) {
            parts.push_back(nlohmann::json::parse(texts[r]));
            names.push_back("rank " + std::to_string(r));
        }
        const FabricSearchResult merged = [&] {
            std::vector<FabricSearchResult> results;
            for (std::size_t r = 0; r < parts.size(); ++r)
                results.push_back(fabricSearchFromPartJson(parts[r], names[r]));
            return mergeFabricSearches(results);
        }();
        std::string cheapest;
        if (!o.writeCheapest.empty()) {
            const std::optional<std::size_t> best = cheapestMeeting(merged);
            if (!best)
                throw ScenarioError("--write-cheapest", "no design meets the constraints");
            cheapest = scenarioToText(jobOnDesign(jobs.scenario, merged.rows[*best].design));
        }
        writeOutput(o.output, fabricSearchFormatted(merged, o.json, o.csv));
        if (!cheapest.empty())
            writeOutput(o.writeCheapest, cheapest);
        return kExitOk;
    }

    const FabricSearchResult r = searchFabrics(jobs, options);
    if (!o.shard.empty()) {
        writeOutput(o.output, jsonText(fabricSearchPartJson(r)));
        return kExitOk;
    }
    std::string cheapest;
    if (!o.writeCheapest.empty()) {
        const std::optional<std::size_t> best = cheapestMeeting(r);
        if (!best)
            throw ScenarioError("--write-cheapest", "no design meets the constraints");
        Scenario chosen = jobOnDesign(jobs.scenario, r.rows[*best].design);
        cheapest = scenarioToText(chosen);
    }
    writeOutput(o.output, fabricSearchFormatted(r, o.json, o.csv));
    if (!cheapest.empty())
        writeOutput(o.writeCheapest, cheapest);
    return kExitOk;
}

} // namespace

int mergeFabricSearchParts(const std::vector<nlohmann::json> &parts,
    const std::vector<std::string> &paths, bool json, bool csv, const std::string &output)
{
    std::vector<FabricSearchResult> results;
    for (std::size_t i = 0; i < parts.size(); ++i)
        results.push_back(fabricSearchFromPartJson(parts[i], paths[i]));
    FabricSearchResult merged;
    try {
        merged = mergeFabricSearches(results);
    } catch (const ScenarioError &e) {
        // "part 2" -> the file's name.
        const std::string &field = e.field();
        if (field.rfind("part ", 0) == 0) {
            const std::size_t n = std::stoul(field.substr(5));
            if (n >= 1 && n <= paths.size())
                throw ScenarioError(paths[n - 1], e.reason());
        }
        throw;
    }
    writeOutput(output, fabricSearchFormatted(merged, json, csv));
    return kExitOk;
}

void addFabricSearch(CommandLine &line)
{
    auto o = std::make_shared<FabricSearchCliOptions>();
    CLI::App &app = line.addCommand("fabric-search",
        "Search fabric designs for the scenario's job, or its jobs together: kind, leaf and spine "
        "oversubscription, planes, spine count, NIC speed and NVL72 racks where the job fits. "
        "Each design is generated as `generate` builds its kind, the job re-placed on it by the "
        "scenario's placement (a scenario with jobs keeps every job's slots and evaluates them "
        "sharing the fabric; the worst job's slowdown counts), evaluated with the cost engine "
        "and priced with the bill of materials. "
        "Prints every design with its iteration time, slowdown against the non-blocking "
        "rail-optimised fabric, switches, capital cost, network power and $ per iteration, the "
        "Pareto front (time against capital) and the cheapest design meeting the constraints. "
        "--shard I/N evaluates every N-th design and writes a part for merge; under mpirun the "
        "ranks share the designs and rank 0 prints the result.",
        [o] { return runFabricSearch(*o); });
    Command c(line, app);
    c.positionalFile("SCENARIO", o->file,
        "Scenario file: the job or the jobs (its fabric is the starting "
        "point: servers, GPUs, radix, links).");
    c.text("--kinds", o->kinds, "LIST",
        "Fabric kinds tried, comma-separated (rail-optimised,tor,rail-only).");
    c.text("--oversubscription", o->oversubscription, "LIST",
        "Leaf downlink:uplink ratios tried (1,2,3).");
    c.text("--spine-oversubscription", o->spineOversubscription, "LIST",
        "Spine ratios tried where the fabric has three tiers (1).");
    c.text("--planes", o->planes, "LIST", "Network planes tried (1,2).");
    c.text("--spines", o->spines, "LIST", "Spines per pod tried; 0 = derived from the radix (0).");
    c.text("--nic-gbps", o->nicGbps, "LIST", "NIC speeds tried, Gbit/s (the job's).");
    c.flag("--no-nvl72", o->noNvl72, "Leave out the NVL72 rack design.");
    c.text("--max-slowdown", o->maxSlowdown, "PCT",
        "Largest slowdown against the non-blocking rail-optimised fabric, in percent "
        "(3%; none = no bound).");
    c.integer("--max-switches", o->maxSwitches, "N", "Most switches a design may have (0 = any).");
    c.number("--max-cost", o->maxCost, "USD",
        "Most capital cost of the whole fabric, in dollars (0 = any).");
    c.file("--catalogue", o->catalogue, "CATALOGUE",
        "Price with this catalogue file instead of the scenario's or the embedded one.");
    o->overlapOption = c.choice("--overlap", o->overlap, "ASSUMPTION",
        "Scenarios with jobs: how the jobs' phases meet on a shared link (default worst: all "
        "overlap; duty-cycle: each neighbour for the fraction of its iteration its traffic "
        "there is active). docs/shared-fabric.md.",
        { "worst", "duty-cycle" });
    c.text("--shard", o->shard, "I/N", "Search shard I of N and write its part as JSON.");
    c.file("--write-cheapest", o->writeCheapest, "FILE",
        "Also write the job (or the jobs) on the cheapest design meeting the constraints as a "
        "scenario.");
    c.output(o->output);
    c.json(o->json);
    c.flag("--csv", o->csv, "Print CSV: one row per design.");
}

} // namespace railyard::cli
