/**
 * libFuzzer target: railyard-cli's command line (CLI11), parsed but never run
 * (fuzzcli.h, fuzzCli). Seeds: tests/fuzz/corpus/cli.
 */
#include "fuzzcli.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzCli({ reinterpret_cast<const char *>(data), size });
    return 0;
}
