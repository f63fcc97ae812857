#pragma once

#include "workload/inferencespec.h"

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railyard {

class Fabric;
struct Scenario;

/** The class of network a route uses: inside one server, one leaf hop, or up to a spine. */
enum class PathTier { ScaleUp = 0, SameLeaf, ViaSpine };
inline constexpr int kPathTierCount = 3;
std::string_view pathTierName(PathTier tier); ///< "scale_up", "same_leaf", "via_spine"

/** One GPU-to-GPU KV transfer of one request: a prefill shard to a decode shard. */
struct KvFlow
{
    int srcSlot = -1;
    int dstSlot = -1;
    double bytes = 0.0;
    PathTier tier = PathTier::ScaleUp;
    double latency = 0.0; ///< seconds, one way
};

/** The KV traffic on one directed fabric link at the scenario's request rate. */
struct KvLinkLoad
{
    int link = -1;
    std::string name; ///< Fabric::linkName(), for views that do not hold the fabric
    double bytesPerSecond = 0.0;
    /// The KV bytes offered over what the link carries, bytesPerSecond / bandwidth; above 1 the
    /// link cannot keep up with the request rate.
    double offeredLoad = 0.0;
    double utilisation = 0.0; ///< the busy share, min(1, offeredLoad): a link is never > 100 % busy
};

/** One pool's placement and its per-GPU and per-step numbers. */
struct PoolResult
{
    std::string name;
    PoolRole role = PoolRole::Colocated;
    int tp = 1, pp = 1, ep = 1;
    int gpus = 0;
    int replicas = 0;
    std::vector<int> servers; ///< servers the pool's GPUs sit on, ascending
    std::vector<std::string> serverNames; ///< their names, same order
    double weightBytesPerGpu = 0.0; ///< the largest over stages
    double kvBytesPerGpu = 0.0; ///< KV cache held per GPU at full batch
    bool fits = true; ///< weights + KV <= device HBM (the smallest of the pool's devices)
    /// Mixed devices (fabric.device_pools): the device that sets the pool's step (its slowest),
    /// and the one with the least HBM; "" on a fabric of one device kind.
    std::string device;
    std::string hbmDevice;
    double stepTime = 0.0; ///< prefill: one prompt; decode/colocated: one decode step
    double tpCollectiveTime = 0.0; ///< the TP all-reduces inside stepTime
    /// The work offered at the request rate over what the pool serves, rho = lambda x service
    /// time per replica (Kleinrock, "Queueing Systems" vol. 1, 1975, section 2.1); >= 1:
    /// overloaded.
    double offeredLoad = 0.0;
    double utilisation = 0.0; ///< the busy share, min(1, offeredLoad)
};

/**
 * What evaluateInference() predicts for a scenario's inference part: the KV bytes per request,
 * the KV transfer from prefill to decode over the fabric (flows, tiers, time, link loads at the
 * request rate), TTFT / TPOT / end-to-end latency, and the Minimal / Distributed classification
 * with the dependencies that cross hosts.
 */
struct InferenceReport
{
    double kvBytesPerToken = 0.0;
    double kvBytesPerRequest = 0.0; ///< after the prefill (prompt tokens): what moves
    double kvBytesPerRequestFinal = 0.0; ///< after the last token (prompt + output)
    bool disaggregated = false;
    double kvTransferTime = 0.0; ///< the slowest prefill -> decode replica pair, seconds
    double kvTransferTimeMean = 0.0; ///< mean over replica pairs
    double kvTransferLatency = 0.0; ///< path latency part of kvTransferTime
    std::vector<KvFlow> flows; ///< the slowest pair's flows
    std::array<double, kPathTierCount> kvBytesPerTier {}; ///< per request, mean over pairs
    double prefillTime = 0.0; ///< one prompt through the prefill replica, no queueing
    double ttft = 0.0; ///< prefillTime + kvTransferTime
    double tpot = 0.0; ///< one decode step at the mean context
    double endToEnd = 0.0; ///< ttft + (outputTokens - 1) tpot
    double criticalPathShare = 0.0; ///< kvTransferTime / endToEnd
    double ttftShare = 0.0; ///< kvTransferTime / ttft
    bool minimal = true;
    std::vector<std::string> reasons; ///< each dependency that crosses hosts
    std::vector<PoolResult> pools;
    std::vector<KvLinkLoad> kvLinks; ///< links on KV paths, highest utilisation first
    std::vector<std::string> warnings;

    /// "Minimal Inference" or "Distributed Inference".
    std::string classification() const;
    /// The KV link with the highest utilisation, or nullptr when no KV crosses a link.
    const KvLinkLoad *hottestLink() const { return kvLinks.empty() ? nullptr : &kvLinks.front(); }
};

/** One prefill replica's KV hand-off to one decode replica: the GPU-to-GPU flows of a request. */
struct KvPair
{
    int prefillPool = -1, prefillReplica = -1;
    int decodePool = -1, decodeReplica = -1;
    std::vector<std::pair<int, int>> slots; ///< (prefill slot, decode slot) per flow
};

/// Every prefill -> decode replica pair of a disaggregated `scenario.inference` with its flows,
/// as evaluateInference() sends them; empty without an inference section or without a prefill
/// pool. Throws ScenarioError as evaluateInference().
std::vector<KvPair> kvTransferPairs(const Scenario &scenario, const Fabric &fabric);

/// Evaluates `scenario.inference` (validateInference(), scenario/inferencecheck.h, first) on
/// `fabric`, which must have been built from scenario.fabric. Throws ScenarioError; requires
/// scenario.inference.
InferenceReport evaluateInference(const Scenario &scenario, const Fabric &fabric);

} // namespace railyard
