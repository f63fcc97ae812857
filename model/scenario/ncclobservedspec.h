#pragma once

#include <string>
#include <vector>

namespace railyard {

/**
 * The NICs of one network hop of a logged ring (section version 2 on): on ring `channel` (an
 * index into NcclObservedComm::rings), communicator rank `rank` sends to the next rank of that
 * ring over NIC `send` of its server and the next rank receives over NIC `receive` of its own,
 * as NCCL's `[send]` and `[receive]` connection lines name them (fabric NIC indexes; -1: that end
 * was not logged, the GPU's own NIC). `pxn`: NCCL sent through another GPU's NIC with PXN
 * (`via NET/IB/K(P)`), so the data crosses NVLink to the GPU that owns NIC `send` first.
 */
struct NcclObservedNics
{
    int channel = 0;
    int rank = 0;
    int send = -1;
    int receive = -1;
    bool pxn = false;
    bool operator==(const NcclObservedNics &) const = default;
};

/** One communicator as NCCL built it: where its ranks sat, the rings it ran and their NICs. */
struct NcclObservedComm
{
    std::string id; ///< NCCL's commId
    std::string group; ///< the job group it was matched to ("tp 0", "world", "" none)
    std::vector<int> slots; ///< slot of each communicator rank, in rank order
    std::vector<std::vector<int>> rings; ///< per channel, communicator ranks in ring order
    /// The NICs of its network hops as logged (version 2 on; empty in version 1 files): a hop
    /// not listed runs from and to its GPUs' own NICs.
    std::vector<NcclObservedNics> nics;
    bool operator==(const NcclObservedComm &) const = default;
};

/**
 * The scenario's "nccl_observed" section: the rings NCCL logged (railyard-cli nccl-log
 * --use-observed), which the engine uses for a group whose slots are exactly a communicator's
 * in place of the rings it predicts, each network hop from and to the NICs NCCL used, until the
 * section is removed. Empty `comms` = absent.
 */
struct NcclObservedSpec
{
    /// Of this section's layout: 1 rings only, 2 adds each hop's NICs (`nics`). What a file
    /// says is kept, so that a version 1 file is written back as it was read.
    int version = 2;
    std::string readAt; ///< when the log was read (ISO 8601, UTC)
    std::vector<std::string> files; ///< the logs, as given
    std::vector<NcclObservedComm> comms;
    bool empty() const { return comms.empty(); }
    bool operator==(const NcclObservedSpec &) const = default;
};

} // namespace railyard
