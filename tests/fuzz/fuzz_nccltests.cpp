/**
 * libFuzzer target: the nccl-tests log reader (text table and -J JSON) and the calibration fit
 * of what it accepts (tests/fuzz/fuzznccltests.h).
 * Seeds: tests/fuzz/corpus/nccltests (published logs, the -J JSON form, table variants).
 */
#include "fuzznccltests.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzNcclTestsLog({ reinterpret_cast<const char *>(data), size });
    return 0;
}
