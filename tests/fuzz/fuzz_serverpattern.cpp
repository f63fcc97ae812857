/**
 * libFuzzer target: import-topology --server-pattern: the pattern and device names
 * (fuzzreaders.h, fuzzServerPattern). Seeds: tests/fuzz/corpus/serverpattern.
 */
#include "fuzzreaders.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzServerPattern({ reinterpret_cast<const char *>(data), size });
    return 0;
}
