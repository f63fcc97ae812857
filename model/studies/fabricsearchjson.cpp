#include "studies/fabricsearchjson.h"

#include "base/scenarioerror.h"
#include "export/quoting.h"
#include "scenario/scenariosections.h"
#include "studies/bomreport.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

namespace railyard {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::string fabricSearchFixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

bool parseFabricKindName(const std::string &name, FabricKind &out)
{
    for (FabricKind k : { FabricKind::RailOptimised, FabricKind::Tor, FabricKind::RailOnly })
        if (scenariosections::fabricKindText(k) == name) {
            out = k;
            return true;
        }
    return false;
}

ordered_json fabricDesignJson(const FabricDesign &d)
{
    ordered_json j;
    j["kind"] = std::string(scenariosections::fabricKindText(d.kind));
    j["leaf_oversubscription"] = d.leafOversubscription;
    j["spine_oversubscription"] = d.spineOversubscription;
    j["planes"] = d.planes;
    j["spines"] = d.spines;
    j["nic_gbps"] = d.nicGbps;
    j["scaleup_domain_servers"] = d.scaleUpDomainServers;
    return j;
}

ordered_json fabricRowJson(const FabricDesignResult &r)
{
    ordered_json j;
    j["index"] = r.index;
    j["name"] = r.name;
    j["design"] = fabricDesignJson(r.design);
    j["evaluated"] = r.evaluated;
    if (!r.evaluated) {
        j["problem"] = r.problem;
        return j;
    }
    j["iteration_s"] = r.iterationSeconds;
    j["baseline_iteration_s"] = r.baselineSeconds;
    j["slowdown"] = r.slowdown;
    j["worst_job"] = r.worstJob;
    j["switches"] = r.switches;
    j["transceivers"] = r.transceivers;
    j["capex_usd"] = r.capexUsd;
    j["network_capex_usd"] = r.networkCapexUsd;
    j["network_power_w"] = r.networkPowerW;
    j["usd_per_iteration"] = r.usdPerIteration;
    j["kwh_per_iteration"] = r.kwhPerIteration;
    j["illustrative_prices"] = r.illustrativePrices;
    return j;
}

ordered_json fabricSearchOptionsJson(const FabricSearchOptions &o)
{
    ordered_json j;
    ordered_json kinds = ordered_json::array();
    for (FabricKind k : o.kinds)
        kinds.push_back(std::string(scenariosections::fabricKindText(k)));
    j["kinds"] = kinds;
    j["leaf_oversubscription"] = o.leafOversubscriptions;
    j["spine_oversubscription"] = o.spineOversubscriptions;
    j["planes"] = o.planes;
    j["spines"] = o.spines;
    j["nic_gbps"] = o.nicGbps;
    j["nvl72"] = o.nvl72;
    j["max_slowdown"] = o.maxSlowdown;
    j["max_switches"] = o.maxSwitches;
    j["max_cost_usd"] = o.maxCostUsd;
    return j;
}

/// Reads `key` of `object` as T, naming the field when it is missing or of another type.
template<typename T> T fabricPartField(const json &object, const char *key, const std::string &path)
{
    if (!object.is_object() || !object.contains(key))
        throw ScenarioError(path + "." + key, "missing");
    try {
        return object.at(key).get<T>();
    } catch (const json::exception &) {
        throw ScenarioError(path + "." + key, "has the wrong type");
    }
}

FabricDesign fabricDesignFromJson(const json &j, const std::string &path)
{
    FabricDesign d;
    if (!parseFabricKindName(fabricPartField<std::string>(j, "kind", path), d.kind))
        throw ScenarioError(path + ".kind", "unknown fabric kind");
    d.leafOversubscription = fabricPartField<double>(j, "leaf_oversubscription", path);
    d.spineOversubscription = fabricPartField<double>(j, "spine_oversubscription", path);
    d.planes = fabricPartField<int>(j, "planes", path);
    d.spines = fabricPartField<int>(j, "spines", path);
    d.nicGbps = fabricPartField<double>(j, "nic_gbps", path);
    d.scaleUpDomainServers = fabricPartField<int>(j, "scaleup_domain_servers", path);
    return d;
}

FabricDesignResult fabricRowFromJson(const json &j, const std::string &path)
{
    FabricDesignResult r;
    r.index = fabricPartField<std::int64_t>(j, "index", path);
    r.name = fabricPartField<std::string>(j, "name", path);
    if (!j.contains("design"))
        throw ScenarioError(path + ".design", "missing");
    r.design = fabricDesignFromJson(j.at("design"), path + ".design");
    r.evaluated = fabricPartField<bool>(j, "evaluated", path);
    if (!r.evaluated) {
        r.problem = fabricPartField<std::string>(j, "problem", path);
        return r;
    }
    r.iterationSeconds = fabricPartField<double>(j, "iteration_s", path);
    r.baselineSeconds = fabricPartField<double>(j, "baseline_iteration_s", path);
    r.slowdown = fabricPartField<double>(j, "slowdown", path);
    r.worstJob = fabricPartField<int>(j, "worst_job", path);
    r.switches = fabricPartField<int>(j, "switches", path);
    r.transceivers = fabricPartField<std::int64_t>(j, "transceivers", path);
    r.capexUsd = fabricPartField<double>(j, "capex_usd", path);
    r.networkCapexUsd = fabricPartField<double>(j, "network_capex_usd", path);
    r.networkPowerW = fabricPartField<double>(j, "network_power_w", path);
    r.usdPerIteration = fabricPartField<double>(j, "usd_per_iteration", path);
    r.kwhPerIteration = fabricPartField<double>(j, "kwh_per_iteration", path);
    r.illustrativePrices = fabricPartField<bool>(j, "illustrative_prices", path);
    return r;
}

FabricSearchOptions fabricSearchOptionsFromJson(const json &j, const std::string &path)
{
    FabricSearchOptions o;
    o.kinds.clear();
    for (const std::string &k : fabricPartField<std::vector<std::string>>(j, "kinds", path)) {
        FabricKind kind {};
        if (!parseFabricKindName(k, kind))
            throw ScenarioError(path + ".kinds", "unknown fabric kind '" + k + "'");
        o.kinds.push_back(kind);
    }
    o.leafOversubscriptions
        = fabricPartField<std::vector<double>>(j, "leaf_oversubscription", path);
    o.spineOversubscriptions
        = fabricPartField<std::vector<double>>(j, "spine_oversubscription", path);
    o.planes = fabricPartField<std::vector<int>>(j, "planes", path);
    o.spines = fabricPartField<std::vector<int>>(j, "spines", path);
    o.nicGbps = fabricPartField<std::vector<double>>(j, "nic_gbps", path);
    o.nvl72 = fabricPartField<bool>(j, "nvl72", path);
    o.maxSlowdown = fabricPartField<double>(j, "max_slowdown", path);
    o.maxSwitches = fabricPartField<std::int64_t>(j, "max_switches", path);
    o.maxCostUsd = fabricPartField<double>(j, "max_cost_usd", path);
    o.shardIndex = fabricPartField<int>(j, "shard_index", path);
    o.shardCount = fabricPartField<int>(j, "shard_count", path);
    return o;
}

std::string fabricSearchPercent(double fraction)
{
    // One decimal: a tiny speed-up (a design with fewer hops) prints 0.0 %, not -0.0 %.
    const double percent = 100.0 * fraction;
    return fabricSearchFixed(std::abs(percent) < 0.05 ? 0.0 : percent, 1) + " %";
}

/// The shared table of designs: index, name, time, slowdown, switches, capital, power, $/it.
std::string fabricDesignTable(const std::vector<FabricDesignResult> &rows,
    const std::set<std::size_t> &front, const FabricSearchOptions *constraints)
{
    std::ostringstream out;
    char buf[512];
    std::snprintf(buf, sizeof buf, "%4s %-44s %10s %9s %8s %10s %10s %10s %9s\n", "#", "design",
        "iter (s)", "slowdown", "switches", "capital", "network", "net power", "$/iter");
    out << buf;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const FabricDesignResult &r = rows[i];
        std::string mark = front.count(i) ? "*" : " ";
        if (constraints && meetsFabricConstraints(r, *constraints))
            mark += "+";
        if (!r.evaluated) {
            std::snprintf(buf, sizeof buf, "%4lld %-44s  not evaluated: %s\n",
                static_cast<long long>(r.index), r.name.c_str(), r.problem.c_str());
            out << buf;
            continue;
        }
        std::snprintf(buf, sizeof buf, "%4lld %-44s %10.3f %9s %8d %10s %10s %10s %9s %s\n",
            static_cast<long long>(r.index), r.name.substr(0, 44).c_str(), r.iterationSeconds,
            fabricSearchPercent(r.slowdown).c_str(), r.switches, formatUsd(r.capexUsd).c_str(),
            formatUsd(r.networkCapexUsd).c_str(), formatWatts(r.networkPowerW).c_str(),
            formatUsd(r.usdPerIteration).c_str(), mark.c_str());
        out << buf;
    }
    return out.str();
}

} // namespace

ordered_json fabricSearchJson(const FabricSearchResult &r)
{
    ordered_json j;
    j["format_version"] = 1;
    j["job"] = r.jobName;
    if (!r.mixJobs.empty()) {
        j["jobs"] = r.mixJobs;
        j["overlap"] = r.overlap;
    }
    j["catalogue"] = r.catalogueName;
    ordered_json baseline;
    baseline["design"] = fabricDesignName(baselineDesign());
    baseline["iteration_s"] = r.baselineSeconds;
    j["baseline"] = baseline;
    ordered_json search = fabricSearchOptionsJson(r.options);
    search["designs"] = r.enumerated;
    j["search"] = search;
    const std::vector<std::size_t> front = paretoFront(r.rows);
    const std::set<std::size_t> onFront(front.begin(), front.end());
    ordered_json rows = ordered_json::array();
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        ordered_json row = fabricRowJson(r.rows[i]);
        row["meets_constraints"] = meetsFabricConstraints(r.rows[i], r.options);
        row["pareto"] = onFront.count(i) > 0;
        rows.push_back(std::move(row));
    }
    j["designs"] = rows;
    ordered_json frontJson = ordered_json::array();
    for (std::size_t i : front)
        frontJson.push_back(r.rows[i].index);
    j["pareto_front"] = frontJson;
    const std::optional<std::size_t> best = cheapestMeeting(r);
    j["cheapest"] = best ? ordered_json(fabricRowJson(r.rows[*best])) : ordered_json(nullptr);
    return j;
}

std::string fabricSearchCsv(const FabricSearchResult &r)
{
    const std::vector<std::size_t> front = paretoFront(r.rows);
    const std::set<std::size_t> onFront(front.begin(), front.end());
    std::ostringstream out;
    out << "index,design,kind,leaf_oversubscription,spine_oversubscription,planes,spines,"
           "nic_gbps,scaleup_domain_servers,evaluated,iteration_s,slowdown,switches,"
           "transceivers,capex_usd,network_capex_usd,network_power_w,usd_per_iteration,"
           "kwh_per_iteration,meets_constraints,pareto,problem\n";
    const auto num = [](double v) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.17g", v);
        return std::string(buf);
    };
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
        const FabricDesignResult &x = r.rows[i];
        const FabricDesign &d = x.design;
        out << x.index << ',' << exportdetail::csvField(x.name) << ','
            << scenariosections::fabricKindText(d.kind) << ',' << num(d.leafOversubscription) << ','
            << num(d.spineOversubscription) << ',' << d.planes << ',' << d.spines << ','
            << num(d.nicGbps) << ',' << d.scaleUpDomainServers << ','
            << (x.evaluated ? "true" : "false") << ',';
        if (x.evaluated)
            out << num(x.iterationSeconds) << ',' << num(x.slowdown) << ',' << x.switches << ','
                << x.transceivers << ',' << num(x.capexUsd) << ',' << num(x.networkCapexUsd) << ','
                << num(x.networkPowerW) << ',' << num(x.usdPerIteration) << ','
                << num(x.kwhPerIteration) << ',';
        else
            out << ",,,,,,,,,";
        out << (meetsFabricConstraints(x, r.options) ? "true" : "false") << ','
            << (onFront.count(i) ? "true" : "false") << ',' << exportdetail::csvField(x.problem)
            << "\n";
    }
    return out.str();
}

std::string fabricSearchText(const FabricSearchResult &r)
{
    std::ostringstream out;
    const FabricSearchOptions &o = r.options;
    out << "Fabric search for " << r.jobName << ": " << r.enumerated << " designs, catalogue "
        << r.catalogueName << "\n";
    if (!r.mixJobs.empty()) {
        // A job mix: every job on its own slots, sharing the links (the worst job decides).
        out << r.mixJobs.size() << " jobs sharing the fabric (phases overlap: " << r.overlap
            << "); a design's slowdown is its worst job's\n";
        out << "Baseline (non-blocking rail-optimised, the jobs shared):";
        for (std::size_t j = 0; j < r.mixJobs.size() && j < r.baselineSeconds.size(); ++j)
            out << (j ? ", " : " ") << r.mixJobs[j] << " "
                << fabricSearchFixed(r.baselineSeconds[j], 3) << " s";
        out << " per iteration\n";
    } else {
        out << "Baseline (non-blocking rail-optimised): "
            << (r.baselineSeconds.empty() ? std::string("-")
                                          : fabricSearchFixed(r.baselineSeconds.front(), 3) + " s")
            << " per iteration\n";
    }
    out << "Constraints: slowdown "
        << (o.maxSlowdown < 0.0 ? std::string("any") : "<= " + fabricSearchPercent(o.maxSlowdown))
        << ", switches "
        << (o.maxSwitches == 0 ? std::string("any") : "<= " + std::to_string(o.maxSwitches))
        << ", capital "
        << (o.maxCostUsd == 0.0 ? std::string("any") : "<= " + formatUsd(o.maxCostUsd)) << "\n\n";
    const std::vector<std::size_t> front = paretoFront(r.rows);
    out << fabricDesignTable(r.rows, std::set<std::size_t>(front.begin(), front.end()), &o);
    out << "(* on the Pareto front of iteration time against capital; + meets the constraints)\n\n";
    out << "Pareto front (cheapest first):";
    for (std::size_t i : front)
        out << " #" << r.rows[i].index;
    out << "\n";
    const std::optional<std::size_t> best = cheapestMeeting(r);
    if (best) {
        const FabricDesignResult &b = r.rows[*best];
        const std::size_t worst = static_cast<std::size_t>(std::max(b.worstJob, 0));
        const std::string who
            = worst < r.mixJobs.size() ? "job " + r.mixJobs[worst] + " " : std::string();
        out << "Cheapest meeting the constraints: #" << b.index << " " << b.name << ": "
            << formatUsd(b.capexUsd) << " capital, " << who
            << fabricSearchFixed(b.iterationSeconds, 3) << " s per iteration ("
            << fabricSearchPercent(b.slowdown) << " slower), " << b.switches << " switches\n";
    } else {
        out << "No design meets the constraints.\n";
    }
    return out.str();
}

json fabricSearchPartJson(const FabricSearchResult &r)
{
    json j;
    j["fabric_search_part"] = 1;
    json options = json(fabricSearchOptionsJson(r.options));
    options["shard_index"] = r.options.shardIndex;
    options["shard_count"] = r.options.shardCount;
    j["options"] = options;
    j["job"] = r.jobName;
    if (!r.mixJobs.empty()) {
        j["jobs"] = r.mixJobs;
        j["overlap"] = r.overlap;
    }
    j["catalogue"] = r.catalogueName;
    j["baseline_iteration_s"] = r.baselineSeconds;
    j["enumerated"] = r.enumerated;
    j["shards"] = r.shards;
    json rows = json::array();
    for (const FabricDesignResult &row : r.rows)
        rows.push_back(json(fabricRowJson(row)));
    j["rows"] = rows;
    return j;
}

bool isFabricSearchPart(const json &j)
{
    return j.is_object() && j.contains("fabric_search_part");
}

FabricSearchResult fabricSearchFromPartJson(const json &j, const std::string &what)
{
    if (!isFabricSearchPart(j))
        throw ScenarioError(what, "is not a fabric-search part");
    FabricSearchResult r;
    if (!j.contains("options"))
        throw ScenarioError(what + ": options", "missing");
    r.options = fabricSearchOptionsFromJson(j.at("options"), what + ": options");
    r.jobName = fabricPartField<std::string>(j, "job", what + ": part");
    if (j.contains("jobs")) { // a job mix's part
        r.mixJobs = fabricPartField<std::vector<std::string>>(j, "jobs", what + ": part");
        r.overlap = fabricPartField<std::string>(j, "overlap", what + ": part");
    }
    r.catalogueName = fabricPartField<std::string>(j, "catalogue", what + ": part");
    r.baselineSeconds
        = fabricPartField<std::vector<double>>(j, "baseline_iteration_s", what + ": part");
    r.enumerated = fabricPartField<std::int64_t>(j, "enumerated", what + ": part");
    r.shards = fabricPartField<std::vector<int>>(j, "shards", what + ": part");
    const json &rows = j.contains("rows") ? j.at("rows") : json();
    if (!rows.is_array())
        throw ScenarioError(what + ": rows", "missing or not a list");
    for (std::size_t i = 0; i < rows.size(); ++i)
        r.rows.push_back(fabricRowFromJson(rows[i], what + ": rows[" + std::to_string(i) + "]"));
    return r;
}

std::string fabricComparisonText(const FabricComparison &c)
{
    const std::vector<std::size_t> front = paretoFront(c.rows);
    return fabricDesignTable(c.rows, std::set<std::size_t>(front.begin(), front.end()), nullptr);
}

} // namespace railyard
