#pragma once

#include "io/nccllog.h"
#include "studies/ncclringdiff.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

/**
 * NCCL's log against the scenario: each rank placed on a GPU slot by its host (the fabric's
 * server names, or their short names before the first '.'; hosts the scenario does not name
 * take the servers in name order, and a note says so) and its CUDA device, then every network
 * connection checked:
 *
 * - **mis-bound NIC**: the NIC a rank sends a channel over (its own, or with PXN its proxy's)
 *   is not the NIC the scenario gives that GPU (fabric.gpu_to_nic; NIC names through the
 *   "NET/IB : Using" list and fabric.nic_devices, else mlx5_<index>);
 * - **leaves its rail**: the sending and the receiving NIC of one hop sit on different rails
 *   (in a rail-optimised fabric that hop crosses a spine).
 */
struct NcclViewFinding
{
    std::string kind; ///< "mis-bound-nic" or "leaves-rail"
    std::string comm;
    int channel = -1;
    int src = -1; ///< communicator ranks
    int dst = -1;
    std::string file;
    int line = 0;
    std::string text; ///< one sentence naming ranks, hosts, GPUs and NICs
};

struct NcclViewComm
{
    std::string id;
    int nranks = 0;
    int ranksPlaced = 0; ///< ranks tied to a slot
    int channels = 0; ///< rings logged
    int netSends = 0; ///< [send] via NET connections
    int pxnSends = 0; ///< of those, through another rank's NIC
    int p2p = 0; ///< P2P and SHM connections
    int misBound = 0;
    int leavingRail = 0;
};

struct NcclView
{
    std::vector<NcclViewComm> comms;
    std::vector<NcclViewFinding> findings; ///< every mis-bound NIC and rail-leaving hop
    std::vector<NcclCommDiff> rings; ///< NCCL's rings against the engine's, per communicator
    std::vector<std::string> notes;
};

NcclView compareNcclLog(const NcclLog &log, const CostEngine &engine);

std::string ncclViewText(const NcclLog &log, const NcclView &view);
nlohmann::json ncclViewJson(const NcclLog &log, const NcclView &view);

} // namespace railyard
