#pragma once

#include "fabric/fabric.h"

#include <string>

namespace railyard {

/**
 * Builds the fabric a cabling inventory describes (FabricSpec::cabling): any two- or three-tier
 * network, asymmetric pods, missing or miswired cables, mixed speeds included.
 *
 * Tiers come from the cabling, not from names: a switch cabled to a server NIC is a leaf, a
 * switch cabled to a leaf (and to no NIC) a spine, one cabled only to spines a super-spine.
 * With super-spines, a pod is a set of leaves and spines joined by leaf-spine cables. On a
 * rail-optimised fabric (spec.kind) a leaf's rail is the NIC index most of its NICs have, and a
 * scalable unit is the set of leaves the correctly wired NICs of the same servers reach; a
 * top-of-rack leaf is its own group. Parallel cables between two switches are one bundle
 * (bandwidth = their sum, latency = the largest), as the generator bundles them.
 *
 * A NIC without a cable has no link: the GPUs bound to it cannot hold a rank (usableSlots()).
 * What deviates from the design - a NIC on another rail's leaf, two NICs of a server on one
 * leaf, a leaf or spine with fewer uplinks than its peers, a missing cable, mixed speeds, a
 * peer link between two switches of one tier (left out: it carries no routed traffic) - is
 * one Fabric::cablingFindings() line each, naming the devices.
 *
 * Throws ScenarioError("fabric.cabling[i]", ...) for a cabling that cannot be a fabric: an
 * unknown server or NIC, a port used twice, a server cabled to a server, a switch more than
 * three tiers up or not connected to any leaf, leaves that cannot reach each other.
 */
Fabric buildCabledFabric(const FabricSpec &spec);

/// The NIC index a server port names: its position in spec.nicDevices, else the number the
/// name ends in ("mlx5_3", "nic3" -> 3); -1 when it names none (no trailing digits).
int cablingNicIndex(const FabricSpec &spec, const std::string &port);

/// "a_device a_port - b_device b_port" for messages.
std::string cableText(const Cable &cable);

} // namespace railyard
