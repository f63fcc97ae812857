#pragma once

#include "fabric/fabric.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"
#include "fabric/router.h"
#include "base/units.h"

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace railyard {

/** How the members of one group exchange data in one pass of a collective. */
enum class FlowShape {
    Ring,       ///< member i -> member i+1 (mod n), (n-1)/n of S per pass (NCCL ring)
    AllToAll,   ///< every ordered pair, S/n each (pairwise exchange)
    Boundary,   ///< pipeline group: member s -> member s+1 (forward) or s+1 -> s (backward)
};

/**
 * A traffic pattern: the link loads that one collective pass puts on the fabric when every
 * group it covers runs at once, per byte of message size S. Patterns are linear in S, so one
 * pattern serves every op of its kind (forward and backward, all-reduce and all-gather).
 */
struct TrafficPattern
{
    std::string name;
    Dim dim = Dim::Tp;
    int stage = -1;            ///< -1 = all stages
    int steps = 0;             ///< fixed latency steps per pass (p2p 1); rings add their own
    std::map<int, int> ringSteps; ///< multiset of the emitted rings' n-1 (sizes follow the mapping
                                  ///< in hierarchical DP, so a move can lower them again)
    double weight = 0.0;       ///< bytes per iteration on a link per unit of `load`
    std::unordered_map<int, double> load; ///< link id -> bytes per byte of S per pass
    /// Net demand entering each cached route segment (Router::Parts) since the last flush;
    /// spread over the segment's links in one go, so a swap touches only what really moved.
    std::unordered_map<int, double> pendingSegments;
    std::map<long long, int> latencies;   ///< multiset of flow latencies, in nanoseconds
    double maxRatio = 0.0;     ///< max over links of load / bandwidth (seconds per byte of S)
    int argmax = -1;
    bool rescan = false;

    double maxLatency() const; ///< seconds; 0 when the pattern has no flow
    int stepCount() const;     ///< latency steps per pass: the largest ring's, or `steps`
};

/**
 * Routes every group's flows onto the fabric and keeps, per pattern, the per-link load; also
 * the per-link, per-dimension bytes per iteration. A change of mapping re-emits only the flows
 * of the groups that contain the moved ranks (subtract with the old slots, add with the new).
 */
class TrafficModel
{
public:
    /// `stageDpBytes[s]` / `stageExpertDpBytes[s]`: S of the stage's gradient sync (dense over
    /// the dp-cp group, expert over the expert-dp group); they weight the DP pattern's flows.
    struct Setup
    {
        bool hierarchicalDp = false;
        std::vector<double> stageDpBytes;
        std::vector<double> stageExpertDpBytes;
        /// H_j, the share of routed tokens EP member j receives (model/workload/eprouting.h); empty =
        /// uniform, the plain pairwise all-to-all. When set, dispatch (i -> j, S H_j) and combine
        /// (j -> i, the same bytes back) get a pattern each, since skew makes them differ per link.
        std::vector<double> epShares;
        /// Interleaved schedule: the last stage also sends to stage 0 between model chunks
        /// (and gradients back), a boundary of its own (ppWrapForwardPattern()).
        bool ppWrap = false;
    };

    TrafficModel(const Fabric &fabric, const ParallelLayout &layout, Router &router,
                 const Setup &setup);

    /// Routes everything for `mapping` from scratch.
    void build(const Mapping &mapping);
    /// Re-routes the groups of ranks a and b; call with the mapping before and after the swap.
    void beginMove(const Mapping &before, const std::vector<int> &ranks);
    void endMove(const Mapping &after);

    /// Sets how many bytes per iteration flow per unit load of a pattern (from the ops using it).
    void setWeight(int pattern, double bytesPerIteration);
    void refreshMaxima();

    int patternCount() const { return static_cast<int>(m_patterns.size()); }
    const TrafficPattern &pattern(int i) const { return m_patterns[i]; }
    int tpPattern(int stage) const { return m_tp[stage]; }
    int cpPattern(int stage) const { return m_cp[stage]; }
    int epPattern(int stage) const { return m_ep[stage]; }
    /// The combine direction of a skewed EP all-to-all; -1 with uniform routing (then the
    /// dispatch pattern, symmetric, stands for both).
    int epCombinePattern(int stage) const { return m_epCombine.empty() ? -1 : m_epCombine[stage]; }
    int ppForwardPattern(int boundary) const { return m_ppForward[boundary]; }
    int ppBackwardPattern(int boundary) const { return m_ppBackward[boundary]; }
    /// The interleaved wrap-around: last stage -> stage 0 (forward), back (backward); -1 without.
    int ppWrapForwardPattern() const { return m_ppWrapForward; }
    int ppWrapBackwardPattern() const { return m_ppWrapBackward; }
    /// DP patterns: one flat ring, or [intra-server, inter-server] when hierarchical.
    const std::vector<int> &dpPatterns() const { return m_dp; }
    bool hierarchicalDp() const { return m_setup.hierarchicalDp; }

    /// Per link, per dimension, bytes per iteration (links x kDimCount, row-major).
    const std::vector<double> &linkDimBytes() const { return m_linkDimBytes; }
    const std::array<DimArray, kTierCount> &tierBytes() const { return m_tierBytes; }
    /// Links whose bytes changed since the last call (each once); clears the list.
    std::vector<int> takeChangedLinks();

    double nicUpBytes() const { return m_nicUpBytes; }   ///< NIC -> leaf
    double leafUpBytes() const { return m_leafUpBytes; } ///< leaf -> spine

private:
    struct GroupRef
    {
        GroupKind kind;
        int index;
        bool operator<(const GroupRef &o) const
        {
            return kind != o.kind ? kind < o.kind : index < o.index;
        }
    };

    int addPattern(std::string name, Dim dim, int stage, int steps);
    void emitGroup(const GroupRef &group, const Mapping &mapping, double sign);
    void emitRing(int pattern, const std::vector<int> &members, const Mapping &mapping,
                  double bytesPerPass, double sign);
    void emitAllToAll(int pattern, const std::vector<int> &members, const Mapping &mapping,
                      double sign, const std::vector<double> *shares = nullptr,
                      bool reverse = false);
    void emitFlow(int pattern, int srcSlot, int dstSlot, double unit, double sign);
    void applyWeightedLoad(const TrafficPattern &p, int link, double load);
    void addLoad(TrafficPattern &p, int link, double delta);
    void flushSegments(TrafficPattern &p);
    std::vector<GroupRef> groupsOf(const std::vector<int> &ranks) const;
    int stageOfGroup(GroupKind kind, int index) const;

    const Fabric &m_fabric;
    const ParallelLayout &m_layout;
    Router &m_router;
    Setup m_setup;

    std::vector<TrafficPattern> m_patterns;
    std::vector<int> m_tp, m_cp, m_ep, m_ppForward, m_ppBackward, m_dp;
    std::vector<int> m_epCombine; ///< per stage; empty with uniform routing
    int m_ppWrapForward = -1;
    int m_ppWrapBackward = -1;
    std::vector<GroupRef> m_moving;
    Router::Parts m_parts;
    std::vector<int> m_changedLinks;
    std::vector<unsigned char> m_changedMark;

    std::vector<double> m_linkDimBytes;
    std::vector<unsigned char> m_linkIsNicUp, m_linkIsLeafUp;
    std::array<DimArray, kTierCount> m_tierBytes{};
    double m_nicUpBytes = 0.0;
    double m_leafUpBytes = 0.0;
};

} // namespace railyard
