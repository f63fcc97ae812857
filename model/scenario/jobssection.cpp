#include "scenario/jobssection.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"
#include "scenario/scenariosections.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cctype>
#include <unordered_map>

namespace railyard {

namespace {

using nlohmann::json;

/// Jobs on one fabric: each needs at least one GPU, so the fabric's slot limit bounds them;
/// this smaller cap keeps a hostile file from listing millions of one-rank jobs whose
/// evaluations (one engine each) would take hours. 1,024 jobs is far beyond a design review.
constexpr std::size_t kMaxJobs = 1024;

bool isColour(const std::string &text)
{
    if (text.size() != 7 || text[0] != '#')
        return false;
    for (std::size_t i = 1; i < text.size(); ++i)
        if (!std::isxdigit(static_cast<unsigned char>(text[i])))
            return false;
    return true;
}

/// Runs a section reader and puts "jobs[i]." before the field path of anything it throws.
template<typename Reader> void inJob(const std::string &prefix, Reader &&read)
{
    try {
        read();
    } catch (const ScenarioError &e) {
        throw ScenarioError(e.field().empty() ? prefix : prefix + "." + e.field(), e.reason());
    }
}

JobSpec readJob(const json &value, const std::string &path, std::int64_t slotCount,
    const Scenario &shared, const std::string &baseDir, std::size_t index)
{
    JsonFields f(
        value, path, { "name", "colour", "parallel", "model", "training", "device", "mapping" });
    f.rejectUnknown();
    JobSpec job;
    job.name = f.string("name", "", limits::kMaxNameBytes, false);
    requirePrintableUtf8(f.fieldPath("name"), job.name);
    if (job.name.empty())
        throw ScenarioError(
            f.fieldPath("name"), "a job needs a name (it names the job in reports)");
    job.colour = f.string("colour", defaultJobColour(index), 16);
    if (!isColour(job.colour))
        throw ScenarioError(f.fieldPath("colour"),
            "expected \"#rrggbb\" (six hex digits), got \"" + job.colour + "\"");

    Scenario t;
    t.fabric = shared.fabric;
    t.device = shared.device;
    inJob(path, [&] {
        scenariosections::readParallel(f.required("parallel"), slotCount, t);
        if (const json *model = f.find("model"))
            t.model = scenariosections::readModel(*model, baseDir);
        if (const json *training = f.find("training"))
            t.training = scenariosections::readTraining(*training);
        if (const json *device = f.find("device"))
            job.device = scenariosections::readDevice(*device);
        scenariosections::readMapping(f.required("mapping"), slotCount, t);
    });
    if (t.slots.empty())
        throw ScenarioError(path + ".mapping.slots",
            "a job's mapping names its slots (one per rank): jobs share the fabric, so a "
            "placement rule alone would put them on the same GPUs");
    job.degrees = t.degrees;
    job.order = t.order;
    job.model = t.model;
    job.training = t.training;
    job.slots = std::move(t.slots);
    job.mappingVersion = t.mappingVersion;
    return job;
}

} // namespace

std::vector<JobSpec> jobssection::readJobs(
    const json &value, std::int64_t slotCount, const Scenario &shared, const std::string &baseDir)
{
    if (!value.is_array())
        throw ScenarioError("jobs", "expected an array, got " + jsonTypeName(value));
    if (value.empty())
        throw ScenarioError("jobs", "lists no job (leave the section out for one job)");
    if (value.size() > kMaxJobs)
        throw ScenarioError("jobs",
            "lists " + std::to_string(value.size()) + " jobs, more than the limit of "
                + std::to_string(kMaxJobs));
    std::vector<JobSpec> jobs;
    std::unordered_map<std::string, std::size_t> byName;
    // The job holding each slot: two jobs never share a GPU.
    std::vector<int> holder(static_cast<std::size_t>(slotCount), -1);
    for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string path = jsonElementPath("jobs", i);
        JobSpec job = readJob(value[i], path, slotCount, shared, baseDir, i);
        if (const auto it = byName.find(job.name); it != byName.end())
            throw ScenarioError(path + ".name",
                "\"" + job.name + "\" is already the name of "
                    + jsonElementPath("jobs", it->second));
        byName.emplace(job.name, i);
        for (std::size_t r = 0; r < job.slots.size(); ++r) {
            int &h = holder[static_cast<std::size_t>(job.slots[r])];
            if (h >= 0)
                throw ScenarioError(jsonElementPath(path + ".mapping.slots", r),
                    "slot " + std::to_string(job.slots[r]) + " is taken by both job \""
                        + jobs[static_cast<std::size_t>(h)].name + "\" ("
                        + jsonElementPath("jobs", static_cast<std::size_t>(h)) + ") and job \""
                        + job.name + "\" (" + path + ")");
            h = static_cast<int>(i);
        }
        jobs.push_back(std::move(job));
    }
    return jobs;
}

Scenario jobScenario(const Scenario &scenario, std::size_t index)
{
    const JobSpec &job = scenario.jobs.at(index);
    Scenario s;
    s.name = job.name;
    s.fabric = scenario.fabric;
    s.degrees = job.degrees;
    s.order = job.order;
    s.model = job.model;
    s.training = job.training;
    s.device = job.device.value_or(scenario.device);
    s.slots = job.slots;
    s.mappingVersion = job.mappingVersion;
    s.failures = scenario.failures;
    s.degradations = scenario.degradations;
    s.collectives = scenario.collectives;
    s.calibration = scenario.calibration;
    s.ncclObserved = scenario.ncclObserved;
    s.catalogue = scenario.catalogue;
    return s;
}

Scenario jobWithOthersFixed(const Scenario &shared, std::size_t index)
{
    Scenario single = jobScenario(shared, index);
    for (std::size_t k = 0; k < shared.jobs.size(); ++k)
        if (k != index)
            for (const int slot : shared.jobs[k].slots)
                single.failures.push_back({ FailedComponent::Kind::Gpu, slot });
    return single;
}

void takeJobFields(JobSpec &job, const Scenario &single)
{
    job.degrees = single.degrees;
    job.order = single.order;
    job.model = single.model;
    job.training = single.training;
    job.slots = single.slots;
    job.mappingVersion = single.mappingVersion;
}

void adoptFirstJob(Scenario &scenario)
{
    if (scenario.jobs.empty())
        return;
    const JobSpec &job = scenario.jobs.front();
    scenario.degrees = job.degrees;
    scenario.order = job.order;
    scenario.model = job.model;
    scenario.training = job.training;
    // The device stays the scenario's: it is the default of every job without one, and a
    // save writes it back as such.
    scenario.slots = job.slots;
    scenario.mappingVersion = job.mappingVersion;
}

std::string defaultJobColour(std::size_t index)
{
    // Okabe-Ito: orange, sky blue, bluish green, yellow, blue, vermillion, reddish purple.
    static constexpr std::array<const char *, 7> kHues { "#e69f00", "#56b4e9", "#009e73", "#f0e442",
        "#0072b2", "#d55e00", "#cc79a7" };
    return kHues[index % kHues.size()];
}

} // namespace railyard
