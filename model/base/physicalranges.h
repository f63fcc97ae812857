#pragma once

/**
 * The physically meaningful ranges of the speeds, bandwidths and latencies the engine reads
 * (scenario fields, `generate` flags, cabling CSVs, NCCL topology files, calibrations). Each
 * reader checks its input against them and names the input; within them every time the engine
 * derives (bytes / bandwidth, FLOPs / peak) stays finite, so no report shows inf or nan.
 */
namespace railyard::ranges {

/// Link bandwidth per direction, Gbit/s. The floor, 1 Mbit/s, is ten times below 10BASE-T,
/// the slowest Ethernet a switch port still offers (IEEE 802.3 clause 14): no GPU fabric link is
/// slower, and 1 Mbit/s keeps the time of the largest transfer a scenario can size finite. The
/// ceiling, 1 Pbit/s, is over a hundred times NVLink 5's 7,200 Gbit/s per GPU and direction
/// (NVIDIA B200 datasheet: 1.8 TB/s both directions together).
inline constexpr double kMinLinkGbps = 0.001;
inline constexpr double kMaxLinkGbps = 1e6;

/// One hop's or one step's latency, microseconds: 0 to one second. A network whose single hop
/// takes longer than a second is no training fabric (switch hops take about 1 us).
inline constexpr double kMaxLatencyUs = 1e6;

/// HBM bandwidth, GB/s (10^9 bytes): from 1 GB/s (a single DDR4-3200 channel gives 25.6 GB/s,
/// so no accelerator's memory is slower) to 10 PB/s (over a thousand times HBM3e's 8 TB/s on
/// B200, NVIDIA's datasheet).
inline constexpr double kMinHbmGBps = 1.0;
inline constexpr double kMaxHbmGBps = 1e7;

/// Peak dense TFLOP/s: from 1 GFLOP/s (one CPU core of the 2000s; every accelerator is
/// thousands of times faster) to 10^6 TFLOP/s, hundreds of times any accelerator's peak (the
/// H100 SXM's dense bf16 is 989, workload/presets.cpp).
inline constexpr double kMinTflops = 0.001;
inline constexpr double kMaxTflops = 1e6;

/// A calibration's measured-to-modelled bandwidth ratio: a run that reached a millionth of
/// its links' rate measured a fault, not a fabric; 1000 is far above any protocol's gain
/// (bounds also in scenario/calibrationsection.cpp).
inline constexpr double kMinBandwidthScale = 1e-6;
inline constexpr double kMaxBandwidthScale = 1e3;

} // namespace railyard::ranges
