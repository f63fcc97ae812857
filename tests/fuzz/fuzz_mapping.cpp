/**
 * libFuzzer target: rank mappings, through a scenario's "mapping" object (loader, placement,
 * evaluation) and directly through Mapping, validate(), moveRank() and CostEngine::setMapping().
 * Input: 4 header bytes choosing a small fabric and layout, then the mapping JSON
 * (fuzzharness.h, fuzzMapping). Seeds: tests/fuzz/corpus/mapping.
 */
#include "fuzzharness.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzMapping({ reinterpret_cast<const char *>(data), size });
    return 0;
}
