#include "workload/deviceefficiency.h"

#include <array>

/**
 * GEMM efficiency per device and precision. The entries marked "fitted" come from one
 * least-squares fit of log(predicted / published step time) over the calibration runs of
 * tests/data/published/training_runs.json, with the whole engine (compute, communication,
 * pipeline, data-parallel sync); `build/bin/cost_tst_calibration fit` reruns it and prints this
 * table. Nothing is fitted on the validation runs, and nothing per run. The other entries are
 * derived from public GEMM measurements (tests/data/published/devices.json) as stated.
 *
 * Public GEMM measurements the fitted values can be held against (cuBLASLt, large shapes, share
 * of the dense peak): A100 fp16 82 % (Azure ND A100 v4, 16384^3), bf16 87 % (ml-engineering
 * MAMF); H100 bf16 80 % (MAMF), fp8 70 % (Azure ND H100 v5 at 32768^3; MAMF 71 %); B200 bf16 78 %,
 * fp8 76 % (MAMF); GB200 bf16 73 %, fp8 58 % (Azure ND GB200 v6, 16384^3) / 72 % (MAMF). An fp8
 * GEMM reaches a lower share of its doubled peak than a bf16 GEMM of its peak.
 */
namespace railyard {

namespace {

// clang-format off
// Fused attention shares of the bf16 peak (forward, backward; FLOPs counted causally, as the
// FlashAttention benchmarks do):
//  A100: FlashAttention-2 forward 68 %, backward 56 % (Dao 2023: forward up to 73 % of A100's
//        peak, backward lower).
//  Hopper: cuDNN fused attention (Transformer Engine's backend) forward 582 TFLOP/s = 59 % at
//        batch 8, 16 heads, seq 8192, head 128 (meta-pytorch/tritonbench#141); backward 47 %,
//        the forward x 0.79, the backward/forward ratio FlashAttention-4 measures on Blackwell.
//  Blackwell: FlashAttention-4, head 128, causal, seq 8192: forward 1418 TFLOP/s = 63 %,
//        backward 1118 TFLOP/s = 50 % of the B200's 2250 (Dao-AILab/flash-attention#2280).
const std::array<GemmEfficiencyRow, 13> kTable{{
    // A100 80GB: fitted on the six complete Korthikanti et al. 2022 Table 5 runs (175B, 530B, 1T;
    // full recompute and selective + SP), fp16; bf16 shares the tensor-core peak and the entry.
    {"a100-80g", Precision::Fp16, {0.80, 4.0, 0.68, 0.56, "fitted: k22-t5-{175b,530b,1t}-{full,selective-sp}"}},
    {"a100-80g", Precision::Bf16, {0.80, 4.0, 0.68, 0.56, "= a100-80g fp16 (same 312 TFLOP/s tensor cores)"}},
    // H100 SXM: fp8 fitted on the complete dense H100 calibration runs (NeMo 24.07,
    // Megatron-Bridge 25.11 / 26.04); bf16 from the measured MAMF (no complete dense bf16
    // calibration run); fp16 shares the bf16 entry.
    {"h100-sxm", Precision::Fp8, {0.80, 4.0, 0.59, 0.47, "fitted: H100 fp8 calibration runs"}},
    {"h100-sxm", Precision::Bf16, {0.80, 4.0, 0.59, 0.47, "measured: MAMF 794.5 / 989 (ml-engineering)"}},
    {"h100-sxm", Precision::Fp16, {0.80, 4.0, 0.59, 0.47, "= h100-sxm bf16"}},
    // H200: the H100's compute die (same SMs and clocks, devices.json); its measured fp8 GEMMs
    // match the H100's within 2 % (Azure ND H200 v5 vs ND H100 v5), so it takes the H100 entries.
    {"h200", Precision::Fp8, {0.80, 4.0, 0.59, 0.47, "= h100-sxm fp8"}},
    {"h200", Precision::Bf16, {0.80, 4.0, 0.59, 0.47, "= h100-sxm bf16"}},
    // B200 / GB200: fp8 fitted on their dense calibration run; bf16 scaled from the fitted fp8
    // value by the measured bf16 / fp8 MAMF ratio of the same device (no bf16 calibration run).
    {"b200", Precision::Fp8, {0.80, 4.0, 0.63, 0.50, "fitted: mb2511-b200-llama3-8b-fp8cs"}},
    {"b200", Precision::Bf16, {0.80, 4.0, 0.63, 0.50, "b200 fp8 x MAMF bf16/fp8 (0.776 / 0.763)"}},
    {"gb200", Precision::Fp8, {0.80, 4.0, 0.63, 0.50, "fitted: mb2511-gb200-llama3-8b-fp8cs"}},
    {"gb200", Precision::Bf16, {0.80, 4.0, 0.63, 0.50, "gb200 fp8 x MAMF bf16/fp8 (0.729 / 0.723)"}},
    // GB300: no calibration run (its only run is held out as a transfer check): the GB200 entries.
    {"gb300", Precision::Fp8, {0.80, 4.0, 0.63, 0.50, "= gb200 fp8 (no calibration run)"}},
    {"gb300", Precision::Bf16, {0.80, 4.0, 0.63, 0.50, "= gb200 bf16"}},
}};
// clang-format on

/// Devices the table does not know: the A100-era constants the engine used before the table.
constexpr GemmEfficiency kGeneric{0.80, 4.0, 0.68, 0.56, "generic (no calibration for this device)"};

} // namespace

GemmEfficiency gemmEfficiency(std::string_view device, Precision precision)
{
    for (const GemmEfficiencyRow &row : kTable)
        if (row.device == device && row.precision == precision)
            return row.value;
    // A device with only a bf16 row answers fp16 with it (same tensor-core peak).
    if (precision == Precision::Fp16)
        return gemmEfficiency(device, Precision::Bf16);
    return kGeneric;
}

GemmEfficiency gemmEfficiency(const DeviceSpec &device, Precision precision)
{
    GemmEfficiency g = gemmEfficiency(device.name, precision);
    if (precision == Precision::Fp8 && device.maxEfficiencyFp8 > 0.0)
        g.maxEfficiency = device.maxEfficiencyFp8;
    else if (device.maxEfficiency > 0.0)
        g.maxEfficiency = device.maxEfficiency;
    if (device.kernelOverheadUs > 0.0)
        g.kernelOverheadUs = device.kernelOverheadUs;
    return g;
}

std::vector<GemmEfficiencyRow> gemmEfficiencyTable()
{
    return {kTable.begin(), kTable.end()};
}

} // namespace railyard
