#include "optimise/jobplacement.h"

#include "base/quantityformat.h"
#include "base/scenarioerror.h"
#include "fabric/fabric.h"
#include "fabric/failedcomponent.h"
#include "optimise/optimiser.h"
#include "scenario/jobssection.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <set>

namespace railyard {

namespace {

std::size_t placeSz(int i)
{
    return static_cast<std::size_t>(i);
}

/// Two added-time totals closer than this are a tie: sums of the same iteration times differ
/// only by rounding (a nanosecond is far below any figure the engine reports).
constexpr double kAddedSecondsTie = 1e-9;

std::vector<int> packedSlots(const std::vector<int> &servers, int gpus, int ranks)
{
    std::vector<int> slots;
    for (const int s : servers)
        for (int g = 0; g < gpus && static_cast<int>(slots.size()) < ranks; ++g)
            slots.push_back(s * gpus + g);
    return slots;
}

std::vector<int> serversOf(const std::vector<int> &slots, int gpus)
{
    std::set<int> servers;
    for (const int slot : slots)
        servers.insert(slot / gpus);
    return { servers.begin(), servers.end() };
}

/// The running jobs' figures with the new job placed on `slots`.
PlacementCandidate evaluateCandidate(const Scenario &shared, const JobSpec &job,
    const std::vector<int> &slots, const SharedFabricReport &before, const Fabric &fabric,
    int serversNeeded, std::string how, PhaseOverlap overlap)
{
    PlacementCandidate c;
    c.how = std::move(how);
    c.slots = slots;
    c.servers = serversOf(slots, fabric.gpusPerServer());
    const Scenario with = withNewJob(shared, job, slots);
    const SharedFabricReport after = evaluateJobs(with, overlap);
    for (std::size_t j = 0; j < before.jobs.size(); ++j) {
        const double was = before.jobs[j].iterationTime;
        const double now = after.jobs[j].iterationTime;
        c.slowdown.push_back(was > 0.0 ? now / was : 1.0);
        c.addedSeconds += now - was;
    }
    c.iterationTime = after.jobs.back().iterationTime;
    c.aloneIterationTime = after.jobs.back().aloneIterationTime;
    c.fragmentation = fragmentation(fabric, freeServers(fabric, with), serversNeeded);
    return c;
}

bool better(const PlacementCandidate &a, const PlacementCandidate &b)
{
    if (std::abs(a.addedSeconds - b.addedSeconds) > kAddedSecondsTie)
        return a.addedSeconds < b.addedSeconds;
    if (a.iterationTime != b.iterationTime)
        return a.iterationTime < b.iterationTime;
    if (a.fragmentation.jobsFit != b.fragmentation.jobsFit)
        return a.fragmentation.jobsFit > b.fragmentation.jobsFit;
    if (a.fragmentation.largestRun != b.fragmentation.largestRun)
        return a.fragmentation.largestRun > b.fragmentation.largestRun;
    return a.servers < b.servers;
}

/// Windows of `n` free servers: per leaf group the first run of n consecutive free servers
/// (else its first n free), then n consecutive entries of the free list from each start.
std::vector<std::pair<std::string, std::vector<int>>> windows(
    const Fabric &fabric, const std::vector<char> &free, int n, int limit)
{
    std::vector<std::pair<std::string, std::vector<int>>> out;
    std::set<std::vector<int>> seen;
    auto add = [&](std::string how, std::vector<int> servers) {
        if (static_cast<int>(out.size()) < limit && seen.insert(servers).second)
            out.emplace_back(std::move(how), std::move(servers));
    };
    const Fragmentation groups = fragmentation(fabric, free, n);
    std::vector<std::vector<int>> leafServers(groups.leaves.size());
    {
        std::vector<std::string> names;
        for (const FreeBlock &b : groups.leaves)
            names.push_back(b.name);
        for (int s = 0; s < fabric.servers(); ++s) {
            const int leaf = fabric.nicsPerServer() > 0 ? fabric.leafOfNic(s, 0) : -1;
            const std::string name
                = leaf >= 0 ? fabric.node(fabric.leafVertex(leaf)).name : "no leaf";
            const auto it = std::find(names.begin(), names.end(), name);
            if (free[placeSz(s)] && it != names.end())
                leafServers[placeSz(static_cast<int>(it - names.begin()))].push_back(s);
        }
    }
    for (std::size_t g = 0; g < leafServers.size(); ++g) {
        const std::vector<int> &list = leafServers[g];
        if (static_cast<int>(list.size()) < n)
            continue;
        std::vector<int> pick(list.begin(), list.begin() + n);
        for (std::size_t i = 0; i + placeSz(n) <= list.size(); ++i)
            if (list[i + placeSz(n) - 1] - list[i] == n - 1) { // n consecutive indices
                pick.assign(list.begin() + static_cast<std::ptrdiff_t>(i),
                    list.begin() + static_cast<std::ptrdiff_t>(i) + n);
                break;
            }
        add("under " + groups.leaves[g].name, std::move(pick));
    }
    std::vector<int> all;
    for (int s = 0; s < fabric.servers(); ++s)
        if (free[placeSz(s)])
            all.push_back(s);
    for (std::size_t i = 0; i + placeSz(n) <= all.size(); ++i)
        add("free servers in order",
            std::vector<int>(all.begin() + static_cast<std::ptrdiff_t>(i),
                all.begin() + static_cast<std::ptrdiff_t>(i) + n));
    return out;
}

} // namespace

Scenario asJobsScenario(const Scenario &scenario)
{
    if (!scenario.jobs.empty())
        return scenario;
    Scenario out = scenario;
    JobSpec job;
    job.name = scenario.name.empty() ? "job" : scenario.name;
    job.colour = defaultJobColour(0);
    takeJobFields(job, scenario);
    out.inference.reset();
    out.jobs.push_back(std::move(job));
    return out;
}

JobSpec newJobFrom(const Scenario &single, const Scenario &shared)
{
    if (!single.jobs.empty())
        throw ScenarioError("", "the new job's file already holds jobs: give a single-job file");
    const Scenario jobs = asJobsScenario(shared);
    JobSpec job;
    const std::string base = single.name.empty() ? "job" : single.name;
    job.name = base;
    for (int n = 2;; ++n) {
        const bool taken = std::any_of(jobs.jobs.begin(), jobs.jobs.end(),
            [&](const JobSpec &j) { return j.name == job.name; });
        if (!taken)
            break;
        job.name = base + "-" + std::to_string(n);
    }
    job.colour = defaultJobColour(jobs.jobs.size());
    job.degrees = single.degrees;
    job.order = single.order;
    job.model = single.model;
    job.training = single.training;
    if (!(single.device == shared.device))
        job.device = single.device;
    return job;
}

Scenario withNewJob(const Scenario &shared, JobSpec job, const std::vector<int> &slots)
{
    Scenario out = asJobsScenario(shared);
    job.slots = slots;
    job.mappingVersion = 1;
    out.jobs.push_back(std::move(job));
    adoptFirstJob(out);
    return out;
}

NewJobPlacement placeNewJob(
    const Scenario &shared, const JobSpec &job, const PlaceJobOptions &options)
{
    const Scenario running = asJobsScenario(shared);
    NewJobPlacement out;
    out.job = job;
    out.job.slots.clear();
    const std::int64_t ranks
        = std::int64_t { job.degrees.tp } * job.degrees.pp * job.degrees.dp * job.degrees.cp;
    const SharedFabricReport before = evaluateJobs(running, options.overlap);
    const Fabric &fabric = *before.fabric;
    const int gpus = fabric.gpusPerServer();
    out.ranks = static_cast<int>(std::min<std::int64_t>(ranks, fabric.slotCount() + 1));
    out.serversNeeded = static_cast<int>((ranks + gpus - 1) / gpus);
    for (const JobReport &r : before.jobs) {
        out.running.push_back(r.name);
        out.runningIterationTime.push_back(r.iterationTime);
    }
    const std::vector<char> free = freeServers(fabric, running);
    out.before = fragmentation(fabric, free, out.serversNeeded);
    if (out.before.freeServers < out.serversNeeded)
        throw ScenarioError("",
            "the new job \"" + job.name + "\" needs " + std::to_string(ranks) + " GPUs on "
                + std::to_string(out.serversNeeded) + " servers of " + std::to_string(gpus)
                + ", and only " + std::to_string(out.before.freeServers) + " servers are free");

    for (auto &[how, servers] : windows(fabric, free, out.serversNeeded, options.maxWindows))
        out.candidates.push_back(
            evaluateCandidate(running, job, packedSlots(servers, gpus, out.ranks), before, fabric,
                out.serversNeeded, how, options.overlap));
    std::stable_sort(out.candidates.begin(), out.candidates.end(), better);

    if (options.optimiserMoves > 0 && !out.candidates.empty()) {
        // The optimiser from the best window, every other job fixed (`optimise --job`'s path):
        // it may find a mapping the windows miss (ranks on a partly free server).
        const Scenario with = withNewJob(running, job, out.candidates.front().slots);
        OptimiseOptions o;
        o.seconds = 0.0;
        o.maxMoves = options.optimiserMoves;
        o.seed = options.seed;
        const OptimiseResult r = optimise(jobWithOthersFixed(with, with.jobs.size() - 1), o);
        out.optimiserMoves = r.evaluated;
        const bool known = std::any_of(out.candidates.begin(), out.candidates.end(),
            [&](const PlacementCandidate &c) { return c.slots == r.scenario.slots; });
        if (!known) {
            out.candidates.push_back(evaluateCandidate(running, job, r.scenario.slots, before,
                fabric, out.serversNeeded, "optimiser", options.overlap));
            std::stable_sort(out.candidates.begin(), out.candidates.end(), better);
        }
    }
    return out;
}

std::string newJobPlacementText(const NewJobPlacement &p)
{
    auto seconds = [](double s) { return formatSeconds(s); };
    std::string out = "new job \"" + p.job.name + "\": " + std::to_string(p.ranks) + " ranks on "
        + std::to_string(p.serversNeeded) + " servers\n";
    out += "before: " + fragmentationText(p.before);
    std::string running;
    for (std::size_t j = 0; j < p.running.size(); ++j)
        running += (j ? ", " : "") + p.running[j] + " " + seconds(p.runningIterationTime[j]);
    out += "running jobs (shared iteration): " + running + "\n";
    char buffer[32];
    for (std::size_t i = 0; i < p.candidates.size(); ++i) {
        const PlacementCandidate &c = p.candidates[i];
        std::string servers;
        for (std::size_t k = 0; k < c.servers.size(); ++k)
            servers += (k ? "," : "") + std::to_string(c.servers[k]);
        out += std::to_string(i + 1) + ". servers " + servers + " (" + c.how + "): running jobs +"
            + seconds(c.addedSeconds);
        for (std::size_t j = 0; j < c.slowdown.size(); ++j) {
            std::snprintf(buffer, sizeof buffer, "%.3f", c.slowdown[j]);
            out += (j ? ", " : " (") + p.running[j] + " x" + buffer;
        }
        out += c.slowdown.empty() ? "" : ")";
        out += "; new job " + seconds(c.iterationTime) + " shared, " + seconds(c.aloneIterationTime)
            + " alone\n   after: " + fragmentationText(c.fragmentation);
    }
    return out;
}

} // namespace railyard
