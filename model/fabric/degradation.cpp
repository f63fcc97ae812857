#include "fabric/degradation.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/units.h"
#include "fabric/fabric.h"
#include "fabric/failedcomponent.h"

#include <charconv>
#include <climits>
#include <cstdio>

namespace railyard {

namespace {

/// The NIC's ports to its leaves, one directed link each way per plane.
std::vector<int> nicPortLinks(const Fabric &fabric, int server, int nic)
{
    std::vector<int> out;
    for (int p = 0; p < fabric.planeCount(); ++p) {
        const int leaf = fabric.leafOfNicPort(server, nic, p);
        if (leaf < 0)
            continue; // uncabled (cablingbuilder.h): nothing to slow
        const int up = fabric.linkBetween(fabric.nicVertex(server, nic), fabric.leafVertex(leaf));
        if (up >= 0) {
            out.push_back(up);
            out.push_back(fabric.link(up).reverse);
        }
    }
    return out;
}

std::string gbpsText(double gbps)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", gbps);
    return text;
}

} // namespace

std::string degradationPath(std::size_t i)
{
    return jsonElementPath("degradations.parts", i);
}

std::string_view degradationKindName(Degradation::Kind kind)
{
    switch (kind) {
    case Degradation::Kind::Gpu:
        return "gpu";
    case Degradation::Kind::Server:
        return "server";
    case Degradation::Kind::Nic:
        return "nic";
    case Degradation::Kind::Link:
        return "link";
    }
    return "gpu";
}

std::string degradationId(const Degradation &part)
{
    return std::string(degradationKindName(part.kind)) + ":" + std::to_string(part.index);
}

std::string degradationEffectText(const Degradation &part)
{
    if (part.slowsCompute())
        return "compute " + gbpsText(part.computeSpeed * 100.0) + " %";
    std::string text = part.bandwidthGbps > 0.0
        ? gbpsText(part.bandwidthGbps) + " Gb/s"
        : gbpsText(part.bandwidthFactor * 100.0) + " % bandwidth";
    if (part.addedLatencyUs > 0.0)
        text += ", +" + gbpsText(part.addedLatencyUs) + " us";
    return text;
}

Degradation parseDegradationId(std::string_view text, const std::string &field)
{
    Degradation part;
    if (text.substr(0, 5) == "link:") {
        const std::string_view number = text.substr(5);
        long long value = -1;
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
        if (number.empty() || ec != std::errc() || end != number.data() + number.size() || value < 0
            || value > INT_MAX)
            throw ScenarioError(field,
                "expected a non-negative whole index after 'link:', got '"
                    + std::string(text.substr(0, 40)) + "'");
        part.kind = Degradation::Kind::Link;
        part.index = static_cast<int>(value);
        return part;
    }
    // gpu, server and nic are named as failures name them (fabric/failedcomponent.h).
    const FailedComponent f = parseFailure(text, field);
    switch (f.kind) {
    case FailedComponent::Kind::Gpu:
        part.kind = Degradation::Kind::Gpu;
        break;
    case FailedComponent::Kind::Server:
        part.kind = Degradation::Kind::Server;
        break;
    case FailedComponent::Kind::Nic:
        part.kind = Degradation::Kind::Nic;
        break;
    case FailedComponent::Kind::Leaf:
    case FailedComponent::Kind::Plane:
        throw ScenarioError(field,
            "a " + std::string(failureKindName(f.kind))
                + " cannot be degraded as a whole; name its links (link:N) instead (accepted: "
                  "gpu, server, nic, link)");
    }
    part.index = f.index;
    return part;
}

void checkDegradationRange(
    const Degradation &part, const FabricSpec &spec, const std::string &field)
{
    FailedComponent f;
    f.index = part.index;
    switch (part.kind) {
    case Degradation::Kind::Gpu:
        f.kind = FailedComponent::Kind::Gpu;
        break;
    case Degradation::Kind::Server:
        f.kind = FailedComponent::Kind::Server;
        break;
    case Degradation::Kind::Nic:
        f.kind = FailedComponent::Kind::Nic;
        break;
    case Degradation::Kind::Link:
        return; // the link count comes from the built fabric: degradedLinks()
    }
    checkFailureRange(f, spec, field);
}

bool anyComputeDegradation(const std::vector<Degradation> &parts)
{
    for (const Degradation &p : parts)
        if (p.slowsCompute())
            return true;
    return false;
}

bool anyLinkDegradation(const std::vector<Degradation> &parts)
{
    for (const Degradation &p : parts)
        if (!p.slowsCompute())
            return true;
    return false;
}

std::vector<double> slotComputeSpeeds(const Fabric &fabric, const std::vector<Degradation> &parts)
{
    std::vector<double> speed(static_cast<std::size_t>(fabric.slotCount()), 1.0);
    const int gpus = fabric.gpusPerServer();
    for (const Degradation &p : parts) {
        if (p.kind == Degradation::Kind::Gpu && p.index < fabric.slotCount())
            speed[static_cast<std::size_t>(p.index)] *= p.computeSpeed;
        if (p.kind == Degradation::Kind::Server && p.index < fabric.servers())
            for (int g = 0; g < gpus; ++g)
                speed[static_cast<std::size_t>(p.index * gpus + g)] *= p.computeSpeed;
    }
    return speed;
}

std::vector<int> degradedLinks(
    const Fabric &fabric, const Degradation &part, const std::string &field)
{
    if (part.kind == Degradation::Kind::Nic) {
        checkDegradationRange(part, fabric.spec(), field);
        return nicPortLinks(
            fabric, part.index / fabric.nicsPerServer(), part.index % fabric.nicsPerServer());
    }
    if (part.kind == Degradation::Kind::Link) {
        if (part.index >= fabric.linkCount())
            throw ScenarioError(field,
                degradationId(part) + " does not exist (the fabric has "
                    + std::to_string(fabric.linkCount()) + " directed links, 0.."
                    + std::to_string(fabric.linkCount() - 1) + ")");
        return { part.index, fabric.link(part.index).reverse };
    }
    return {};
}

std::string linkDegradationKey(const std::vector<Degradation> &parts)
{
    std::string key;
    char entry[128];
    for (const Degradation &p : parts)
        if (!p.slowsCompute()) {
            std::snprintf(entry, sizeof entry, "%s=%.17g/%.17g/%.17g;", degradationId(p).c_str(),
                p.bandwidthGbps, p.bandwidthFactor, p.addedLatencyUs);
            key += entry;
        }
    return key;
}

Fabric degradedFabric(const Fabric &fabric, const std::vector<Degradation> &parts)
{
    Fabric out = fabric;
    Fabric::LinkClassIndex index(out.m_linkClasses);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const Degradation &p = parts[i];
        if (p.slowsCompute())
            continue;
        const std::string path = degradationPath(i);
        const std::vector<int> links = degradedLinks(fabric, p, path);
        // A NIC's speed is the sum of its ports' (one per plane); the factor applies to each.
        double nominal = 0.0;
        for (std::size_t k = 0; k < links.size(); k += 2)
            nominal += fabric.linkBandwidth(links[k]);
        double factor = p.bandwidthFactor;
        if (p.bandwidthGbps > 0.0 && nominal > 0.0) {
            const double nominalGbps = bytesPerSecondToGbps(nominal);
            // A degradation slows a part down; a speed above the nominal one is a typo.
            if (p.bandwidthGbps > nominalGbps * (1.0 + 1e-12))
                throw ScenarioError(path + ".bandwidth_gbps",
                    gbpsText(p.bandwidthGbps) + " Gb/s is above " + degradationId(p) + "'s nominal "
                        + gbpsText(nominalGbps)
                        + " Gb/s (a degradation can only slow a part down)");
            factor = p.bandwidthGbps / nominalGbps;
        }
        for (const int l : links)
            out.setLinkFigures(l, out.linkBandwidth(l) * factor,
                out.linkLatency(l) + microseconds(p.addedLatencyUs), index);
    }
    // The graph's edges hold link ids only (FabricEdge): nothing to keep in step there.
    out.m_degradationKey = linkDegradationKey(parts);
    return out;
}

} // namespace railyard
