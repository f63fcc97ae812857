#include "studies/fabricsearch.h"

#include "base/physicalranges.h"
#include "base/scenarioerror.h"
#include "fabric/fabric.h"
#include "studies/bomcost.h"
#include "workload/presets.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace railyard {

namespace {

/// The planes the builder accepts (fabricbuilder.h kMaxPlanes).
constexpr int kFabricSearchMaxPlanes = 16;
/// An oversubscription above 64:1 leaves a 64-port leaf a single uplink: nothing to search.
constexpr double kFabricSearchMaxOversubscription = 64.0;

template<typename T>
void fabricSearchRequireNonEmpty(const std::vector<T> &list, const char *option)
{
    if (list.empty())
        throw ScenarioError(option, "the list is empty; give at least one value");
}

void checkFabricSearchOptions(const FabricSearchOptions &o)
{
    fabricSearchRequireNonEmpty(o.kinds, "kinds");
    fabricSearchRequireNonEmpty(o.leafOversubscriptions, "oversubscription");
    fabricSearchRequireNonEmpty(o.spineOversubscriptions, "spine-oversubscription");
    fabricSearchRequireNonEmpty(o.planes, "planes");
    fabricSearchRequireNonEmpty(o.spines, "spines");
    for (double r : o.leafOversubscriptions)
        if (!(r >= 1.0 && r <= kFabricSearchMaxOversubscription))
            throw ScenarioError("oversubscription",
                "each ratio must be 1 to 64 (downlink : uplink), got " + std::to_string(r));
    for (double r : o.spineOversubscriptions)
        if (!(r >= 1.0 && r <= kFabricSearchMaxOversubscription))
            throw ScenarioError("spine-oversubscription",
                "each ratio must be 1 to 64 (downlink : uplink), got " + std::to_string(r));
    for (int p : o.planes)
        if (p < 1 || p > kFabricSearchMaxPlanes)
            throw ScenarioError("planes", "each count must be 1 to 16, got " + std::to_string(p));
    for (int s : o.spines)
        if (s < 0)
            throw ScenarioError(
                "spines", "each count must be 0 (derived) or more, got " + std::to_string(s));
    for (double g : o.nicGbps)
        if (!(g >= ranges::kMinLinkGbps && g <= ranges::kMaxLinkGbps))
            throw ScenarioError(
                "nic-gbps", "each speed must be a link speed in Gbit/s, got " + std::to_string(g));
    if (!(o.maxSlowdown < 0.0 || (o.maxSlowdown >= 0.0 && o.maxSlowdown <= 100.0)))
        throw ScenarioError("max-slowdown", "must be 0 or more");
    if (o.maxSwitches < 0)
        throw ScenarioError("max-switches", "must be 0 (no bound) or more");
    if (!(o.maxCostUsd >= 0.0 && std::isfinite(o.maxCostUsd)))
        throw ScenarioError("max-cost", "must be 0 (no bound) or a positive amount");
    if (o.shardCount < 1 || o.shardIndex < 0 || o.shardIndex >= o.shardCount)
        throw ScenarioError("shard",
            "index " + std::to_string(o.shardIndex) + " of " + std::to_string(o.shardCount)
                + " shards");
}

} // namespace

std::vector<FabricDesign> enumerateFabricDesigns(const Scenario &job, const FabricSearchOptions &o)
{
    checkFabricSearchOptions(o);
    // Spine oversubscription is read only by three-tier fabrics (fabricspec.h): elsewhere every
    // ratio but 1 would repeat the same fabric.
    bool threeTier = false;
    try {
        threeTier
            = Fabric::build(designFabricSpec(job.fabric, baselineDesign())).superSpineCount() > 0;
    } catch (const ScenarioError &) {
        threeTier = false; // the baseline's evaluation names the problem
    }
    std::vector<double> nics = o.nicGbps;
    if (nics.empty())
        nics.push_back(0.0);
    std::vector<FabricDesign> out;
    for (FabricKind kind : o.kinds)
        for (double nic : nics)
            for (int planes : o.planes)
                for (int spines : o.spines)
                    for (double leaf : o.leafOversubscriptions)
                        for (double spine : o.spineOversubscriptions) {
                            const bool railOnly = kind == FabricKind::RailOnly;
                            if (railOnly && (spines != 0 || leaf != 1.0 || spine != 1.0))
                                continue; // no uplinks: one rail-only design per NIC and planes
                            if (!threeTier && spine != 1.0)
                                continue;
                            FabricDesign d;
                            d.kind = kind;
                            d.nicGbps = nic == job.fabric.nic.gbps ? 0.0 : nic;
                            d.planes = planes;
                            d.spines = spines;
                            d.leafOversubscription = leaf;
                            d.spineOversubscription = spine;
                            if (std::find(out.begin(), out.end(), d) == out.end())
                                out.push_back(d);
                        }
    if (o.nvl72)
        for (const FabricDesign &d : standardDesigns(job))
            if (d.scaleUpDomainServers > 0 && std::find(out.begin(), out.end(), d) == out.end())
                out.push_back(d);
    return out;
}

bool meetsFabricConstraints(const FabricDesignResult &row, const FabricSearchOptions &o)
{
    // 1e-12: a slowdown computed as t/t0 - 1 of equal times is 0 to rounding, never "above 0".
    return row.evaluated && (o.maxSlowdown < 0.0 || row.slowdown <= o.maxSlowdown + 1e-12)
        && (o.maxSwitches == 0 || row.switches <= o.maxSwitches)
        && (o.maxCostUsd == 0.0 || row.capexUsd <= o.maxCostUsd);
}

std::optional<std::size_t> cheapestMeeting(const FabricSearchResult &r)
{
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const FabricDesignResult &row = r.rows[i];
        if (!meetsFabricConstraints(row, r.options))
            continue;
        if (!best) {
            best = i;
            continue;
        }
        const FabricDesignResult &b = r.rows[*best];
        if (row.capexUsd < b.capexUsd
            || (row.capexUsd == b.capexUsd && row.iterationSeconds < b.iterationSeconds))
            best = i;
    }
    return best;
}

FabricSearchResult searchFabrics(const FabricJobs &jobs, const FabricSearchOptions &o)
{
    FabricSearchResult r;
    r.options = o;
    r.jobName = jobs.scenario.name;
    if (jobs.isMix()) {
        for (std::size_t j = 0; j < jobs.count(); ++j)
            r.mixJobs.push_back(jobs.jobName(j));
        r.overlap = std::string(phaseOverlapName(jobs.overlap));
    }
    const std::vector<FabricDesign> designs = enumerateFabricDesigns(jobs.scenario, o);
    r.enumerated = static_cast<std::int64_t>(designs.size());
    r.baselineSeconds = baselineSeconds(jobs);
    r.catalogueName = catalogueOf(jobs.scenario).name;
    r.shards = { o.shardIndex };
    for (std::size_t i = static_cast<std::size_t>(o.shardIndex); i < designs.size();
         i += static_cast<std::size_t>(o.shardCount)) {
        FabricDesignResult row = evaluateDesign(jobs, designs[i], r.baselineSeconds);
        row.index = static_cast<std::int64_t>(i);
        r.rows.push_back(std::move(row));
    }
    return r;
}

FabricSearchResult mergeFabricSearches(const std::vector<FabricSearchResult> &parts)
{
    if (parts.empty())
        throw ScenarioError("merge", "no parts to merge");
    const FabricSearchResult &one = parts.front();
    const int count = one.options.shardCount;
    FabricSearchResult r = one;
    r.rows.clear();
    r.shards.clear();
    r.options.shardIndex = 0;
    r.options.shardCount = 1;
    std::vector<int> seen(static_cast<std::size_t>(std::max(count, 1)), 0);
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const FabricSearchResult &part = parts[p];
        FabricSearchOptions a = part.options, b = one.options;
        a.shardIndex = b.shardIndex = 0;
        if (!(a == b) || part.enumerated != one.enumerated || part.jobName != one.jobName
            || part.mixJobs != one.mixJobs || part.overlap != one.overlap
            || part.baselineSeconds != one.baselineSeconds)
            throw ScenarioError("part " + std::to_string(p + 1),
                "is a shard of a different fabric search than part 1 (job, space, constraints "
                "or shard count differ)");
        for (int s : part.shards) {
            if (s < 0 || s >= count)
                throw ScenarioError("part " + std::to_string(p + 1),
                    "names shard " + std::to_string(s) + " of " + std::to_string(count));
            if (seen[static_cast<std::size_t>(s)]++ > 0)
                throw ScenarioError("merge",
                    "shard " + std::to_string(s) + "/" + std::to_string(count)
                        + " is given twice (part " + std::to_string(p + 1) + ")");
        }
        r.rows.insert(r.rows.end(), part.rows.begin(), part.rows.end());
    }
    for (int s = 0; s < count; ++s)
        if (seen[static_cast<std::size_t>(s)] == 0)
            throw ScenarioError("merge",
                "shard " + std::to_string(s) + "/" + std::to_string(count)
                    + " is missing; give every shard's part");
    std::sort(r.rows.begin(), r.rows.end(),
        [](const FabricDesignResult &x, const FabricDesignResult &y) { return x.index < y.index; });
    r.shards = { 0 };
    return r;
}

} // namespace railyard
