#pragma once

#include <string>
#include <vector>

namespace railyard {

/** One communicator as NCCL built it: where its ranks sat and the rings it ran. */
struct NcclObservedComm
{
    std::string id; ///< NCCL's commId
    std::string group; ///< the job group it was matched to ("tp 0", "world", "" none)
    std::vector<int> slots; ///< slot of each communicator rank, in rank order
    std::vector<std::vector<int>> rings; ///< per channel, communicator ranks in ring order
    bool operator==(const NcclObservedComm &) const = default;
};

/**
 * The scenario's "nccl_observed" section: the rings NCCL logged (railyard-cli nccl-log
 * --use-observed), which the engine uses for a group whose slots are exactly a communicator's
 * in place of the rings it predicts, until the section is removed. Empty `comms` = absent.
 */
struct NcclObservedSpec
{
    int version = 1; ///< of this section's layout
    std::string readAt; ///< when the log was read (ISO 8601, UTC)
    std::vector<std::string> files; ///< the logs, as given
    std::vector<NcclObservedComm> comms;
    bool empty() const { return comms.empty(); }
    bool operator==(const NcclObservedSpec &) const = default;
};

} // namespace railyard
