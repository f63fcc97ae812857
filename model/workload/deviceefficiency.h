#pragma once

#include "workload/workload.h"

#include <optional>
#include <string_view>
#include <vector>

namespace railyard {

/**
 * The calibrated constants of the compute model for one device and GEMM precision: the share of
 * the dense peak a large, well-shaped GEMM reaches (tile and wave quantization and short
 * reductions come on top, computemodel.cpp) and the fixed cost of each kernel. deviceefficiency.cpp
 * holds the table, fitted once on the calibration runs of tests/data/published/training_runs.json,
 * and names for every entry the runs it was fitted on (or the measurement it was derived from).
 */
struct GemmEfficiency
{
    double maxEfficiency = 0.80;
    double kernelOverheadUs = 4.0;
    /// A GEMM tile's fixed work (prologue, epilogue, scaling) in units of K: f = K / (K + K0)
    /// (computemodel.cpp). Fitted on measured cuBLASLt sweeps, not on training runs.
    double tileK0 = 48.0;
    /// Fused causal attention (FlashAttention / cuDNN, as Transformer Engine runs it) forward and
    /// backward, as shares of the bf16 dense peak: measured, not fitted (deviceefficiency.cpp).
    double attentionForward = 0.68;
    double attentionBackward = 0.56;
    std::string_view basis; ///< the runs or the measurement behind the entry
};

/// The table's entry for a device preset name and precision; a device the table does not know
/// gets the generic entry (the A100-era constants).
GemmEfficiency gemmEfficiency(std::string_view device, Precision precision);

/// A device's GEMM efficiency with its scenario overrides applied: DeviceSpec::maxEfficiencyFp8
/// (fp8 only), maxEfficiency (every precision) and kernelOverheadUs replace the table's values
/// when set (> 0).
GemmEfficiency gemmEfficiency(const DeviceSpec &device, Precision precision);

/**
 * A software stack's share of the device table's compute rates (GEMMs and fused attention, the
 * latter at the stack's attention kernel, attentionKernelOf()): 1 for the stacks the table was
 * fitted on (Megatron-LM, Megatron-Core with Transformer Engine); fitted for FSDP2, Composer and
 * DeepSpeed (deviceefficiency.cpp names the runs; Composer's beside its step time,
 * stackStepSeconds()). Unset = 1, the engine as before the key existed.
 */
double stackComputeFactor(const std::optional<SoftwareStack> &stack);

/**
 * A software stack's fixed time per optimizer step, seconds: host-side work per batch that the
 * GPU waits for, booked with the optimizer step (workloadplan.cpp). Fitted for Composer beside
 * its rate factor (deviceefficiency.cpp cites the runs); 0 for the other stacks and unset.
 */
double stackStepSeconds(const std::optional<SoftwareStack> &stack);

/** The fused attention kernel a software stack's attention core runs on. */
enum class AttentionKernel {
    DeviceTable, ///< the table's entry: cuDNN's fused attention as Transformer Engine runs it
                 ///< on Hopper and later, FlashAttention-2 on A100
    FlashAttention2, ///< FlashAttention-2 (PyTorch SDPA's flash backend, the flash-attn package)
};

/// The attention kernel of a stack: FlashAttention-2 for fsdp2 (torchtitan calls PyTorch's SDPA)
/// and composer (llm-foundry's MPT calls flash-attn); the device table for the others and unset.
AttentionKernel attentionKernelOf(const std::optional<SoftwareStack> &stack);

/** Fused attention forward and backward as shares of the bf16 dense peak. */
struct AttentionShares
{
    double forward = 0.0;
    double backward = 0.0;
};

/// FlashAttention-2's measured shares of the bf16 peak on a device at a sequence length (the
/// query and key length of one kernel call), interpolated in log2 of the length between the
/// published lengths and clamped at their ends (deviceefficiency.cpp cites them); nullopt for a
/// device with no published figure, whose table entry then stands.
std::optional<AttentionShares> flashAttention2Shares(std::string_view device, double seq);

/** One row of the table, for reports and the calibration test. */
struct GemmEfficiencyRow
{
    std::string_view device;
    Precision precision = Precision::Bf16;
    GemmEfficiency value;
};
std::vector<GemmEfficiencyRow> gemmEfficiencyTable();

} // namespace railyard
