/**
 * libFuzzer target: preflight's run record and the rank's environment
 * (fuzzreaders.h, fuzzPreflight). Seeds: tests/fuzz/corpus/preflight.
 */
#include "fuzzreaders.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzPreflight({ reinterpret_cast<const char *>(data), size });
    return 0;
}
