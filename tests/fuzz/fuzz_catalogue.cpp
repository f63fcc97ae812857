/**
 * libFuzzer target: parts catalogue files (`bom --catalogue`), their round trip and the bill of
 * materials priced with them (fuzzcatalogue.h, fuzzCatalogue). Seeds: tests/fuzz/corpus/catalogue.
 */
#include "fuzzcatalogue.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzCatalogue({ reinterpret_cast<const char *>(data), size });
    return 0;
}
