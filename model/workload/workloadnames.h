#pragma once

#include "workload/workload.h"

#include <string_view>

namespace railyard {

/// "bf16", "fp16", "fp8" (the names scenario files and the CLI use).
std::string_view precisionName(Precision p);
bool parsePrecision(std::string_view name, Precision &out);

/// "none", "selective", "full" (Megatron-LM's --recompute-granularity values, plus "none").
std::string_view recomputeName(Recompute r);
bool parseRecompute(std::string_view name, Recompute &out);

/**
 * Bytes per element of activations and of the activation-sized messages (TP, CP, EP, PP) for a
 * training precision: bf16/fp16 2, fp8 1. With fp8 (Transformer Engine's recipe as Megatron-LM
 * uses it) the GEMM inputs and the activation communication are 8-bit; parameters, gradients
 * and optimizer state keep their bf16/fp32 sizes (workloadplan.cpp documents each use).
 */
constexpr double precisionBytes(Precision p) { return p == Precision::Fp8 ? 1.0 : 2.0; }

} // namespace railyard
