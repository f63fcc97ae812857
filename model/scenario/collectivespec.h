#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace railyard {

/**
 * How a collective's data moves between its members. `Auto` lets the cost engine choose per op,
 * message size and rank count the way NCCL's tuner does (cost/nccltuning.h); the others fix the
 * algorithm where it applies (a ring serves the ops the fixed algorithm does not).
 *
 *  - Ring: NCCL-style rings built from the topology: inside a server first, then across servers,
 *    one channel per NIC the members use, each inter-server hop on one rail (cost/ringorder.h).
 *  - MemberOrder: one ring in the group's member order (Megatron-LM's rank order), for teaching.
 *  - Tree: NCCL's double binary tree across servers with a chain inside each server
 *    (all-reduce only).
 *  - Nvls: NVLink SHARP reduction in the NVSwitch of one server; across servers NVLS inside each
 *    server plus a tree per rail (NCCL's NVLSTree); all-reduce on devices that support it.
 *  - Hierarchical: reduce-scatter inside each server, an all-reduce of S/L per rail across
 *    servers, all-gather inside each server (all-reduce only; the phases are pipelined).
 *  - Pat: NCCL's PAT for all-gather and reduce-scatter with one GPU per server.
 */
enum class CollectiveAlgorithm : unsigned char {
    Auto,
    Ring,
    MemberOrder,
    Tree,
    Nvls,
    Hierarchical,
    Pat,
};

inline constexpr std::array<CollectiveAlgorithm, 7> kCollectiveAlgorithmOptions {
    CollectiveAlgorithm::Auto, CollectiveAlgorithm::Ring, CollectiveAlgorithm::MemberOrder,
    CollectiveAlgorithm::Tree, CollectiveAlgorithm::Nvls, CollectiveAlgorithm::Hierarchical,
    CollectiveAlgorithm::Pat
};

/// "auto", "ring", "member-order", "tree", "nvls", "hierarchical", "pat".
constexpr std::string_view collectiveAlgorithmName(CollectiveAlgorithm a)
{
    constexpr std::array<std::string_view, 7> names { "auto", "ring", "member-order", "tree",
        "nvls", "hierarchical", "pat" };
    return names[static_cast<int>(a)];
}

constexpr bool parseCollectiveAlgorithm(std::string_view name, CollectiveAlgorithm &out)
{
    for (const CollectiveAlgorithm a : kCollectiveAlgorithmOptions) {
        if (collectiveAlgorithmName(a) == name) {
            out = a;
            return true;
        }
    }
    return false;
}

/** The scenario's "collectives" section: which algorithm the collectives use. */
struct CollectiveSpec
{
    CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto;
    /// NVLink SHARP in the servers' NVSwitches; unset = from the device (H100, H200, B200 and
    /// later have it, A100 has not: cost/nccltuning.cpp).
    std::optional<bool> nvls;
    bool operator==(const CollectiveSpec &) const = default;
};

} // namespace railyard
