/**
 * The "inference" section of a scenario file: reading (types and ranges) and writing.
 *
 *   "inference": {                           optional; absent = a training scenario only
 *     "request_rate": 2.0,                   required, requests per second, > 0
 *     "prompt_tokens": 2048,                 required, 1..16777216
 *     "output_tokens": 256,                  required, 1..16777216 (the prefill makes the first)
 *     "batch": 16,                           default 16, sequences decoded together per replica
 *     "precision": "bf16",                   weights and activations: bf16 | fp16 | fp8
 *     "kv_precision": "bf16",                KV cache: bf16 | fp16 | fp8
 *     "pools": [                             required, 1..64 pools
 *       { "name": "prefill",                 required, unique, non-empty
 *         "role": "prefill" | "decode" | "colocated",        required
 *         "tp": 8, "pp": 1, "ep": 1,         default 1 each
 *         "servers": [0],                    whole servers, or
 *         "slots": [0, 1, 2, 3] }            explicit GPU slots (exactly one of the two)
 *     ]
 *   }
 *
 * The cross-field rules (pools against the fabric, the model and HBM) are validateInference()'s,
 * scenario/inferencecheck.cpp.
 */
#include "workload/inferencespec.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"
#include "workload/workloadnames.h"

#include <nlohmann/json.hpp>

#include <climits>

namespace railyard {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxPools = 64;
constexpr std::size_t kMaxPoolNameBytes = 256;
constexpr std::int64_t kMaxTokens = std::int64_t { 1 } << 24;
constexpr std::int64_t kMaxBatch = std::int64_t { 1 } << 20;
constexpr double kMaxRequestRate = 1e9;

std::vector<int> readIntArray(const JsonFields &f, std::string_view key, std::int64_t max)
{
    std::vector<int> out;
    const json *array = f.array(key, static_cast<std::size_t>(limits::kMaxGpus));
    if (!array)
        return out;
    out.reserve(array->size());
    for (std::size_t i = 0; i < array->size(); ++i)
        out.push_back(static_cast<int>(
            jsonInteger((*array)[i], jsonElementPath(f.fieldPath(key), i), 0, max)));
    return out;
}

PoolSpec readPool(const json &value, const std::string &path)
{
    JsonFields f(value, path, { "name", "role", "tp", "pp", "ep", "servers", "slots" });
    f.rejectUnknown();
    PoolSpec p;
    f.required("name");
    p.name = f.string("name", "", kMaxPoolNameBytes, false);
    requirePrintableUtf8(f.fieldPath("name"), p.name);
    f.required("role");
    p.role = f.choice(
        "role", p.role, { PoolRole::Prefill, PoolRole::Decode, PoolRole::Colocated }, poolRoleName);
    p.tp = f.integer("tp", p.tp, 1, limits::kMaxDegree);
    p.pp = f.integer("pp", p.pp, 1, limits::kMaxDegree);
    p.ep = f.integer("ep", p.ep, 1, limits::kMaxDegree);
    if (f.has("servers") == f.has("slots"))
        throw ScenarioError(path, "give the pool's GPUs as either \"servers\" or \"slots\"");
    p.servers = readIntArray(f, "servers", INT_MAX);
    p.slots = readIntArray(f, "slots", INT_MAX);
    if (p.servers.empty() && p.slots.empty())
        throw ScenarioError(
            f.fieldPath(f.has("servers") ? "servers" : "slots"), "a pool needs at least one GPU");
    return p;
}

template<typename Json> void writeInference(const InferenceSpec &s, Json &out)
{
    out = Json::object();
    out["request_rate"] = s.requestRate;
    out["prompt_tokens"] = s.promptTokens;
    out["output_tokens"] = s.outputTokens;
    out["batch"] = s.batch;
    out["precision"] = std::string(precisionName(s.precision));
    out["kv_precision"] = std::string(precisionName(s.kvPrecision));
    Json pools = Json::array();
    for (const PoolSpec &p : s.pools) {
        Json pool;
        pool["name"] = p.name;
        pool["role"] = std::string(poolRoleName(p.role));
        pool["tp"] = p.tp;
        pool["pp"] = p.pp;
        pool["ep"] = p.ep;
        if (!p.slots.empty())
            pool["slots"] = p.slots;
        else
            pool["servers"] = p.servers;
        pools.push_back(std::move(pool));
    }
    out["pools"] = std::move(pools);
}

} // namespace

std::string_view poolRoleName(PoolRole role)
{
    switch (role) {
    case PoolRole::Prefill:
        return "prefill";
    case PoolRole::Decode:
        return "decode";
    case PoolRole::Colocated:
        return "colocated";
    }
    return "colocated";
}

InferenceSpec inferenceFromJson(const json &value)
{
    JsonFields f(value, "inference",
        { "request_rate", "prompt_tokens", "output_tokens", "batch", "precision", "kv_precision",
            "pools" });
    f.rejectUnknown();
    InferenceSpec s;
    f.required("request_rate");
    s.requestRate
        = f.number("request_rate", s.requestRate, 0.0, kMaxRequestRate, LowerBound::Exclusive);
    s.promptTokens = static_cast<int>(f.requiredInteger("prompt_tokens", 1, kMaxTokens));
    s.outputTokens = static_cast<int>(f.requiredInteger("output_tokens", 1, kMaxTokens));
    s.batch = f.integer("batch", s.batch, 1, kMaxBatch);
    const auto precisions = { Precision::Bf16, Precision::Fp16, Precision::Fp8 };
    s.precision = f.choice("precision", s.precision, precisions, precisionName);
    s.kvPrecision = f.choice("kv_precision", s.kvPrecision, precisions, precisionName);
    const json *pools = f.array("pools", kMaxPools);
    if (!pools)
        throw ScenarioError(f.fieldPath("pools"), "missing required field");
    if (pools->empty())
        throw ScenarioError(
            f.fieldPath("pools"), "an inference deployment needs at least one pool");
    for (std::size_t i = 0; i < pools->size(); ++i)
        s.pools.push_back(readPool((*pools)[i], jsonElementPath(f.fieldPath("pools"), i)));
    return s;
}

void inferenceToJson(const InferenceSpec &spec, nlohmann::json &out)
{
    writeInference(spec, out);
}

void inferenceToJson(const InferenceSpec &spec, nlohmann::ordered_json &out)
{
    writeInference(spec, out);
}

} // namespace railyard
