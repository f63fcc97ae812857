#include "fabric/failedcomponent.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "fabric/fabric.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>

namespace railyard {

namespace {

constexpr std::array<std::string_view, 5> kComponentKindNames { "server", "gpu", "nic", "leaf",
    "plane" };

std::string failuresPath(std::size_t i)
{
    return jsonElementPath("failures", i);
}

} // namespace

std::string_view failureKindName(FailedComponent::Kind kind)
{
    return kComponentKindNames[static_cast<std::size_t>(kind)];
}

std::string failureText(const FailedComponent &failure)
{
    return std::string(failureKindName(failure.kind)) + ":" + std::to_string(failure.index);
}

std::string failureListText(const std::vector<FailedComponent> &failures)
{
    std::string text;
    for (const FailedComponent &f : failures)
        text += (text.empty() ? "" : ", ") + failureText(f);
    return text;
}

FailedComponent parseFailure(std::string_view text, const std::string &field)
{
    const std::string quoted = "'" + std::string(text.substr(0, 40)) + "'";
    const std::size_t colon = text.find(':');
    if (colon == std::string_view::npos)
        throw ScenarioError(field, "expected KIND:INDEX such as server:3, got " + quoted);
    const std::string_view kind = text.substr(0, colon);
    const std::string_view number = text.substr(colon + 1);
    FailedComponent f;
    bool known = false;
    for (std::size_t k = 0; k < kComponentKindNames.size(); ++k) {
        if (kComponentKindNames[k] == kind) {
            f.kind = static_cast<FailedComponent::Kind>(k);
            known = true;
        }
    }
    if (!known)
        throw ScenarioError(field,
            "unknown component kind '" + std::string(kind.substr(0, 40)) + "' in " + quoted
                + " (accepted: server, gpu, nic, leaf, plane)");
    long long value = -1;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || ec != std::errc() || end != number.data() + number.size() || value < 0
        || value > INT_MAX)
        throw ScenarioError(field,
            "expected a non-negative whole index after '" + std::string(kind) + ":', got "
                + quoted);
    f.index = static_cast<int>(value);
    return f;
}

void checkFailureRange(
    const FailedComponent &failure, const FabricSpec &spec, const std::string &field)
{
    const long long servers = spec.servers;
    const long long nics = spec.nicsPerServer > 0 ? spec.nicsPerServer : spec.gpusPerServer;
    long long count = 0;
    std::string what;
    switch (failure.kind) {
    case FailedComponent::Kind::Server:
        count = servers;
        what = " servers";
        break;
    case FailedComponent::Kind::Gpu:
        count = servers * spec.gpusPerServer;
        what = " GPU slots";
        break;
    case FailedComponent::Kind::Nic:
        count = servers * nics;
        what = " NICs";
        break;
    case FailedComponent::Kind::Leaf:
        return; // derived by Fabric::build(); failedSlotCauses() checks it
    case FailedComponent::Kind::Plane:
        count = spec.planes;
        what = " network planes";
        break;
    }
    if (failure.index >= count)
        throw ScenarioError(field,
            failureText(failure) + " does not exist (the fabric has " + std::to_string(count) + what
                + ", 0.." + std::to_string(count - 1) + ")");
}

std::vector<int> failedSlotCauses(
    const Fabric &fabric, const std::vector<FailedComponent> &failures)
{
    std::vector<int> cause(static_cast<std::size_t>(fabric.slotCount()), -1);
    const int gpus = fabric.gpusPerServer();
    const std::vector<char> failed = failedLeafMask(fabric, failures);
    const auto mark = [&cause](int slot, std::size_t i) {
        int &c = cause[static_cast<std::size_t>(slot)];
        if (c < 0)
            c = static_cast<int>(i);
    };
    for (std::size_t i = 0; i < failures.size(); ++i) {
        const FailedComponent &f = failures[i];
        checkFailureRange(f, fabric.spec(), failuresPath(i));
        switch (f.kind) {
        case FailedComponent::Kind::Server:
            for (int g = 0; g < gpus; ++g)
                mark(f.index * gpus + g, i);
            break;
        case FailedComponent::Kind::Gpu:
            mark(f.index, i);
            break;
        case FailedComponent::Kind::Nic: {
            // The GPUs whose back-end NIC this is (fabric.h: GPU i <-> NIC i unless gpu_to_nic).
            const int server = f.index / fabric.nicsPerServer();
            const int nic = f.index % fabric.nicsPerServer();
            for (int g = 0; g < gpus; ++g)
                if (fabric.nicOfGpu(g) == nic)
                    mark(server * gpus + g, i);
            break;
        }
        case FailedComponent::Kind::Leaf: {
            if (f.index >= fabric.leafCount())
                throw ScenarioError(failuresPath(i),
                    failureText(f) + " does not exist (the fabric has "
                        + std::to_string(fabric.leafCount()) + " leaf switches, 0.."
                        + std::to_string(fabric.leafCount() - 1) + ")");
            // With several planes a NIC keeps working while one of its ports reaches a healthy
            // leaf (its traffic moves to the planes left, router.h): the slot is lost only when
            // every port's leaf has failed.
            const int plane = fabric.planeOfLeaf(f.index);
            for (int s = 0; s < fabric.servers(); ++s)
                for (int g = 0; g < gpus; ++g) {
                    const int nic = fabric.nicOfGpu(g);
                    if (fabric.leafOfNicPort(s, nic, plane) != f.index)
                        continue;
                    bool lost = true;
                    for (int p = 0; p < fabric.planeCount() && lost; ++p) {
                        const int leaf = fabric.leafOfNicPort(s, nic, p);
                        lost = leaf < 0 || failed[static_cast<std::size_t>(leaf)];
                    }
                    if (lost)
                        mark(s * gpus + g, i);
                }
            break;
        }
        case FailedComponent::Kind::Plane:
            // Every slot whose NIC has no port left outside the failed planes and leaves.
            for (int s = 0; s < fabric.servers(); ++s)
                for (int g = 0; g < gpus; ++g) {
                    bool lost = true;
                    for (int p = 0; p < fabric.planeCount() && lost; ++p) {
                        const int leaf = fabric.leafOfNicPort(s, fabric.nicOfGpu(g), p);
                        lost = leaf < 0 || failed[static_cast<std::size_t>(leaf)];
                    }
                    if (lost)
                        mark(s * gpus + g, i);
                }
            break;
        }
    }
    return cause;
}

std::vector<char> failedLeafMask(const Fabric &fabric, const std::vector<FailedComponent> &failures)
{
    std::vector<char> failed(static_cast<std::size_t>(fabric.leafCount()), 0);
    for (const FailedComponent &f : failures) {
        if (f.kind == FailedComponent::Kind::Leaf && f.index >= 0 && f.index < fabric.leafCount())
            failed[static_cast<std::size_t>(f.index)] = 1;
        if (f.kind == FailedComponent::Kind::Plane && f.index >= 0 && f.index < fabric.planeCount())
            for (int l = 0; l < fabric.leafCount(); ++l)
                if (fabric.planeOfLeaf(l) == f.index)
                    failed[static_cast<std::size_t>(l)] = 1;
    }
    return failed;
}

std::vector<char> routedFailures(const Fabric &fabric, const std::vector<FailedComponent> &failures)
{
    if (fabric.planeCount() == 1)
        return {};
    std::vector<char> failed = failedLeafMask(fabric, failures);
    if (std::find(failed.begin(), failed.end(), 1) == failed.end())
        return {};
    return failed;
}

std::vector<char> usableSlots(const Fabric &fabric, const std::vector<FailedComponent> &failures)
{
    const std::vector<int> cause = failedSlotCauses(fabric, failures);
    std::vector<char> usable(cause.size(), 1);
    for (std::size_t s = 0; s < cause.size(); ++s)
        usable[s] = cause[s] < 0 && fabric.slotCabled(static_cast<int>(s));
    return usable;
}

std::string describeFailure(const Fabric &fabric, const FailedComponent &failure)
{
    const int count[] = { fabric.servers(), fabric.slotCount(),
        fabric.servers() * fabric.nicsPerServer(), fabric.leafCount(), fabric.planeCount() };
    if (failure.index < 0 || failure.index >= count[static_cast<int>(failure.kind)])
        return failureText(failure) + " (not in this fabric)";
    std::string name;
    switch (failure.kind) {
    case FailedComponent::Kind::Server:
        name = fabric.serverName(failure.index);
        break;
    case FailedComponent::Kind::Gpu:
        name = fabric.node(fabric.gpuVertex(failure.index)).name;
        break;
    case FailedComponent::Kind::Nic:
        name = fabric
                   .node(fabric.nicVertex(failure.index / fabric.nicsPerServer(),
                       failure.index % fabric.nicsPerServer()))
                   .name;
        break;
    case FailedComponent::Kind::Leaf:
        name = fabric.node(fabric.leafVertex(failure.index)).name;
        break;
    case FailedComponent::Kind::Plane:
        name = "network plane " + std::to_string(failure.index) + ", "
            + std::to_string(fabric.leavesPerPlane()) + " leaves";
        break;
    }
    return failureText(failure) + " (" + name + ")";
}

} // namespace railyard
