/**
 * Several jobs on one fabric (docs/shared-fabric.md). Each job runs through the single-job
 * engine twice: alone on the fabric, then on a copy of the fabric whose links carry only the
 * job's share of their bandwidth where a neighbour's traffic meets its own. The share follows
 * the phase-overlap assumption (PhaseOverlap) and max-min fairness; a job that meets no
 * neighbour keeps its alone report and costs no second evaluation.
 */
#include "cost/costenginejobs.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fabric/fabric.h"
#include "fabric/failedcomponent.h"
#include "scenario/jobssection.h"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <numeric>
#include <utility>

namespace railyard {

namespace {

std::size_t jobsSz(int i)
{
    return static_cast<std::size_t>(i);
}

/// Builds one job's engine, its errors' field paths prefixed with the job's ("jobs[1].").
std::shared_ptr<const CostEngine> jobEngine(const Scenario &job, std::size_t index,
    std::shared_ptr<const Fabric> fabric, std::shared_ptr<Router> router)
{
    try {
        return std::make_shared<const CostEngine>(job, std::move(fabric), std::move(router));
    } catch (const ScenarioError &e) {
        const std::string prefix = "jobs[" + std::to_string(index) + "]";
        throw ScenarioError(e.field().empty() ? prefix : prefix + "." + e.field(),
            "job \"" + job.name + "\": " + e.reason());
    }
}

} // namespace

std::string_view phaseOverlapName(PhaseOverlap overlap)
{
    return overlap == PhaseOverlap::Worst ? "worst" : "duty-cycle";
}

bool parsePhaseOverlap(std::string_view text, PhaseOverlap &overlap)
{
    if (text == "worst")
        overlap = PhaseOverlap::Worst;
    else if (text == "duty-cycle")
        overlap = PhaseOverlap::DutyCycle;
    else
        return false;
    return true;
}

double maxMinShare(const std::vector<double> &demands, std::vector<double> *taken)
{
    // Water-filling (Bertsekas & Gallager, "Data Networks", 2nd ed., sec. 6.5.2): serve the
    // smallest demands in full while they are below the equal share of what is left; everyone
    // else, the greedy job among them, gets that equal share.
    std::vector<std::size_t> order(demands.size());
    std::iota(order.begin(), order.end(), std::size_t { 0 });
    std::sort(order.begin(), order.end(),
        [&](std::size_t a, std::size_t b) { return demands[a] < demands[b]; });
    double remaining = 1.0;
    std::size_t waiting = demands.size() + 1; // the neighbours and the greedy job
    std::size_t served = 0;
    for (; served < order.size(); ++served) {
        const double d = demands[order[served]];
        if (d > remaining / static_cast<double>(waiting))
            break;
        remaining -= d;
        --waiting;
    }
    const double level = remaining / static_cast<double>(waiting);
    if (taken) {
        taken->assign(demands.size(), level);
        for (std::size_t i = 0; i < served; ++i)
            (*taken)[order[i]] = demands[order[i]];
    }
    return level;
}

SharedFabricReport evaluateJobs(const Scenario &scenario, PhaseOverlap overlap)
{
    if (scenario.jobs.empty())
        throw ScenarioError("jobs", "the scenario holds one job: evaluate it with CostEngine");
    const std::size_t n = scenario.jobs.size();
    SharedFabricReport out;
    out.overlap = overlap;

    // Alone: every job on the empty fabric, one fabric and one router (routes cached across
    // the jobs; the engines run one after another, as Router requires).
    std::vector<Scenario> jobs;
    std::vector<std::shared_ptr<const CostEngine>> alone;
    std::shared_ptr<const Fabric> fabric;
    std::shared_ptr<Router> router;
    for (std::size_t j = 0; j < n; ++j) {
        jobs.push_back(jobScenario(scenario, j));
        alone.push_back(jobEngine(jobs.back(), j, fabric, router));
        fabric = alone.back()->sharedFabric();
        router = alone.back()->sharedRouter();
    }
    const int links = fabric->linkCount();
    out.fabric = fabric;
    out.slots = fabric->slotCount();
    // Free: usable (no failure makes it unusable) and held by no job.
    std::vector<char> freeSlot = usableSlots(*fabric, scenario.failures);
    for (const JobSpec &job : scenario.jobs)
        for (const int slot : job.slots)
            freeSlot[static_cast<std::size_t>(slot)] = 0;
    out.freeSlots = static_cast<int>(std::count(freeSlot.begin(), freeSlot.end(), 1));

    // Per link, the jobs whose traffic crosses it (most links carry one job or none).
    std::vector<std::vector<int>> users(jobsSz(links));
    for (std::size_t j = 0; j < n; ++j) {
        const LinkLoadTable &loads = alone[j]->report().links;
        for (int l = 0; l < links; ++l)
            if (loads[jobsSz(l)].bytes > 0.0)
                users[jobsSz(l)].push_back(static_cast<int>(j));
    }
    // A neighbour's demand on a link: the whole link (worst), or the fraction of its iteration
    // its traffic there is active (duty cycle: busy time over iteration, alone).
    auto demand = [&](int job, int link) {
        if (overlap == PhaseOverlap::Worst)
            return 1.0;
        const CostReport &r = alone[jobsSz(job)]->report();
        return r.iterationTime > 0.0
            ? std::min(1.0, r.links[jobsSz(link)].busyTime / r.iterationTime)
            : 1.0;
    };

    out.jobs.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
        JobReport &job = out.jobs[j];
        job.name = scenario.jobs[j].name;
        job.colour = scenario.jobs[j].colour;
        job.ranks = static_cast<int>(scenario.jobs[j].slots.size());
        job.aloneEngine = alone[j];
        const CostReport &aloneReport = alone[j]->report();
        job.aloneIterationTime = aloneReport.iterationTime;

        std::vector<double> scale;
        std::vector<int> neighbours;
        std::vector<double> demands, taken;
        for (int l = 0; l < links; ++l) {
            const std::vector<int> &u = users[jobsSz(l)];
            if (u.size() < 2 || std::find(u.begin(), u.end(), static_cast<int>(j)) == u.end())
                continue;
            neighbours.clear();
            demands.clear();
            for (const int other : u)
                if (other != static_cast<int>(j)) {
                    const double d = demand(other, l);
                    if (d <= 0.0)
                        continue;
                    neighbours.push_back(other);
                    demands.push_back(d);
                }
            if (neighbours.empty())
                continue;
            const double share = maxMinShare(demands, &taken);
            if (share >= 1.0)
                continue;
            if (scale.empty())
                scale.assign(jobsSz(links), 1.0);
            scale[jobsSz(l)] = share;
            ++job.sharedLinks;
            // The busy time the share adds on this link, split by what each neighbour takes.
            const double added = aloneReport.links[jobsSz(l)].busyTime * (1.0 / share - 1.0);
            const double lost = 1.0 - share;
            for (std::size_t k = 0; k < neighbours.size(); ++k)
                job.interference.push_back({ l, neighbours[k], added * taken[k] / lost });
        }
        std::sort(job.interference.begin(), job.interference.end(),
            [](const JobInterference &a, const JobInterference &b) {
                if (a.seconds != b.seconds)
                    return a.seconds > b.seconds;
                return a.link != b.link ? a.link < b.link : a.neighbour < b.neighbour;
            });
        if (scale.empty()) { // meets no neighbour: shared = alone, no second evaluation
            job.sharedEngine = job.aloneEngine;
        } else {
            auto narrowed = std::make_shared<const Fabric>(fabric->withBandwidthScaled(scale));
            job.sharedEngine = jobEngine(jobs[j], j, std::move(narrowed), nullptr);
        }
        job.iterationTime = job.shared().iterationTime;
    }

    // The fabric with every job on it: bytes summed, each job's at its own iteration's pace.
    out.linkBytes.assign(jobsSz(links), 0.0);
    out.linkUtilisation.assign(jobsSz(links), 0.0);
    double worst = 0.0;
    for (int l = 0; l < links; ++l) {
        for (const int j : users[jobsSz(l)]) {
            const JobReport &job = out.jobs[jobsSz(j)];
            const double bytes = job.alone().links[jobsSz(l)].bytes;
            out.linkBytes[jobsSz(l)] += bytes;
            if (job.iterationTime > 0.0)
                out.linkUtilisation[jobsSz(l)]
                    += bytes / (fabric->linkBandwidth(l) * job.iterationTime);
        }
        if (out.linkUtilisation[jobsSz(l)] > worst) {
            worst = out.linkUtilisation[jobsSz(l)];
            out.bottleneckLink = l;
        }
    }
    return out;
}

} // namespace railyard
