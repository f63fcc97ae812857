/**
 * libFuzzer target: lesson files through Lesson::fromJson and evaluateLesson
 * (fuzzqt.h, fuzzLesson). Seeds: tests/fuzz/corpus/lesson.
 */
#include "fuzzqt.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    railyard::fuzz::fuzzLesson({ reinterpret_cast<const char *>(data), size });
    return 0;
}
