/**
 * libFuzzer target: nvidia-smi -q ClusterUUID output through parseNvidiaSmiFabric(),
 * groupNvlinkDomains(), applyNvlinkDomains(), Fabric::build() and the re-export (fuzzscheduler.h).
 * Seeds: tests/fuzz/corpus/nvsmi.
 */
#include "fuzzscheduler.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzNvidiaSmi({ reinterpret_cast<const char *>(data), size });
    return 0;
}
