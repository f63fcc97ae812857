#pragma once

#include "io/nccllog.h"
#include "scenario/ncclobservedspec.h"

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace railyard {

class CostEngine;
class Fabric;

/** Which server of the scenario each host of an NCCL log is (see NcclView). */
struct NcclHostPlacement
{
    std::map<std::string, int> serverOfHost;
    std::vector<std::string> notes;
};

/// A host is the server of that name (fabric.server_names, or the short name before the first
/// '.'); hosts the scenario does not name take its remaining servers in name order.
NcclHostPlacement placeNcclHosts(const NcclLog &log, const Fabric &fabric);

/// The fabric's NIC index of NCCL net device `dev` on `host`: by RDMA name when the scenario
/// names its NICs (fabric.nic_devices, set by import-topology), else NCCL's device index, which
/// orders the devices as NCCL found them (PCI order on the servers we model: rail i = NIC i).
int ncclFabricNic(const NcclLog &log, const Fabric &fabric, const std::string &host, int dev);
/// "mlx5_5" from the host's "NET/IB : Using" list, else "net DEV".
std::string ncclNicName(const NcclLog &log, const std::string &host, int dev);

/// The slot of each rank of `c` the log places (host and CUDA device); -1 where it cannot.
std::vector<int> ncclRankSlots(
    const NcclLogComm &c, const NcclHostPlacement &place, const Fabric &fabric);

/** One hop of a ring: rank `src` sends to rank `dst` (communicator ranks). */
struct NcclRingHop
{
    int src = -1;
    int dst = -1;
    bool network = false; ///< between scale-up domains (servers), through NICs
    int srcNic = -1; ///< network hops: the fabric NIC it leaves on (with PXN, the proxy's)
    int dstNic = -1; ///< and the one it arrives on
    bool nicLogged = false; ///< NCCL's hop: both NICs come from its connection lines
    bool crossesRail = false; ///< the two NICs are on different rails
    bool reachesSpine = false; ///< the two NICs hang off different leaves
};

/**
 * One ring NCCL built (a channel) against the ring the engine predicts for the same
 * communicator (cost/ringorder.h buildRings over the ranks' slots, the collective planner's
 * rings): the predicted channel it is compared with is the one sharing most hops with it
 * (NCCL often runs twice the channels, the second half a copy of the first).
 */
struct NcclChannelDiff
{
    int channel = -1;
    int predicted = -1; ///< the engine's channel it is compared with
    bool same = false; ///< same ring, same direction, same NICs on every network hop
    bool reversed = false; ///< the predicted ring run the other way
    bool sameNetwork = false; ///< every hop between servers as predicted (ranks and NICs)
    std::vector<int> ranks; ///< ranks whose next hop differs (next rank, or its NICs)
    std::vector<NcclRingHop> observed; ///< NCCL's hops that differ from the prediction
    std::vector<NcclRingHop> expected; ///< the engine's hops from the same ranks
    int networkHops = 0; ///< NCCL's hops between servers
    int crossRailHops = 0; ///< of those, leaving their rail
    int spineHops = 0; ///< of those, reaching a spine
    int predictedSpineHops = 0; ///< the engine's ring's hops reaching a spine
    std::string place; ///< FILE:LINE of the ring's line
};

/** A communicator's rings against the engine's, and the job group it is. */
struct NcclCommDiff
{
    std::string comm;
    std::string group; ///< "tp 0", "dp-cp 3", ..., "world", or "" when no job group matches
    int nranks = 0;
    int observedChannels = 0;
    int predictedChannels = 0;
    int sameChannels = 0; ///< channels whose ring is the predicted one
    std::vector<NcclChannelDiff> channels;
    std::string skipped; ///< why the rings were not compared ("" when they were)
};

/// Every communicator with rings and all ranks placed, against the engine's prediction.
std::vector<NcclCommDiff> diffNcclRings(
    const NcclLog &log, const CostEngine &engine, const NcclHostPlacement &place);

/// The scenario section "use what NCCL did" writes: every communicator the diff compared (all
/// ranks placed, rings logged), its slots in rank order, its rings and the NICs each network hop
/// of them was logged with (its `[send]` and `[receive]` lines); `readAt` its date.
NcclObservedSpec ncclObservedSpec(const NcclLog &log, const std::vector<NcclCommDiff> &diffs,
    const NcclHostPlacement &place, const Fabric &fabric, const std::string &readAt);

/// Text lines for the diff: one per communicator, then the differing hops (at most
/// `hopsInText` named, --json lists them all).
std::string ncclRingDiffText(
    const NcclLog &log, const std::vector<NcclCommDiff> &diffs, std::size_t hopsInText);
nlohmann::json ncclRingDiffJson(const std::vector<NcclCommDiff> &diffs);

} // namespace railyard
