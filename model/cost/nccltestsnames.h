#pragma once

#include "workload/workloadplan.h"

#include <optional>
#include <string_view>

namespace railyard {

/// The collective an nccl-tests binary runs ("all_reduce_perf" -> all-reduce); nullopt for the
/// binaries Railyard does not model (broadcast, reduce, gather, scatter, hypercube).
std::optional<Collective> ncclTestsCollective(std::string_view binary);
/// The nccl-tests binary that measures `op` (all-reduce -> "all_reduce_perf"); the inverse of
/// ncclTestsCollective().
const char *ncclTestsBinary(Collective op);

/// nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md): all-reduce 2(n-1)/n, all-gather,
/// reduce-scatter and all-to-all (n-1)/n, send-recv 1.
double ncclTestsBusFactor(Collective op, int ranks);

} // namespace railyard
