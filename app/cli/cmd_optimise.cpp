/**
 * `railyard-cli optimise`: search rank -> slot mappings for one objective (iteration time, spine
 * bytes, p99 or bottleneck link busy time) under a TP constraint and the failed hardware
 * (model/optimise/optimiser.h), write the best mapping as a new scenario and explain it.
 * Nothing is written when anything fails; the scenario is written atomically.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "base/scenarioerror.h"
#include "fabric/failedcomponent.h"
#include "optimise/optimiser.h"
#include "optimise/optimisetext.h"
#include "scenario/jobssection.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace railyard::cli {

namespace {

struct OptimiseCliOptions
{
    std::string file;
    std::string objective = "iteration";
    std::string keep = "tp-in-server";
    std::string from = "current";
    double seconds = 10.0;
    std::int64_t moves = 0;
    std::int64_t seed = 1;
    const CLI::Option *secondsOption = nullptr;
    const CLI::Option *movesOption = nullptr;
    std::string output;
    bool json = false;
    std::string job;
};

/// `--job NAME` of a scenario with jobs: the job as a single-job scenario whose other jobs'
/// GPUs count as failed (gpu:N), so the optimiser moves its ranks onto its own and the free
/// slots only, and the others stay where they are. Returns the job's index.
std::size_t jobToMove(const Scenario &scenario, const std::string &name, Scenario &single)
{
    if (scenario.jobs.empty())
        throw ScenarioError("--job", "the scenario holds one job: leave --job out");
    std::string names;
    for (std::size_t j = 0; j < scenario.jobs.size(); ++j) {
        names += (j ? ", " : "") + scenario.jobs[j].name;
        if (scenario.jobs[j].name != name)
            continue;
        single = jobWithOthersFixed(scenario, j);
        return j;
    }
    throw ScenarioError("--job",
        name.empty() ? "the scenario holds " + std::to_string(scenario.jobs.size()) + " jobs ("
                + names + "): name the one to move"
                     : "no job \"" + name + "\" (the jobs: " + names + ")");
}

nlohmann::json figuresJson(const ObjectiveFigures &f)
{
    return { { "iteration_time_s", f.iteration }, { "spine_bytes", f.spineBytes },
        { "link_busy_p99_s", f.p99Busy }, { "link_busy_max_s", f.maxBusy },
        { "spine_bytes_share", f.spineShare }, { "tp_groups_across_servers", f.tpGroupsSplit },
        { "dp_groups_off_rail", f.dpGroupsOffRail } };
}

nlohmann::json resultJson(const OptimiseResult &r, const std::string &written)
{
    nlohmann::json j;
    j["scenario"] = r.scenario.name;
    j["objective"] = std::string(objectiveName(r.options.objective));
    j["keep"] = std::string(keepName(r.options.keep));
    j["from"] = std::string(startName(r.options.from));
    j["seed"] = r.options.seed;
    j["file"] = figuresJson(r.current);
    j["start"] = figuresJson(r.start);
    j["result"] = figuresJson(r.result);
    j["objective_start"] = r.start.value(r.options.objective);
    j["objective_result"] = r.result.value(r.options.objective);
    j["improved"] = r.improved;
    j["search"] = { { "proposed", r.proposed }, { "evaluated", r.evaluated },
        { "accepted", r.accepted }, { "improvements", r.improvements }, { "seconds", r.seconds },
        { "moves_per_s", r.movesPerSecond }, { "cancelled", r.cancelled } };
    nlohmann::json constraints = nlohmann::json::array();
    for (const ConstraintCount &c : r.constraints)
        constraints.push_back({ { "name", c.name }, { "rejected", c.rejected } });
    j["constraints"] = constraints;
    j["binding"] = r.binding.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.binding);
    nlohmann::json dims = nlohmann::json::object();
    for (const DimensionChange &d : r.dims)
        dims[std::string(dimName(d.dim))]
            = { { "spine_bytes_start", d.spineBefore }, { "spine_bytes_result", d.spineAfter },
                  { "exposed_s_start", d.exposedBefore }, { "exposed_s_result", d.exposedAfter } };
    j["dimensions"] = dims;
    nlohmann::json steps = nlohmann::json::array();
    for (const StageStep &s : r.steps) {
        nlohmann::json groups = nlohmann::json::array();
        for (const GroupLocality &g : s.groups)
            groups.push_back({ { "kind", std::string(groupKindName(g.kind)) },
                { "groups", g.groups }, { "one_server", { g.oneServerBefore, g.oneServerAfter } },
                { "one_rail", { g.oneRailBefore, g.oneRailAfter } },
                { "one_leaf", { g.oneLeafBefore, g.oneLeafAfter } } });
        steps.push_back({ { "stage", s.stage }, { "ranks_moved", s.ranksMoved },
            { "objective_before", s.before }, { "objective_after", s.after },
            { "iteration_time_s_before", s.iterationBefore },
            { "iteration_time_s_after", s.iterationAfter }, { "spine_bytes_before", s.spineBefore },
            { "spine_bytes_after", s.spineAfter }, { "groups", groups } });
    }
    j["stages"] = steps;
    j["ranks_moved"] = r.ranksMoved;
    j["mapping_version"] = r.scenario.mappingVersion;
    j["slots"] = r.scenario.slots;
    j["notes"] = r.notes;
    j["written"] = written;
    return j;
}

int runOptimise(const OptimiseCliOptions &o)
{
    OptimiseOptions options;
    if (!parseObjective(o.objective, options.objective))
        throw UsageError("--objective: unknown objective '" + o.objective
                + "' (iteration, spine, p99, max-link)",
            false);
    if (!parseKeep(o.keep, options.keep))
        throw UsageError(
            "--keep: unknown constraint '" + o.keep + "' (tp-in-server, tp-in-scaleup, none)",
            false);
    if (!parseStart(o.from, options.from))
        throw UsageError(
            "--from: unknown start '" + o.from + "' (current, packed, rail-aligned, scattered)",
            false);
    if (o.output.empty() || o.output == "-")
        throw UsageError(
            "optimise needs -o FILE for the optimised scenario (the report goes to stdout)", false);
    // 0 inside means "no move limit"; given, --moves 0 would be read as that and run until the
    // clock stops it, so it is refused like any count below 1.
    const bool movesGiven = o.movesOption && o.movesOption->count() > 0;
    if (o.moves < 0 || (movesGiven && o.moves == 0))
        throw ScenarioError("--moves", "must be at least 1, got " + std::to_string(o.moves));
    if (o.seed < 0)
        throw ScenarioError("--seed", "must not be negative, got " + std::to_string(o.seed));
    const bool secondsGiven = o.secondsOption && o.secondsOption->count() > 0;
    if (secondsGiven && !(o.seconds > 0.0 && o.seconds <= 86400.0))
        throw ScenarioError("--seconds", "must be above 0 and at most 86400");
    options.maxMoves = o.moves;
    options.seed = static_cast<std::uint64_t>(o.seed);
    // --moves alone is deterministic: no clock stops it.
    options.seconds = secondsGiven || o.moves == 0 ? o.seconds : 0.0;

    const Scenario scenario = loadScenarioFile(o.file);
    if (!scenario.jobs.empty() || !o.job.empty()) {
        Scenario single;
        const std::size_t j = jobToMove(scenario, o.job, single);
        OptimiseResult r = optimise(single, options);
        // The moved job back among the others, which stay as they were.
        Scenario shared = scenario;
        shared.jobs[j].slots = r.scenario.slots;
        shared.jobs[j].mappingVersion = r.scenario.mappingVersion;
        adoptFirstJob(shared);
        const std::string text = o.json ? jsonText(resultJson(r, o.output))
                                        : optimiseText(r) + "wrote " + o.output + "\n";
        saveScenario(shared, o.output);
        writeOutput({}, o.json ? text : terminalText(text));
        return kExitOk;
    }
    const OptimiseResult r = optimise(scenario, options);
    std::string text;
    if (o.json)
        text = jsonText(resultJson(r, o.output));
    else
        text = optimiseText(r) + "wrote " + o.output + "\n";
    saveScenario(r.scenario, o.output); // atomic: temp file, fsync, rename
    writeOutput({}, o.json ? text : terminalText(text));
    return kExitOk;
}

} // namespace

void addOptimise(CommandLine &line)
{
    auto o = std::make_shared<OptimiseCliOptions>();
    Command c(line,
        line.addCommand("optimise",
            "Search rank-to-slot mappings for a lower iteration time, fewer spine "
            "bytes or less loaded links (simulated annealing through the cost "
            "engine's incremental update), keeping TP groups on their servers and "
            "no rank on failed hardware. Writes the best mapping as a new scenario "
            "and explains it: the objectives before and after, each dimension's "
            "spine bytes and exposed time, the change stage by stage and the "
            "constraint that refused most moves.",
            [o] { return runOptimise(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    c.choice("--objective", o->objective, "NAME",
        "What to minimise (default iteration): iteration time, bytes over spine links, the "
        "p99 or the largest link busy time per iteration, or the p99 iteration time over the "
        "file's hashed ECMP seeds (fabric.routing).",
        { "iteration", "spine", "p99", "max-link", "ecmp-p99" });
    o->secondsOption
        = c.number("--seconds", o->seconds, "S", "Wall-time limit (default 10 without --moves).");
    o->movesOption = c.integer("--moves", o->moves, "N",
        "Stop after N evaluated moves; alone it makes the run the same on every machine.");
    c.integer("--seed", o->seed, "N", "Seed of the random moves (default 1).");
    c.choice("--keep", o->keep, "C",
        "The constraint (default tp-in-server): TP groups on no more servers than they need, "
        "inside one scale-up domain, or none.",
        { "tp-in-server", "tp-in-scaleup", "none" });
    c.choice("--from", o->from, "START", "The start mapping (default current).",
        { "current", "packed", "rail-aligned", "scattered" });
    c.text("--job", o->job, "NAME",
        "Scenarios with jobs: move this job's ranks (onto its own and free GPUs) with the "
        "other jobs fixed; the objective is the job's own, alone on the fabric.");
    c.file("-o,--output", o->output, "FILE", "Write the optimised scenario to FILE (atomically).");
    c.json(o->json);
}

} // namespace railyard::cli
