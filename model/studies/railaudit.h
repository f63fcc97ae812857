#pragma once

#include "layout/parallellayout.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

/**
 * Rail audit: for every communicator of the job, whether its traffic stays on its rail, which
 * hops leave it, and where the spine is needed.
 *
 * Each group's flows are the engine's own: TP and the gradient sync (dp-cp, and a MoE's
 * expert-dp) as the collective planner builds them with the algorithms the report says ran,
 * CP as its ring in member order, a pipeline's adjacent stages both ways, EP all-to-all. Each
 * flow is routed by the engine's Router (with PXN, a cross-rail send first crosses NVLink to
 * the GPU on the destination's rail, as NCCL's PXN does) and classed by where it goes:
 *
 * - `scale_up`: both ends in one NVLink domain, no NIC;
 * - `leaf`: across servers through one leaf only (one rail's leaf; on a top-of-rack fabric,
 *   one rack's);
 * - `pxn`: the ends' NICs are on different rails and the data crosses NVLink first to the GPU
 *   on the destination's rail (NCCL's PXN; a rail-only fabric has no other way), so the
 *   network part stays on one rail;
 * - `spine`: one rail, but the servers' rail leaves differ (another scalable unit or pod):
 *   rails of different units meet only at the spine;
 * - `cross_rail`: the ends' NICs are on different rails and the flow leaves its rail through
 *   the spine.
 *
 * The ring order NCCL builds across servers is the planner's, NCCL's default NCCL_CROSS_NIC=2
 * (NCCL's src/graph/search.cc and connect.cc, 2.20 and later: a channel enters a server on one
 * NIC and leaves on another, and every other server swaps the pair, so each inter-node hop
 * joins equal NICs; over an odd number of servers the ring closes with one hop between rails).
 * The audit can take the other settings (RailAuditOptions::crossNic): 0, NCCL keeps a channel's
 * exit NIC on its entry NIC's rail, reaching it inside the server (PCIe or PXN over NVLink), so
 * a rail-aligned group's ring hops stay on one rail even over an odd server count; 1, NCCL does
 * not try to keep rails (meant for fabrics whose NICs share one switch), so on rails every
 * ring hop of a group with more than one NIC per server is taken as leaving its rail, the risk
 * the setting carries. A group whose members sit on different local GPUs on different servers
 * (not rail-aligned), or whose servers hold unequal member counts, cannot keep every hop on
 * one rail under any setting.
 *
 * A disaggregated inference scenario adds the `kv` communicators: every prefill replica's KV
 * hand-off to every decode replica (studies/inference.h kvTransferPairs), one group per pair.
 */
enum class RailPath { ScaleUp, Leaf, Pxn, Spine, CrossRail };
inline constexpr int kRailPathCount = 5;
constexpr int index(RailPath p)
{
    return static_cast<int>(p);
}
std::string_view railPathName(RailPath path); ///< "scale_up", "leaf", "pxn", "spine", "cross_rail"

struct RailHop
{
    int srcSlot = -1;
    int dstSlot = -1;
    int srcRank = -1; ///< -1 for the KV hand-off, whose ends are GPUs of the inference pools
    int dstRank = -1;
    int srcServer = -1;
    int dstServer = -1;
    int srcRail = -1;
    int dstRail = -1;
    RailPath path = RailPath::ScaleUp;
    bool reachesSpine = false;
};

struct RailAuditGroup
{
    std::string name; ///< the dimension's name: groupKindName(kind), or "kv"
    GroupKind kind = GroupKind::Tp;
    int index = 0; ///< the group's index among layout.groups(kind)
    std::vector<int> ranks;
    std::vector<int> rails; ///< distinct rails of the members' NICs, ascending
    int servers = 0; ///< distinct servers the members sit on
    bool railAligned = true; ///< every member on one server's same local rail, per server set
    bool unevenServers = false; ///< servers hold different member counts
    int flows[kRailPathCount] = {}; ///< flows by RailPath
    std::vector<RailHop> leaving; ///< flows that leave their rail or reach a spine (first 8)
    int leavingCount = 0; ///< all of them
    bool reachesSpine = false;
};

struct RailAuditDim
{
    std::string name; ///< groupKindName(kind), or "kv" for the prefill -> decode hand-off
    GroupKind kind = GroupKind::Tp;
    int groups = 0;
    int groupsOnRail = 0; ///< groups whose every network flow stays on one rail's leaf
    int groupsViaSpine = 0; ///< groups with a flow through a spine
    int flows[kRailPathCount] = {};
    std::string verdict; ///< one sentence composed from the figures above
};

/** What the audit assumes of NCCL beyond the scenario. */
struct RailAuditOptions
{
    int crossNic = 2; ///< NCCL_CROSS_NIC: 0, 1 or 2 (NCCL's default)
};

struct RailAudit
{
    int crossNic = 2; ///< the NCCL_CROSS_NIC setting audited
    bool pxn = false;
    bool railOptimised = false; ///< the fabric has rails (rail-optimised or rail-only)
    std::vector<RailAuditDim> dims; ///< the dimensions with groups of more than one rank
    std::vector<RailAuditGroup> groups; ///< every group of those dimensions
    std::vector<std::string> spineNeededFor; ///< "dp: ...", one reason per dimension
    std::vector<std::string> notes; ///< corner cases found (disjoint rails, uneven groups)
    std::string verdict; ///< "The spine is needed for ..." or "No traffic ..."
};

/// Audits the engine's current mapping (its fabric, layout, report and router).
RailAudit railAudit(const CostEngine &engine, const RailAuditOptions &options = {});

/// The audit as JSON: verdict, cross_nic, pxn, spine_needed_for, notes, dims (kind, groups,
/// groups_on_rail, groups_via_spine, hops by path, verdict) and the groups with hops off their
/// rail's leaf.
nlohmann::json railAuditJson(const RailAudit &audit);

/// The audit as text, one block per dimension, the groups that leave their rail named.
std::string railAuditText(const RailAudit &audit);

} // namespace railyard
