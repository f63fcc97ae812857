/**
 * `railyard-cli place-job SHARED.json JOB.json`: where a new job on the free servers of a shared
 * fabric hurts the running jobs least, with the fragmentation each placement leaves
 * (model/optimise/jobplacement.h, docs/shared-fabric.md); `-o` writes the shared scenario with
 * the best placement. Nothing is written when anything fails.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "base/scenarioerror.h"
#include "cost/costenginejobs.h"
#include "optimise/jobplacement.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace railyard::cli {

namespace {

struct PlaceJobCliOptions
{
    std::string shared;
    std::string job;
    std::string name;
    std::string overlap = "worst";
    std::int64_t moves = 1500;
    std::string output;
    bool json = false;
};

nlohmann::json fragmentationJson(const Fragmentation &f)
{
    auto blocks = [](const std::vector<FreeBlock> &list) {
        nlohmann::json out = nlohmann::json::array();
        for (const FreeBlock &b : list)
            out.push_back({ { "name", b.name }, { "servers", b.servers },
                { "free_servers", b.freeServers }, { "largest_run", b.largestRun } });
        return out;
    };
    return { { "servers_per_job", f.serversPerJob }, { "free_servers", f.freeServers },
        { "largest_run", f.largestRun }, { "jobs_fit", f.jobsFit },
        { "jobs_fit_in_one_leaf", f.jobsFitInOneLeaf }, { "leaves", blocks(f.leaves) },
        { "nvlink_domains", blocks(f.domains) } };
}

nlohmann::json placementJson(const NewJobPlacement &p, const std::string &written)
{
    nlohmann::json candidates = nlohmann::json::array();
    for (const PlacementCandidate &c : p.candidates) {
        nlohmann::json running = nlohmann::json::array();
        for (std::size_t j = 0; j < c.slowdown.size(); ++j)
            running.push_back({ { "name", p.running[j] }, { "slowdown", c.slowdown[j] } });
        candidates.push_back({ { "how", c.how }, { "servers", c.servers }, { "slots", c.slots },
            { "added_s", c.addedSeconds }, { "running", running },
            { "iteration_time_s", c.iterationTime },
            { "alone_iteration_time_s", c.aloneIterationTime },
            { "fragmentation", fragmentationJson(c.fragmentation) } });
    }
    nlohmann::json running = nlohmann::json::array();
    for (std::size_t j = 0; j < p.running.size(); ++j)
        running.push_back(
            { { "name", p.running[j] }, { "iteration_time_s", p.runningIterationTime[j] } });
    return { { "job", p.job.name }, { "ranks", p.ranks }, { "servers_needed", p.serversNeeded },
        { "running", running }, { "before", fragmentationJson(p.before) },
        { "candidates", candidates }, { "optimiser_moves", p.optimiserMoves },
        { "written", written } };
}

int runPlaceJob(const PlaceJobCliOptions &o)
{
    PlaceJobOptions options;
    if (!parsePhaseOverlap(o.overlap, options.overlap))
        throw UsageError(
            "--overlap: unknown assumption '" + o.overlap + "' (worst, duty-cycle)", false);
    if (o.moves < 0)
        throw ScenarioError("--moves", "must not be negative, got " + std::to_string(o.moves));
    options.optimiserMoves = o.moves;
    const Scenario shared = loadScenarioFile(o.shared);
    const Scenario single = loadScenarioFile(o.job);
    JobSpec job = newJobFrom(single, shared);
    if (!o.name.empty())
        job.name = o.name;
    const NewJobPlacement p = placeNewJob(shared, job, options);
    if (p.candidates.empty())
        throw ScenarioError(o.job, "no placement found on the free servers");
    const std::string text = o.json
        ? jsonText(placementJson(p, o.output))
        : newJobPlacementText(p) + (o.output.empty() ? std::string() : "wrote " + o.output + "\n");
    if (!o.output.empty())
        saveScenario(withNewJob(shared, p.job, p.candidates.front().slots), o.output);
    writeOutput({}, o.json ? text : terminalText(text));
    return kExitOk;
}

} // namespace

void addPlaceJob(CommandLine &line)
{
    auto o = std::make_shared<PlaceJobCliOptions>();
    Command c(line,
        line.addCommand("place-job",
            "Find where a new job (a single-job scenario) goes on the free servers of a shared "
            "fabric so that it slows the running jobs least (docs/shared-fabric.md): windows "
            "of free servers under one leaf and in order, each evaluated with every job on the "
            "fabric, then the optimiser with the other jobs fixed; prints each candidate's "
            "slowdown of every running job and the fragmentation it leaves.",
            [o] { return runPlaceJob(*o); }));
    c.positionalFile("SHARED", o->shared, "Scenario with the running jobs (or a single job).");
    c.positionalFile("JOB", o->job, "Single-job scenario of the new job (its fabric is ignored).");
    c.text("--name", o->name, "NAME", "The new job's name (default: the file's).");
    c.choice("--overlap", o->overlap, "ASSUMPTION",
        "How the jobs' phases overlap (default worst, as evaluate).", { "worst", "duty-cycle" });
    c.integer("--moves", o->moves, "N",
        "Optimiser moves from the best window (default 1500; 0 = windows only).");
    c.json(o->json);
    c.file("-o,--output", o->output, "FILE",
        "Also write the shared scenario with the best placement to FILE (atomically).");
}

} // namespace railyard::cli
