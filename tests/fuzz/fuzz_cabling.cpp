/**
 * libFuzzer target: cabling inventory CSV through parseCablingCsv(), importCabling(),
 * Fabric::build() and the engine (fuzzcabling.h). Seeds: tests/fuzz/corpus/cabling.
 */
#include "fuzzcabling.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzCabling({ reinterpret_cast<const char *>(data), size });
    return 0;
}
