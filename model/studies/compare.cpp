#include "studies/compare.h"

#include "io/reportjson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace railyard {

namespace {

using Unit = ComparedFigure::Unit;
using Better = ComparedFigure::Better;

/// Tokens one iteration trains on: global batch (sequences) x sequence length.
double tokensPerIteration(const Scenario &s)
{
    return static_cast<double>(s.training.globalBatch) * s.model.seq;
}

int tpGroupsAcrossServers(const CostEngine &e)
{
    const Fabric &f = e.fabric();
    const Mapping &m = e.mapping();
    int count = 0;
    for (const std::span<const int> group : e.layout().groups(GroupKind::Tp)) {
        const int server = f.serverOfSlot(m.slotOf(group.front()));
        count += std::any_of(group.begin(), group.end(),
            [&](int r) { return f.serverOfSlot(m.slotOf(r)) != server; });
    }
    return count;
}

/// DP groups whose members do not all sit on one rail (same-rail DP never needs a spine; rail
/// fabrics only, 0 on ToR fabrics where rails do not exist).
int dpGroupsOffRail(const CostEngine &e)
{
    const Fabric &f = e.fabric();
    if (f.railCount() == 0)
        return 0;
    const Mapping &m = e.mapping();
    int count = 0;
    for (const std::span<const int> group : e.layout().groups(GroupKind::Dp)) {
        const int rail = f.railOfSlot(m.slotOf(group.front()));
        count += std::any_of(
            group.begin(), group.end(), [&](int r) { return f.railOfSlot(m.slotOf(r)) != rail; });
    }
    return count;
}

double tierTotal(const CostReport &r, Tier t)
{
    double sum = 0.0;
    for (double v : r.tierBytes[index(t)])
        sum += v;
    return sum;
}

/// The figures in display order. Each lambda reads one side.
struct FigureDef
{
    const char *key;
    const char *label;
    Unit unit;
    Better better;
    double (*value)(const CostEngine &);
};

const std::vector<FigureDef> &figureDefs()
{
    static const std::vector<FigureDef> defs = {
        { "iteration_time_s", "Iteration time", Unit::Seconds, Better::Lower,
            [](const CostEngine &e) { return e.report().iterationTime; } },
        { "tokens_per_s", "Throughput (tokens/s)", Unit::PerSecond, Better::Higher,
            [](const CostEngine &e) {
                const double t = e.report().iterationTime;
                return t > 0.0 ? tokensPerIteration(e.scenario()) / t : 0.0;
            } },
        { "mfu", "Model FLOPs utilisation", Unit::Fraction, Better::Higher,
            [](const CostEngine &e) { return e.report().mfu; } },
        { "bubble_fraction", "Pipeline bubble", Unit::Fraction, Better::Lower,
            [](const CostEngine &e) { return e.report().bubbleFraction; } },
        { "spine_bytes_share", "Spine share of NIC bytes", Unit::Fraction, Better::Lower,
            [](const CostEngine &e) { return e.report().spineBytesShare; } },
        { "spine_bytes", "Bytes over leaf-spine links", Unit::Bytes, Better::Lower,
            [](const CostEngine &e) { return tierTotal(e.report(), Tier::Spine); } },
        { "link_p50", "Link utilisation p50", Unit::Fraction, Better::Lower,
            [](const CostEngine &e) { return e.report().linkStats.p50; } },
        { "link_p95", "Link utilisation p95", Unit::Fraction, Better::Lower,
            [](const CostEngine &e) { return e.report().linkStats.p95; } },
        { "link_p99", "Link utilisation p99", Unit::Fraction, Better::Lower,
            [](const CostEngine &e) { return e.report().linkStats.p99; } },
        { "link_max", "Bottleneck link utilisation", Unit::Fraction, Better::Lower,
            [](const CostEngine &e) { return e.report().linkStats.max; } },
        { "exposed_tp_s", "Exposed TP time", Unit::Seconds, Better::Lower,
            [](const CostEngine &e) { return e.report().dimExposed[index(Dim::Tp)]; } },
        { "exposed_pp_s", "Exposed PP time", Unit::Seconds, Better::Lower,
            [](const CostEngine &e) { return e.report().dimExposed[index(Dim::Pp)]; } },
        { "exposed_dp_s", "Exposed DP time", Unit::Seconds, Better::Lower,
            [](const CostEngine &e) { return e.report().dimExposed[index(Dim::Dp)]; } },
        { "exposed_ep_s", "Exposed EP time", Unit::Seconds, Better::Lower,
            [](const CostEngine &e) { return e.report().dimExposed[index(Dim::Ep)]; } },
        { "exposed_cp_s", "Exposed CP time", Unit::Seconds, Better::Lower,
            [](const CostEngine &e) { return e.report().dimExposed[index(Dim::Cp)]; } },
        { "max_memory_per_rank_bytes", "Memory per rank (max)", Unit::Bytes, Better::Lower,
            [](const CostEngine &e) { return e.report().maxMemoryPerRank; } },
        { "tp_groups_across_servers", "TP groups across servers", Unit::Count, Better::Lower,
            [](const CostEngine &e) { return static_cast<double>(tpGroupsAcrossServers(e)); } },
        { "dp_groups_off_rail", "DP groups leaving their rail", Unit::Count, Better::Lower,
            [](const CostEngine &e) { return static_cast<double>(dpGroupsOffRail(e)); } },
        { "ranks", "Ranks", Unit::Count, Better::Neither,
            [](const CostEngine &e) { return static_cast<double>(e.report().ranks); } },
    };
    return defs;
}

bool sameTopology(const Fabric &a, const Fabric &b)
{
    if (a.linkCount() != b.linkCount())
        return false;
    for (int i = 0; i < a.linkCount(); ++i) {
        const FabricLink &x = a.link(i);
        const FabricLink &y = b.link(i);
        if (x.src != y.src || x.dst != y.dst || x.tier != y.tier)
            return false;
    }
    return true;
}

std::string printf1(const char *fmt, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return buf;
}

std::string coordText(const RankCoord &c)
{
    std::string s
        = "(d" + std::to_string(c.d) + ",p" + std::to_string(c.p) + ",t" + std::to_string(c.t);
    if (c.c > 0)
        s += ",c" + std::to_string(c.c);
    return s + ")";
}

std::string slotText(const Fabric &f, int slot)
{
    if (slot < 0)
        return "-";
    if (slot >= f.slotCount())
        return "slot " + std::to_string(slot);
    return f.serverName(f.serverOfSlot(slot)) + "/gpu" + std::to_string(f.gpuOfSlot(slot));
}

} // namespace

double ComparedFigure::relative() const
{
    if (a == b)
        return 0.0;
    if (a == 0.0)
        return b > 0.0 ? std::numeric_limits<double>::infinity()
                       : -std::numeric_limits<double>::infinity();
    return (b - a) / std::abs(a);
}

bool ComparedFigure::changed() const
{
    const double d = std::abs(b - a);
    switch (unit) {
    case Unit::Fraction:
        return d * 100.0 >= 0.05; // "%.1f pp" would write 0.0
    case Unit::Count:
        return d >= 0.5;
    case Unit::Seconds:
    case Unit::Bytes:
    case Unit::PerSecond:
        break;
    }
    // "(+0.0 %)" below this: a change too small for the relative figure written beside it.
    return d >= 5e-4 * std::max(std::abs(a), std::abs(b)) && d > 0.0;
}

int ComparedFigure::verdict() const
{
    if (better == Better::Neither || !changed())
        return 0;
    const bool lower = b < a;
    return (better == Better::Lower) == lower ? 1 : -1;
}

const ComparedFigure *Comparison::figure(const std::string &key) const
{
    for (const ComparedFigure &f : figures)
        if (f.key == key)
            return &f;
    return nullptr;
}

Comparison compareEngines(const CostEngine &a, const CostEngine &b, int topLinks)
{
    Comparison c;
    c.nameA = a.scenario().name;
    c.nameB = b.scenario().name;
    for (const FigureDef &def : figureDefs())
        c.figures.push_back(
            { def.key, def.label, def.unit, def.better, def.value(a), def.value(b) });

    c.attribution = attributeChange(a.report(), b.report());

    // Links: only meaningful when link ids denote the same cables on both sides.
    c.sameTopology = sameTopology(a.fabric(), b.fabric());
    if (c.sameTopology) {
        const CostReport &ra = a.report();
        const CostReport &rb = b.report();
        const auto larger = [](const LinkChange &x, const LinkChange &y) {
            const double dx = std::abs(x.delta()), dy = std::abs(y.delta());
            return dx != dy ? dx > dy : x.link < y.link;
        };
        // The `keep` largest changes, selected as they come: when the iteration time differs,
        // every loaded link's utilisation does (139,000 links at 16,384 GPUs), and listing them
        // all before sorting was most of the comparison the GUI redoes after every edit. The
        // order is total (ties by link id), so the selection is the sort's.
        const std::size_t keep = static_cast<std::size_t>(std::max(0, topLinks));
        std::vector<LinkChange> top;
        top.reserve(2 * keep);
        for (int i = 0; i < a.fabric().linkCount(); ++i) {
            const double ba = ra.links[i].bytes;
            const double bb = rb.links[i].bytes;
            const double ua = ra.utilisation(i);
            const double ub = rb.utilisation(i);
            if (ba != bb || ua != ub) {
                // Utilisation also shifts when only the iteration time changed; count a link
                // as changed only when its bytes did.
                c.changedLinkCount += ba != bb;
                if (keep == 0)
                    continue;
                top.push_back({ i, ba, bb, ua, ub });
                if (top.size() == 2 * keep) { // drop the lower half
                    std::nth_element(top.begin(),
                        top.begin() + static_cast<std::ptrdiff_t>(keep - 1), top.end(), larger);
                    top.resize(keep);
                }
            }
        }
        const std::size_t kept = std::min(top.size(), keep);
        std::partial_sort(
            top.begin(), top.begin() + static_cast<std::ptrdiff_t>(kept), top.end(), larger);
        top.resize(kept);
        c.links = std::move(top);
    }

    // Ranks by their dense coordinates (t,p,d,c): the same logical shard on both sides even
    // when the degrees differ (a failure remap that dropped replicas renumbers global ranks).
    const ParallelLayout &la = a.layout();
    const ParallelLayout &lb = b.layout();
    const ParallelDegrees &db = lb.degrees();
    const ParallelDegrees &da = la.degrees();
    const auto inside = [](const RankCoord &x, const ParallelDegrees &d) {
        return x.t < d.tp && x.p < d.pp && x.d < d.dp && x.c < d.cp;
    };
    for (int r = 0; r < la.worldSize(); ++r) {
        const RankCoord x = la.coord(r);
        const int slotA = a.mapping().slotOf(r);
        if (!inside(x, db)) {
            c.moved.push_back({ x, r, -1, slotA, -1 });
            continue;
        }
        const int rb = lb.rankOf(x.t, x.p, x.d, x.c);
        ++c.ranksCompared;
        const int slotB = b.mapping().slotOf(rb);
        if (slotA != slotB)
            c.moved.push_back({ x, r, rb, slotA, slotB });
    }
    for (int r = 0; r < lb.worldSize(); ++r) {
        const RankCoord x = lb.coord(r);
        if (!inside(x, da))
            c.moved.push_back({ x, -1, r, -1, b.mapping().slotOf(r) });
    }
    return c;
}

std::string formatFigure(Unit unit, double v)
{
    switch (unit) {
    case Unit::Seconds:
        return formatSeconds(v);
    case Unit::Fraction:
        return printf1("%.1f %%", v * 100.0);
    case Unit::Bytes:
        return formatBytes(v);
    case Unit::Count:
        return printf1("%.0f", v);
    case Unit::PerSecond:
        return printf1("%.4g", v);
    }
    return {};
}

std::string formatFigureDelta(const ComparedFigure &f)
{
    const double d = f.delta();
    if (!f.changed())
        return "=";
    std::string text;
    switch (f.unit) {
    case Unit::Seconds:
        text = (d >= 0 ? "+" : "-") + formatSeconds(std::abs(d));
        break;
    case Unit::Fraction:
        // Percentage points: a utilisation going 40 % -> 50 % is +10 pp, not +25 %. Changes
        // too small for one decimal are "=" (changed()).
        return printf1("%+.1f pp", d * 100.0);
    case Unit::Bytes:
        text = (d >= 0 ? "+" : "-") + formatBytes(std::abs(d));
        break;
    case Unit::Count:
        return printf1("%+.0f", d);
    case Unit::PerSecond:
        text = printf1("%+.4g", d);
        break;
    }
    const double rel = f.relative();
    if (std::isfinite(rel))
        text += printf1(" (%+.1f %%)", rel * 100.0);
    return text;
}

nlohmann::json comparisonToJson(const Comparison &c, const Fabric &fabricB)
{
    using nlohmann::json;
    json j;
    j["a"] = c.nameA;
    j["b"] = c.nameB;
    json figures = json::object();
    for (const ComparedFigure &f : c.figures) {
        const double rel = f.relative();
        figures[f.key] = { { "a", f.a }, { "b", f.b }, { "delta", f.delta() },
            { "relative", std::isfinite(rel) ? json(rel) : json(nullptr) },
            { "verdict",
                f.verdict() > 0       ? "better"
                    : f.verdict() < 0 ? "worse"
                                      : "same" } };
    }
    j["figures"] = figures;
    j["same_topology"] = c.sameTopology;
    j["changed_links"] = c.changedLinkCount;
    json links = json::array();
    for (const LinkChange &l : c.links)
        links.push_back({ { "id", l.link }, { "name", fabricB.linkName(l.link) },
            { "bytes_a", l.bytesA }, { "bytes_b", l.bytesB }, { "utilisation_a", l.utilisationA },
            { "utilisation_b", l.utilisationB } });
    j["links"] = links;
    j["ranks_compared"] = c.ranksCompared;
    json moved = json::array();
    for (const RankMove &m : c.moved)
        moved.push_back({ { "d", m.coord.d }, { "p", m.coord.p }, { "t", m.coord.t },
            { "c", m.coord.c }, { "rank_a", m.rankA >= 0 ? json(m.rankA) : json(nullptr) },
            { "rank_b", m.rankB >= 0 ? json(m.rankB) : json(nullptr) },
            { "slot_a", m.slotA >= 0 ? json(m.slotA) : json(nullptr) },
            { "slot_b", m.slotB >= 0 ? json(m.slotB) : json(nullptr) } });
    j["moved_ranks"] = moved;
    json dims = json::object();
    for (const DimAttribution &d : c.attribution.dims) {
        json tiers = json::object();
        for (Tier t : kAllTiers)
            if (d.bytesA[index(t)] != 0.0 || d.bytesB[index(t)] != 0.0)
                tiers[std::string(tierName(t))]
                    = { { "a", d.bytesA[index(t)] }, { "b", d.bytesB[index(t)] } };
        dims[std::string(dimName(d.dim))] = { { "exposed_a_s", d.exposedA },
            { "exposed_b_s", d.exposedB }, { "tier_bytes", tiers } };
    }
    j["attribution"] = { { "dominant", c.attribution.dominantName() },
        { "text", describeChange(c.attribution) }, { "dims", dims } };
    return j;
}

std::string comparisonToText(const Comparison &c, const Fabric &fabricB, int maxRows)
{
    std::ostringstream out;
    out << "A: " << c.nameA << "\nB: " << c.nameB << "\n\n";
    char line[256];
    std::snprintf(line, sizeof line, "%-30s %14s %14s  %s\n", "figure", "A", "B", "B - A");
    out << line;
    for (const ComparedFigure &f : c.figures) {
        const char *mark = f.verdict() > 0 ? "  better" : f.verdict() < 0 ? "  worse" : "";
        std::snprintf(line, sizeof line, "%-30s %14s %14s  %s%s\n", f.label.c_str(),
            formatFigure(f.unit, f.a).c_str(), formatFigure(f.unit, f.b).c_str(),
            formatFigureDelta(f).c_str(), mark);
        out << line;
    }

    const std::string why = describeChange(c.attribution);
    if (!why.empty())
        out << "\nWhat changed: " << why << "\n";
    out << "\n";
    if (!c.sameTopology) {
        out << "Links: the two fabrics differ, so links are not compared one by one.\n";
    } else if (c.links.empty()) {
        out << "Links: no link's load changed.\n";
    } else {
        out << "Links: " << c.changedLinkCount << " carry different bytes; largest changes in "
            << "utilisation:\n";
        const int rows = std::min<int>(maxRows, static_cast<int>(c.links.size()));
        for (int i = 0; i < rows; ++i) {
            const LinkChange &l = c.links[static_cast<std::size_t>(i)];
            std::snprintf(line, sizeof line, "  %-44s %6.1f %% -> %6.1f %%  (%s -> %s)\n",
                fabricB.linkName(l.link).c_str(), l.utilisationA * 100.0, l.utilisationB * 100.0,
                formatBytes(l.bytesA).c_str(), formatBytes(l.bytesB).c_str());
            out << line;
        }
    }

    const auto dropped = std::count_if(
        c.moved.begin(), c.moved.end(), [](const RankMove &m) { return m.rankB < 0; });
    const auto added = std::count_if(
        c.moved.begin(), c.moved.end(), [](const RankMove &m) { return m.rankA < 0; });
    out << "\nRanks: " << static_cast<long>(c.moved.size()) - dropped - added << " of "
        << c.ranksCompared << " moved, " << dropped << " dropped, " << added << " added";
    if (c.moved.empty()) {
        out << ".\n";
        return out.str();
    }
    out << ":\n";
    const int rows = std::min<int>(maxRows, static_cast<int>(c.moved.size()));
    for (int i = 0; i < rows; ++i) {
        const RankMove &m = c.moved[static_cast<std::size_t>(i)];
        // Slots of A are named with B's fabric too: when the topologies differ the names are
        // still the slot indices both files use.
        std::snprintf(line, sizeof line, "  %-16s %-22s -> %s\n", coordText(m.coord).c_str(),
            m.rankA < 0 ? "(added)" : slotText(fabricB, m.slotA).c_str(),
            m.rankB < 0 ? "(dropped)" : slotText(fabricB, m.slotB).c_str());
        out << line;
    }
    if (static_cast<int>(c.moved.size()) > rows)
        out << "  ... and " << c.moved.size() - static_cast<std::size_t>(rows) << " more\n";
    return out.str();
}

} // namespace railyard
