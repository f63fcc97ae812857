/**
 * `railyard-cli compose FABRIC.json JOB.json@SERVERS... -o SHARED.json` puts single-job
 * scenarios on one fabric as a scenario with jobs (docs/shared-fabric.md).
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "base/scenarioerror.h"
#include "scenario/composejobs.h"
#include "scenario/scenariofile.h"

#include <memory>
#include <string>
#include <vector>

namespace railyard::cli {

namespace {

struct ComposeOptions
{
    std::string fabric;
    std::vector<std::string> jobs;
    std::string name;
    std::string output;
};

int runCompose(const ComposeOptions &o)
{
    if (o.output.empty() || o.output == "-")
        throw UsageError("compose needs -o FILE for the shared scenario", false);
    const Scenario fabric = loadScenarioFile(o.fabric);
    std::vector<ComposeJob> jobs;
    for (const std::string &arg : o.jobs) {
        // The last '@' splits: a file name may hold one, a server list never does.
        const std::size_t at = arg.rfind('@');
        if (at == std::string::npos || at == 0 || at + 1 == arg.size())
            throw ScenarioError(arg, "expected JOB.json@SERVERS, e.g. a.json@0-3,8-11");
        ComposeJob job;
        job.source = arg;
        job.scenario = loadScenarioFile(arg.substr(0, at));
        job.servers = parseServerList(arg.substr(at + 1), fabric.fabric.servers, arg);
        jobs.push_back(std::move(job));
    }
    Scenario shared = composeJobs(fabric, jobs);
    shared.name = o.name.empty() ? "shared" : o.name;
    // The description says how the file was made (the samples' habit, docs/samples.md).
    std::string command = "railyard-cli compose " + o.fabric;
    for (const std::string &arg : o.jobs)
        command += " " + arg;
    if (!o.name.empty())
        command += " --name " + o.name;
    shared.description = command;
    saveScenario(shared, o.output); // atomic: temp file, fsync, rename
    return kExitOk;
}

} // namespace

void addCompose(CommandLine &line)
{
    auto o = std::make_shared<ComposeOptions>();
    Command c(line,
        line.addCommand("compose",
            "Put single-job scenarios on one fabric: a scenario with jobs "
            "(docs/shared-fabric.md). Each JOB.json@SERVERS takes the listed servers "
            "(0-3,8-11) and packs its ranks on their GPUs in rank order; every job's fabric "
            "must agree with FABRIC's, whose fabric, device, failures and calibration the "
            "shared file keeps.",
            [o] { return runCompose(*o); }));
    c.positionalFile("FABRIC", o->fabric, "Scenario file whose fabric the jobs share.");
    CLI::Option *jobs
        = c.app().add_option("JOB@SERVERS", o->jobs, "JOB.json@SERVERS, one per job (0-3,8-11).");
    jobs->required()->type_name("JOB@SERVERS...");
    line.setFileValue(jobs);
    c.text("--name", o->name, "NAME", "The shared scenario's name (default shared).");
    c.file("-o,--output", o->output, "FILE", "Write the shared scenario to FILE (atomically).");
}

} // namespace railyard::cli
