/**
 * libFuzzer target: Slurm or topograph topology.conf through parseSlurmTopologyConf(),
 * applySlurmTopology(), Fabric::build() and the re-export (fuzzscheduler.h). Seeds:
 * tests/fuzz/corpus/slurmtopo.
 */
#include "fuzzscheduler.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzSlurmTopology({ reinterpret_cast<const char *>(data), size });
    return 0;
}
