#pragma once

#include "workload/workload.h"

#include <array>
#include <string>
#include <string_view>

namespace railyard {

/// "bf16", "fp16", "fp8" (the names scenario files and the CLI use).
std::string_view precisionName(Precision p);
bool parsePrecision(std::string_view name, Precision &out);

/// Every schedule, in the order the CLI's help and the GUI's picker list them.
inline constexpr std::array<ScheduleKind, 5> kScheduleKinds { ScheduleKind::GPipe,
    ScheduleKind::OneFOneB, ScheduleKind::Interleaved, ScheduleKind::ZbH1, ScheduleKind::DualPipe };

/// "gpipe", "1f1b", "interleaved", "zb-h1", "dualpipe": the names of the scenario key
/// training.schedule and of the CLI's --schedule.
std::string_view scheduleName(ScheduleKind k);
bool parseSchedule(std::string_view name, ScheduleKind &out);

/// "none", "selective", "full" (Megatron-LM's --recompute-granularity values, plus "none").
std::string_view recomputeName(Recompute r);
bool parseRecompute(std::string_view name, Recompute &out);

/// "optim", "optim_grads", "optim_grads_params" (Megatron-FSDP's sharding strategy names).
std::string_view dpShardingName(DpSharding d);
bool parseDpSharding(std::string_view name, DpSharding &out);

/// training.fsdp's text: "full" (shard 0) or "hybrid:R" (HSDP, shard groups of R ranks).
std::string fsdpModeName(int shard);
/// Parses "full" or "hybrid:R" with 1 <= R <= 2^20 (the largest degree); false otherwise.
bool parseFsdpMode(std::string_view text, int &shard);

/// Every software stack, in the order the CLI's help lists them.
inline constexpr std::array<SoftwareStack, 5> kSoftwareStacks { SoftwareStack::MegatronCoreTe,
    SoftwareStack::MegatronLm, SoftwareStack::Fsdp2, SoftwareStack::DeepSpeed,
    SoftwareStack::Composer };

/// "megatron-core-te", "megatron-lm", "fsdp2", "deepspeed", "composer": the names of the
/// scenario key training.stack and of the CLI's --stack.
std::string_view stackName(SoftwareStack s);
bool parseStack(std::string_view name, SoftwareStack &out);

/// Every context-parallel attention, in the order the docs list them.
inline constexpr std::array<CpAttention, 2> kCpAttentions { CpAttention::TeP2p,
    CpAttention::TorchAllGather };

/// "te-p2p", "torch-allgather": the names of the scenario key training.cp_attention.
std::string_view cpAttentionName(CpAttention a);
bool parseCpAttention(std::string_view name, CpAttention &out);

/// Bytes per element of a tensor stored at a precision: fp8 1, bf16/fp16 2 (GEMM operands, fp8
/// KV caches). Parameters, gradients and optimizer state keep their own sizes
/// (workloadplan.cpp documents each use).
constexpr double precisionBytes(Precision p) { return p == Precision::Fp8 ? 1.0 : 2.0; }

/**
 * Bytes per element of the activation-sized exchanges of a training run (TP all-gather and
 * reduce-scatter, pipeline sends, context-parallel K/V, MoE dispatch and combine): 2 for every
 * precision. Transformer Engine casts to fp8 inside its GEMM modules only; the tensors between
 * modules, and so every message Megatron-LM sends, stay bf16 (TE docs, "Using FP8 with
 * Transformer Engine": fp8_autocast changes only the GEMMs of TE modules). The one exchange
 * that can travel in fp8 is the parameter all-gather, by option (TrainingSpec::fp8ParamGather).
 */
constexpr double activationMessageBytes(Precision) { return 2.0; }

} // namespace railyard
