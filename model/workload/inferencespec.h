#pragma once

#include "workload/workload.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/** What a pool of an inference deployment does with a request. */
enum class PoolRole { Prefill, Decode, Colocated };
std::string_view poolRoleName(PoolRole role); ///< "prefill", "decode", "colocated"

/**
 * One serving pool: identical model replicas of tp x pp GPUs each (ep replicas share their
 * experts, as Megatron's expert-parallel groups do), placed on whole servers or on explicit GPU
 * slots. Rank r of the pool's slot list is tensor shard r % tp of stage (r / tp) % pp of replica
 * r / (tp pp): the launcher's packed order, tensor fastest.
 */
struct PoolSpec
{
    std::string name;
    PoolRole role = PoolRole::Colocated;
    int tp = 1;
    int pp = 1;
    int ep = 1;
    std::vector<int> servers; ///< whole servers (every GPU, in order); or
    std::vector<int> slots; ///< explicit GPU slots (server * gpus_per_server + gpu)
    bool operator==(const PoolSpec &) const = default;
};

/**
 * The optional serving part of a scenario: a request stream and the pools that serve it on the
 * scenario's fabric, model and device. Absent, a scenario is a training scenario only. The
 * evaluation is studies/inference.h; the cross-field rules are scenario/inferencecheck.h.
 */
struct InferenceSpec
{
    double requestRate = 1.0; ///< requests per second arriving at the deployment
    int promptTokens = 2048;
    int outputTokens = 256; ///< tokens generated per request (the first one by the prefill)
    int batch = 16; ///< sequences decoded together per replica (continuous batching)
    Precision precision = Precision::Bf16; ///< weights and activations
    Precision kvPrecision = Precision::Bf16; ///< the KV cache
    std::vector<PoolSpec> pools;
    bool operator==(const InferenceSpec &) const = default;
};

/// Reads the "inference" object of a scenario file (types and ranges; ScenarioError names the
/// field path). Cross-field rules need the whole scenario: validateInference().
InferenceSpec inferenceFromJson(const nlohmann::json &value);
/// Writes every field (the order of the schema); `slots` or `servers`, whichever is set.
void inferenceToJson(const InferenceSpec &spec, nlohmann::json &out);
void inferenceToJson(const InferenceSpec &spec, nlohmann::ordered_json &out);

} // namespace railyard
