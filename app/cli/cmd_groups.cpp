/**
 * `railyard-cli groups`: lists the Megatron-LM communication groups (tp, pp, dp, cp, ep, dp-cp,
 * tp-pp and the expert data-parallel edp) for given degrees and rank order, as JSON or text.
 * The groups come from ParallelLayout, the same generator the engine and the GUI use.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"

#include "base/scenarioerror.h"
#include "layout/parallellayout.h"

#include <nlohmann/json.hpp>

#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace railyard::cli {

namespace {

constexpr GroupKind kKinds[] = { GroupKind::Tp, GroupKind::Pp, GroupKind::Dp, GroupKind::Cp,
    GroupKind::Ep, GroupKind::DpCp, GroupKind::TpPp, GroupKind::ExpertDp };

/// Engine field -> the flag the user typed, so errors name the option to fix.
std::string groupsFlagFor(const std::string &field)
{
    static const std::pair<const char *, const char *> kFlags[] = { { "parallel.tp", "--tp" },
        { "parallel.pp", "--pp" }, { "parallel.dp", "--dp" }, { "parallel.cp", "--cp" },
        { "parallel.ep", "--ep" }, { "parallel.order", "--order" }, { "parallel", "degrees" } };
    for (const auto &[engine, flag] : kFlags)
        if (field == engine)
            return flag;
    return field;
}

/// {"format_version": 1, "world_size": N, "groups": {kind: [[ranks], ...]}}, the kinds in kKinds
/// order and one group per line: pretty-printing every rank on its own line would make 128 GPUs
/// 2,000 lines.
std::string groupsJson(const ParallelLayout &layout)
{
    std::string out = "{\n  \"format_version\": " + std::to_string(kJsonFormatVersion)
        + ",\n  \"world_size\": " + std::to_string(layout.worldSize()) + ",\n  \"groups\": {\n";
    for (std::size_t k = 0; k < std::size(kKinds); ++k) {
        out += "    " + nlohmann::json(std::string(groupKindName(kKinds[k]))).dump() + ": [\n";
        const auto &groups = layout.groups(kKinds[k]);
        for (std::size_t g = 0; g < groups.size(); ++g)
            out += "      " + nlohmann::json(groups[g]).dump()
                + (g + 1 < groups.size() ? ",\n" : "\n");
        out += k + 1 < std::size(kKinds) ? "    ],\n" : "    ]\n";
    }
    return out + "  }\n}\n";
}

std::string groupsText(const ParallelLayout &layout)
{
    const ParallelDegrees &d = layout.degrees();
    std::string out = "world size " + std::to_string(layout.worldSize()) + ": tp="
        + std::to_string(d.tp) + " pp=" + std::to_string(d.pp) + " dp=" + std::to_string(d.dp)
        + " cp=" + std::to_string(d.cp) + " ep=" + std::to_string(d.ep) + ", order "
        + layout.order() + " (first dimension varies fastest)\n";
    for (GroupKind kind : kKinds) {
        const auto &groups = layout.groups(kind);
        const std::size_t size = groups.empty() ? 0 : groups.front().size();
        out += "\n" + std::string(groupKindName(kind)) + ": " + std::to_string(groups.size())
            + (groups.size() == 1 ? " group of " : " groups of ") + std::to_string(size)
            + (size == 1 ? " rank\n" : " ranks\n");
        for (std::size_t g = 0; g < groups.size(); ++g) {
            out += "  " + std::to_string(g) + ":";
            for (int r : groups[g])
                out += " " + std::to_string(r);
            out += "\n";
        }
    }
    return out;
}

struct GroupsOptions
{
    DegreeOptions degrees;
    std::string order = "tp-cp-ep-dp-pp";
    bool json = false;
};

int runGroups(const GroupsOptions &o)
{
    ParallelDegrees degrees;
    degrees.tp = toInt("--tp", o.degrees.tp);
    degrees.pp = toInt("--pp", o.degrees.pp);
    degrees.dp = toInt("--dp", o.degrees.dp);
    degrees.cp = toInt("--cp", o.degrees.cp);
    degrees.ep = toInt("--ep", o.degrees.ep);

    std::string text;
    try {
        const ParallelLayout layout(degrees, o.order);
        text = o.json ? groupsJson(layout) : groupsText(layout);
    } catch (const ScenarioError &e) {
        throw ScenarioError(groupsFlagFor(e.field()), e.reason());
    }
    writeOutput({}, text);
    return kExitOk;
}

} // namespace

void addGroups(CommandLine &line)
{
    auto o = std::make_shared<GroupsOptions>();
    Command c(line,
        line.addCommand("groups",
            "List the Megatron-LM communication groups for given "
            "degrees. They are the groups Megatron-LM's RankGenerator "
            "builds (world = tp*pp*dp*cp; ep splits dp*cp); the order "
            "lists dimensions fastest-varying first. Kinds: tp, pp, dp, "
            "cp, ep, dp-cp, tp-pp and edp (expert data parallel).",
            [o] { return runGroups(*o); }));
    c.degrees(o->degrees, "Data-parallel degree (default 1).",
        "Expert-parallel degree, divides dp*cp (default 1).");
    c.text("--order", o->order, "ORDER", "Rank order, fastest first (default tp-cp-ep-dp-pp).");
    c.json(o->json,
        "Print {\"format_version\": 1, \"world_size\": N, \"groups\": {kind: [[ranks]]}}.");
}

} // namespace railyard::cli
