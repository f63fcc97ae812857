/**
 * libFuzzer target: search parts as railyard-cli merge reads and merges them
 * (fuzzreaders.h, fuzzSearchPart). Seeds: tests/fuzz/corpus/searchpart.
 */
#include "fuzzreaders.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzSearchPart({ reinterpret_cast<const char *>(data), size });
    return 0;
}
