/**
 * libFuzzer target: port counters (perfquery -x, Prometheus text, CSV) and a mapping file after
 * a "---" line through the readers, the rates and the comparison with a two-server scenario
 * (fuzzportcounters.h, fuzzPortCounters). Seeds: tests/fuzz/corpus/portcounters.
 */
#include "fuzzportcounters.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzPortCounters({ reinterpret_cast<const char *>(data), size });
    return 0;
}
