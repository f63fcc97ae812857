#include "degradationoptions.h"

#include "command.h"

#include "base/physicalranges.h"
#include "base/scenarioerror.h"

#include <cstdlib>

namespace railyard::cli {

namespace {

/// As the scenario reader's floor (scenario/degradationsection.cpp): a part at under a
/// thousandth of its speed has failed.
constexpr double kMinFlagFactor = 0.001;

double numberOf(std::string_view text, const std::string &flag, const std::string &what)
{
    const std::string s(text);
    char *end = nullptr;
    const double v = s.empty() ? 0.0 : std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !(v == v))
        throw ScenarioError(flag, "expected " + what + ", got '" + s.substr(0, 40) + "'");
    return v;
}

/// "17=0.8" or "gpu:17=0.8": the part (kind and index) and the text after '='.
Degradation partOf(
    const std::string &value, const std::string &flag, Degradation::Kind kind, std::string &rest)
{
    const std::size_t eq = value.find('=');
    if (eq == std::string::npos)
        throw ScenarioError(
            flag, "expected INDEX=VALUE such as 17=0.8, got '" + value.substr(0, 40) + "'");
    std::string id = value.substr(0, eq);
    rest = value.substr(eq + 1);
    const std::string prefix = std::string(degradationKindName(kind)) + ":";
    if (id.find(':') == std::string::npos) // "17" is gpu:17 under --slow-gpu
        id = prefix + id;
    Degradation part = parseDegradationId(id, flag);
    if (part.kind != kind)
        throw ScenarioError(flag,
            "names a " + std::string(degradationKindName(part.kind)) + ", not a "
                + std::string(degradationKindName(kind)));
    return part;
}

Degradation computePart(const std::string &value, const std::string &flag, Degradation::Kind kind)
{
    std::string rest;
    Degradation part = partOf(value, flag, kind, rest);
    part.computeSpeed = numberOf(rest, flag, "a speed factor 0 < f <= 1");
    if (part.computeSpeed < kMinFlagFactor || part.computeSpeed > 1.0)
        throw ScenarioError(flag,
            "speed factor " + rest + " is out of range (0.001..1: the fraction of the nominal "
                + "compute rate)");
    return part;
}

/// "5=200", "5=50%", "5=200,+2us", "5=+2us".
Degradation linkPart(const std::string &value, const std::string &flag, Degradation::Kind kind)
{
    std::string rest;
    Degradation part = partOf(value, flag, kind, rest);
    std::size_t start = 0;
    bool speed = false;
    while (start <= rest.size()) {
        const std::size_t comma = rest.find(',', start);
        const std::string item
            = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (item.size() > 3 && item.front() == '+' && item.substr(item.size() - 2) == "us") {
            part.addedLatencyUs
                = numberOf(item.substr(1, item.size() - 3), flag, "a latency in us");
            if (part.addedLatencyUs < 0.0 || part.addedLatencyUs > ranges::kMaxLatencyUs)
                throw ScenarioError(flag, "added latency " + item + " is out of range (0..1e6 us)");
        } else if (!speed && !item.empty() && item.back() == '%') {
            part.bandwidthFactor
                = numberOf(item.substr(0, item.size() - 1), flag, "a percentage") / 100.0;
            if (part.bandwidthFactor < kMinFlagFactor || part.bandwidthFactor > 1.0)
                throw ScenarioError(flag, "bandwidth " + item + " is out of range (0.1%..100%)");
            speed = true;
        } else if (!speed && !item.empty()) {
            part.bandwidthGbps
                = numberOf(item, flag, "a speed in Gb/s, a percentage or +LATENCYus");
            if (part.bandwidthGbps < ranges::kMinLinkGbps
                || part.bandwidthGbps > ranges::kMaxLinkGbps)
                throw ScenarioError(flag, "speed " + item + " Gb/s is out of range (0.001..1e6)");
            speed = true;
        } else {
            throw ScenarioError(flag,
                "expected SPEED (Gb/s), PERCENT% and/or +LATENCYus after '=', got '"
                    + rest.substr(0, 40) + "'");
        }
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return part;
}

void put(Scenario &scenario, const Degradation &part, const std::string &flag)
{
    checkDegradationRange(part, scenario.fabric, flag);
    for (Degradation &p : scenario.degradations.parts)
        if (p.kind == part.kind && p.index == part.index) {
            p = part;
            return;
        }
    scenario.degradations.parts.push_back(part);
}

} // namespace

void addDegradationFlags(Command &c, DegradationFlags &flags)
{
    c.texts("--slow-gpu", flags.gpus, "N=F",
        "GPU slot N computes at F (0 < F <= 1) of its speed (repeatable; docs/stragglers.md).");
    c.texts("--slow-host", flags.hosts, "S=F",
        "Every GPU of server S computes at F (0 < F <= 1): a slow host (repeatable).");
    c.texts("--slow-nic", flags.nics, "N=SPEED",
        "NIC N runs at SPEED: Gb/s (200) or a share (50%), and/or ,+LATENCYus added per hop "
        "(repeatable).");
    c.texts("--slow-link", flags.links, "L=SPEED",
        "The cable of link L (both directions) runs at SPEED, as --slow-nic (repeatable).");
}

void applyDegradationFlags(const DegradationFlags &flags, Scenario &scenario)
{
    for (const std::string &v : flags.gpus)
        put(scenario, computePart(v, "--slow-gpu", Degradation::Kind::Gpu), "--slow-gpu");
    for (const std::string &v : flags.hosts)
        put(scenario, computePart(v, "--slow-host", Degradation::Kind::Server), "--slow-host");
    for (const std::string &v : flags.nics)
        put(scenario, linkPart(v, "--slow-nic", Degradation::Kind::Nic), "--slow-nic");
    for (const std::string &v : flags.links)
        put(scenario, linkPart(v, "--slow-link", Degradation::Kind::Link), "--slow-link");
}

} // namespace railyard::cli
