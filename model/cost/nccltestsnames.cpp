#include "cost/nccltestsnames.h"

#include "cost/collectiveestimate.h"

#include <utility>

namespace railyard {

namespace {

/// nccl-tests' binaries (src/*.cu: all_reduce.cu -> all_reduce_perf, ...) for the collectives
/// the engine models.
constexpr std::pair<Collective, std::string_view> kNcclTestsBinaries[]
    = { { Collective::AllReduce, "all_reduce_perf" }, { Collective::AllGather, "all_gather_perf" },
          { Collective::ReduceScatter, "reduce_scatter_perf" },
          { Collective::AllToAll, "alltoall_perf" }, { Collective::SendRecv, "sendrecv_perf" } };

} // namespace

std::optional<Collective> ncclTestsCollective(std::string_view binary)
{
    for (const auto &[op, name] : kNcclTestsBinaries)
        if (name == binary)
            return op;
    return std::nullopt;
}

const char *ncclTestsBinary(Collective op)
{
    for (const auto &[c, name] : kNcclTestsBinaries)
        if (c == op)
            return name.data();
    return "sendrecv_perf";
}

double ncclTestsBusFactor(Collective op, int ranks)
{
    return busBandwidthFactor(op, ranks);
}

} // namespace railyard
