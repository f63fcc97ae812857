#include "optimise/layoutsearchjson.h"

#include "base/scenarioerror.h"
#include "cost/pipelineschedule.h"
#include "workload/workloadnames.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <set>

namespace railyard {

namespace {

using nlohmann::json;

constexpr const char *kPartFormat = "railyard-search-part";
constexpr int kPartVersion = 1;

/// A JSON integer within [min, max] (a float is refused however it is written: converting
/// 2.2e89 to an int is undefined behaviour, and 3.5 ranks is no count).
std::int64_t checkedInteger(
    const json &v, const std::string &key, std::int64_t min, std::int64_t max)
{
    if (!v.is_number_integer())
        throw ScenarioError(key, "expected an integer, got " + v.dump().substr(0, 40));
    if (v.is_number_unsigned() ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(max)
                               : v.get<std::int64_t>() < min || v.get<std::int64_t>() > max)
        throw ScenarioError(key,
            "is " + v.dump().substr(0, 40) + ", outside " + std::to_string(min) + ".."
                + std::to_string(max));
    return v.get<std::int64_t>();
}

int intAt(const json &j, const char *key)
{
    return static_cast<int>(checkedInteger(
        j.at(key), key, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

std::int64_t int64At(const json &j, const char *key)
{
    return checkedInteger(j.at(key), key, std::numeric_limits<std::int64_t>::min(),
        std::numeric_limits<std::int64_t>::max());
}

json searchOptionsJson(const LayoutSearchOptions &o)
{
    json schedules = json::array();
    for (ScheduleKind k : o.schedules)
        schedules.push_back(std::string(scheduleName(k)));
    json recomputes = json::array();
    for (Recompute r : o.recomputes)
        recomputes.push_back(std::string(recomputeName(r)));
    json placements = json::array();
    for (Placement p : o.placements)
        placements.push_back(std::string(placementName(p)));
    return { { "model", o.model }, { "device", o.device },
        { "fabric", std::string(fabricKindText(o.fabricKind)) }, { "gpus", o.gpus },
        { "gpus_per_server", o.gpusPerServer }, { "servers_per_su", o.serversPerSu },
        { "servers_per_leaf", o.serversPerLeaf }, { "switch_radix", o.switchRadix },
        { "scaleup_domain_servers", o.scaleUpDomainServers }, { "planes", o.planes },
        { "nic_gbps", o.nicGbps }, { "global_batch", o.globalBatch }, { "seq", o.seq },
        { "max_tp", o.maxTp }, { "max_pp", o.maxPp }, { "max_cp", o.maxCp }, { "max_ep", o.maxEp },
        { "max_micro_batch", o.maxMicroBatch }, { "interleaves", o.interleaves },
        { "schedules", schedules }, { "recomputes", recomputes }, { "placements", placements },
        { "top", o.top } };
}

LayoutSearchOptions searchOptionsFromJson(const json &j)
{
    LayoutSearchOptions o;
    o.model = j.at("model").get<std::string>();
    o.device = j.at("device").get<std::string>();
    if (!parseFabricKindText(j.at("fabric").get<std::string>(), o.fabricKind))
        throw ScenarioError("search.fabric", "unknown fabric kind");
    o.gpus = intAt(j, "gpus");
    o.gpusPerServer = intAt(j, "gpus_per_server");
    o.serversPerSu = intAt(j, "servers_per_su");
    o.serversPerLeaf = intAt(j, "servers_per_leaf");
    o.switchRadix = intAt(j, "switch_radix");
    o.scaleUpDomainServers = intAt(j, "scaleup_domain_servers");
    o.planes = intAt(j, "planes");
    o.nicGbps = j.at("nic_gbps").get<double>();
    o.globalBatch = intAt(j, "global_batch");
    o.seq = intAt(j, "seq");
    o.maxTp = intAt(j, "max_tp");
    o.maxPp = intAt(j, "max_pp");
    o.maxCp = intAt(j, "max_cp");
    o.maxEp = intAt(j, "max_ep");
    o.maxMicroBatch = intAt(j, "max_micro_batch");
    o.interleaves = j.at("interleaves").get<std::vector<int>>();
    o.schedules.clear();
    for (const json &k : j.at("schedules")) {
        ScheduleKind kind;
        if (!parseSchedule(k.get<std::string>(), kind))
            throw ScenarioError("search.schedules", "unknown schedule");
        o.schedules.push_back(kind);
    }
    o.recomputes.clear();
    for (const json &k : j.at("recomputes")) {
        Recompute r;
        if (!parseRecompute(k.get<std::string>(), r))
            throw ScenarioError("search.recomputes", "unknown recompute");
        o.recomputes.push_back(r);
    }
    o.placements.clear();
    for (const json &k : j.at("placements")) {
        Placement p;
        if (!parsePlacement(k.get<std::string>(), p))
            throw ScenarioError("search.placements", "unknown placement");
        o.placements.push_back(p);
    }
    o.top = intAt(j, "top");
    return o;
}

json candidateJson(const LayoutCandidate &c, const std::string &model)
{
    return { { "index", c.index }, { "name", candidateName(model, c) }, { "tp", c.degrees.tp },
        { "pp", c.degrees.pp }, { "dp", c.degrees.dp }, { "cp", c.degrees.cp },
        { "ep", c.degrees.ep }, { "micro_batch", c.microBatch },
        { "schedule", std::string(scheduleName(c.schedule)) }, { "interleave", c.interleave },
        { "recompute", std::string(recomputeName(c.recompute)) },
        { "sequence_parallel", c.sequenceParallel },
        { "distributed_optimizer", c.distributedOptimizer },
        { "placement", std::string(placementName(c.placement)) },
        { "iteration_time_s", c.iterationTime }, { "tokens_per_s", c.tokensPerSecond },
        { "memory_headroom_gb", c.memoryHeadroomGB }, { "spine_share", c.spineShare },
        { "pareto", c.pareto } };
}

LayoutCandidate candidateFromJson(const json &j)
{
    LayoutCandidate c;
    c.index = int64At(j, "index");
    c.degrees = { intAt(j, "tp"), intAt(j, "pp"), intAt(j, "dp"), intAt(j, "cp"), intAt(j, "ep") };
    c.microBatch = intAt(j, "micro_batch");
    if (!parseSchedule(j.at("schedule").get<std::string>(), c.schedule))
        throw ScenarioError("schedule", "unknown schedule");
    c.interleave = intAt(j, "interleave");
    if (!parseRecompute(j.at("recompute").get<std::string>(), c.recompute))
        throw ScenarioError("recompute", "unknown recompute");
    c.sequenceParallel = j.at("sequence_parallel").get<bool>();
    c.distributedOptimizer = j.at("distributed_optimizer").get<bool>();
    if (!parsePlacement(j.at("placement").get<std::string>(), c.placement))
        throw ScenarioError("placement", "unknown placement");
    c.iterationTime = j.at("iteration_time_s").get<double>();
    c.tokensPerSecond = j.at("tokens_per_s").get<double>();
    c.memoryHeadroomGB = j.at("memory_headroom_gb").get<double>();
    c.spineShare = j.at("spine_share").get<double>();
    c.pareto = j.at("pareto").get<bool>();
    return c;
}

json rowsJson(const std::vector<LayoutCandidate> &rows, const std::string &model)
{
    json out = json::array();
    for (const LayoutCandidate &c : rows)
        out.push_back(candidateJson(c, model));
    return out;
}

json countsJson(const LayoutSearchResult &r)
{
    json pruned = json::object();
    for (const auto &[reason, n] : r.pruned)
        pruned[reason] = n;
    return { { "enumerated", r.enumerated }, { "considered", r.considered },
        { "evaluated", r.evaluated }, { "pruned", pruned } };
}

std::string fixed(double value, int digits)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

} // namespace

json layoutSearchJson(const LayoutSearchResult &r)
{
    json j;
    j["search"] = searchOptionsJson(r.options);
    j["counts"] = countsJson(r);
    j["cancelled"] = r.cancelled;
    j["top"] = rowsJson(r.top, r.baseName);
    j["pareto"] = rowsJson(r.front, r.baseName);
    return j;
}

json layoutSearchPartJson(const LayoutSearchResult &r)
{
    json j = layoutSearchJson(r);
    j["format"] = kPartFormat;
    j["format_version"] = kPartVersion;
    j["model_name"] = r.baseName;
    j["shard_count"] = r.options.shardCount;
    j["shards"] = r.shards;
    return j;
}

LayoutSearchResult layoutSearchFromPartJson(const json &j, const std::string &what)
{
    try {
        if (!j.is_object() || !j.contains("format") || j.at("format") != kPartFormat)
            throw ScenarioError(
                what, "is not a search part (write one with railyard-cli search --shard I/N)");
        if (j.at("format_version") != kPartVersion)
            throw ScenarioError(what, "is a search part of another format version");
        LayoutSearchResult r;
        r.options = searchOptionsFromJson(j.at("search"));
        r.options.shardCount = intAt(j, "shard_count");
        for (const json &shard : j.at("shards"))
            r.shards.push_back(static_cast<int>(
                checkedInteger(shard, "shards", 0, std::numeric_limits<int>::max())));
        r.options.shardIndex = r.shards.empty() ? 0 : r.shards.front();
        r.baseName = j.at("model_name").get<std::string>();
        const json &counts = j.at("counts");
        r.enumerated = int64At(counts, "enumerated");
        r.considered = int64At(counts, "considered");
        r.evaluated = int64At(counts, "evaluated");
        for (const auto &[reason, n] : counts.at("pruned").items())
            r.pruned[reason]
                = checkedInteger(n, reason, 0, std::numeric_limits<std::int64_t>::max());
        r.cancelled = j.at("cancelled").get<bool>();
        for (const json &c : j.at("top"))
            r.top.push_back(candidateFromJson(c));
        for (const json &c : j.at("pareto"))
            r.front.push_back(candidateFromJson(c));
        return r;
    } catch (const ScenarioError &e) {
        if (e.field() == what)
            throw;
        throw ScenarioError(what, "bad search part: " + std::string(e.what()));
    } catch (const json::exception &e) {
        throw ScenarioError(what, "bad search part: " + std::string(e.what()));
    }
}

std::string layoutSearchCsv(const LayoutSearchResult &r)
{
    std::string out = "rank,name,tp,pp,dp,cp,ep,micro_batch,schedule,interleave,recompute,"
                      "sequence_parallel,distributed_optimizer,placement,iteration_time_s,"
                      "tokens_per_s,memory_headroom_gb,spine_share,pareto\n";
    const auto row = [&out, &r](const LayoutCandidate &c, const std::string &rank) {
        const json j = candidateJson(c, r.baseName);
        out += rank + "," + candidateName(r.baseName, c);
        for (const char *key : { "tp", "pp", "dp", "cp", "ep", "micro_batch" })
            out += "," + j.at(key).dump();
        out += "," + std::string(scheduleName(c.schedule)) + "," + std::to_string(c.interleave)
            + "," + std::string(recomputeName(c.recompute)) + ","
            + (c.sequenceParallel ? "true" : "false") + ","
            + (c.distributedOptimizer ? "true" : "false") + ","
            + std::string(placementName(c.placement));
        for (const char *key :
            { "iteration_time_s", "tokens_per_s", "memory_headroom_gb", "spine_share" })
            out += "," + j.at(key).dump();
        out += c.pareto ? ",true\n" : ",false\n";
    };
    std::set<std::int64_t> inTop;
    for (std::size_t i = 0; i < r.top.size(); ++i) {
        row(r.top[i], std::to_string(i + 1));
        inTop.insert(r.top[i].index);
    }
    for (const LayoutCandidate &c : r.front)
        if (inTop.count(c.index) == 0)
            row(c, "");
    return out;
}

std::string layoutSearchText(const LayoutSearchResult &r)
{
    const LayoutSearchOptions &o = r.options;
    std::string out = "Layout search: " + r.baseName + " on " + std::to_string(o.gpus) + " "
        + o.device + " GPUs, " + std::string(fabricKindText(o.fabricKind)) + " fabric\n";
    out += std::to_string(r.considered) + " candidates, " + std::to_string(r.evaluated)
        + " evaluated by the engine";
    std::int64_t pruned = 0;
    for (const auto &[reason, n] : r.pruned)
        pruned += n;
    out += ", " + std::to_string(pruned) + " pruned";
    std::string reasons;
    for (const auto &[reason, n] : r.pruned)
        reasons += (reasons.empty() ? "" : ", ") + reason + " " + std::to_string(n);
    out += reasons.empty() ? "\n" : " (" + reasons + ")\n";
    if (r.cancelled)
        out += "CANCELLED: the figures cover the candidates done so far\n";
    const auto table = [&out](const std::vector<LayoutCandidate> &rows, bool ranks) {
        char line[256];
        std::snprintf(line, sizeof line,
            "%4s %4s %4s %5s %3s %3s %3s %-13s %-10s %-3s %-3s %-13s %10s %12s %9s %6s %s\n",
            ranks ? "rank" : "", "tp", "pp", "dp", "cp", "ep", "mb", "schedule", "recompute", "sp",
            "do", "placement", "iter (s)", "tokens/s", "free (GB)", "spine", "front");
        out += line;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const LayoutCandidate &c = rows[i];
            std::string schedule(scheduleName(c.schedule));
            if (c.schedule == ScheduleKind::Interleaved)
                schedule += " v" + std::to_string(c.interleave);
            std::snprintf(line, sizeof line,
                "%4s %4d %4d %5d %3d %3d %3d %-13s %-10s %-3s %-3s %-13s %10s %12s %9s %5s%% %s\n",
                ranks ? std::to_string(i + 1).c_str() : "", c.degrees.tp, c.degrees.pp,
                c.degrees.dp, c.degrees.cp, c.degrees.ep, c.microBatch, schedule.c_str(),
                std::string(recomputeName(c.recompute)).c_str(), c.sequenceParallel ? "on" : "-",
                c.distributedOptimizer ? "on" : "-",
                std::string(placementName(c.placement)).c_str(), fixed(c.iterationTime, 3).c_str(),
                fixed(c.tokensPerSecond, 0).c_str(), fixed(c.memoryHeadroomGB, 1).c_str(),
                fixed(100.0 * c.spineShare, 1).c_str(), c.pareto ? "*" : "");
            out += line;
        }
    };
    out += "\nTop " + std::to_string(r.top.size()) + " by throughput:\n";
    table(r.top, true);
    out += "\nPareto front (throughput, memory headroom, spine share): "
        + std::to_string(r.front.size()) + " candidates\n";
    table(r.front, false);
    return out;
}

} // namespace railyard
