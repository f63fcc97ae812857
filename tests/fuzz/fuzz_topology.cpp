/**
 * libFuzzer target: NCCL topology XML through parseNcclTopology(), applyTopology() and
 * Fabric::build() (fuzzharness.h, fuzzTopology). Seeds: tests/fuzz/corpus/topology.
 */
#include "fuzzharness.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzTopology({ reinterpret_cast<const char *>(data), size });
    return 0;
}
