#pragma once

#include "base/units.h"
#include "workload/eprouting.h"

#include <array>
#include <string>
#include <vector>

namespace railyard {

class CostEngine;

/**
 * What expert parallelism with the scenario's routing does, for one EP group and for the job:
 * the dispatch traffic matrix of one MoE layer, its skew, the hottest destination, how much of
 * it crosses a spine, and the locality conflict with DP. Plain data: views only display it.
 * Bytes are per MoE layer and per micro-batch unless a name says "per iteration".
 */
struct EpSummary
{
    bool present = false; ///< false for dense models (nothing else is filled)
    RoutingKind kind = RoutingKind::Uniform;
    double zipfExponent = 0.0;
    int ep = 1;
    int experts = 0;
    int topK = 0;
    int group = 0; ///< index of the EP group the matrix describes
    int groupCount = 0; ///< EP groups in the job (world / ep)
    std::vector<int> groupRanks; ///< global rank of each member of that group, member order
    double tokensPerRank
        = 0.0; ///< T: tokens each rank routes per micro-batch (b s / (c t) with SP)
    double sendBytesPerRank = 0.0; ///< S = T topK h e, the all-to-all buffer per rank

    std::vector<double> expertShare; ///< per expert, sums to 1
    std::vector<double> memberShare; ///< H_j per member, sums to 1
    /// ep x ep, row-major: dispatch bytes member i sends member j (= S H_j) in one MoE layer;
    /// the diagonal is what stays on the rank (no network). Combine is the transpose.
    std::vector<double> matrix;
    std::vector<bool> crossesSpine; ///< ep x ep: the route i -> j uses a spine (or super-spine)

    double dispatchBytesPerLayer = 0.0; ///< one group, off-diagonal sum = S (ep - 1)
    double dispatchBytesPerLayerJob = 0.0; ///< every EP group
    std::vector<double> receivedBytes; ///< per member: off-rank bytes it receives
    double receivedMax = 0.0;
    double receivedMean = 0.0;
    double skew = 1.0; ///< receivedMax / receivedMean = ep max_j H_j
    int hottestMember = 0;
    int hottestRank = 0; ///< global rank of the hottest member
    int hottestFirstExpert = 0; ///< its experts [first, last]
    int hottestLastExpert = 0;
    int hottestExpert = 0; ///< the single most popular expert
    double spineDispatchBytesPerLayer = 0.0; ///< this group's dispatch bytes crossing a spine
    double spineDispatchBytesPerLayerJob = 0.0; ///< every EP group

    // From the engine's link loads: EP bytes per iteration (dispatch + combine, forward and
    // backward), summed over the links of each tier like CostReport::tierBytes.
    std::array<double, kTierCount> tierBytes {};
    double spineBytes = 0.0; ///< spine + super-spine tiers
    double exposedTime = 0.0; ///< seconds per iteration (CostReport::dimExposed[ep])

    // Locality. Every EP group lies inside one dp-cp group (Megatron carves EP out of DP), so
    // one placement cannot keep both local: EP on one server (all-to-all on NVLink) spreads
    // each DP group over several GPU indices, hence rails; DP on one rail leaf sends EP over
    // the NICs; EP across servers and rails sends dispatch over the spine. A group "spans
    // leaves" when its members use more than one server and more than one leaf (then some
    // member pair can only meet through a spine; PXN is not considered here).
    int dpGroups = 0;
    int dpGroupsOneLeaf = 0; ///< dense DP (dp-cp) groups that never need a spine
    int epGroupsOneServer = 0; ///< EP groups whose all-to-all stays on the scale-up domain
    int epGroupsSpanningLeaves = 0; ///< EP groups whose dispatch crosses a spine
    /// "both-local", "ep-in-server" (DP leaves its leaf; "ep-in-scaleup" when the fabric's
    /// scale-up domains are rack-scale: EP inside one NVLink domain), "dp-on-leaf" (EP over the
    /// NICs of one leaf) or "ep-spans-leaves" (EP dispatch on the spine).
    std::string locality;
};

/// The summary for EP group `group` of the engine's current mapping. Uses the engine's router
/// (not thread-safe: call it on the thread that evaluates). `group` is clamped to the groups.
EpSummary epSummary(const CostEngine &engine, int group = 0);

} // namespace railyard
