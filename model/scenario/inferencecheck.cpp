/**
 * The cross-field rules of a scenario's "inference" section (its fields are read by
 * workload/inferencespec.cpp): a pool's GPUs hold whole tp x pp replicas, its replicas whole ep
 * groups; heads, key/value heads and the MLP split over tp (Megatron-LM's and vLLM's rule),
 * layers over pp, experts over ep; no GPU in two pools; prefill and decode pools come together
 * and are not mixed with colocated pools; weights plus KV cache fit the device's HBM.
 */
#include "scenario/inferencecheck.h"

#include "scenario/devicepools.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "scenario/scenario.h"
#include "workload/inferencecompute.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <set>

namespace railyard {

namespace {

std::string str(std::int64_t v)
{
    return std::to_string(v);
}

} // namespace

void validateInference(const Scenario &scenario)
{
    if (!scenario.inference)
        return;
    const InferenceSpec &s = *scenario.inference;
    const ModelSpec &m = scenario.model;
    const int gpusPerServer = scenario.fabric.gpusPerServer;
    const std::int64_t slotCount = std::int64_t { scenario.fabric.servers } * gpusPerServer;

    if (!(s.requestRate > 0.0) || !std::isfinite(s.requestRate))
        throw ScenarioError("inference.request_rate",
            "must be a positive number, got " + std::to_string(s.requestRate));
    if (s.promptTokens < 1 || s.outputTokens < 1 || s.batch < 1)
        throw ScenarioError("inference", "prompt_tokens, output_tokens and batch must be >= 1");
    if (s.pools.empty())
        throw ScenarioError("inference.pools", "an inference deployment needs at least one pool");
    if (m.heads < 1 || m.hidden % m.heads != 0)
        throw ScenarioError("model.hidden",
            "hidden size " + str(m.hidden) + " is not a multiple of the " + str(m.heads)
                + " attention heads");
    const int kv = inference::kvHeads(m);

    std::vector<int> owner(static_cast<std::size_t>(slotCount), -1); // pool index per slot
    std::set<std::string> names;
    int prefill = 0, decode = 0, colocated = 0;
    for (std::size_t i = 0; i < s.pools.size(); ++i) {
        const PoolSpec &p = s.pools[i];
        const std::string path = jsonElementPath("inference.pools", i);
        const std::string quoted = "pool '" + p.name + "'";
        if (p.name.empty())
            throw ScenarioError(path + ".name", "must not be empty");
        if (!names.insert(p.name).second)
            throw ScenarioError(path + ".name", "duplicate pool name '" + p.name + "'");
        prefill += p.role == PoolRole::Prefill;
        decode += p.role == PoolRole::Decode;
        colocated += p.role == PoolRole::Colocated;
        if (p.tp < 1 || p.pp < 1 || p.ep < 1)
            throw ScenarioError(path, "tp, pp and ep must be >= 1");
        if (!p.servers.empty() && !p.slots.empty())
            throw ScenarioError(path, "give the pool's GPUs as either \"servers\" or \"slots\"");

        // Placement: every server / slot exists and belongs to one pool only.
        const bool bySlots = !p.slots.empty();
        const std::vector<int> &listed = bySlots ? p.slots : p.servers;
        const std::int64_t limit = bySlots ? slotCount : scenario.fabric.servers;
        for (std::size_t k = 0; k < listed.size(); ++k) {
            const std::string element
                = jsonElementPath(path + (bySlots ? ".slots" : ".servers"), k);
            if (listed[k] < 0 || listed[k] >= limit)
                throw ScenarioError(element,
                    (bySlots ? "slot " : "server ") + str(listed[k])
                        + " does not exist (the fabric has " + str(limit)
                        + (bySlots ? " GPU slots)" : " servers)"));
            const int first = bySlots ? listed[k] : listed[k] * gpusPerServer;
            const int count = bySlots ? 1 : gpusPerServer;
            for (int slot = first; slot < first + count; ++slot) {
                int &holder = owner[static_cast<std::size_t>(slot)];
                if (holder >= 0)
                    throw ScenarioError(element,
                        (bySlots ? "slot " + str(slot) : "server " + str(listed[k]))
                            + (holder == static_cast<int>(i) ? " is listed twice in "
                                                             : " is already used by pool '"
                                        + s.pools[holder].name + "', not free for ")
                            + quoted);
                holder = static_cast<int>(i);
            }
        }

        // Degrees against the pool's GPUs and the model (Megatron-LM / vLLM split heads, KV
        // heads and the MLP columns over tp, layers over pp, experts over ep).
        const std::int64_t gpus
            = static_cast<std::int64_t>(inference::poolSlots(p, gpusPerServer).size());
        const std::int64_t replicaGpus = std::int64_t { p.tp } * p.pp;
        if (gpus % replicaGpus != 0)
            throw ScenarioError(path,
                str(gpus) + " GPUs do not hold whole replicas of tp " + str(p.tp) + " x pp "
                    + str(p.pp) + " = " + str(replicaGpus) + " GPUs");
        const std::int64_t replicas = gpus / replicaGpus;
        if (m.heads % p.tp != 0)
            throw ScenarioError(
                path + ".tp", str(m.heads) + " attention heads do not split over tp " + str(p.tp));
        if (kv % p.tp != 0)
            throw ScenarioError(
                path + ".tp", str(kv) + " key/value heads do not split over tp " + str(p.tp));
        if (m.ffn % p.tp != 0)
            throw ScenarioError(
                path + ".tp", "MLP size " + str(m.ffn) + " does not split over tp " + str(p.tp));
        if (m.layers % p.pp != 0)
            throw ScenarioError(
                path + ".pp", str(m.layers) + " layers do not split evenly over pp " + str(p.pp));
        if (p.ep > 1 && m.experts == 0)
            throw ScenarioError(
                path + ".ep", "ep " + str(p.ep) + " needs an MoE model (model.experts > 0)");
        if (m.experts > 0 && m.experts % p.ep != 0)
            throw ScenarioError(
                path + ".ep", str(m.experts) + " experts do not split over ep " + str(p.ep));
        if (replicas % p.ep != 0)
            throw ScenarioError(path + ".ep",
                "ep " + str(p.ep) + " must divide the pool's " + str(replicas) + " replicas");
    }
    if (colocated > 0 && prefill + decode > 0)
        throw ScenarioError("inference.pools",
            "colocated pools cannot be mixed with prefill and "
            "decode pools");
    if (decode > 0 && prefill == 0)
        throw ScenarioError(
            "inference.pools", "a decode pool needs a prefill pool to fill its KV cache");
    if (prefill > 0 && decode == 0)
        throw ScenarioError(
            "inference.pools", "a prefill pool needs a decode pool to hand its KV cache to");

    // Memory: weights (largest stage) plus the KV cache the pool's GPUs hold at once.
    // Mixed devices: a pool's GPUs hold it on the smallest HBM among its servers' devices.
    const double perToken = inference::kvBytesPerToken(m, s.kvPrecision);
    const ServerDevices devices = serverDevices(scenario.fabric, scenario.device);
    for (std::size_t i = 0; i < s.pools.size(); ++i) {
        const PoolSpec &p = s.pools[i];
        const double weights = inference::weightBytesPerGpu(m, p, s.precision);
        const double kvBytes = inference::kvTokensHeld(s, p) * perToken / (double(p.tp) * p.pp);
        double hbm = scenario.device.hbmBytes;
        if (devices.mixed()) {
            hbm = devices.ofServer(0).hbmBytes;
            bool first = true;
            for (const int slot : inference::poolSlots(p, scenario.fabric.gpusPerServer)) {
                const double h = devices.ofServer(slot / scenario.fabric.gpusPerServer).hbmBytes;
                hbm = first ? h : std::min(hbm, h);
                first = false;
            }
        }
        if (weights + kvBytes > hbm) {
            char gb[96];
            std::snprintf(gb, sizeof gb,
                "%.1f GB weights + %.1f GB KV cache per GPU exceed the %.1f GB", weights / 1e9,
                kvBytes / 1e9, hbm / 1e9);
            throw ScenarioError(jsonElementPath("inference.pools", i),
                "pool '" + p.name + "': " + gb + " of HBM ("
                    + (p.role == PoolRole::Prefill ? "one prompt" : "batch " + str(s.batch))
                    + "); raise tp or pp, or lower the batch");
        }
    }
}

} // namespace railyard
