/**
 * libFuzzer target: hotness files (expert weights), their shares and a small MoE evaluation
 * (fuzzreaders.h, fuzzHotness). Seeds: tests/fuzz/corpus/hotness.
 */
#include "fuzzreaders.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzHotness({ reinterpret_cast<const char *>(data), size });
    return 0;
}
