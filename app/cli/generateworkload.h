#pragma once

#include "generateoptions.h"

#include "workload/workload.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

/**
 * The workload parts of `railyard-cli generate`'s document: a custom model from the shape flags,
 * a software stack's defaults, --zero / --fsdp, and a device variant (generateworkload.cpp cites
 * each default). Bad combinations throw UsageError naming the flags.
 */
namespace railyard::cli {

/// Whether the flags describe a custom model: a shape flag given without --model.
bool customModel(const GenerateOptions &o);

/// The custom model's document: the flags given, the rest the GPT-3 block's values, each
/// default it took in `assumed`. Needs --layers, --hidden and --heads.
nlohmann::json customModelDocument(const GenerateOptions &o, std::vector<std::string> &assumed);

/// A stack's defaults into `training`, written before the flags so that a flag wins.
void stackDefaults(SoftwareStack stack, const GenerateOptions &o, nlohmann::json &training);

/// --zero N and --fsdp MODE as training.dp_sharding (and the distributed optimizer), --fsdp
/// hybrid:R as training.fsdp, --fsdp-prefetch as training.fsdp_prefetch.
void shardingFlags(const GenerateOptions &o, nlohmann::json &training);

/// The device preset with --device-peak-tflops, --hbm-gb and --hbm-gbps as a variant of it.
nlohmann::json deviceDocument(const GenerateOptions &o, const std::string &device);

} // namespace railyard::cli
