#include "studies/inference.h"

#include "base/scenarioerror.h"
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "scenario/devicepools.h"
#include "scenario/inferencecheck.h"
#include "scenario/scenario.h"
#include "workload/computemodel.h"
#include "workload/inferencecompute.h"
#include "workload/workloadnames.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

/**
 * The inference model: a request stream served by prefill and decode pools (or
 * colocated pools) placed on the fabric. Per request it derives the KV-cache bytes, moves them
 * from the prefill replica's GPUs to the decode replica's GPUs over the Router's paths, and
 * predicts prefill time, decode step time, TTFT, TPOT and the KV transfer's share of the
 * request's critical path; it classifies the placement as Minimal Inference (every request's
 * state stays on one server, so serving needs no back-end network) or Distributed Inference
 * (a disaggregated KV hand-off or a pool across hosts puts the network on the request's
 * critical path; the report names what crosses hosts).
 *
 * Sources cited below:
 *  [Kwon23]     Kwon et al., "Efficient Memory Management for Large Language Model Serving with
 *               PagedAttention", SOSP'23 (vLLM): KV cache = 2 x layers x kv heads x head dim x
 *               bytes per token; continuous batching of decode steps.
 *  [Zhong24]    Zhong et al., "DistServe: Disaggregating Prefill and Decoding for Goodput-
 *               optimized Large Language Model Serving", OSDI'24: prefill and decode pools, the
 *               KV transfer between them, TTFT and TPOT (time per output token after the first).
 *  [Patel24]    Patel et al., "Splitwise: Efficient Generative LLM Inference Using Phase
 *               Splitting", ISCA'24: the prefill emits the first token; KV moved per layer from
 *               the prompt machine to the token machine over the back-end network.
 *  [Ainslie23]  Ainslie et al., "GQA: Training Generalized Multi-Query Transformer Models from
 *               Multi-Head Checkpoints", 2023: kv_heads < heads shrinks K/V by heads/kv_heads.
 *  [Shoeybi19]  Megatron-LM tensor parallelism: two all-reduces per layer in the forward pass.
 *  [Narayanan21] Megatron-LM SC'21: Eq. 2 parameter count, §4.1 pipeline scatter/gather.
 *  [Williams09] The roofline model (time = max(FLOPs / peak, bytes / bandwidth)).
 *  [Thakur05]   Thakur, Rabenseifner, Gropp, "Optimization of Collective Communication
 *               Operations in MPICH", IJHPCA 2005: ring all-reduce T = 2(p-1) a + 2(p-1)/p S/B.
 */

namespace railyard {

namespace {

using namespace compute;

/** One model replica of a pool: its slots by [stage][tensor shard]. */
struct Replica
{
    int pool = -1;
    std::vector<std::vector<int>> slots;
};

/** Per-link sums for one concurrent set of flows (bottleneck-link model). */
class LinkSum
{
public:
    explicit LinkSum(const Fabric &fabric)
        : m_fabric(fabric)
        , m_load(static_cast<std::size_t>(fabric.linkCount()), 0.0)
    {
    }
    void add(int link, double bytes)
    {
        if (m_load[link] == 0.0)
            m_touched.push_back(link);
        m_load[link] += bytes;
    }
    /// The most loaded link's bytes over its bandwidth: the time the set needs, seconds.
    double time() const
    {
        double t = 0.0;
        for (int l : m_touched)
            t = std::max(t, m_load[l] / m_fabric.link(l).bandwidth);
        return t;
    }
    const std::vector<int> &touched() const { return m_touched; }
    double load(int link) const { return m_load[link]; }
    void clear()
    {
        for (int l : m_touched)
            m_load[l] = 0.0;
        m_touched.clear();
    }

private:
    const Fabric &m_fabric;
    std::vector<double> m_load;
    std::vector<int> m_touched;
};

/// Routes `bytes` from slot a to slot b into `sum`; returns the path latency.
double routeInto(Router &router, int a, int b, double bytes, LinkSum &sum)
{
    if (a == b)
        return 0.0;
    for (const RouteHop &hop : router.route(a, b))
        sum.add(hop.link, bytes * hop.share);
    return router.latency(a, b);
}

/**
 * Ring all-reduce of S bytes over `slots` [Thakur05]: T = 2(p-1) a + 2(p-1)/p S / B, with a the
 * slowest ring hop's latency and S/B the most loaded link's time when every member sends one
 * S/p chunk to its ring successor at once (as CostEngine::collective does).
 */
double ringAllReduce(Router &router, LinkSum &sum, const std::vector<int> &slots, double bytes)
{
    const int n = static_cast<int>(slots.size());
    if (n < 2 || bytes <= 0.0)
        return 0.0;
    sum.clear();
    double alpha = 0.0;
    for (int i = 0; i < n; ++i)
        alpha = std::max(alpha, routeInto(router, slots[i], slots[(i + 1) % n], bytes / n, sum));
    const double steps = 2.0 * (n - 1);
    return steps * alpha + steps * sum.time();
}

/// Pipeline boundaries: tensor shard t of stage p sends bytes / tp to shard t of stage p + 1
/// ([Narayanan21] §4.1 scatter/gather); the boundaries run one after the other.
double pipelineSends(Router &router, LinkSum &sum, const Replica &r, double bytes)
{
    double total = 0.0;
    for (std::size_t p = 0; p + 1 < r.slots.size(); ++p) {
        sum.clear();
        double latency = 0.0;
        const std::vector<int> &from = r.slots[p];
        for (std::size_t t = 0; t < from.size(); ++t)
            latency = std::max(
                latency, routeInto(router, from[t], r.slots[p + 1][t], bytes / from.size(), sum));
        total += sum.time() + latency;
    }
    return total;
}

std::string serverList(const Fabric &fabric, const std::set<int> &servers)
{
    std::string out;
    for (int s : servers)
        out += (out.empty() ? "" : ", ") + fabric.serverName(s);
    return out;
}

PathTier tierOf(const Fabric &fabric, Router &router, int a, int b)
{
    if (fabric.sameScaleUpDomain(a, b)) // one server, or one rack-scale NVLink domain
        return PathTier::ScaleUp;
    for (const RouteHop &hop : router.route(a, b)) {
        const Tier t = fabric.link(hop.link).tier;
        if (t == Tier::Spine || t == Tier::SuperSpine)
            return PathTier::ViaSpine;
    }
    return PathTier::SameLeaf;
}

/// Length of the overlap of [a0, a1) and [b0, b1).
double overlap(double a0, double a1, double b0, double b1)
{
    return std::max(0.0, std::min(a1, b1) - std::max(a0, b0));
}

/// The replicas of pool `index` in its rank order: rank r is shard r % tp of stage (r / tp) % pp
/// of replica r / (tp pp).
std::vector<Replica> poolReplicas(const PoolSpec &pool, int index, int gpusPerServer)
{
    const std::vector<int> slots = inference::poolSlots(pool, gpusPerServer);
    const int per = pool.tp * pool.pp;
    std::vector<Replica> out;
    for (int k = 0; k < static_cast<int>(slots.size()) / per; ++k) {
        Replica r;
        r.pool = index;
        r.slots.assign(pool.pp, std::vector<int>(pool.tp));
        for (int p = 0; p < pool.pp; ++p)
            for (int t = 0; t < pool.tp; ++t)
                r.slots[p][t] = slots[k * per + p * pool.tp + t];
        out.push_back(std::move(r));
    }
    return out;
}

/**
 * The KV flows of one request from prefill replica `src` to decode replica `dst`. Prefill GPU
 * (stage p, shard t) holds key/value heads [t kv/tp, (t+1) kv/tp) of layers [p L/pp, (p+1) L/pp)
 * for the prompt; decode GPU (p', t') needs its own head and layer ranges. Every pair sends the
 * intersection, heads x layers x head_dim x 2 (K, V) x prompt x e_kv bytes, so a different tp
 * or pp on the decode side regroups the bytes by head and layer range (what [Zhong24]'s and
 * vLLM's KV connectors do when the two sides are sharded differently).
 */
std::vector<KvFlow> kvFlows(const ModelSpec &m, const InferenceSpec &spec, const PoolSpec &from,
    const Replica &src, const PoolSpec &to, const Replica &dst)
{
    const double kv = inference::kvHeads(m);
    const double L = m.layers;
    const double perHeadLayer = 2.0 * (static_cast<double>(m.hidden) / m.heads) * spec.promptTokens
        * precisionBytes(spec.kvPrecision);
    std::vector<KvFlow> flows;
    for (int p = 0; p < from.pp; ++p)
        for (int t = 0; t < from.tp; ++t)
            for (int q = 0; q < to.pp; ++q)
                for (int u = 0; u < to.tp; ++u) {
                    const double heads = overlap(t * kv / from.tp, (t + 1) * kv / from.tp,
                        u * kv / to.tp, (u + 1) * kv / to.tp);
                    const double layers = overlap(
                        p * L / from.pp, (p + 1) * L / from.pp, q * L / to.pp, (q + 1) * L / to.pp);
                    if (heads * layers <= 0.0)
                        continue;
                    KvFlow f;
                    f.srcSlot = src.slots[p][t];
                    f.dstSlot = dst.slots[q][u];
                    f.bytes = heads * layers * perHeadLayer;
                    flows.push_back(f);
                }
    return flows;
}

} // namespace

std::string_view pathTierName(PathTier tier)
{
    switch (tier) {
    case PathTier::ScaleUp:
        return "scale_up";
    case PathTier::SameLeaf:
        return "same_leaf";
    case PathTier::ViaSpine:
        return "via_spine";
    }
    return "scale_up";
}

std::string InferenceReport::classification() const
{
    return minimal ? "Minimal Inference" : "Distributed Inference";
}

std::vector<KvPair> kvTransferPairs(const Scenario &scenario, const Fabric &fabric)
{
    if (!scenario.inference)
        return {};
    validateInference(scenario);
    const InferenceSpec &spec = *scenario.inference;
    std::vector<std::vector<Replica>> byPool;
    for (std::size_t i = 0; i < spec.pools.size(); ++i)
        byPool.push_back(poolReplicas(spec.pools[i], static_cast<int>(i), fabric.gpusPerServer()));
    std::vector<KvPair> pairs;
    for (std::size_t a = 0; a < spec.pools.size(); ++a) {
        if (spec.pools[a].role != PoolRole::Prefill)
            continue;
        for (std::size_t b = 0; b < spec.pools.size(); ++b) {
            if (spec.pools[b].role != PoolRole::Decode)
                continue;
            for (std::size_t i = 0; i < byPool[a].size(); ++i)
                for (std::size_t j = 0; j < byPool[b].size(); ++j) {
                    KvPair pair;
                    pair.prefillPool = static_cast<int>(a);
                    pair.prefillReplica = static_cast<int>(i);
                    pair.decodePool = static_cast<int>(b);
                    pair.decodeReplica = static_cast<int>(j);
                    for (const KvFlow &f : kvFlows(scenario.model, spec, spec.pools[a],
                             byPool[a][i], spec.pools[b], byPool[b][j]))
                        pair.slots.emplace_back(f.srcSlot, f.dstSlot);
                    pairs.push_back(std::move(pair));
                }
        }
    }
    return pairs;
}

InferenceReport evaluateInference(const Scenario &scenario, const Fabric &fabric)
{
    if (!scenario.inference)
        throw ScenarioError("inference", "the scenario has no inference section");
    validateInference(scenario);
    const InferenceSpec &spec = *scenario.inference;
    const ModelSpec &m = scenario.model;
    const int G = fabric.gpusPerServer();
    Router router(fabric);
    LinkSum sum(fabric);

    InferenceReport out;
    out.kvBytesPerToken = inference::kvBytesPerToken(m, spec.kvPrecision);
    out.kvBytesPerRequest = out.kvBytesPerToken * spec.promptTokens;
    out.kvBytesPerRequestFinal
        = out.kvBytesPerToken * (double(spec.promptTokens) + spec.outputTokens);

    // Replicas, in pool order (poolReplicas).
    std::vector<Replica> replicas;
    std::array<int, 3> replicasPerRole {};
    // Mixed devices (docs/mixed-devices.md): each pool computes on the devices of its servers.
    const ServerDevices devices = serverDevices(scenario.fabric, scenario.device);
    std::vector<std::vector<std::size_t>> poolDevices(spec.pools.size());
    for (std::size_t i = 0; i < spec.pools.size(); ++i) {
        const PoolSpec &pool = spec.pools[i];
        const std::vector<int> slots = inference::poolSlots(pool, G);
        const int per = pool.tp * pool.pp;
        PoolResult pr;
        pr.name = pool.name;
        pr.role = pool.role;
        pr.tp = pool.tp;
        pr.pp = pool.pp;
        pr.ep = pool.ep;
        pr.gpus = static_cast<int>(slots.size());
        pr.replicas = pr.gpus / per;
        std::set<int> servers;
        for (int s : slots)
            servers.insert(fabric.serverOfSlot(s));
        pr.servers.assign(servers.begin(), servers.end());
        for (int server : pr.servers)
            pr.serverNames.push_back(fabric.serverName(server));
        for (Replica &r : poolReplicas(pool, static_cast<int>(i), G))
            replicas.push_back(std::move(r));
        replicasPerRole[static_cast<int>(pool.role)] += pr.replicas;
        pr.weightBytesPerGpu = inference::weightBytesPerGpu(m, pool, spec.precision);
        pr.kvBytesPerGpu = inference::kvTokensHeld(spec, pool) * out.kvBytesPerToken
            / (double(pool.tp) * pool.pp);
        // Mixed devices: every device the pool's GPUs sit on; the smallest HBM must hold it.
        std::vector<std::size_t> &on = poolDevices[i];
        for (const int slot : slots) {
            const auto d = devices.mixed()
                ? static_cast<std::size_t>(
                    devices.serverDevice[static_cast<std::size_t>(fabric.serverOfSlot(slot))])
                : std::size_t { 0 };
            if (std::find(on.begin(), on.end(), d) == on.end())
                on.push_back(d);
        }
        if (on.empty())
            on.push_back(0);
        std::sort(on.begin(), on.end());
        std::size_t smallest = on.front();
        for (const std::size_t d : on)
            if (devices.devices[d].hbmBytes < devices.devices[smallest].hbmBytes)
                smallest = d;
        if (devices.mixed())
            pr.hbmDevice = devices.devices[smallest].name;
        const double hbm = devices.devices[smallest].hbmBytes;
        pr.fits = pr.weightBytesPerGpu + pr.kvBytesPerGpu <= hbm;
        out.pools.push_back(std::move(pr));
    }

    // Step times per pool: compute (identical replicas) plus the slowest replica's TP all-reduces
    // (two per layer [Shoeybi19], S = tokens h e) and pipeline sends.
    const double prompt = spec.promptTokens;
    const double batch = spec.batch;
    // Mean context of a sequence over its decode steps (prompt plus half the output): the
    // context a continuous batch of sequences at uniformly spread progress sees on average.
    const double ctx = prompt + 0.5 * spec.outputTokens;
    const double e = precisionBytes(spec.precision);
    const double h = m.hidden;
    std::vector<double> prefillTime(spec.pools.size(), 0.0), decodeTime(spec.pools.size(), 0.0);
    for (std::size_t i = 0; i < spec.pools.size(); ++i) {
        const PoolSpec &pool = spec.pools[i];
        PoolResult &pr = out.pools[i];
        const bool prefills = pool.role != PoolRole::Decode;
        const bool decodes = pool.role != PoolRole::Prefill;
        // A pool across device kinds steps at its slowest device's pace (its replicas are
        // timed alike; a TP or PP group across kinds waits for its slower member).
        double pfCompute = 0.0, dcCompute = 0.0;
        for (const std::size_t d : poolDevices[i]) {
            const Roofline r = compute::deviceRoofline(devices.devices[d], spec.precision);
            const double pf
                = prefills ? inference::prefillCompute(r, m, pool, spec.precision, prompt) : 0.0;
            const double dc = decodes
                ? inference::decodeCompute(r, m, pool, spec.precision, spec.kvPrecision, batch, ctx)
                : 0.0;
            if (devices.mixed() && (pf + dc > pfCompute + dcCompute || pr.device.empty()))
                pr.device = devices.devices[d].name;
            pfCompute = std::max(pfCompute, pf);
            dcCompute = std::max(dcCompute, dc);
        }
        for (const Replica &rep : replicas) {
            if (rep.pool != static_cast<int>(i))
                continue;
            double tpPrefill = 0.0, tpDecode = 0.0;
            for (int p = 0; p < pool.pp; ++p) {
                const int layers = m.layers / pool.pp;
                if (prefills)
                    tpPrefill
                        += 2.0 * layers * ringAllReduce(router, sum, rep.slots[p], prompt * h * e);
                if (decodes)
                    tpDecode
                        += 2.0 * layers * ringAllReduce(router, sum, rep.slots[p], batch * h * e);
            }
            if (prefills) {
                const double t
                    = pfCompute + tpPrefill + pipelineSends(router, sum, rep, prompt * h * e);
                prefillTime[i] = std::max(prefillTime[i], t);
                if (pool.role == PoolRole::Prefill)
                    pr.tpCollectiveTime = std::max(pr.tpCollectiveTime, tpPrefill);
            }
            if (decodes) {
                const double t
                    = dcCompute + tpDecode + pipelineSends(router, sum, rep, batch * h * e);
                decodeTime[i] = std::max(decodeTime[i], t);
                pr.tpCollectiveTime = std::max(pr.tpCollectiveTime, tpDecode);
            }
        }
        pr.stepTime = pool.role == PoolRole::Prefill ? prefillTime[i] : decodeTime[i];
        out.prefillTime = std::max(out.prefillTime, prefillTime[i]);
        out.tpot = std::max(out.tpot, decodeTime[i]);
    }

    // Busy share of each pool at the request rate, requests spread evenly over the replicas of a
    // role: a prefill replica serves one prompt at a time, a decode replica runs `batch`
    // sequences per step for output - 1 steps each [Zhong24].
    const double lambda = spec.requestRate;
    const double steps = spec.outputTokens - 1.0;
    for (std::size_t i = 0; i < spec.pools.size(); ++i) {
        PoolResult &pr = out.pools[i];
        const double perReplica = lambda / replicasPerRole[static_cast<int>(pr.role)];
        pr.offeredLoad = perReplica * (prefillTime[i] + steps * decodeTime[i] / batch);
        pr.utilisation = std::min(1.0, pr.offeredLoad);
        if (pr.offeredLoad >= 1.0) {
            char line[200];
            std::snprintf(line, sizeof line,
                "pool '%s' is overloaded: %.2fx its capacity at %g requests/s", pr.name.c_str(),
                pr.offeredLoad, lambda);
            out.warnings.emplace_back(line);
        }
        if (!pr.fits)
            out.warnings.push_back("pool '" + pr.name + "': weights + KV cache exceed HBM");
    }

    // Dependencies inside a pool that cross hosts.
    for (std::size_t i = 0; i < spec.pools.size(); ++i) {
        const PoolSpec &pool = spec.pools[i];
        std::set<int> tpCross, ppCross, epCross;
        std::vector<const Replica *> mine;
        for (const Replica &rep : replicas)
            if (rep.pool == static_cast<int>(i))
                mine.push_back(&rep);
        for (const Replica *rep : mine)
            for (int p = 0; p < pool.pp; ++p)
                for (int t = 0; t < pool.tp; ++t) {
                    const int s = fabric.serverOfSlot(rep->slots[p][t]);
                    const int first = fabric.serverOfSlot(rep->slots[p][0]);
                    if (s != first && tpCross.empty())
                        for (int u = 0; u < pool.tp; ++u)
                            tpCross.insert(fabric.serverOfSlot(rep->slots[p][u]));
                    if (p > 0 && s != fabric.serverOfSlot(rep->slots[p - 1][t]) && ppCross.empty())
                        ppCross = { fabric.serverOfSlot(rep->slots[p - 1][t]), s };
                }
        // EP groups: ep consecutive replicas, same stage and shard (Megatron's expert groups).
        for (std::size_t k = 0; k + pool.ep <= mine.size() && pool.ep > 1 && epCross.empty();
             k += pool.ep)
            for (int p = 0; p < pool.pp; ++p)
                for (int t = 0; t < pool.tp; ++t) {
                    std::set<int> group;
                    for (int j = 0; j < pool.ep; ++j)
                        group.insert(fabric.serverOfSlot(mine[k + j]->slots[p][t]));
                    if (group.size() > 1 && epCross.empty())
                        epCross = group;
                }
        const std::string name = "pool '" + pool.name + "'";
        if (!tpCross.empty())
            out.reasons.push_back(
                name + ": TP all-reduce crosses hosts (" + serverList(fabric, tpCross) + ")");
        if (!ppCross.empty())
            out.reasons.push_back(
                name + ": PP stage boundary crosses hosts (" + serverList(fabric, ppCross) + ")");
        if (!epCross.empty())
            out.reasons.push_back(
                name + ": EP all-to-all crosses hosts (" + serverList(fabric, epCross) + ")");
    }

    // The KV transfer: every prefill replica to every decode replica, each pair carrying
    // lambda / (prefill replicas x decode replicas) requests per second.
    const int rp = replicasPerRole[static_cast<int>(PoolRole::Prefill)];
    const int rd = replicasPerRole[static_cast<int>(PoolRole::Decode)];
    out.disaggregated = rp > 0;
    if (out.disaggregated) {
        const double pairRate = lambda / (static_cast<double>(rp) * rd);
        std::vector<double> rate(static_cast<std::size_t>(fabric.linkCount()), 0.0);
        std::vector<int> rated;
        std::set<std::pair<int, int>> crossingPools;
        double total = 0.0;
        int pairs = 0;
        for (const Replica &a : replicas) {
            if (spec.pools[a.pool].role != PoolRole::Prefill)
                continue;
            for (const Replica &b : replicas) {
                if (spec.pools[b.pool].role != PoolRole::Decode)
                    continue;
                std::vector<KvFlow> flows
                    = kvFlows(m, spec, spec.pools[a.pool], a, spec.pools[b.pool], b);
                sum.clear();
                double latency = 0.0;
                for (KvFlow &f : flows) {
                    f.latency = routeInto(router, f.srcSlot, f.dstSlot, f.bytes, sum);
                    f.tier = tierOf(fabric, router, f.srcSlot, f.dstSlot);
                    latency = std::max(latency, f.latency);
                    out.kvBytesPerTier[static_cast<int>(f.tier)] += f.bytes;
                    if (f.tier != PathTier::ScaleUp)
                        crossingPools.insert({ a.pool, b.pool });
                }
                // Concurrent flows share links: the most loaded link sets the time, plus the
                // slowest path's latency (the bottleneck model of CostEngine).
                const double time = sum.time() + latency;
                total += time;
                ++pairs;
                if (time > out.kvTransferTime || out.flows.empty()) {
                    out.kvTransferTime = time;
                    out.kvTransferLatency = latency;
                    out.flows = flows;
                }
                for (int l : sum.touched()) {
                    if (rate[l] == 0.0)
                        rated.push_back(l);
                    rate[l] += sum.load(l) * pairRate;
                }
            }
        }
        for (double &b : out.kvBytesPerTier)
            b /= pairs;
        out.kvTransferTimeMean = total / pairs;
        for (int l : rated) {
            const double offered = rate[l] / fabric.link(l).bandwidth;
            out.kvLinks.push_back(
                { l, fabric.linkName(l), rate[l], offered, std::min(1.0, offered) });
        }
        std::sort(
            out.kvLinks.begin(), out.kvLinks.end(), [](const KvLinkLoad &x, const KvLinkLoad &y) {
                if (x.offeredLoad != y.offeredLoad)
                    return x.offeredLoad > y.offeredLoad;
                return x.bytesPerSecond != y.bytesPerSecond ? x.bytesPerSecond > y.bytesPerSecond
                                                            : x.link < y.link;
            });
        for (const auto &[from, to] : crossingPools) {
            std::set<int> a(out.pools[from].servers.begin(), out.pools[from].servers.end());
            std::set<int> b(out.pools[to].servers.begin(), out.pools[to].servers.end());
            out.reasons.push_back("KV transfer prefill -> decode crosses hosts (pool '"
                + spec.pools[from].name + "' on " + serverList(fabric, a) + " -> pool '"
                + spec.pools[to].name + "' on " + serverList(fabric, b) + ")");
        }
        if (!out.kvLinks.empty() && out.kvLinks.front().offeredLoad >= 1.0)
            out.warnings.push_back(
                "the KV transfer alone saturates " + fabric.linkName(out.kvLinks.front().link));
    }

    // Latencies [Zhong24]: TTFT = prefill + KV transfer (no queueing); the first token comes
    // from the prefill [Patel24], the other output - 1 tokens take one decode step each.
    out.ttft = out.prefillTime + out.kvTransferTime;
    out.endToEnd = out.ttft + steps * out.tpot;
    out.criticalPathShare = out.endToEnd > 0.0 ? out.kvTransferTime / out.endToEnd : 0.0;
    out.ttftShare = out.ttft > 0.0 ? out.kvTransferTime / out.ttft : 0.0;
    out.minimal = out.reasons.empty();
    return out;
}

} // namespace railyard
