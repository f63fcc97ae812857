#pragma once

#include "base/touchedindexes.h"
#include "base/units.h"
#include "cost/collectiveplanner.h"
#include "cost/linkloads.h"
#include "cost/maxtree.h"
#include "cost/nccltuning.h"
#include "fabric/fabric.h"
#include "fabric/routelumps.h"
#include "fabric/router.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"
#include "scenario/collectivespec.h"
#include "scenario/ncclobservedspec.h"
#include "workload/workloadplan.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace railyard {

/**
 * A traffic pattern: the link loads that one collective pass puts on the fabric when every
 * group it covers runs at once, per byte of message size S. Patterns are linear in S, so one
 * pattern serves every op of its kind (forward and backward, all-reduce and all-gather).
 */
struct TrafficPattern
{
    std::string name;
    Dim dim = Dim::Tp;
    int stage = -1; ///< -1 = all stages
    int steps = 0; ///< fixed latency steps per pass (p2p 1); rings add their own
    std::map<int, int> ringSteps; ///< multiset of the emitted rings' n-1 (sizes follow the mapping
                                  ///< in hierarchical DP, so a move can lower them again)
    double weight = 0.0; ///< bytes per iteration on a link per unit of `load`
    LinkLoads load; ///< link id -> bytes per byte of S per pass
    /// Net demand entering each cached route segment (Router::Parts) since the last flush;
    /// spread over the segment's links in one go, so a swap touches only what really moved.
    SegmentDemand pendingSegments;
    /// During a move, the net change of each route-end link (GPU, PCIe and NIC hops, NVLS
    /// ports) since the last flush: a flow that leaves a link and the one that takes its place
    /// often cancel there (a ring member's neighbours keep their own ends), and a link whose
    /// net change is zero is then neither updated nor reported as changed.
    LinkDeltas pendingEnds;
    std::map<long long, int> latencies; ///< multiset of flow latencies, in nanoseconds
    /// The load on each link of each lump (TrafficModel::Lump), by lump index: kept here
    /// instead of in `load` for each of its links. Empty until used.
    std::vector<double> lumped;
    /// Dense patterns (LinkLoads::dense()), and sparse ones once their largest load has
    /// shrunk: the largest load / bandwidth by blocks of links, for linkMax. Unused (size 0)
    /// before that: a pattern that only grows keeps linkMax as it goes.
    BlockMaxima ratios;
    double maxRatio = 0.0; ///< max over links of load / bandwidth (seconds per byte of S)
    int argmax = -1;
    double linkMax = 0.0; ///< the same over the links in `load` only
    int linkArgmax = -1;
    bool rescan = false; ///< linkMax must be found again (its link lost load)
    double lumpMax = 0.0; ///< the same over the lumps' links
    int lumpArgmax = -1;
    bool lumpChanged = false; ///< lumpMax must be found again (its lump lost load)

    double maxLatency() const; ///< seconds; 0 when the pattern has no flow
    int stepCount() const; ///< latency steps per pass: the largest ring's, or `steps`

    // Collective patterns (the TP and DP families): every group planned by the collective
    // planner (cost/collectiveplanner.h) with one algorithm; times follow NCCL's cost model.
    bool planned = false;
    PlanAlgorithm algorithm = PlanAlgorithm::Ring;
    Collective plannedFor = Collective::AllReduce; ///< the op the plans are built for
    /// Share of each tier's line rate the algorithm achieves (nccltuning::linkEfficiency);
    /// maxRatio divides by it.
    std::array<double, kTierCount> efficiency { 1.0, 1.0, 1.0, 1.0, 1.0 };
    /// Multisets of the groups' latencies in nanoseconds, [passes - 1][protocol]: the phase
    /// waits for its slowest group.
    std::array<std::array<std::map<long long, int>, kProtocolCount>, 2> chainLatency;
    std::map<int, int> groupServers; ///< multiset of the servers each group spans
    std::map<int, int> groupChannels; ///< multiset of the groups' channels

    /// Latency of one op of `passes` passes with protocol `p`: the slowest group's (seconds).
    double alpha(Protocol p, int passes) const;
    int maxServers() const;
    int minChannels() const; ///< the fewest channels of any group (1 without groups)
};

/** The algorithm and protocol one op of a collective family runs, and its time (one run). */
struct CollectiveChoice
{
    int pattern = -1; ///< -1: no group of that kind
    PlanAlgorithm algorithm = PlanAlgorithm::Ring;
    Protocol protocol = Protocol::Simple;
    double time = 0.0;
    double alpha = 0.0;
};

/**
 * Routes every group's flows onto the fabric and keeps, per pattern, the per-link load; also
 * the per-link, per-dimension bytes per iteration. A change of mapping re-emits only the flows
 * of the groups that contain the moved ranks (subtract with the old slots, add with the new).
 *
 * TP and DP groups form collective families: one pattern per algorithm the scenario lets them
 * run (ring, tree, NVLS, hierarchical, PAT), every group planned by the collective planner in
 * each. Each op takes the fastest algorithm and protocol (NCCL's cost model on the current
 * loads), and only the chosen patterns carry its bytes per iteration; a move re-chooses.
 */
class TrafficModel
{
public:
    /// One op of a collective family: its S (for DP a ratio of the stage's sync size, which the
    /// DP loads already carry) and the bytes per iteration one unit of load stands for when it
    /// runs (passes x S x runs per iteration).
    struct FamilyOp
    {
        Collective collective = Collective::AllReduce;
        double bytes = 0.0;
        double iterationBytes = 0.0;
    };

    struct Setup
    {
        bool hierarchicalDp = false; ///< under auto, the DP all-reduce runs hierarchically
        CollectiveAlgorithm algorithm = CollectiveAlgorithm::Auto; ///< the scenario's option
        nccltuning::DeviceTuning
            device; ///< NVLS and the tuner's generation (nccltuning::deviceTuning)
        /// The TP ops per stage and the DP sync ops: each runs the algorithm and protocol its
        /// family's cost model chooses, and its bytes go to that algorithm's links. Empty: the
        /// family has one ring pattern and its weight is set by hand (setWeight()).
        std::vector<std::vector<FamilyOp>> tpOps;
        std::vector<FamilyOp> dpOps;
        /// Hybrid sharding (TrainingSpec::fsdpShard): the DP family's groups are the shard
        /// groups, `dpShard` consecutive members of each dp-cp group, and `dpReplicaOps` run on
        /// a family of their own over the replica groups (members i, i + R, ...). 0 = one shard
        /// group, the whole dp-cp group (no replica family).
        int dpShard = 0;
        std::vector<FamilyOp> dpReplicaOps;
        /// `stageDpBytes[s]` / `stageExpertDpBytes[s]`: S of the stage's gradient sync (dense
        /// over the dp-cp group, expert over the expert-dp group); they scale the DP flows.
        std::vector<double> stageDpBytes;
        std::vector<double> stageExpertDpBytes;
        /// H_j, the share of routed tokens EP member j receives (model/workload/eprouting.h); empty
        /// = uniform, the plain pairwise all-to-all. When set, dispatch (i -> j, S H_j) and combine
        /// (j -> i, the same bytes back) get a pattern each, since skew makes them differ per link.
        std::vector<double> epShares;
        /// Interleaved schedule: the last stage also sends to stage 0 between model chunks
        /// (and gradients back), a boundary of its own (ppWrapForwardPattern()).
        bool ppWrap = false;
        /// A tied word embedding across the pipeline: the first and the last stage all-reduce
        /// its gradient once per iteration, over the same pairs of ranks as the wrap-around,
        /// whose patterns it then has even without the interleaved schedule.
        bool ppTied = false;
        /// The rings NCCL logged (scenario nccl_observed): a group whose slots are exactly a
        /// communicator's runs its ring plan over them in place of the predicted rings, each
        /// hop between servers over the NICs NCCL logged for it (NcclObservedComm::nics).
        std::vector<NcclObservedComm> observed;
    };

    TrafficModel(
        const Fabric &fabric, const ParallelLayout &layout, Router &router, const Setup &setup);

    /// Routes everything for `mapping` from scratch.
    void build(const Mapping &mapping);
    /// Re-routes the groups of the moved ranks; call with the mapping before and after the
    /// move. The moved groups' previous plans are kept until the next move, so that a move
    /// that puts the last one back (`revert`: the same ranks, each on the slot it had before
    /// it) takes them instead of planning the groups again; a search that rejects a move
    /// pays for its plans once.
    void beginMove(const Mapping &before, const std::vector<int> &ranks, bool revert = false);
    /// `refresh` false: the maxima and choices wait for the next refreshMaxima() (or the next
    /// move's), which then settles both moves' patterns at once.
    void endMove(const Mapping &after, bool refresh = true);

    /// Sets how many bytes per iteration flow per unit load of a pattern (from the ops using
    /// it); the TP and DP families set their own from the ops' choices.
    void setWeight(int pattern, double bytesPerIteration);
    /// Spreads pending segment demand, rescans maxima and re-chooses the families' algorithms.
    void refreshMaxima();

    int patternCount() const { return static_cast<int>(m_patterns.size()); }
    const TrafficPattern &pattern(int i) const { return m_patterns[i]; }
    /// The TP family's first pattern of a stage (its ring under auto; -1 without TP).
    int tpPattern(int stage) const;
    /// What one TP op of `stage` runs: the fastest of its family's algorithms and protocols.
    CollectiveChoice tpChoice(int stage, Collective c, double bytes) const;
    /// Whether every change is settled (refreshMaxima() ran since the last emit): the patterns'
    /// maxima and the choices read from them are final.
    bool settled() const { return m_touchedPatterns.empty(); }
    /// Advances whenever a refresh may have changed what tpChoice() gives for `stage`: while
    /// it stays the same (and settled()), so do the stage's choices.
    std::uint64_t tpVersion(int stage) const
    {
        return stage >= 0 && stage < static_cast<int>(m_tpVersion.size()) ? m_tpVersion[sz(stage)]
                                                                          : 1;
    }
    /// What one DP sync op runs (`ratio` = its S over the stage's DP sync size); `replica`:
    /// an op of the replica groups under hybrid sharding (Setup::dpReplicaOps).
    CollectiveChoice dpChoice(Collective c, double ratio, bool replica = false) const;
    int cpPattern(int stage) const { return m_cp[stage]; }
    int epPattern(int stage) const { return m_ep[stage]; }
    /// The combine direction of a skewed EP all-to-all; -1 with uniform routing (then the
    /// dispatch pattern, symmetric, stands for both).
    int epCombinePattern(int stage) const { return m_epCombine.empty() ? -1 : m_epCombine[stage]; }
    int ppForwardPattern(int boundary) const { return m_ppForward[boundary]; }
    int ppBackwardPattern(int boundary) const { return m_ppBackward[boundary]; }
    /// The interleaved wrap-around: last stage -> stage 0 (forward), back (backward); -1 without
    /// (neither the interleaved schedule nor a tied embedding, Setup::ppTied).
    int ppWrapForwardPattern() const { return m_ppWrapForward; }
    int ppWrapBackwardPattern() const { return m_ppWrapBackward; }
    /// The DP family's patterns, one per algorithm it weighs (under auto the ring first).
    const std::vector<int> &dpPatterns() const { return m_dp.patterns; }

    /// Bytes per iteration of dimension `d` on `link` (0 for a dimension no pattern carries).
    double linkDimBytes(int link, Dim d) const
    {
        const int column = m_dimColumn[static_cast<std::size_t>(index(d))];
        return column < 0 ? 0.0
                          : m_linkDimBytes[static_cast<std::size_t>(link) * m_dimColumns
                              + static_cast<std::size_t>(column)];
    }
    /// Whether links `a` and `b` carry the same bytes in every dimension.
    bool sameLinkDimBytes(int a, int b) const
    {
        const auto row = [this](int link) {
            return m_linkDimBytes.begin() + static_cast<std::ptrdiff_t>(link * m_dimColumns);
        };
        return std::equal(row(a), row(a) + static_cast<std::ptrdiff_t>(m_dimColumns), row(b));
    }
    int linkCount() const { return static_cast<int>(m_linkRole.size()); }
    const std::array<DimArray, kTierCount> &tierBytes() const { return m_tierBytes; }
    /// Links whose bytes changed since the last clearChangedLinks() (each once). build() lists
    /// none: after it every link is new.
    const std::vector<int> &changedLinks() const { return m_changedLinks.list(); }
    /// Empties changedLinks(); the list keeps its capacity for the next move's.
    void clearChangedLinks() { m_changedLinks.clear(); }
    /// The load pattern `pattern` puts on `link` (bytes per byte of S per pass), a lumped
    /// link's included; for tests and inspection.
    double patternLoad(int pattern, int link) const;
    /// How many lumps of links the model keeps (see Lump); 0 on fabrics where none can be.
    int lumpCount() const { return static_cast<int>(m_lumps.size()); }

    /// One flow as a build emits it, for the ECMP analysis (cost/ecmphashing.h): slot to slot,
    /// bytes per byte of S per pass, and the connections (the group's channels) it stands
    /// for; a plan's link load no route describes (NVLS) has `link` >= 0 and no slots.
    struct LoggedFlow
    {
        int pattern = -1;
        int src = -1;
        int dst = -1;
        double unit = 0.0;
        int connections = 1;
        int link = -1;
        RouteNics nics; ///< the NICs NCCL logged for the hop (scenario nccl_observed), else none
    };
    /// While set, build() appends every flow it emits to `log` (nullptr: none, the default).
    void logFlows(std::vector<LoggedFlow> *log) { m_flowLog = log; }
    /// Multiplies each pattern's bandwidth term (maxRatio) by `scales[p]` (the ECMP analysis's
    /// collision factor) until called again; empty restores the loads' own maxima exactly. The
    /// families' choices (tpChoice(), dpChoice()) then read the scaled terms; no link's bytes
    /// change.
    void setRatioScales(const std::vector<double> &scales);

    double nicUpBytes() const { return m_nicUpBytes; } ///< NIC -> leaf
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

    /** The patterns of one collective family (one per algorithm) and the ops choosing among
     *  them: all-reduces weigh `allReduce`, all-gathers and reduce-scatters `gatherScatter`. */
    struct Family
    {
        std::vector<int> patterns;
        std::vector<int> allReduce;
        std::vector<int> gatherScatter;
        std::vector<FamilyOp> ops;
    };

    int addPattern(std::string name, Dim dim, int stage, int steps);
    Family addFamily(const std::string &name, Dim dim, int stage, std::vector<FamilyOp> ops);
    std::vector<PlanAlgorithm> familyAlgorithms(Collective op, Dim dim) const;
    CollectiveChoice choose(const Family &family, Collective c, double bytes) const;
    void refreshChoices();
    void reweight(int pattern, double weight);
    void emitGroup(const GroupRef &group, const Mapping &mapping, double sign);
    /// A pipeline group's send across boundary s (members s -> s+1, gradients back), and the
    /// interleaved schedule's wrap-around (last -> first); emitGroup() and build() share them.
    void emitBoundarySend(
        std::size_t s, std::span<const int> members, const Mapping &mapping, double sign);
    void emitWrapSend(std::span<const int> members, const Mapping &mapping, double sign);
    /// build()'s pipeline sends: what emitGroup() adds for every pp group, boundary by boundary.
    void emitPipelineSends(const Mapping &mapping);
    /// One flow of a group's plan between two of its members (indexes in the group's member
    /// list, which a move does not change), bytes per byte of S per pass.
    struct GroupFlow
    {
        int from = -1;
        int to = -1;
        double unit = 0.0;
        bool operator==(const GroupFlow &) const = default;
    };
    /// A flow of a ring hop over the NICs NCCL logged (CollectivePlan::nicFlows).
    struct NicGroupFlow
    {
        GroupFlow flow;
        RouteNics nics;
        bool operator==(const NicGroupFlow &) const = default;
    };
    /**
     * What one group's plan put on one planned pattern (trafficmodelplans.cpp): the members'
     * slots, its flows merged per (source, destination) member and sorted, link loads and units
     * times the group's scale, and its entries in the pattern's latency, server and channel
     * multisets. A move re-plans the group once and re-emits only the flows whose slots or
     * units changed.
     */
    using FlowList = std::vector<GroupFlow>;
    static inline const FlowList kNoFlows {};
    struct EmittedPlan
    {
        std::vector<int> slots; ///< per member, when planned
        /// Never changed once the plan is made, so plans share it: a PAT or pairwise
        /// all-to-all list is the same for every group of its size and scale (IndexedFlows),
        /// and a family's patterns that plan one algorithm share one plan. At 1,048,576 GPUs a
        /// copy per group was 8 % of the memory an evaluation touches (docs/performance.md).
        std::shared_ptr<const FlowList> flows;
        const FlowList &flowList() const { return flows ? *flows : kNoFlows; }
        /// Flows over NICs NCCL logged (scenario nccl_observed), emitted as they are: a few per
        /// logged communicator, none in any other plan.
        std::vector<NicGroupFlow> nicFlows;
        std::vector<PlannedLinkLoad> links;
        std::array<std::array<long long, kProtocolCount>, 2> latency {};
        int servers = 0;
        int channels = 0;
    };
    void emitFamily(const Family &family, const GroupRef &group, std::span<const int> members,
        const Mapping &mapping, double scale, double sign);
    /**
     * The plans a family's patterns made for one group under one mapping (emitFamily()): two
     * patterns whose algorithms fall back to the same one on this group (NVLS on a group with
     * one member per server is the plain tree; PAT on one server is the ring) get the same
     * plan, so the second copies the first's instead of planning again.
     */
    struct FamilyPlans
    {
        struct Made
        {
            PlanAlgorithm algorithm = PlanAlgorithm::Ring; ///< as planned (after fallbacks)
            Collective op = Collective::AllReduce; ///< what it was planned for
            const EmittedPlan *plan = nullptr;
        };
        std::array<Made, 8> made {};
        int count = 0;
    };
    /// `prepared`: whether m_prepared holds the group as the planner sees it under `mapping`,
    /// made by the first of a family's patterns that plans it, for the others; `made`: the
    /// plans they made.
    void emitPlanned(int pattern, const GroupRef &group, std::span<const int> members,
        const Mapping &mapping, double scale, double sign, bool &prepared, FamilyPlans &made);
    EmittedPlan planGroup(int pattern, const PlannerGroup &group, double scale);
    /// planGroup()'s plan past its flows: the link loads, latencies, servers and channels.
    void finishPlan(EmittedPlan &out, const CollectivePlan &plan, double scale) const;
    /// Adds (sign > 0) or removes what `plan` emits; `flows` false: all but its flows.
    void emitPlan(int pattern, const EmittedPlan &plan, double sign, bool flows = true);
    void emitPlanChange(int pattern, const EmittedPlan &before, const EmittedPlan &after);
    /// Adds (sign > 0) or removes one element of a multiset kept as value -> count.
    template<typename Key> static void countIn(std::map<Key, int> &m, Key key, double sign)
    {
        if (sign > 0) {
            ++m[key];
        } else if (auto it = m.find(key); it != m.end() && --it->second == 0) {
            m.erase(it);
        }
    }
    void emitRing(int pattern, std::span<const int> members, const Mapping &mapping,
        double bytesPerPass, double sign);
    void emitAllToAll(int pattern, std::span<const int> members, const Mapping &mapping,
        double sign, const std::vector<double> *shares = nullptr, bool reverse = false);
    void emitFlow(int pattern, int srcSlot, int dstSlot, double unit, double sign,
        bool trackLatency = true, RouteNics nics = {});
    double ratio(const TrafficPattern &p, int link, double load) const;
    void applyWeightedLoad(const TrafficPattern &p, int link, double load, double weight);
    void applyLinkBytes(int link, Dim dim, double bytes);
    /// Link `link`'s row of m_linkDimBytes.
    double *linkDimRow(int link)
    {
        return m_linkDimBytes.data() + static_cast<std::size_t>(link) * m_dimColumns;
    }
    /// Adds `bytes` of dimension `d` to one link's row and to the totals its role names (tier,
    /// NIC uplink, leaf uplink), in that order (applyLinkBytes and the lumps' spread share it).
    void addLinkDimBytes(double *row, std::uint8_t role, std::size_t d, double bytes)
    {
        row[static_cast<std::size_t>(m_dimColumn[d])] += bytes;
        m_tierBytes[role & kTierMask][d] += bytes;
        if (role & kNicUp)
            m_nicUpBytes += bytes;
        if (role & kLeafUp)
            m_leafUpBytes += bytes;
    }
    void addLoad(TrafficPattern &p, int link, double delta);
    void startBlockMaxima(TrafficPattern &p);
    /// Whether a sparse pattern's argmax link, which lost load during the move, is back at the
    /// pattern's maximum (then no scan is needed to find it).
    bool argmaxHolds(const TrafficPattern &p) const;
    /// Loaded links from which a sparse pattern whose largest load shrank keeps block maxima
    /// rather than scanning its links again.
    static constexpr std::size_t kBlockMaximaFrom = 128;
    void flushSegments(TrafficPattern &p);
    /// Adds `delta` on `link` now (build()) or, during a move or while a build nets one plan's
    /// flows (m_nettingEnds), to the pattern's pendingEnds.
    void addEndLoad(TrafficPattern &p, int link, double delta);
    void flushEnds(TrafficPattern &p);

    /**
     * A lump of switch-to-switch links that every route segment using one of them uses all of,
     * each with one share (fabric/routelumps.h): a pattern keeps one number per lump
     * (TrafficPattern::lumped) instead of one per link, a segment adds to a few lumps instead
     * of to each of its links (64 of them between two leaves under 32 spines), and the links'
     * bytes per iteration are spread once per refresh for all patterns together.
     */
    using Lump = RouteLumps::Lump;
    using LumpShare = RouteLumps::LumpShare;
    /// Adds `demand` entering `segment` to its lumps and its other hops; false when the
    /// segment has no lump (its hops are then the router's).
    bool addSegmentToLumps(TrafficPattern &p, int segment, double demand);
    void addLumpLoad(TrafficPattern &p, int lump, double delta);
    void addLumpBytes(int lump, Dim dim, double bytes);
    void spreadLumpBytes();
    void refreshLumpMax(TrafficPattern &p) const;
    std::vector<GroupRef> groupsOf(const std::vector<int> &ranks) const;
    int stageOfGroup(GroupKind kind, int index) const;

    const Fabric &m_fabric;
    const ParallelLayout &m_layout;
    Router &m_router;
    Setup m_setup;

    std::vector<TrafficPattern> m_patterns;
    std::vector<Family> m_tp; ///< per stage
    std::vector<int> m_tpStageOfPattern; ///< per pattern: the stage of its TP family, else -1
    std::vector<std::uint64_t> m_tpVersion; ///< per stage (tpVersion()), from 1
    Family m_dp;
    Family m_dpReplica; ///< hybrid sharding's replica groups (Setup::dpShard); else empty
    std::vector<int> m_cp, m_ep, m_ppForward, m_ppBackward;
    std::vector<int> m_epCombine; ///< per stage; empty with uniform routing
    int m_ppWrapForward = -1;
    int m_ppWrapBackward = -1;
    std::vector<GroupRef> m_moving;
    /// The ranks the move under way places (beginMove() to endMove()): a group's
    /// point-to-point sends change only next to them.
    TouchedIndexes m_movingRanks;
    /// Whether the send between members `a` and `b` of a group must be emitted: always outside
    /// a move, inside one only when either of them moves.
    bool sendMoves(int a, int b) const
    {
        return m_movingRanks.empty() || m_movingRanks.contains(a) || m_movingRanks.contains(b);
    }
    /// Per (pattern, group): what its plan emitted (EmittedPlan); filled by build().
    std::unordered_map<std::uint64_t, EmittedPlan> m_emitted;
    /// The plans the last move replaced, by (pattern, group) id, for a move that reverts it.
    std::vector<std::pair<std::uint64_t, EmittedPlan>> m_replaced;
    /// Replaced plans no revert can want any more, whose vectors planGroup() reuses.
    std::vector<EmittedPlan> m_planPool;
    void recycleReplaced();
    /// A plan from the pool (its vectors keep their capacity), or a new one.
    EmittedPlan pooledPlan();
    /// Gives a plan no one reads any more to the pool (up to a few hundred).
    void recyclePlan(EmittedPlan &&plan);
    PlannerGroup m_prepared; ///< emitFamily()'s group as the planner sees it, reused
    /// Setup::observed by sorted slots (built on first use), and the matched group's rings as
    /// member indexes (what m_prepared.rings points to) and its hops' NICs per channel and
    /// member (m_prepared.ringNics; empty when none was logged).
    std::map<std::vector<int>, std::size_t> m_observedOf;
    std::vector<std::vector<int>> m_observedRings;
    std::vector<std::vector<RouteNics>> m_observedNics;
    /// Sets `group.rings` (and `group.ringNics`) to what NCCL logged for the group of these
    /// slots (member order), or null.
    void setObservedRings(const std::vector<int> &slots, PlannerGroup &group);
    std::vector<int> m_preparedSlots; ///< its members' slots
    bool m_reverting = false;
    std::vector<int> m_flowStart; ///< planGroup() scratch: per member, its first flow
    std::vector<GroupFlow> m_flowScratch;
    /**
     * planGroup()'s merged flows for plans whose pairs and units follow the member indexes only
     * (PAT, the pairwise all-to-all: the same for every placement of a group of that size), by
     * the planner's flows (members and units) and the scale they were made from: a group
     * re-planned after a move takes the list made before instead of sorting and merging again.
     */
    struct IndexedFlows
    {
        std::vector<PlannedFlow> planned;
        double scale = 0.0;
        std::shared_ptr<const FlowList> flows;
    };
    std::vector<IndexedFlows> m_indexedFlows;
    std::vector<unsigned char> m_memberMoved; ///< emitPlanChange() scratch: per member, moved
    CollectivePlan m_planScratch; ///< planGroup()'s plan, its vectors reused group after group
    Router::Parts m_parts;
    TouchedIndexes m_changedLinks;
    /// Patterns a flow, ring or plan was emitted into since the last refreshMaxima(): only
    /// their maxima and their families' choices can have changed.
    TouchedIndexes m_touchedPatterns;

    // The router's lumps (Router::lumps(), shared by every model on it), under the names the
    // lump code reads.
    const std::vector<Lump> &m_lumps;
    const std::vector<int> &m_lumpLinks; ///< the lumps' links (Lump::first, Lump::count)
    const std::vector<int> &m_lumpOfLink; ///< link id -> its lump, or -1; empty without lumps
    /// Per segment id (and one past the last): where its lumps start in m_segmentLumps and its
    /// other hops in m_segmentLoose. A segment with no lump reads its hops from the router.
    const std::vector<int> &m_segmentLumpStart, &m_segmentLooseStart;
    const std::vector<LumpShare> &m_segmentLumps;
    const std::vector<RouteHop> &m_segmentLoose;
    std::vector<DimArray> m_lumpBytes; ///< per lump: bytes per iteration not yet spread
    TouchedIndexes m_lumpTouched; ///< lumps with bytes to spread

    bool m_built = false; ///< build() ran: its loads are there to clear
    bool m_building = false; ///< inside build(): changed links are not listed
    bool m_nettingEnds = false; ///< a build's emitPlan(): route ends netted per link first
    /// Per link, bytes per iteration of each dimension some pattern carries (links x
    /// m_dimColumns, row-major; m_dimColumn maps a dimension to its column, -1 when none does):
    /// a job without EP and CP keeps three columns, not five (170 MB less at 10.6 million links).
    std::vector<double> m_linkDimBytes;
    std::array<int, kDimCount> m_dimColumn {};
    std::size_t m_dimColumns = 0;
    /// Per link, in one byte: its tier (index(Tier), kTierMask) and whether it is a NIC -> leaf
    /// (kNicUp) or a leaf -> spine (kLeafUp) link. applyLinkBytes() reads it for every load it
    /// adds, in no order; from the fabric's tier array and two flag arrays that was three cache
    /// misses instead of one.
    std::vector<std::uint8_t> m_linkRole;
    static constexpr std::uint8_t kTierMask = 0x0f, kNicUp = 0x10, kLeafUp = 0x20;
    std::array<DimArray, kTierCount> m_tierBytes {};
    double m_nicUpBytes = 0.0;
    double m_leafUpBytes = 0.0;
    std::vector<LoggedFlow> *m_flowLog = nullptr; ///< logFlows()
    int m_logConnections = 1; ///< the connections of the plan emitPlan() emits
    std::vector<double> m_unscaledRatio; ///< per pattern, while setRatioScales() scales
};

} // namespace railyard
