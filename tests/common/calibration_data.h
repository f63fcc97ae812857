#pragma once

#include "workload/workload.h"

#include <array>

/**
 * Published Megatron-LM training runs on A100-80GB (Selene, DGX A100: 8 GPUs per node on
 * NVLink3/NVSwitch, 8 x HDR 200 Gb/s per node), used to calibrate and check the compute model
 * in model/workload/workloadplan.cpp and, later, the full engine.
 *
 * Sources (each value below was read from the source, not guessed, except where marked
 * "assumed"):
 *  - [N21] Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
 *    Using Megatron-LM", SC'21, Table 1 (weak scaling; GPT, vocabulary 51,200, sequence 2048,
 *    mixed precision, full activation recomputation, interleaved schedule with scatter/gather,
 *    no sequence parallelism; TFLOP/s counted with Eq. 3:
 *    F = 96 B s l h^2 (1 + s/6h + V/16lh) per iteration, which includes the recompute forward).
 *    Micro-batch size is not in Table 1: 1 is assumed (Table 2's PTD-P runs use 1).
 *  - [README] Megatron-LM README, "GPT-3 Example": 175B on 1024 A100, tp 8, pp 16, global batch
 *    1536, "each iteration takes around 32 seconds resulting in 138 teraFLOPs per GPU".
 *  - [K22] Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
 *    2022, Table 3 (configurations), Table 5 (iteration time, full recompute vs sequence
 *    parallel + selective recompute) and the MFU/HFU table reproduced in the Megatron-LM README
 *    (22B 41.5/43.7 %, 175B 51.4/52.8 %, 530B 56.0/57.0 %, 1T 56.3/57.0 %), measured with
 *    dp = 1. Model FLOPs there: 72 B s l h^2 (1 + s/6h + V/12lh) (no recompute). The iteration
 *    times reproduce the README's MFU to 0.3 % (checked in tst_workloadplan). The 22B run's
 *    micro-batch of 4 is inferred from Table 4 (per-layer 20.3 ms x 48 layers ~ 1.10 s).
 *
 * Both papers count the attention core without a causal discount and run without
 * FlashAttention (fused scale-mask-softmax kernels), so the scenarios set flashAttention false.
 */
namespace railyard::calibration {

struct PublishedRun
{
    const char *source;
    const char *label;
    int layers;
    int hidden;
    int heads;
    int seq;
    int vocab;
    int tp;
    int pp;
    int dp;
    int globalBatch;
    int microBatch;
    Recompute recompute;
    bool sequenceParallel;
    double tflopsPerGpu;      ///< published, in the source's FLOP convention (see `modelFlops`)
    double iterationSeconds;  ///< published; 0 = not published (derive from tflopsPerGpu)
    bool modelFlops;          ///< true: K22's 72Bslh^2(..) model FLOPs; false: N21's Eq. 3
};

inline constexpr std::array<PublishedRun, 19> kPublishedRuns{{
    // [N21] Table 1. GPUs = tp * pp * dp.
    {"N21 Table 1", "1.7B", 24, 2304, 24, 2048, 51200, 1, 1, 32, 512, 1, Recompute::Full, false, 137, 0, false},
    {"N21 Table 1", "3.6B", 30, 3072, 32, 2048, 51200, 2, 1, 32, 512, 1, Recompute::Full, false, 138, 0, false},
    {"N21 Table 1", "7.5B", 36, 4096, 32, 2048, 51200, 4, 1, 32, 512, 1, Recompute::Full, false, 142, 0, false},
    {"N21 Table 1", "18.4B", 40, 6144, 48, 2048, 51200, 8, 1, 32, 1024, 1, Recompute::Full, false, 135, 0, false},
    {"N21 Table 1", "39.1B", 48, 8192, 64, 2048, 51200, 8, 2, 32, 1536, 1, Recompute::Full, false, 138, 0, false},
    {"N21 Table 1", "76.1B", 60, 10240, 80, 2048, 51200, 8, 4, 32, 1792, 1, Recompute::Full, false, 140, 0, false},
    {"N21 Table 1", "145.6B", 80, 12288, 96, 2048, 51200, 8, 8, 24, 2304, 1, Recompute::Full, false, 148, 0, false},
    {"N21 Table 1", "310.1B", 96, 16384, 128, 2048, 51200, 8, 16, 15, 2160, 1, Recompute::Full, false, 155, 0, false},
    {"N21 Table 1", "529.6B", 105, 20480, 128, 2048, 51200, 8, 35, 9, 2520, 1, Recompute::Full, false, 163, 0, false},
    {"N21 Table 1", "1008.0B", 128, 25600, 160, 2048, 51200, 8, 64, 6, 3072, 1, Recompute::Full, false, 163, 0, false},
    // [README] GPT-3 175B example (96 layers, h 12288, 96 heads): 1024 GPUs = 8 x 16 x 8.
    {"Megatron README", "175B", 96, 12288, 96, 2048, 51200, 8, 16, 8, 1536, 1, Recompute::Full, false, 138, 32.0, false},
    // [K22] Table 3 + 5, dp = 1: full recompute baseline, then SP + selective ("present work").
    {"K22 Table 5", "22B full", 48, 6144, 64, 2048, 51200, 8, 1, 1, 4, 4, Recompute::Full, false, 0, 1.42, true},
    {"K22 Table 5", "22B sel+SP", 48, 6144, 64, 2048, 51200, 8, 1, 1, 4, 4, Recompute::Selective, true, 0, 1.10, true},
    {"K22 Table 5", "175B full", 96, 12288, 96, 2048, 51200, 8, 8, 1, 64, 1, Recompute::Full, false, 0, 18.13, true},
    {"K22 Table 5", "175B sel+SP", 96, 12288, 96, 2048, 51200, 8, 8, 1, 64, 1, Recompute::Selective, true, 0, 13.75, true},
    {"K22 Table 5", "530B full", 105, 20480, 128, 2048, 51200, 8, 35, 1, 280, 1, Recompute::Full, false, 0, 49.05, true},
    {"K22 Table 5", "530B sel+SP", 105, 20480, 128, 2048, 51200, 8, 35, 1, 280, 1, Recompute::Selective, true, 0, 37.83, true},
    {"K22 Table 5", "1T full", 128, 25600, 160, 2048, 51200, 8, 64, 1, 512, 1, Recompute::Full, false, 0, 94.42, true},
    {"K22 Table 5", "1T sel+SP", 128, 25600, 160, 2048, 51200, 8, 64, 1, 512, 1, Recompute::Selective, true, 0, 71.49, true},
}};

/// [K22] / Megatron-LM README: MFU of the "sel+SP" runs above, in the same order (22B..1T).
inline constexpr std::array<double, 4> kPublishedMfu{0.415, 0.514, 0.560, 0.563};

/// A100 dense BF16 peak used by both papers for "% of peak" (A100 datasheet).
inline constexpr double kA100PeakTflops = 312.0;

} // namespace railyard::calibration
