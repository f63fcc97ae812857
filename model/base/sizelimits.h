#pragma once

#include <cstddef>
#include <cstdint>

/**
 * Sizes the engine refuses up front, before allocating anything, so an absurd file gets a clear
 * message instead of exhausting memory. Chosen well above the largest fabrics built today
 * (the 16,384-GPU benchmark scenario sits far inside them).
 */
namespace railyard::limits {

inline constexpr std::int64_t kMaxGpus = 1 << 20;          // 1,048,576 GPU slots
inline constexpr std::int64_t kMaxGpusPerServer = 1024;
inline constexpr std::int64_t kMaxServers = 1 << 17;
inline constexpr std::int64_t kMaxSwitches = 1 << 17;
inline constexpr std::int64_t kMaxLinks = 1 << 24;
inline constexpr std::int64_t kMaxDegree = 1 << 20;        // any single parallel degree
inline constexpr std::int64_t kMaxMicrobatches = 1 << 16;
inline constexpr std::int64_t kMaxLayers = 1 << 14;
inline constexpr std::int64_t kMaxFileBytes = 64ll << 20;  // scenario files above 64 MiB
inline constexpr int kMaxJsonDepth = 32;
inline constexpr std::size_t kMaxNameBytes = 256;          // a scenario's, fabric's, model's name
inline constexpr std::size_t kMaxDescriptionBytes = 1 << 16;

} // namespace railyard::limits
