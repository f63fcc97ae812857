#include "studies/fabriccompare.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fabric/bom.h"
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

Scenario jobOnDesign(const Scenario &job, const FabricDesign &design)
{
    Scenario s = job;
    s.fabric = designFabricSpec(job.fabric, design);
    s.slots.clear();
    s.failures.clear();
    s.name = job.name + " on " + fabricDesignName(design);
    return s;
}

std::vector<Scenario> fabricJobsOf(const Scenario &scenario)
{
    return { scenario };
}

std::vector<double> baselineSeconds(const std::vector<Scenario> &jobs)
{
    std::vector<double> out;
    for (const Scenario &job : jobs) {
        const Scenario s = jobOnDesign(job, baselineDesign());
        try {
            CostEngine engine(s);
            out.push_back(engine.report().iterationTime);
        } catch (const ScenarioError &e) {
            throw ScenarioError(e.field(),
                "the non-blocking rail-optimised fabric every slowdown is measured against "
                "cannot hold the job: "
                    + e.reason());
        }
    }
    return out;
}

namespace {

/// Evaluates every job as `place` puts it on a fabric, the worst slowdown deciding, and prices
/// the fabric of the worst job.
template<typename Place>
FabricDesignResult fabricCompareEvaluateJobs(
    const std::vector<Scenario> &jobs, const std::vector<double> &baseline, Place place)
{
    FabricDesignResult r;
    if (jobs.empty() || baseline.size() != jobs.size()) {
        r.problem = "no job to evaluate";
        return r;
    }
    try {
        std::shared_ptr<const Fabric> fabric;
        std::unique_ptr<CostEngine> worst;
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            const Scenario s = place(jobs[j]);
            auto engine = std::make_unique<CostEngine>(s, fabric);
            if (!fabric)
                fabric = engine->sharedFabric();
            const double t = engine->report().iterationTime;
            const double slowdown = baseline[j] > 0.0 ? t / baseline[j] - 1.0 : 0.0;
            if (!worst || slowdown > r.slowdown) {
                r.slowdown = slowdown;
                r.iterationSeconds = t;
                r.baselineSeconds = baseline[j];
                r.worstJob = static_cast<int>(j);
                worst = std::move(engine);
            }
        }
        const PricedBom priced
            = priceScenarioBom(worst->fabric(), worst->scenario(), worst->report());
        r.switches = priced.bom.switchCount();
        r.transceivers = priced.bom.transceiverCount();
        r.capexUsd = priced.cost.capexUsd;
        r.networkCapexUsd = priced.cost.networkCapexUsd;
        r.networkPowerW = priced.cost.networkTypicalW;
        r.usdPerIteration = priced.cost.fabric.usdPerIteration;
        r.kwhPerIteration = priced.cost.fabric.kwhPerIteration;
        for (const BomCostLine &l : priced.cost.lines)
            r.illustrativePrices = r.illustrativePrices || (l.illustrative && l.quantity > 0);
        r.evaluated = true;
    } catch (const ScenarioError &e) {
        r.problem = e.field().empty() ? e.reason() : e.field() + ": " + e.reason();
    }
    return r;
}

} // namespace

FabricDesignResult evaluateDesign(const std::vector<Scenario> &jobs, const FabricDesign &design,
    const std::vector<double> &baseline)
{
    FabricDesignResult r = fabricCompareEvaluateJobs(
        jobs, baseline, [&design](const Scenario &job) { return jobOnDesign(job, design); });
    r.design = design;
    r.name = fabricDesignName(design);
    return r;
}

FabricDesignResult evaluateOwnFabric(
    const std::vector<Scenario> &jobs, const std::vector<double> &baseline)
{
    FabricDesignResult r
        = fabricCompareEvaluateJobs(jobs, baseline, [](const Scenario &job) { return job; });
    r.name = jobs.empty() ? std::string("current fabric")
                          : "current fabric (" + jobs.front().fabric.name + ")";
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

FabricComparison compareFabrics(
    const std::vector<Scenario> &jobs, const std::vector<FabricDesign> &designs)
{
    FabricComparison c;
    if (jobs.empty())
        throw ScenarioError("jobs", "no job to compare fabrics for");
    c.baselineSeconds = baselineSeconds(jobs);
    c.catalogueName = catalogueOf(jobs.front()).name;
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
