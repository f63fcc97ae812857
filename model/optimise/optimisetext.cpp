#include "optimise/optimisetext.h"

#include "studies/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace railyard {

namespace {

using Unit = ComparedFigure::Unit;

std::string printed(const char *format, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

Unit unitOf(Objective o)
{
    return o == Objective::Spine ? Unit::Bytes : Unit::Seconds;
}

std::string objectiveLabel(Objective o)
{
    switch (o) {
    case Objective::Iteration:
        return "iteration time";
    case Objective::Spine:
        return "bytes over spine links";
    case Objective::P99:
        return "link busy time p99";
    case Objective::MaxLink:
        return "bottleneck link busy time";
    case Objective::EcmpP99:
        return "p99 iteration time under hashed ECMP";
    }
    return {};
}

/// " (-38 %)", or "" when the change is nil or the start is zero.
std::string change(double before, double after)
{
    if (std::abs(after - before) <= 1e-9 * std::max(std::abs(before), std::abs(after)))
        return " (=)";
    if (before == 0.0)
        return "";
    return printed(" (%+.1f %%)", 100.0 * (after - before) / before);
}

std::string trimmed(const std::string &s)
{
    return s.empty() ? s : s.substr(1);
}

std::string groupWord(GroupKind k)
{
    std::string name(groupKindName(k));
    for (char &c : name)
        c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    return name + " groups";
}

std::string counted(int before, int after, int of)
{
    return std::to_string(before) + " -> " + std::to_string(after) + " of " + std::to_string(of);
}

} // namespace

std::string stageStepText(const StageStep &s, Objective objective, bool rails)
{
    std::string text = "stage " + std::to_string(s.stage) + " (" + std::to_string(s.ranksMoved)
        + (s.ranksMoved == 1 ? " rank" : " ranks") + " moved): " + objectiveLabel(objective) + " "
        + formatFigure(unitOf(objective), s.before) + " -> "
        + formatFigure(unitOf(objective), s.after) + change(s.before, s.after);
    if (objective != Objective::Spine && std::abs(s.spineAfter - s.spineBefore) > 0.5)
        text += ", spine bytes " + formatFigure(Unit::Bytes, s.spineBefore) + " -> "
            + formatFigure(Unit::Bytes, s.spineAfter) + change(s.spineBefore, s.spineAfter);
    for (const GroupLocality &g : s.groups) {
        // Only what changed: a group that was on one server and still is says nothing.
        std::vector<std::string> parts;
        if (g.oneServerBefore != g.oneServerAfter)
            parts.push_back(
                "in one server " + counted(g.oneServerBefore, g.oneServerAfter, g.groups));
        // A TP group's rail and leaf only matter while it spans servers.
        const bool beyondServer = g.kind != GroupKind::Tp;
        if (beyondServer && rails && g.oneRailBefore != g.oneRailAfter)
            parts.push_back("on one rail " + counted(g.oneRailBefore, g.oneRailAfter, g.groups));
        if (beyondServer && g.oneLeafBefore != g.oneLeafAfter)
            parts.push_back("under one leaf " + counted(g.oneLeafBefore, g.oneLeafAfter, g.groups));
        for (std::size_t i = 0; i < parts.size(); ++i)
            text += (i == 0 ? "; " + groupWord(g.kind) + " " : ", ") + parts[i];
    }
    return text;
}

std::string optimiseText(const OptimiseResult &r)
{
    const Objective o = r.options.objective;
    const std::string name = r.scenario.name.empty() ? std::string("(unnamed)") : r.scenario.name;
    std::string out = "Optimise " + name + " for " + objectiveLabel(o) + " (from "
        + std::string(startName(r.options.from)) + ", keep " + std::string(keepName(r.options.keep))
        + ", seed " + std::to_string(r.options.seed) + "): " + std::to_string(r.evaluated)
        + " moves evaluated in " + printed("%.2f s", r.seconds) + " ("
        + printed("%.0f", r.movesPerSecond) + " moves/s), " + std::to_string(r.accepted)
        + " accepted, " + std::to_string(r.improvements) + " new bests"
        + (r.cancelled ? ", cancelled" : "") + "\n\n";

    struct Row
    {
        std::string label;
        Unit unit;
        double ObjectiveFigures::*field;
        Objective objective;
    };
    std::vector<Row> rows = {
        { "iteration time", Unit::Seconds, &ObjectiveFigures::iteration, Objective::Iteration },
        { "bytes over spine links", Unit::Bytes, &ObjectiveFigures::spineBytes, Objective::Spine },
        { "link busy time p99", Unit::Seconds, &ObjectiveFigures::p99Busy, Objective::P99 },
        { "bottleneck link busy time", Unit::Seconds, &ObjectiveFigures::maxBusy,
            Objective::MaxLink },
        { "spine share of NIC bytes", Unit::Fraction, &ObjectiveFigures::spineShare,
            Objective::Iteration },
    };
    if (o == Objective::EcmpP99) // its row only when searched for: ideal runs print as before
        rows.insert(rows.begin() + 1,
            { "p99 iteration, hashed ECMP", Unit::Seconds, &ObjectiveFigures::ecmpP99,
                Objective::EcmpP99 });
    std::vector<std::vector<std::string>> table
        = { { "", "file", "start", "result", "result vs start" } };
    for (const Row &row : rows) {
        const double a = r.start.*row.field, b = r.result.*row.field;
        const bool objectiveRow = row.unit != Unit::Fraction && row.objective == o;
        table.push_back({ (objectiveRow ? "* " : "  ") + row.label,
            formatFigure(row.unit, r.current.*row.field), formatFigure(row.unit, a),
            formatFigure(row.unit, b),
            row.unit == Unit::Fraction ? printed("%+.1f pp", 100.0 * (b - a))
                                       : trimmed(change(a, b)) });
    }
    table.push_back({ "  TP groups across servers", std::to_string(r.current.tpGroupsSplit),
        std::to_string(r.start.tpGroupsSplit), std::to_string(r.result.tpGroupsSplit), "" });
    table.push_back({ "  DP groups leaving their rail", std::to_string(r.current.dpGroupsOffRail),
        std::to_string(r.start.dpGroupsOffRail), std::to_string(r.result.dpGroupsOffRail), "" });
    std::vector<std::size_t> width(table.front().size(), 0);
    for (const auto &row : table)
        for (std::size_t c = 0; c < row.size(); ++c)
            width[c] = std::max(width[c], row[c].size());
    for (const auto &row : table) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c)
            line += row[c]
                + (c + 1 < row.size() ? std::string(width[c] - row[c].size() + 2, ' ') : "");
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out += line + "\n";
    }
    out += "(* the objective; link busy times are seconds per iteration)\n";

    out += "\nPer dimension, start -> result:\n";
    for (const DimensionChange &d : r.dims)
        out += "  " + std::string(dimName(d.dim)) + ": spine bytes "
            + formatFigure(Unit::Bytes, d.spineBefore) + " -> "
            + formatFigure(Unit::Bytes, d.spineAfter) + change(d.spineBefore, d.spineAfter)
            + ", exposed " + formatFigure(Unit::Seconds, d.exposedBefore) + " -> "
            + formatFigure(Unit::Seconds, d.exposedAfter) + change(d.exposedBefore, d.exposedAfter)
            + "\n";

    if (!r.steps.empty()) {
        out += "\nThe moves stage by stage (the engine's figures as each stage's ranks take their "
               "new\n"
               "slots, after the earlier stages' did):\n";
        const bool rails = r.current.dpGroupsOffRail > 0 || r.result.dpGroupsOffRail > 0
            || r.scenario.fabric.kind == FabricKind::RailOptimised;
        for (const StageStep &s : r.steps)
            out += "  " + stageStepText(s, o, rails) + "\n";
    }

    out += "\nConstraints:";
    for (std::size_t i = 0; i < r.constraints.size(); ++i)
        out += std::string(i ? "," : "") + " " + r.constraints[i].name + " refused "
            + std::to_string(r.constraints[i].rejected) + " of " + std::to_string(r.proposed)
            + " drawn moves";
    out += r.binding.empty() ? "; none bound\n" : "; binding: " + r.binding + "\n";
    for (const std::string &n : r.notes)
        out += "Note: " + n + "\n";
    out += "Ranks moved: " + std::to_string(r.ranksMoved) + " of "
        + std::to_string(r.scenario.slots.size()) + " against the start; mapping version "
        + std::to_string(r.scenario.mappingVersion) + "\n";
    return out;
}

} // namespace railyard
