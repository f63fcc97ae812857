#include "ecmpoptions.h"

#include "command.h"

#include "base/quantityformat.h"
#include "base/scenarioerror.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace railyard::cli {

void addEcmpFlags(Command &c, EcmpFlags &flags)
{
    std::vector<std::string> modes;
    for (const EcmpMode m : kAllEcmpModes)
        modes.emplace_back(ecmpModeName(m));
    c.choice("--ecmp", flags.mode, "MODE",
        "How flows take equal-cost paths, overriding the file's fabric.routing: ideal (even "
        "split), hashed (one path per queue pair, over seeds) or adaptive (docs/ecmp.md).",
        modes);
    flags.qpsOption = c.integer("--qps-per-connection", flags.qps, "N",
        "Hashed ECMP: queue pairs per connection, each hashed alone "
        "(NCCL_IB_QPS_PER_CONNECTION; default: the file's, 1).");
    flags.seedsOption = c.integer("--seeds", flags.seeds, "K",
        "Hashed ECMP: seeds for the expected and p99 figures (default: the file's, 64).");
}

void applyEcmpFlags(const EcmpFlags &flags, EcmpRouting &routing)
{
    if (!flags.mode.empty() && !parseEcmpMode(flags.mode, routing.mode))
        throw ScenarioError(
            "--ecmp", "unknown mode '" + flags.mode + "' (ideal, hashed, adaptive)");
    if (flags.qpsOption && flags.qpsOption->count() > 0) {
        if (flags.qps < 1 || flags.qps > EcmpRouting::kMaxQps)
            throw ScenarioError("--qps-per-connection",
                "expected 1.." + std::to_string(EcmpRouting::kMaxQps) + " queue pairs, got "
                    + std::to_string(flags.qps));
        routing.qpsPerConnection = flags.qps;
    }
    if (flags.seedsOption && flags.seedsOption->count() > 0) {
        if (flags.seeds < 1 || flags.seeds > EcmpRouting::kMaxSeeds)
            throw ScenarioError("--seeds",
                "expected 1.." + std::to_string(EcmpRouting::kMaxSeeds) + " seeds, got "
                    + std::to_string(flags.seeds));
        routing.seeds = flags.seeds;
    }
}

namespace {

nlohmann::json ecmpLinkJson(const EcmpLinkFigure &f, const Fabric &fabric)
{
    return { { "link", f.link }, { "name", fabric.linkName(f.link) },
        { "ideal_bytes", f.idealBytes }, { "expected_bytes", f.expectedBytes },
        { "p99_bytes", f.p99Bytes }, { "worst_seed_bytes", f.worstBytes },
        { "worst_seed_flows", f.flows }, { "siblings", f.siblings },
        { "sibling_mean_bytes", f.siblingMeanBytes }, { "sibling_mean_flows", f.siblingMeanFlows },
        { "collision", f.collision } };
}

} // namespace

nlohmann::json ecmpReportJson(const EcmpReport &r, const CostEngine &engine, bool allLinks)
{
    const EcmpRouting &g = r.routing;
    nlohmann::json j = { { "routing", std::string(ecmpModeName(g.mode)) },
        { "qps_per_connection", g.qpsPerConnection },
        { "seeds", g.mode == EcmpMode::Hashed ? g.seeds : 1 },
        { "adaptive_efficiency", g.adaptiveEfficiency },
        { "iteration_time_ideal_s", r.idealIterationTime },
        { "iteration_time_s", r.expectedIterationTime },
        { "iteration_time_p99_s", r.p99IterationTime },
        { "dp_sync_time_ideal_s", r.idealDpSyncTime }, { "dp_sync_time_s", r.expectedDpSyncTime },
        { "dp_sync_time_p99_s", r.p99DpSyncTime },
        { "max_link_bytes",
            { { "ideal", r.idealMaxLinkBytes }, { "expected", r.expectedMaxLinkBytes },
                { "p99", r.p99MaxLinkBytes } } },
        { "max_utilisation", r.maxUtilisation }, { "worst_seed", r.worstSeed } };
    nlohmann::json phases = nlohmann::json::array();
    const CostReport &report = engine.report();
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
        const std::string name
            = i < report.phases.size() ? report.phases[i].name : "op " + std::to_string(i);
        phases.push_back({ { "name", name }, { "time_ideal_s", r.ops[i].ideal },
            { "time_s", r.ops[i].expected }, { "time_p99_s", r.ops[i].p99 } });
    }
    j["phases"] = std::move(phases);
    nlohmann::json links = nlohmann::json::array();
    const std::size_t n = allLinks ? r.links.size() : std::min(r.links.size(), kEcmpTopLinks);
    for (std::size_t i = 0; i < n; ++i)
        links.push_back(ecmpLinkJson(r.links[i], engine.fabric()));
    j["ecmp_links"] = r.links.size();
    j["links"] = std::move(links);
    return j;
}

std::string ecmpReportText(const EcmpReport &r, const CostEngine &engine)
{
    const EcmpRouting &g = r.routing;
    std::string text = "\nECMP " + std::string(ecmpModeName(g.mode));
    if (g.mode == EcmpMode::Hashed)
        text += " (" + std::to_string(g.seeds) + " seeds, " + std::to_string(g.qpsPerConnection)
            + (g.qpsPerConnection == 1 ? " QP" : " QPs") + " per connection)";
    else if (g.mode == EcmpMode::Adaptive)
        text += " (efficiency "
            + std::to_string(static_cast<int>(g.adaptiveEfficiency * 100.0 + 0.5)) + " %)";
    text += "\n  iteration: ideal " + formatSeconds(r.idealIterationTime) + ", expected "
        + formatSeconds(r.expectedIterationTime) + ", p99 " + formatSeconds(r.p99IterationTime)
        + "\n  busiest ECMP link per iteration: ideal " + formatBytes(r.idealMaxLinkBytes)
        + ", expected " + formatBytes(r.expectedMaxLinkBytes) + ", p99 "
        + formatBytes(r.p99MaxLinkBytes) + "\n";
    // The eight hottest collisions (by p99 load): a screenful; --json lists them all.
    int shown = 0;
    for (const EcmpLinkFigure &f : r.links) {
        if (!f.collision || shown == 8)
            continue;
        ++shown;
        text += "  collision: " + std::to_string(f.flows) + " flows hashed onto "
            + engine.fabric().linkName(f.link) + " (" + formatBytes(f.worstBytes)
            + "/iter) while its " + std::to_string(f.siblings) + " siblings carry "
            + formatBytes(f.siblingMeanBytes) + "/iter on average";
        char flows[64];
        std::snprintf(flows, sizeof flows, " (%.1f flows)\n", f.siblingMeanFlows);
        text += flows;
    }
    return text;
}

} // namespace railyard::cli
