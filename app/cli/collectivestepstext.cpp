#include "collectivestepstext.h"

#include "base/quantityformat.h"
#include "fabric/fabric.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace railyard::cli {

namespace {

/// The busiest links listed after the table: enough to show where the bytes go without
/// printing a 16,384-member ring's every link (the JSON has them all).
constexpr std::size_t kListedLinks = 10;

} // namespace

std::string collectiveStepsText(const CollectiveSteps &steps, const Fabric &fabric)
{
    std::string out = "steps of " + std::string(collectiveName(steps.op)) + " "
        + steps.algorithmText + " over " + std::to_string(steps.members)
        + " ranks: " + std::to_string(steps.stepCount()) + " steps, "
        + std::to_string(steps.channels) + (steps.channels == 1 ? " channel" : " channels")
        + ", S = " + formatBytes(steps.bytes) + "\n";
    // The "what" column as wide as its longest entry (NVLS and tree levels name theirs at
    // length, a ring's are short).
    std::size_t what = 4;
    for (const StepPhase &p : steps.phases)
        what = std::max(what, p.name.size());
    const int w = static_cast<int>(std::min<std::size_t>(what, 200));
    char line[512];
    std::snprintf(line, sizeof line, "%-11s %-*s %6s %6s  %-28s %12s\n", "steps", w, "what",
        "sends", "links", "busiest link", "bytes/step");
    out += line;
    int first = 0;
    for (const StepPhase &p : steps.phases) {
        const std::string range = p.count == 1
            ? std::to_string(first + 1)
            : std::to_string(first + 1) + "-" + std::to_string(first + p.count);
        const auto busiest = std::max_element(p.links.begin(), p.links.end(),
            [](const StepLink &a, const StepLink &b) { return a.bytes < b.bytes; });
        std::snprintf(line, sizeof line, "%-11s %-*s %6zu %6zu  %-28s %12s\n", range.c_str(), w,
            p.name.c_str(), p.sends.size(), p.links.size(),
            busiest == p.links.end() ? "-" : fabric.linkName(busiest->link).c_str(),
            busiest == p.links.end() ? "0 B" : formatBytes(busiest->bytes).c_str());
        out += line;
        first += p.count;
    }
    std::vector<StepLink> totals = steps.totals();
    std::stable_sort(totals.begin(), totals.end(),
        [](const StepLink &a, const StepLink &b) { return a.bytes > b.bytes; });
    out += "bytes per link over all steps (the busiest "
        + std::to_string(std::min(kListedLinks, totals.size())) + " of "
        + std::to_string(totals.size()) + "):\n";
    for (std::size_t i = 0; i < totals.size() && i < kListedLinks; ++i) {
        std::snprintf(line, sizeof line, "  %-40s %12s\n", fabric.linkName(totals[i].link).c_str(),
            formatBytes(totals[i].bytes).c_str());
        out += line;
    }
    return out;
}

nlohmann::json collectiveStepsJson(const CollectiveSteps &steps, const Fabric &fabric)
{
    nlohmann::json phases = nlohmann::json::array();
    int first = 0;
    for (const StepPhase &p : steps.phases) {
        nlohmann::json links = nlohmann::json::array();
        for (const StepLink &l : p.links)
            links.push_back(
                { { "link", l.link }, { "name", fabric.linkName(l.link) }, { "bytes", l.bytes } });
        phases.push_back({ { "first_step", first + 1 }, { "count", p.count }, { "name", p.name },
            { "sends", p.sends.size() }, { "links", std::move(links) } });
        first += p.count;
    }
    nlohmann::json totals = nlohmann::json::array();
    for (const StepLink &l : steps.totals())
        totals.push_back(
            { { "link", l.link }, { "name", fabric.linkName(l.link) }, { "bytes", l.bytes } });
    return { { "algorithm", steps.algorithmText }, { "steps", steps.stepCount() },
        { "channels", steps.channels }, { "phases", std::move(phases) },
        { "link_totals", std::move(totals) } };
}

} // namespace railyard::cli
