/**
 * libFuzzer target: --hosts files, then every export that names hosts
 * (fuzzreaders.h, fuzzHosts). Seeds: tests/fuzz/corpus/hosts.
 */
#include "fuzzreaders.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzHosts({ reinterpret_cast<const char *>(data), size });
    return 0;
}
