/**
 * libFuzzer target: compute calibration files (`evaluate --calibration`) through
 * parseComputeCalibration(), applyComputeCalibration() and an evaluation (fuzzcomputecal.h).
 * Seeds: tests/fuzz/corpus/computecal.
 */
#include "fuzzcomputecal.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzComputeCalibration({ reinterpret_cast<const char *>(data), size });
    return 0;
}
