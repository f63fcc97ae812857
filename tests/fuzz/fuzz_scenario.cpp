/**
 * libFuzzer target: the scenario loader (parseScenario), the save/load round trip and, for
 * fabrics up to fuzz::kMaxEvaluatedSlots GPU slots, a whole CostEngine evaluation.
 * Seeds: samples/ and tests/fuzz/corpus/scenario (small hand-written scenarios).
 */
#include "fuzzharness.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzScenario({ reinterpret_cast<const char *>(data), size });
    return 0;
}
