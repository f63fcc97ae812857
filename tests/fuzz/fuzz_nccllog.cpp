/**
 * libFuzzer target: NCCL's NCCL_DEBUG=INFO output through parseNcclLog() and the comparison with
 * a two-server scenario (fuzznccllog.h, fuzzNcclLog). Seeds: tests/fuzz/corpus/nccllog.
 */
#include "fuzznccllog.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzNcclLog({ reinterpret_cast<const char *>(data), size });
    return 0;
}
