/**
 * libFuzzer target: autosave files and their metadata sidecar
 * (fuzzqt.h, fuzzAutosave). Seeds: tests/fuzz/corpus/autosave.
 */
#include "fuzzqt.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzAutosave({ reinterpret_cast<const char *>(data), size });
    return 0;
}
