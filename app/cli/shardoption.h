#pragma once

#include <string>

namespace railyard::cli {

/// `--shard I/N` with 0 <= I < N (N at most 1,000,000): the shard this process runs of a search
/// split for Slurm job arrays (`search` and `fabric-search` share it). Throws
/// ScenarioError("--shard", ...) naming the expected form.
void parseShard(const std::string &text, int &index, int &count);

} // namespace railyard::cli
