#include "studies/blastradiusreport.h"

#include "base/quantityformat.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace railyard {

namespace {

/// Groups named in a text line before "and N more": enough to see the pattern of a rail's DP
/// groups without a line per rank of a large job.
constexpr std::size_t kGroupsInText = 8;

std::string percentText(double part, double whole)
{
    char text[32];
    std::snprintf(text, sizeof text, "%+.1f %%", whole > 0.0 ? 100.0 * part / whole : 0.0);
    return text;
}

} // namespace

std::string blastRadiusText(const BlastRadius &radius, const std::string &whose)
{
    if (radius.parts.empty())
        return {};
    const double extra = radius.degradedIterationTime - radius.healthyIterationTime;
    std::string text = "\nDegraded parts (docs/stragglers.md)" + (whose.empty() ? "" : ", " + whose)
        + ": iteration " + formatSeconds(radius.degradedIterationTime) + ", healthy "
        + formatSeconds(radius.healthyIterationTime) + " ("
        + percentText(extra, radius.healthyIterationTime) + ")\n";
    for (const PartImpact &p : radius.parts) {
        text += "  " + p.name + ": " + degradationEffectText(p.part) + "; alone +"
            + formatSeconds(p.delay) + " per iteration\n";
        text += "    groups waiting:";
        if (p.groups.empty())
            text += " none";
        for (std::size_t g = 0; g < p.groups.size() && g < kGroupsInText; ++g)
            text += (g == 0 ? " " : ", ") + waitingGroupName(p.groups[g]);
        if (p.groups.size() > kGroupsInText)
            text += " and " + std::to_string(p.groups.size() - kGroupsInText) + " more";
        text += "\n    stages waiting:";
        if (p.stages.empty())
            text += " none";
        for (std::size_t s = 0; s < p.stages.size(); ++s)
            text += std::string(s == 0 ? " " : ", ") + std::to_string(p.stages[s].stage) + " +"
                + formatSeconds(p.stages[s].delay);
        text += "\n";
    }
    return text;
}

nlohmann::json blastRadiusJson(const BlastRadius &radius)
{
    nlohmann::json parts = nlohmann::json::array();
    for (const PartImpact &p : radius.parts) {
        nlohmann::json groups = nlohmann::json::array();
        for (const WaitingGroup &g : p.groups)
            groups.push_back({ { "kind", std::string(groupKindName(g.kind)) }, { "index", g.index },
                { "ranks", g.ranks } });
        nlohmann::json stages = nlohmann::json::array();
        for (const WaitingStage &s : p.stages)
            stages.push_back({ { "stage", s.stage }, { "delay_s", s.delay } });
        parts.push_back({ { "id", degradationId(p.part) }, { "name", p.name },
            { "effect", degradationEffectText(p.part) }, { "delay_s", p.delay },
            { "groups_waiting", std::move(groups) }, { "stages_waiting", std::move(stages) } });
    }
    return parts;
}

} // namespace railyard
