#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railyard {

class Fabric;
struct FabricSpec;

/**
 * One slow or degraded part, as a scenario's "degradations" section lists it (docs/stragglers.md).
 * The part is named as the failures name theirs (fabric/failedcomponent.h), plus link:N:
 *  - gpu:N     GPU slot N computes at `computeSpeed` (0 < f <= 1) of its nominal rate: every
 *              compute phase of the rank on it takes 1/f as long;
 *  - server:S  a slow host: every GPU of server S computes at `computeSpeed` (multiplied with a
 *              gpu:N factor of the same GPU). A factor rather than a fixed delay per step: the
 *              engine has no host model to add a delay to, and a throttled host (CPU clocks,
 *              a slow data loader feeding every micro-batch) stretches each of its GPUs' steps
 *              in proportion to the work, which is what a factor says;
 *  - nic:N     NIC N (server * nics_per_server + nic) trained below its speed: every port of it
 *              to a leaf, both directions, carries `bandwidthGbps` in total (or `bandwidthFactor`
 *              of its nominal speed), and each hop through it takes `addedLatencyUs` more;
 *  - link:N    the cable of directed link N (FabricLink::id, the ids the reports and the
 *              annotations use): both directions run at `bandwidthGbps` (or the factor) and
 *              add `addedLatencyUs` per hop (a flapping cable retrains at a lower speed and
 *              retransmits).
 * Routing and link loads stay as they are; only the time through the part grows.
 */
struct Degradation
{
    enum class Kind { Gpu, Server, Nic, Link };
    Kind kind = Kind::Gpu;
    int index = 0;
    double computeSpeed = 1.0; ///< gpu, server: 0 < f <= 1
    double bandwidthGbps = 0.0; ///< nic, link: the degraded speed, Gbit/s; 0 = not given
    double bandwidthFactor = 1.0; ///< nic, link: a factor on the nominal speed (0 < f <= 1)
    double addedLatencyUs = 0.0; ///< nic, link: added per hop through it, >= 0
    bool operator==(const Degradation &) const = default;

    bool slowsCompute() const { return kind == Kind::Gpu || kind == Kind::Server; }
};

/** The scenario's "degradations" section: the version of its layout and the parts. */
struct DegradationSpec
{
    int version = 1;
    std::vector<Degradation> parts;
    bool empty() const { return parts.empty(); }
    bool operator==(const DegradationSpec &) const = default;
};

/// "gpu", "server", "nic", "link".
std::string_view degradationKindName(Degradation::Kind kind);
/// "gpu:17".
std::string degradationId(const Degradation &part);
/// What the part is degraded to, e.g. "compute 80 %" or "200 Gb/s, +2 us".
std::string degradationEffectText(const Degradation &part);
/// Parses "gpu:17", "server:3", "nic:5" or "link:240" into kind and index (the other fields
/// stay at their defaults); throws ScenarioError(field, ...) for another kind or a malformed
/// index.
Degradation parseDegradationId(std::string_view text, const std::string &field);
/// Throws ScenarioError(field, ...) when a GPU, server or NIC index lies outside the fabric
/// the spec describes (link ids need the built fabric: degradedLinks()).
void checkDegradationRange(
    const Degradation &part, const FabricSpec &spec, const std::string &field);

/// Per GPU slot, its compute speed: the product of the gpu:N and server:S factors naming it
/// (1 for every slot without one).
std::vector<double> slotComputeSpeeds(const Fabric &fabric, const std::vector<Degradation> &parts);
/// True when any part slows compute (gpu or server).
bool anyComputeDegradation(const std::vector<Degradation> &parts);
/// True when any part degrades a link (nic or link).
bool anyLinkDegradation(const std::vector<Degradation> &parts);
/// The directed link ids a nic or link part degrades (both directions of each cable); empty for
/// a gpu or server part. Throws ScenarioError(field, ...) for a link id the fabric lacks.
std::vector<int> degradedLinks(
    const Fabric &fabric, const Degradation &part, const std::string &field);
/// The fabric with every nic and link part applied: the named links' bandwidth lowered and
/// latency raised; everything else (vertices, ids, routing) as in `fabric`. A part that would
/// raise a link's speed is refused (ScenarioError naming "degradations.parts[i]....").
Fabric degradedFabric(const Fabric &fabric, const std::vector<Degradation> &parts);
/// A short text that differs between two part lists that degrade links differently ("" when
/// none degrades a link): lets an evaluation reuse a degraded fabric built for the same parts.
std::string linkDegradationKey(const std::vector<Degradation> &parts);
/// "degradations.parts[3]".
std::string degradationPath(std::size_t i);

} // namespace railyard
