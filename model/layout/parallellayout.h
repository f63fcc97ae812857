#pragma once

#include "layout/grouplist.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/** Parallel degrees. world = tp*pp*dp*cp; ep divides dp*cp (the expert groups split it). */
struct ParallelDegrees
{
    int tp = 1;
    int pp = 1;
    int dp = 1;
    int cp = 1;
    int ep = 1;
    bool operator==(const ParallelDegrees &) const = default;
};

/** A rank's coordinates: tensor shard t, pipeline stage p, data replica d, context c, expert e. */
struct RankCoord
{
    int t = 0;
    int p = 0;
    int d = 0;
    int c = 0;
    int e = 0; ///< index in its expert-parallel group (from the expert generator)
    bool operator==(const RankCoord &) const = default;
};

/** The group kinds the engine and the CLI know; names as in Megatron-LM's parallel_state. */
enum class GroupKind { Tp, Pp, Dp, Cp, Ep, DpCp, TpPp, ExpertDp };
std::string_view groupKindName(
    GroupKind kind); ///< "tp", "pp", "dp", "cp", "ep", "dp-cp", "tp-pp", "edp"
bool parseGroupKind(std::string_view name, GroupKind &out);

/**
 * Rank <-> coordinates and every communication group, with Megatron-LM's RankGenerator
 * semantics: the order string lists the dimensions from fastest- to slowest-varying in the
 * global rank (default "tp-cp-ep-dp-pp"); the dense generator uses ep = 1, the expert generator
 * uses (tp, ep, dp*cp/ep, pp) with cp = 1, as Megatron's `expert_decoder_rank_generator` does.
 * Group membership and member order equal Megatron's `generate_masked_orthogonal_rank_groups`.
 */
class ParallelLayout
{
public:
    /// Throws ScenarioError("parallel.<field>", reason) for bad degrees or order strings.
    ParallelLayout(const ParallelDegrees &degrees, std::string order = "tp-cp-ep-dp-pp");

    const ParallelDegrees &degrees() const { return m_degrees; }
    const std::string &order() const { return m_order; }
    int worldSize() const { return m_world; }

    RankCoord coord(int rank) const { return m_coords[rank]; }
    /// Inverse of coord() for the dense dimensions (t, p, d, c).
    int rankOf(int t, int p, int d, int c = 0) const;

    /// All groups of a kind, each in member order; every rank appears in exactly one group.
    const GroupList &groups(GroupKind kind) const;
    /// Index (into groups(kind)) of the group holding `rank`.
    int groupOf(GroupKind kind, int rank) const;

private:
    ParallelDegrees m_degrees;
    std::string m_order;
    int m_world = 1;
    std::vector<RankCoord> m_coords;
    std::vector<GroupList> m_groups; ///< per GroupKind
    std::vector<std::vector<int>> m_groupOf; ///< per GroupKind, per rank
    /// Global-rank strides of t, p, d, c in the dense generator (for rankOf()).
    struct DenseStrides
    {
        int t = 1, p = 1, d = 1, c = 1;
    } m_stride;
};

/// Hybrid sharding's sub-groups of one dp-cp group (`members` in group order): with `shard` = R
/// dividing the group, the shard groups [kR, (k+1)R) or, with `replica`, the replica groups
/// {j, j + R, j + 2R, ...} - PyTorch's 2-D device mesh (replicate, shard) with the shard
/// dimension innermost (torch.distributed.fsdp HYBRID_SHARD; FSDP2's fully_shard on a 2-D mesh).
/// The whole group alone when R is 0 or not smaller than the group.
std::vector<std::vector<int>> hybridSubgroups(
    std::span<const int> members, int shard, bool replica);

} // namespace railyard
