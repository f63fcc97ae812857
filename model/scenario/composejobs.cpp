#include "scenario/composejobs.h"

#include "base/scenarioerror.h"
#include "scenario/jobssection.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cstddef>
#include <set>

namespace railyard {

namespace {

int serverNumber(const std::string &text, int servers, const std::string &source)
{
    int value = -1;
    const char *end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || value < 0)
        throw ScenarioError(
            source, "expected server numbers such as 0-3,8-11, got \"" + text + "\"");
    if (value >= servers)
        throw ScenarioError(source,
            "server " + text + " does not exist (the fabric has " + std::to_string(servers)
                + " servers, 0-" + std::to_string(servers - 1) + ")");
    return value;
}

} // namespace

std::vector<int> parseServerList(const std::string &text, int servers, const std::string &source)
{
    std::vector<int> out;
    std::set<int> seen;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string part = text.substr(start, comma - start);
        const std::size_t dash = part.find('-');
        const int first = serverNumber(part.substr(0, dash), servers, source);
        const int last = dash == std::string::npos
            ? first
            : serverNumber(part.substr(dash + 1), servers, source);
        if (last < first)
            throw ScenarioError(source, "the range \"" + part + "\" runs backwards");
        for (int s = first; s <= last; ++s) {
            if (!seen.insert(s).second)
                throw ScenarioError(source, "server " + std::to_string(s) + " is listed twice");
            out.push_back(s);
        }
        start = comma + 1;
    }
    return out;
}

std::string fabricDifference(const FabricSpec &job, const FabricSpec &shared)
{
    // Compared as the file writes them, in its order, so the field is named as the user sees it.
    Scenario a, b;
    a.fabric = job;
    b.fabric = shared;
    const nlohmann::ordered_json ja = nlohmann::ordered_json::parse(scenarioToText(a))["fabric"];
    const nlohmann::ordered_json jb = nlohmann::ordered_json::parse(scenarioToText(b))["fabric"];
    for (auto it = jb.begin(); it != jb.end(); ++it) {
        const auto other = ja.find(it.key());
        if (other == ja.end() || *other != it.value())
            return "fabric." + it.key() + ": "
                + (other == ja.end() ? std::string("absent") : other->dump()) + " here, "
                + it.value().dump() + " in the fabric file";
    }
    for (auto it = ja.begin(); it != ja.end(); ++it)
        if (!jb.contains(it.key()))
            return "fabric." + it.key() + ": " + it.value().dump()
                + " here, absent in the fabric file";
    return {};
}

Scenario composeJobs(const Scenario &fabricFile, const std::vector<ComposeJob> &jobs)
{
    if (jobs.empty())
        throw ScenarioError("", "compose needs at least one JOB.json@SERVERS");
    if (!fabricFile.jobs.empty())
        throw ScenarioError("", "the fabric file already holds jobs: give a single-job file");
    Scenario out = fabricFile;
    out.inference.reset();
    out.annotations.clear();
    out.snapshots.clear();
    const int gpus = fabricFile.fabric.gpusPerServer;
    std::vector<int> serverOwner(static_cast<std::size_t>(fabricFile.fabric.servers), -1);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        const ComposeJob &in = jobs[j];
        const Scenario &s = in.scenario;
        if (!s.jobs.empty())
            throw ScenarioError(in.source, "the file already holds jobs: compose single-job files");
        // A job planned on a fabric of one device may go onto a mixed one: its pools are the
        // shared fabric's (docs/mixed-devices.md).
        FabricSpec jobFabric = s.fabric;
        if (jobFabric.devicePools.empty())
            jobFabric.devicePools = fabricFile.fabric.devicePools;
        if (const std::string diff = fabricDifference(jobFabric, fabricFile.fabric); !diff.empty())
            throw ScenarioError(in.source, "the fabrics must agree: " + diff);
        JobSpec job;
        job.name = s.name.empty() ? "job" + std::to_string(j + 1) : s.name;
        for (const JobSpec &earlier : out.jobs)
            if (earlier.name == job.name)
                job.name += "-" + std::to_string(j + 1); // two copies of one file stay apart
        job.colour = defaultJobColour(j);
        job.degrees = s.degrees;
        job.order = s.order;
        job.model = s.model;
        job.training = s.training;
        if (!(s.device == fabricFile.device))
            job.device = s.device;
        for (const int server : in.servers) {
            int &owner = serverOwner[static_cast<std::size_t>(server)];
            if (owner >= 0)
                throw ScenarioError(in.source,
                    "server " + std::to_string(server) + " is already taken by "
                        + jobs[static_cast<std::size_t>(owner)].source);
            owner = static_cast<int>(j);
        }
        const std::int64_t ranks
            = std::int64_t { s.degrees.tp } * s.degrees.pp * s.degrees.dp * s.degrees.cp;
        const std::int64_t slots
            = std::int64_t { gpus } * static_cast<std::int64_t>(in.servers.size());
        if (ranks > slots)
            throw ScenarioError(in.source,
                "the job has " + std::to_string(ranks) + " ranks but its "
                    + std::to_string(in.servers.size()) + " servers hold " + std::to_string(slots)
                    + " GPUs");
        for (const int server : in.servers)
            for (int g = 0; g < gpus && static_cast<std::int64_t>(job.slots.size()) < ranks; ++g)
                job.slots.push_back(server * gpus + g);
        out.jobs.push_back(std::move(job));
    }
    adoptFirstJob(out);
    return out;
}

} // namespace railyard
