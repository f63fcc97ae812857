#include "optimise/objective.h"

#include "cost/costengine.h"

#include <array>
#include <utility>

namespace railyard {

namespace {

template<typename E, std::size_t N>
bool parseName(
    std::string_view name, const std::array<std::pair<E, std::string_view>, N> &names, E &out)
{
    for (const auto &[value, text] : names)
        if (text == name) {
            out = value;
            return true;
        }
    return false;
}

template<typename E, std::size_t N>
std::string_view nameOf(E value, const std::array<std::pair<E, std::string_view>, N> &names)
{
    for (const auto &[v, text] : names)
        if (v == value)
            return text;
    return {};
}

constexpr std::array<std::pair<Objective, std::string_view>, 5> kObjectives { {
    { Objective::Iteration, "iteration" },
    { Objective::Spine, "spine" },
    { Objective::P99, "p99" },
    { Objective::MaxLink, "max-link" },
    { Objective::EcmpP99, "ecmp-p99" },
} };

constexpr std::array<std::pair<KeepConstraint, std::string_view>, 3> kKeeps { {
    { KeepConstraint::TpInServer, "tp-in-server" },
    { KeepConstraint::TpInScaleUp, "tp-in-scaleup" },
    { KeepConstraint::None, "none" },
} };

constexpr std::array<std::pair<StartFrom, std::string_view>, 4> kStarts { {
    { StartFrom::Current, "current" },
    { StartFrom::Packed, "packed" },
    { StartFrom::RailAligned, "rail-aligned" },
    { StartFrom::Scattered, "scattered" },
} };

} // namespace

std::string_view objectiveName(Objective o)
{
    return nameOf(o, kObjectives);
}
bool parseObjective(std::string_view name, Objective &out)
{
    return parseName(name, kObjectives, out);
}
std::string_view keepName(KeepConstraint k)
{
    return nameOf(k, kKeeps);
}
bool parseKeep(std::string_view name, KeepConstraint &out)
{
    return parseName(name, kKeeps, out);
}
std::string_view startName(StartFrom s)
{
    return nameOf(s, kStarts);
}
bool parseStart(std::string_view name, StartFrom &out)
{
    return parseName(name, kStarts, out);
}

const std::vector<Objective> &allObjectives()
{
    static const std::vector<Objective> all { Objective::Iteration, Objective::Spine,
        Objective::P99, Objective::MaxLink, Objective::EcmpP99 };
    return all;
}

double objectiveValue(const CostReport &report, Objective o)
{
    switch (o) {
    case Objective::Iteration:
        return report.iterationTime;
    case Objective::Spine: {
        double bytes = 0.0;
        for (Tier t : { Tier::Spine, Tier::SuperSpine })
            for (double b : report.tierBytes[index(t)])
                bytes += b;
        return bytes;
    }
    case Objective::P99:
        // The report keeps utilisation (busy / iteration); undo the division.
        return report.linkStats.p99 * report.iterationTime;
    case Objective::MaxLink:
        return report.linkStats.max * report.iterationTime;
    case Objective::EcmpP99:
        return report.iterationTime; // the ideal split's; objectiveValue(engine) hashes
    }
    return 0.0;
}

double objectiveValue(const CostEngine &engine, Objective o)
{
    if (o == Objective::EcmpP99)
        return engine.ecmp().p99IterationTime;
    return objectiveValue(engine.report(), o);
}

} // namespace railyard
