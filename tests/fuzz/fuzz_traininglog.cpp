/**
 * libFuzzer target: the training-log readers (Megatron-LM, NeMo, torchtitan) and the Kineto
 * trace reader with its per-step measurement (tests/fuzz/fuzztraininglog.h).
 * Seeds: tests/fuzz/corpus/traininglog (the samples of tests/data/training-logs and variants).
 */
#include "fuzztraininglog.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzTrainingLog({ reinterpret_cast<const char *>(data), size });
    return 0;
}
