#include "studies/fabriccompare.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/costenginejobs.h"
#include "fabric/bom.h"
#include "scenario/jobssection.h"
#include "scenario/scenariosections.h"
#include "studies/bomcost.h"
#include "workload/presets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

namespace railyard {

namespace {

/// "2:1", "1.5:1".
std::string fabricCompareRatio(double r)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g:1", r);
    return text;
}

std::string fabricCompareGbps(double gbps)
{
    char text[32];
    std::snprintf(text, sizeof text, "%gG", gbps);
    return text;
}

} // namespace

std::string fabricDesignName(const FabricDesign &d)
{
    std::string name(scenariosections::fabricKindText(d.kind));
    if (d.scaleUpDomainServers > 1)
        name += ", NVLink domains of " + std::to_string(d.scaleUpDomainServers) + " servers";
    if (d.leafOversubscription != 1.0)
        name += ", " + fabricCompareRatio(d.leafOversubscription) + " leaves";
    if (d.spineOversubscription != 1.0)
        name += ", " + fabricCompareRatio(d.spineOversubscription) + " spines";
    if (d.spines > 0)
        name += ", " + std::to_string(d.spines) + " spines per pod";
    if (d.planes > 1)
        name += ", " + std::to_string(d.planes) + " planes";
    if (d.nicGbps > 0.0)
        name += ", " + fabricCompareGbps(d.nicGbps) + " NICs";
    return name;
}

FabricDesign baselineDesign()
{
    return FabricDesign {};
}

FabricSpec designFabricSpec(const FabricSpec &job, const FabricDesign &d)
{
    FabricSpec f = job;
    // A design is generated, never a cabling inventory: the counts come from the builder.
    f.cabling.clear();
    f.kind = d.kind;
    f.leafOversubscription = d.kind == FabricKind::RailOnly ? 1.0 : d.leafOversubscription;
    f.spineOversubscription = d.kind == FabricKind::RailOnly ? 1.0 : d.spineOversubscription;
    f.spines = d.kind == FabricKind::RailOnly ? 0 : d.spines;
    f.superSpines = 0; // derived, as `generate` leaves it
    f.planes = d.planes;
    f.planePortGbps = 0.0; // the NIC's speed split over its ports (fabricspec.h)
    if (d.nicGbps > 0.0)
        f.nic.gbps = d.nicGbps;
    if (d.scaleUpDomainServers > 0)
        f.scaleUpDomainServers = d.scaleUpDomainServers;
    // `generate` writes the SU size only for rail-optimised fabrics (32 when not given) and the
    // ToR rack size only for ToR (0 = derived from the radix); an NVL72 rack is one SU.
    const FabricSpec generated;
    if (d.kind != FabricKind::RailOptimised || job.kind != FabricKind::RailOptimised)
        f.serversPerSu = generated.serversPerSu;
    if (f.scaleUpDomainServers > 1 && d.kind == FabricKind::RailOptimised)
        f.serversPerSu = f.scaleUpDomainServers;
    if (d.kind != FabricKind::Tor || job.kind != FabricKind::Tor)
        f.serversPerLeaf = generated.serversPerLeaf;
    f.name = std::string(scenariosections::fabricKindText(d.kind)) + "-" + std::to_string(f.servers)
        + "x" + std::to_string(f.gpusPerServer);
    return f;
}

void packMixSlots(Scenario &mix, int slotCount)
{
    int next = 0;
    for (std::size_t j = 0; j < mix.jobs.size(); ++j) {
        JobSpec &job = mix.jobs[j];
        const int ranks = static_cast<int>(job.slots.size());
        if (ranks > slotCount - next)
            throw ScenarioError("jobs[" + std::to_string(j) + "].mapping.slots",
                "job \"" + job.name + "\" does not fit the design's " + std::to_string(slotCount)
                    + " GPU slots after the jobs before it (" + std::to_string(next)
                    + " slots taken)");
        // Rank r keeps its place in the job's slot order: the job's lowest slot becomes the
        // job's first new slot, and so on (a packed job stays packed).
        std::vector<int> order(job.slots.begin(), job.slots.end());
        std::sort(order.begin(), order.end());
        std::vector<int> slots(job.slots.size());
        for (std::size_t r = 0; r < job.slots.size(); ++r)
            slots[r] = next
                + static_cast<int>(
                    std::lower_bound(order.begin(), order.end(), job.slots[r]) - order.begin());
        job.slots = std::move(slots);
        next += ranks;
    }
    adoptFirstJob(mix);
}

Scenario jobOnDesign(const Scenario &job, const FabricDesign &design)
{
    Scenario s = job;
    s.fabric = designFabricSpec(job.fabric, design);
    s.failures.clear();
    s.name = job.name + " on " + fabricDesignName(design);
    if (s.jobs.empty()) {
        s.slots.clear();
    } else {
        const auto slots = [](const FabricSpec &f) {
            return static_cast<std::int64_t>(f.servers) * f.gpusPerServer;
        };
        if (slots(s.fabric) != slots(job.fabric))
            packMixSlots(s, static_cast<int>(slots(s.fabric)));
    }
    return s;
}

std::string FabricJobs::jobName(std::size_t index) const
{
    return isMix() ? scenario.jobs.at(index).name : scenario.name;
}

FabricJobs fabricJobsOf(const Scenario &scenario, PhaseOverlap overlap)
{
    if (!scenario.jobs.empty()) {
        // The shared evaluation's own limits (cmd_evaluate.cpp refuses the same for `evaluate`).
        if (scenario.fabric.routing.mode != EcmpMode::Ideal)
            throw ScenarioError("fabric.routing",
                "hashed and adaptive ECMP are not modelled for a scenario with jobs yet: the "
                "jobs share links with the ideal split (set the mode to ideal)");
        if (scenario.inference.has_value())
            throw ScenarioError("inference",
                "a scenario with jobs holds training jobs only: the fabric search of a job mix "
                "has no inference pools");
    }
    return FabricJobs { scenario, overlap };
}

std::vector<double> baselineSeconds(const FabricJobs &jobs)
{
    const Scenario s = jobOnDesign(jobs.scenario, baselineDesign());
    const auto refused = [](const ScenarioError &e) {
        return ScenarioError(e.field(),
            "the non-blocking rail-optimised fabric every slowdown is measured against "
            "cannot hold the job: "
                + e.reason());
    };
    std::vector<double> out;
    try {
        if (jobs.isMix()) {
            const SharedFabricReport report = evaluateJobs(s, jobs.overlap);
            for (const JobReport &job : report.jobs)
                out.push_back(job.iterationTime);
        } else {
            CostEngine engine(s);
            out.push_back(engine.report().iterationTime);
        }
    } catch (const ScenarioError &e) {
        throw refused(e);
    }
    return out;
}

namespace {

/// Prices the fabric with the worst job's figures (its scenario's catalogue and device, its
/// iteration), the slowdown and the worst job already set in `r`.
void fabricComparePrice(
    FabricDesignResult &r, const Fabric &fabric, const Scenario &scenario, const CostReport &report)
{
    const PricedBom priced = priceScenarioBom(fabric, scenario, report);
    r.switches = priced.bom.switchCount();
    r.transceivers = priced.bom.transceiverCount();
    r.capexUsd = priced.cost.capexUsd;
    r.networkCapexUsd = priced.cost.networkCapexUsd;
    r.networkPowerW = priced.cost.networkTypicalW;
    r.usdPerIteration = priced.cost.fabric.usdPerIteration;
    r.kwhPerIteration = priced.cost.fabric.kwhPerIteration;
    for (const BomCostLine &l : priced.cost.lines)
        r.illustrativePrices = r.illustrativePrices || (l.illustrative && l.quantity > 0);
}

/// Evaluates the jobs as placed in `s` (one job, or a mix shared under `overlap`), the worst
/// slowdown deciding, and prices the fabric with the worst job's figures.
FabricDesignResult fabricCompareEvaluate(
    const Scenario &s, PhaseOverlap overlap, const std::vector<double> &baseline)
{
    FabricDesignResult r;
    const std::size_t count = s.jobs.empty() ? 1 : s.jobs.size();
    if (baseline.size() != count) {
        r.problem = "no job to evaluate";
        return r;
    }
    const auto slowdownOf = [&baseline](std::size_t j, double t) {
        return baseline[j] > 0.0 ? t / baseline[j] - 1.0 : 0.0;
    };
    try {
        if (s.jobs.empty()) {
            CostEngine engine(s);
            r.iterationSeconds = engine.report().iterationTime;
            r.baselineSeconds = baseline[0];
            r.slowdown = slowdownOf(0, r.iterationSeconds);
            fabricComparePrice(r, engine.fabric(), engine.scenario(), engine.report());
        } else {
            const SharedFabricReport report = evaluateJobs(s, overlap);
            std::size_t worst = 0;
            for (std::size_t j = 1; j < report.jobs.size(); ++j)
                if (slowdownOf(j, report.jobs[j].iterationTime)
                    > slowdownOf(worst, report.jobs[worst].iterationTime))
                    worst = j;
            const JobReport &job = report.jobs[worst];
            r.worstJob = static_cast<int>(worst);
            r.iterationSeconds = job.iterationTime;
            r.baselineSeconds = baseline[worst];
            r.slowdown = slowdownOf(worst, job.iterationTime);
            // The fabric as built (the shared engine's copy has the narrowed bandwidths).
            fabricComparePrice(r, *report.fabric, job.sharedEngine->scenario(), job.shared());
        }
        r.evaluated = true;
    } catch (const ScenarioError &e) {
        r.problem = e.field().empty() ? e.reason() : e.field() + ": " + e.reason();
    }
    return r;
}

} // namespace

FabricDesignResult evaluateDesign(
    const FabricJobs &jobs, const FabricDesign &design, const std::vector<double> &baseline)
{
    FabricDesignResult r
        = fabricCompareEvaluate(jobOnDesign(jobs.scenario, design), jobs.overlap, baseline);
    r.design = design;
    r.name = fabricDesignName(design);
    return r;
}

FabricDesignResult evaluateOwnFabric(const FabricJobs &jobs, const std::vector<double> &baseline)
{
    FabricDesignResult r = fabricCompareEvaluate(jobs.scenario, jobs.overlap, baseline);
    r.name = "current fabric (" + jobs.scenario.fabric.name + ")";
    return r;
}

std::vector<FabricDesign> standardDesigns(const Scenario &job)
{
    std::vector<FabricDesign> out;
    const auto add = [&out](FabricKind kind, double leaf, double spine, int planes, int domain) {
        FabricDesign d;
        d.kind = kind;
        d.leafOversubscription = leaf;
        d.spineOversubscription = spine;
        d.planes = planes;
        d.scaleUpDomainServers = domain;
        out.push_back(d);
    };
    // 2:1 is the common oversubscribed build (the leaf keeps half its ports for uplinks of a
    // 3:1-capable chassis in vendor designs); one ratio keeps the table readable, and
    // fabric-search enumerates more.
    add(FabricKind::RailOptimised, 1.0, 1.0, 1, 0);
    add(FabricKind::RailOptimised, 2.0, 1.0, 1, 0);
    bool threeTier = false;
    try {
        threeTier
            = Fabric::build(designFabricSpec(job.fabric, baselineDesign())).superSpineCount() > 0;
    } catch (const ScenarioError &) {
        threeTier = false; // the comparison reports the baseline's problem itself
    }
    if (threeTier)
        add(FabricKind::RailOptimised, 1.0, 2.0, 1, 0);
    add(FabricKind::Tor, 1.0, 1.0, 1, 0);
    add(FabricKind::Tor, 2.0, 1.0, 1, 0);
    add(FabricKind::RailOnly, 1.0, 1.0, 1, 0);
    add(FabricKind::RailOptimised, 1.0, 1.0, 2, 0);
    // NVL72 racks only where the job fits them: its device has the rack and its servers are
    // the rack's compute trays (a different GPU would change the compute, not the fabric).
    const DeviceFabricDefaults device = deviceFabricDefaults(job.device.name);
    if (device.rackTrays > 1 && job.fabric.gpusPerServer == device.trayGpus
        && job.fabric.scaleUpDomainServers != device.rackTrays
        && job.fabric.servers % device.rackTrays == 0)
        add(FabricKind::RailOptimised, 1.0, 1.0, 1, device.rackTrays);
    return out;
}

FabricComparison compareFabrics(const FabricJobs &jobs, const std::vector<FabricDesign> &designs)
{
    FabricComparison c;
    c.baselineSeconds = baselineSeconds(jobs);
    c.catalogueName = catalogueOf(jobs.scenario).name;
    for (std::size_t i = 0; i < designs.size(); ++i) {
        FabricDesignResult r = evaluateDesign(jobs, designs[i], c.baselineSeconds);
        r.index = static_cast<std::int64_t>(i);
        c.rows.push_back(std::move(r));
    }
    c.current = evaluateOwnFabric(jobs, c.baselineSeconds);
    return c;
}

std::vector<std::size_t> paretoFront(const std::vector<FabricDesignResult> &rows)
{
    std::vector<std::size_t> front;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const FabricDesignResult &a = rows[i];
        if (!a.evaluated)
            continue;
        bool dominated = false;
        for (std::size_t j = 0; j < rows.size() && !dominated; ++j) {
            const FabricDesignResult &b = rows[j];
            if (j == i || !b.evaluated)
                continue;
            const bool noWorse
                = b.iterationSeconds <= a.iterationSeconds && b.capexUsd <= a.capexUsd;
            const bool better = b.iterationSeconds < a.iterationSeconds || b.capexUsd < a.capexUsd;
            // Equal designs: the earlier one stays on the front, the later one is dominated.
            dominated = noWorse && (better || j < i);
        }
        if (!dominated)
            front.push_back(i);
    }
    std::sort(front.begin(), front.end(), [&rows](std::size_t a, std::size_t b) {
        if (rows[a].capexUsd != rows[b].capexUsd)
            return rows[a].capexUsd < rows[b].capexUsd;
        return rows[a].iterationSeconds < rows[b].iterationSeconds;
    });
    return front;
}

} // namespace railyard
