#include "workload/deviceefficiency.h"

#include <algorithm>
#include <array>
#include <cmath>

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
// Columns: max GEMM efficiency, kernel overhead (us), tile K0, fused attention forward and
// backward shares of the bf16 peak, basis.
//
// K0 (a GEMM tile's fixed work in units of K, computemodel.cpp) comes from the Azure
// cuBLASLt sweeps of devices.json (m = n = k from 2048 to 32768 and 6144 x 12288 x 12288; the
// engine's tile model fitted by least squares on log TFLOP/s, 4 us per kernel): A100 fp16 384
// (emax 0.85, within 0.8 % on every point), H100 fp8 352 (emax 0.715, within 1.6 %), GB200 fp8
// 0 (flat from 4096 up). H100 bf16 has no sweep: 176, the fp8 K0 halved, because a tile's
// prologue and epilogue take the same time at either precision while the main loop per K runs
// twice as long at bf16. B200 takes the GB200 value (same die).
//
// Fused attention, shares of the bf16 peak (FLOPs counted causally, as the FlashAttention
// benchmarks do). Transformer Engine prefers cuDNN's fused attention on Hopper and later
// (NVIDIA/NeMo#9188, memory_optimizations.rst):
//  A100: FlashAttention-2 forward 68 %, backward 56 % (Dao 2023: forward up to 73 % of A100's
//        peak, backward lower).
//  Hopper: cuDNN fused attention forward 582 TFLOP/s = 59 % at batch 8, 16 heads, seq 8192,
//        head 128 (meta-pytorch/tritonbench#141); backward 47 %, the forward x 0.79, the
//        backward/forward ratio FlashAttention-4 measures on Blackwell.
//  Blackwell: FlashAttention-4, head 128, causal, seq 8192: forward 1418 TFLOP/s = 63 %,
//        backward 1118 TFLOP/s = 50 % of the B200's 2250 (Dao-AILab/flash-attention#2280).
//
// max_efficiency and the kernel overhead are fitted (`cost_tst_calibration fit`) on the 14
// complete dense calibration runs: one joint least-squares fit of log(predicted / published)
// with one efficiency per (device, precision) and one kernel overhead per software stack,
// 2021-22 Megatron-LM (the A100 runs) and NeMo / Megatron-Bridge with Transformer Engine
// (every later run, all devices). The overhead is bounded to 1-10 us, what a launch and a
// kernel tail cost on the GPU; both stacks end at a bound (A100 1 us, TE 10 us). The fitted
// efficiencies sit below the cuBLASLt sweeps (H100 fp8 0.532 against 0.715) because they also
// carry what the engine does not model per kernel: fp8 scaling and amax reductions, launch
// gaps, the framework's host work. Blackwell rests on one Llama 3 8B run per device. The runs
// are evaluated with their recipes' overlap settings (Transformer Engine's TP communication
// overlap for tp > 1, tests/common/publishedruns.cpp), so the TP time they hide is not charged
// to the GEMMs.
constexpr GemmEfficiency kA100{0.844, 1.0, 384.0, 0.68, 0.56,
    "fitted: k22-t5-{175b,530b,1t}-{full,selective-sp} (fp16)"};
constexpr GemmEfficiency kH100Fp8{0.532, 10.0, 352.0, 0.59, 0.47,
    "fitted: nemo2407-h100-{gpt3-5b,gpt3-175b-128gpu,llama3-8b}, mb2511-h100-{llama3-8b,llama31-405b}-fp8cs, mb260401-h100-llama31-405b-fp8"};
// No complete H100 bf16 calibration run: the fitted fp8 value times the measured bf16 / fp8
// ratio of the same device (MAMF 794.5 / 1402.6 TFLOP/s over peaks 989 / 1979: 0.803 / 0.709).
constexpr GemmEfficiency kH100Bf16{0.603, 10.0, 176.0, 0.59, 0.47,
    "h100-sxm fp8 x MAMF bf16/fp8 (0.803 / 0.709)"};
constexpr GemmEfficiency kB200Fp8{0.506, 10.0, 0.0, 0.63, 0.50, "fitted: mb2511-b200-llama3-8b-fp8cs"};
constexpr GemmEfficiency kB200Bf16{0.515, 10.0, 0.0, 0.63, 0.50, "b200 fp8 x MAMF bf16/fp8 (0.776 / 0.763)"};
constexpr GemmEfficiency kGb200Fp8{0.462, 10.0, 0.0, 0.63, 0.50, "fitted: mb2511-gb200-llama3-8b-fp8cs"};
constexpr GemmEfficiency kGb200Bf16{0.466, 10.0, 0.0, 0.63, 0.50, "gb200 fp8 x MAMF bf16/fp8 (0.729 / 0.723)"};

const std::array<GemmEfficiencyRow, 13> kTable{{
    {"a100-80g", Precision::Fp16, kA100},
    // bf16 runs on the same 312 TFLOP/s tensor cores.
    {"a100-80g", Precision::Bf16, kA100},
    {"h100-sxm", Precision::Fp8, kH100Fp8},
    {"h100-sxm", Precision::Bf16, kH100Bf16},
    {"h100-sxm", Precision::Fp16, kH100Bf16},
    // H200: the H100's compute die (same SMs and clocks, devices.json); its measured fp8 GEMMs
    // match the H100's within 2 % (Azure ND H200 v5 vs ND H100 v5), so it takes the H100 entries.
    {"h200", Precision::Fp8, kH100Fp8},
    {"h200", Precision::Bf16, kH100Bf16},
    {"b200", Precision::Fp8, kB200Fp8},
    {"b200", Precision::Bf16, kB200Bf16},
    {"gb200", Precision::Fp8, kGb200Fp8},
    {"gb200", Precision::Bf16, kGb200Bf16},
    // GB300: no calibration run (its only run is held out as a transfer check): the GB200 entries.
    {"gb300", Precision::Fp8, kGb200Fp8},
    {"gb300", Precision::Bf16, kGb200Bf16},
}};
// clang-format on

/// Devices the table does not know: the A100-era constants the engine used before the table.
constexpr GemmEfficiency kGeneric{0.80, 4.0, 48.0, 0.68, 0.56, "generic (no calibration for this device)"};

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

double stackComputeFactor(const std::optional<SoftwareStack> &stack)
{
    // FSDP2 (torchtitan, eager or torch.compile, torchao float8): fitted on the calibration
    // split of torchtitan's Dec 2024 Llama 3.1 8B runs, tests/data/published/training_runs.json
    // tt2412-h100-llama31-8b-fsdp{8,128}{,-compile,-compile-fp8} (Tables 1 and 3), as the one
    // factor that minimises the mean squared log(predicted / published) with the rest of the
    // engine as it is (`cost_tst_calibration` prints the split). Since the element-wise kernels
    // are counted per stack and per torch.compile (elementwise.cpp) and the recompute is
    // torchtitan's op-level policy (workloadplan.cpp), what the factor carries is what is left:
    // the 500 W power limit of those machines (their dense peak is not published; the source
    // places it between the SXM part, 989 bf16 TFLOP/s, and the NVL part, 835 on NVIDIA's
    // datasheet: a 0.84-1 share), and below that share what the engine does not separate for
    // this stack: PyTorch's own GEMM kernels against the Transformer Engine runs the device table
    // was fitted on, and the framework's host time. The attention kernel is separated: SDPA's
    // FlashAttention-2 at its published H100 rates (attentionKernelOf(), flashAttention2Shares()),
    // which the factor then scales like the GEMMs (0.705 when the attention ran at the table's
    // cuDNN rates). Held out: the four context-parallel runs of Table 2 (docs/validation.md,
    // "Per stack").
    constexpr double kFsdp2 = 0.788;
    // Composer FSDP (llm-foundry, PyTorch FSDP1, FlashAttention, bf16 autocast): fitted with
    // the stack's step time below (stackStepSeconds) on the calibration split of llm-foundry's
    // MPT benchmarks on H100 80GB, tests/data/published/training_runs.json
    // lf-h100-mpt-{7b-8gpu,13b-8gpu,3b-32gpu,13b-64gpu,30b-32gpu,70b-64gpu}
    // (scripts/train/benchmarking/README.md at llm-foundry commit 8c8dd48, table "H100 80GB
    // BF16"): the two constants minimising the mean squared log(predicted / published), with
    // the attention at FlashAttention-2's published H100 rates (attentionKernelOf(),
    // flashAttention2Shares()), put the rate 4.5 % above the device table's (1.045; 1.00 when the
    // attention ran at the table's cuDNN rates, 0.872 with neither the step time nor the kernel
    // separated). The table's H100 bf16 entry is not fitted on bf16 runs but derived from the fp8
    // fit (kH100Bf16 above), so a bf16 stack may sit above it. Held out: the six runs on 128 and
    // 512 GPUs of its "Large Scale" table (docs/validation.md, "Per stack").
    constexpr double kComposer = 1.045;
    // DeepSpeed (Megatron-DeepSpeed: DeepSpeed's pipeline engine and its BF16_Optimizer, ZeRO-1,
    // Megatron's fused softmax without FlashAttention): fitted with the whole engine
    // (`RAILYARD_FIT_STACK=deepspeed cost_tst_calibration fitStack`, gaussNewton on
    // log(predicted / published)) on the calibration split of BigScience's runs on Jean Zay's
    // A100 80GB, tests/data/published/training_runs.json bs2202-a100-{176b,178b,184b,195b,203b}-*
    // (17 runs, train/tr11-176B-ml/chronicles-prequel.md "Rebalancing layers" at
    // bigscience-workshop/bigscience commit 9e64ede). It folds together what the engine does not
    // separate: DeepSpeed's pipeline engine (its schedule's instructions issued from Python for
    // every micro-batch), the CUDA_LAUNCH_BLOCKING=1 the training ran with (the hang workaround
    // of tr11-176B-ml.slurm), and a per-step cost of about 3 s that the small-batch runs show
    // (docs/validation.md). The runs' gradient sync is the BF16_Optimizer's all-reduce, then
    // the tied embedding's fp32 all-reduce between the pipeline's ends (workloadplan.cpp).
    // Held out: the training run itself (GBS 16, 192, 2048) and the July
    // 2022 reshaping runs on 192 and 288 GPUs (docs/validation.md, "Per stack").
    constexpr double kDeepSpeed = 0.769;
    if (stack == SoftwareStack::Fsdp2)
        return kFsdp2;
    if (stack == SoftwareStack::Composer)
        return kComposer;
    if (stack == SoftwareStack::DeepSpeed)
        return kDeepSpeed;
    return 1.0;
}

double stackStepSeconds(const std::optional<SoftwareStack> &stack)
{
    // Composer (llm-foundry's MPT benchmarks on H100): a fixed time per optimizer step, the
    // same for MPT-3B to 70B and for 8 to 512 GPUs, fitted with the rate above on the
    // calibration split (0.195 s; 0.21 s before the attention ran at FlashAttention-2's rates;
    // the split alone gives 0.17-0.26 s run by run). The published
    // table shows it: MPT-13B at 4,096 tokens per GPU per step (micro-batch 2, one micro-batch,
    // seq 2048, no checkpointing) reaches 39.8 % MFU on 8, 16, 32 and 64 GPUs alike, and at
    // 122,880 tokens per step (seq 1024, micro-batch 40, three micro-batches, checkpointing)
    // 59.0 % hardware FLOPs utilisation; a 0.2 s step cost is a quarter of the first step and
    // under 1 % of the second. It is the host-side work of each batch that the GPU waits for
    // (the optimizer step over FSDP1's parameters, gradient clipping, Composer's batch-end
    // callbacks and loss logging, which synchronise with the GPU); its parts are not published
    // separately. The other stacks' runs do not separate such a time from their rates: 0.
    constexpr double kComposerStep = 0.195;
    return stack == SoftwareStack::Composer ? kComposerStep : 0.0;
}

AttentionKernel attentionKernelOf(const std::optional<SoftwareStack> &stack)
{
    // torchtitan's attention is PyTorch's SDPA, whose flash backend is FlashAttention-2 (on cp 1
    // SDPA's own order put flash before cuDNN on the December 2024 nightlies, pytorch#142132,
    // cuDNN opt-in after 2.5, pytorch#138522; on cp >= 2 torchtitan 9dec370 restricts SDPA to
    // the flash and memory-efficient backends); llm-foundry's MPT with attn_impl "flash" calls
    // the flash-attn package's flash_attn_func (FlashAttention-2).
    if (stack == SoftwareStack::Fsdp2 || stack == SoftwareStack::Composer)
        return AttentionKernel::FlashAttention2;
    return AttentionKernel::DeviceTable;
}

namespace {

/// One published sequence length of FlashAttention-2 on H100 and its TFLOP/s.
struct Flash2Point
{
    double seq;
    double forward;
    double backward;
};

// clang-format off
// FlashAttention-2 on the H100 80GB SXM5, bf16, head dim 128 (Llama 3.1 8B's and most MPT
// sizes'), TFLOP/s with causal FLOPs counted halved as the engine counts them: Shah et al.,
// "FlashAttention-3: Fast and Accurate Attention with Asynchrony and Low-precision" (2024,
// arXiv 2407.08608), the attention speed charts (batch x seq = 16K tokens, 2048 hidden):
//  forward, causal:          191, 260, 298, 319, 333, 335 at seq 512, 1K, 2K, 4K, 8K, 16K;
//  forward, without mask:    309, 350, 362, 368, 370, 370;
//  backward, without mask:   214, 260, 291, 310, 318, 322.
// The paper charts the backward without the causal mask only; the causal backward here is
// that figure times the forward's causal / unmasked ratio at the same length (the mask idles
// the same diagonal blocks in both passes): 132, 193, 240, 269, 286, 292.
constexpr std::array<Flash2Point, 6> kFlash2H100{{
    {512.0, 191.0, 214.0 * 191.0 / 309.0},
    {1024.0, 260.0, 260.0 * 260.0 / 350.0},
    {2048.0, 298.0, 291.0 * 298.0 / 362.0},
    {4096.0, 319.0, 310.0 * 319.0 / 368.0},
    {8192.0, 333.0, 318.0 * 333.0 / 370.0},
    {16384.0, 335.0, 322.0 * 335.0 / 370.0},
}};
// clang-format on

/// The H100 SXM's dense bf16 peak the charts' shares are taken of (NVIDIA H100 datasheet).
constexpr double kFlash2H100PeakTflops = 989.0;

} // namespace

std::optional<AttentionShares> flashAttention2Shares(std::string_view device, double seq)
{
    // Published for the H100 SXM only; the H200 has its compute die (the table's H200 rows). On
    // A100 the table's entry is FlashAttention-2 already; Blackwell has no FlashAttention-2
    // figure (its entry is FlashAttention-4's): those keep the table.
    if (device != "h100-sxm" && device != "h200")
        return std::nullopt;
    const auto &t = kFlash2H100;
    const double x = std::log2(std::clamp(seq, t.front().seq, t.back().seq));
    std::size_t i = 1;
    while (i + 1 < t.size() && std::log2(t[i].seq) < x)
        ++i;
    const double x0 = std::log2(t[i - 1].seq);
    const double u = (x - x0) / (std::log2(t[i].seq) - x0);
    const auto lerp = [u](double a, double b) { return a + u * (b - a); };
    return AttentionShares { lerp(t[i - 1].forward, t[i].forward) / kFlash2H100PeakTflops,
        lerp(t[i - 1].backward, t[i].backward) / kFlash2H100PeakTflops };
}

std::vector<GemmEfficiencyRow> gemmEfficiencyTable()
{
    return { kTable.begin(), kTable.end() };
}

} // namespace railyard
