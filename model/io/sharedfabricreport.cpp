#include "io/sharedfabricreport.h"

#include "base/quantityformat.h"
#include "fabric/fabric.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace railyard {

namespace {

/// The text shows the worst few rows per job; the JSON up to kMaxInterferenceRows.
constexpr std::size_t kTextInterferenceRows = 5;

std::string percentText(double fraction)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.1f %%", 100.0 * fraction);
    return text;
}

} // namespace

nlohmann::json sharedFabricToJson(const SharedFabricReport &report)
{
    const Fabric &fabric = *report.fabric;
    nlohmann::json jobs = nlohmann::json::array();
    for (const JobReport &job : report.jobs) {
        nlohmann::json rows = nlohmann::json::array();
        const std::size_t shown = std::min(job.interference.size(), kMaxInterferenceRows);
        for (std::size_t i = 0; i < shown; ++i) {
            const JobInterference &row = job.interference[i];
            rows.push_back({ { "link", row.link }, { "link_name", fabric.linkName(row.link) },
                { "neighbour", report.jobs[static_cast<std::size_t>(row.neighbour)].name },
                { "seconds", row.seconds } });
        }
        jobs.push_back({ { "name", job.name }, { "colour", job.colour }, { "ranks", job.ranks },
            { "iteration_time_s", job.iterationTime },
            { "alone_iteration_time_s", job.aloneIterationTime }, { "slowdown", job.slowdown() },
            { "shared_links", job.sharedLinks }, { "bottleneck_link", job.shared().bottleneckLink },
            { "bottleneck_name",
                job.shared().bottleneckLink >= 0 ? fabric.linkName(job.shared().bottleneckLink)
                                                 : std::string() },
            { "interference_rows", job.interference.size() }, { "interference", rows } });
    }
    nlohmann::json out;
    out["overlap"] = std::string(phaseOverlapName(report.overlap));
    out["slots"] = report.slots;
    out["free_slots"] = report.freeSlots;
    out["jobs"] = std::move(jobs);
    const int b = report.bottleneckLink;
    out["fabric"] = { { "bottleneck_link", b },
        { "bottleneck_name", b >= 0 ? fabric.linkName(b) : std::string() },
        { "bottleneck_utilisation",
            b >= 0 ? report.linkUtilisation[static_cast<std::size_t>(b)] : 0.0 },
        { "bottleneck_bytes", b >= 0 ? report.linkBytes[static_cast<std::size_t>(b)] : 0.0 } };
    return out;
}

std::string sharedFabricToText(const SharedFabricReport &report)
{
    const Fabric &fabric = *report.fabric;
    std::string text = "Shared fabric: " + std::to_string(report.jobs.size()) + " jobs on "
        + std::to_string(report.slots) + " GPU slots (" + std::to_string(report.freeSlots)
        + " free); phases overlap: " + std::string(phaseOverlapName(report.overlap)) + "\n";
    for (const JobReport &job : report.jobs) {
        char line[96];
        std::snprintf(line, sizeof line, "x%.4f", job.slowdown());
        text += "\njob " + job.name + " (" + std::to_string(job.ranks) + " ranks, " + job.colour
            + "): iteration " + formatSeconds(job.iterationTime) + " shared, "
            + formatSeconds(job.aloneIterationTime) + " alone (" + line + ")\n";
        if (job.sharedLinks == 0) {
            text += "  shares no link with another job\n";
            continue;
        }
        text += "  shares " + std::to_string(job.sharedLinks)
            + (job.sharedLinks == 1 ? " link" : " links") + "; where neighbours cost it most:\n";
        const std::size_t shown = std::min(job.interference.size(), kTextInterferenceRows);
        for (std::size_t i = 0; i < shown; ++i) {
            const JobInterference &row = job.interference[i];
            text += "    " + fabric.linkName(row.link) + ": "
                + report.jobs[static_cast<std::size_t>(row.neighbour)].name + " adds "
                + formatSeconds(row.seconds) + "\n";
        }
        if (job.interference.size() > shown)
            text += "    (" + std::to_string(job.interference.size() - shown) + " more)\n";
    }
    if (report.bottleneckLink >= 0) {
        const auto b = static_cast<std::size_t>(report.bottleneckLink);
        text += "\nfabric: busiest link " + fabric.linkName(report.bottleneckLink) + ", "
            + percentText(report.linkUtilisation[b]) + " utilised, "
            + formatBytes(report.linkBytes[b]) + " per iteration over the jobs\n";
    }
    return text;
}

} // namespace railyard
