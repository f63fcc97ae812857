#include "collectiveoptions.h"

#include "base/scenarioerror.h"
#include "layout/parallellayout.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string_view>

namespace railyard::cli {

namespace {

std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return s;
}

[[noreturn]] void bad(const std::string &what)
{
    throw ScenarioError("--ranks", what);
}

/// A whole string as a non-negative integer (from_chars: no locale, no sign, no spaces).
bool toInt(std::string_view s, int &out)
{
    s = trimmed(s);
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty() && out >= 0;
}

std::vector<std::string_view> split(std::string_view s, char sep)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t at = s.find(sep, start);
        parts.push_back(
            s.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
        if (at == std::string_view::npos)
            return parts;
        start = at + 1;
    }
}

std::vector<int> groupSelection(
    std::string_view kindText, std::string_view selector, const ParallelLayout &layout)
{
    GroupKind kind;
    if (!parseGroupKind(trimmed(kindText), kind))
        bad("unknown group kind '" + std::string(kindText)
            + "' (tp, pp, dp, cp, ep, dp-cp, tp-pp, edp)");
    const std::string name(groupKindName(kind));
    const GroupList &groups = layout.groups(kind);
    int index = 0;
    if (toInt(selector, index)) {
        if (index >= static_cast<int>(groups.size()))
            bad(name + ":" + std::to_string(index) + ": there are " + std::to_string(groups.size())
                + " " + name + " groups (0.." + std::to_string(groups.size() - 1) + ")");
        return toVector(groups[static_cast<std::size_t>(index)]);
    }
    // Coordinates every member of the wanted group shares: "p=0,t=3".
    std::vector<std::pair<char, int>> wanted;
    for (const std::string_view part : split(selector, ',')) {
        const std::string_view p = trimmed(part);
        const std::size_t eq = p.find('=');
        int value = 0;
        if (eq != 1 || std::string_view("dptce").find(p[0]) == std::string_view::npos
            || !toInt(p.substr(2), value))
            bad("'" + std::string(p) + "' in " + name + ":" + std::string(selector)
                + " is not a group index or a coordinate x=N with x one of d, p, t, c, e");
        wanted.emplace_back(p[0], value);
    }
    const auto value = [&](int rank, char x) {
        const RankCoord c = layout.coord(rank);
        return x == 'd' ? c.d : x == 'p' ? c.p : x == 't' ? c.t : x == 'c' ? c.c : c.e;
    };
    std::vector<int> matches;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const bool all = std::all_of(groups[g].begin(), groups[g].end(), [&](int r) {
            return std::all_of(wanted.begin(), wanted.end(),
                [&](const auto &w) { return value(r, w.first) == w.second; });
        });
        if (all)
            matches.push_back(static_cast<int>(g));
    }
    if (matches.empty())
        bad("no " + name + " group has " + std::string(selector) + " on all its members");
    if (matches.size() > 1)
        bad(name + ":" + std::string(selector) + " matches " + std::to_string(matches.size()) + " "
            + name + " groups (" + std::to_string(matches.front()) + ", "
            + std::to_string(matches[1]) + ", ...); give more coordinates or an index");
    return toVector(groups[static_cast<std::size_t>(matches.front())]);
}

std::vector<int> listSelection(std::string_view text, int world)
{
    std::vector<int> ranks;
    for (const std::string_view part : split(text, ',')) {
        const std::string_view p = trimmed(part);
        const std::size_t dash = p.find('-');
        int first = 0, last = 0;
        const bool ok = dash == std::string_view::npos
            ? toInt(p, first) && (last = first, true)
            : toInt(p.substr(0, dash), first) && toInt(p.substr(dash + 1), last);
        if (!ok)
            bad("'" + std::string(p) + "' is not a rank or a range A-B of ranks");
        if (last < first)
            bad("the range '" + std::string(p) + "' runs backwards");
        if (last >= world)
            bad("rank " + std::to_string(last) + " is outside 0.." + std::to_string(world - 1));
        for (int r = first; r <= last; ++r)
            ranks.push_back(r);
    }
    return ranks;
}

} // namespace

std::vector<int> parseRankSelection(const std::string &text, const ParallelLayout &layout)
{
    const std::string_view t = trimmed(text);
    const int world = layout.worldSize();
    std::vector<int> ranks;
    if (t == "all") {
        for (int r = 0; r < world; ++r)
            ranks.push_back(r);
    } else if (const std::size_t colon = t.find(':'); colon != std::string_view::npos) {
        ranks = groupSelection(t.substr(0, colon), t.substr(colon + 1), layout);
    } else {
        ranks = listSelection(t, world);
    }
    std::vector<char> seen(static_cast<std::size_t>(world), 0);
    for (const int r : ranks)
        if (seen[r]++)
            bad("rank " + std::to_string(r) + " is listed twice");
    if (ranks.size() < 2)
        bad("a collective needs at least two ranks; '" + std::string(t) + "' gives "
            + std::to_string(ranks.size()));
    return ranks;
}

double parseByteSize(const std::string &text)
{
    const std::string_view t = trimmed(text);
    double value = 0.0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (ec != std::errc() || end == t.data())
        throw ScenarioError(
            "--bytes", "'" + std::string(t) + "' is not a size (e.g. 1e9, 256M, 1GiB)");
    std::string unit(
        trimmed(std::string_view(end, static_cast<std::size_t>(t.data() + t.size() - end))));
    std::transform(unit.begin(), unit.end(), unit.begin(),
        [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    if (!unit.empty() && unit.back() == 'B')
        unit.pop_back(); // "GB", "GIB", "B"
    constexpr std::array<char, 4> prefixes { 'K', 'M', 'G', 'T' };
    double scale = 1.0;
    if (!unit.empty()) {
        const bool binary = unit.size() == 2 && unit[1] == 'I';
        const auto it = std::find(prefixes.begin(), prefixes.end(), unit[0]);
        if (it == prefixes.end() || (unit.size() != 1 && !binary))
            throw ScenarioError("--bytes",
                "unknown unit in '" + std::string(t)
                    + "' (K, M, G, T = 10^3 steps; KiB, MiB, GiB, TiB = 2^10 steps)");
        const int power = static_cast<int>(it - prefixes.begin()) + 1;
        scale = std::pow(binary ? 1024.0 : 1000.0, power);
    }
    const double bytes = value * scale;
    if (!(bytes > 0.0) || !std::isfinite(bytes))
        throw ScenarioError("--bytes",
            "the message size must be a positive number of bytes, got '" + std::string(t) + "'");
    return bytes;
}

} // namespace railyard::cli
