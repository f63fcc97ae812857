#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace railyard {

class Fabric;
struct FabricSpec;

/**
 * One failed piece of hardware, as a scenario file lists it ("failures": ["server:3", "gpu:17",
 * "nic:5", "leaf:2"]). Indexes are global and 0-based:
 *  - server:S  server S: all its GPU slots become unusable;
 *  - gpu:N     GPU slot N (= server * gpus_per_server + gpu, the mapping's slot numbers);
 *  - nic:N     NIC N (= server * nics_per_server + nic): the slots whose GPU uses it for the
 *              back-end network (GPU i <-> NIC i, or the fabric's gpu_to_nic affinity);
 *  - leaf:N    leaf switch N (Fabric::leafVertex order, e.g. leaf-su0-rail2 or tor-2): the slots
 *              whose NIC is cabled to it. With several network planes (FabricSpec::planes) a
 *              NIC has a port in every plane: it loses only that port (its traffic moves to
 *              the planes left, Router), and its slots only when every port's leaf failed.
 *  - plane:N   network plane N (FabricSpec::planes): every leaf of the plane, as if each had
 *              failed (its spines are then unreachable). With one plane, plane:0 is the whole
 *              network.
 * A failed slot holds no rank (after a failure the lost hardware's ranks must go elsewhere,
 * studies/failureremap.h); traffic between healthy slots is routed as before.
 */
struct FailedComponent
{
    enum class Kind { Server, Gpu, Nic, Leaf, Plane };
    Kind kind = Kind::Server;
    int index = 0;
    bool operator==(const FailedComponent &) const = default;
};

/// "server", "gpu", "nic", "leaf", "plane".
std::string_view failureKindName(FailedComponent::Kind kind);
/// "server:3".
std::string failureText(const FailedComponent &failure);
/// "server:3, gpu:17".
std::string failureListText(const std::vector<FailedComponent> &failures);
/// Parses "server:3"; throws ScenarioError(field, reason) for an unknown kind or a malformed
/// index. The range is checked by checkFailureRange() / failedSlotCauses().
FailedComponent parseFailure(std::string_view text, const std::string &field);
/// Throws ScenarioError(field, ...) when a server, GPU or NIC index lies outside the fabric the
/// spec describes. Leaf indexes need the built fabric (the leaf count is derived): see
/// failedSlotCauses().
void checkFailureRange(
    const FailedComponent &failure, const FabricSpec &spec, const std::string &field);

/// Per GPU slot: the index (into `failures`) of the first failure that makes the slot unusable,
/// or -1. Throws ScenarioError("failures[i]", ...) for an index the fabric does not have.
std::vector<int> failedSlotCauses(
    const Fabric &fabric, const std::vector<FailedComponent> &failures);
/// Per leaf: 1 when a leaf:N failure names it or a plane:N failure its plane (indexes outside
/// the fabric are left out).
std::vector<char> failedLeafMask(
    const Fabric &fabric, const std::vector<FailedComponent> &failures);
/// The failed leaves a Router must route around: failedLeafMask() with several network planes
/// and a failed leaf, else empty (with one plane a failed leaf's slots hold no rank).
std::vector<char> routedFailures(
    const Fabric &fabric, const std::vector<FailedComponent> &failures);
/// true per usable slot: not made unusable by a failure, and its GPU's NIC is cabled (a cabling
/// inventory may leave a NIC without a cable, cablingbuilder.h).
std::vector<char> usableSlots(const Fabric &fabric, const std::vector<FailedComponent> &failures);
/// "server:3 (node003)", "nic:5 (node000/nic5)", "leaf:2 (leaf-su0-rail2)".
std::string describeFailure(const Fabric &fabric, const FailedComponent &failure);

} // namespace railyard
