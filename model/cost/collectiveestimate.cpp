#include "cost/collectiveestimate.h"

#include "base/scenarioerror.h"
#include "cost/collectiveplanner.h"
#include "cost/ecmphashing.h"
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "layout/mapping.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>

namespace railyard {

namespace {


/** A plan routed alone on the fabric. */
struct Routed
{
    double secondsPerByte = 0.0; ///< busiest link: load / achievable bandwidth, per byte of S per pass
    int bottleneck = -1;
    double maxSent = 0.0;        ///< the largest bytes one member sends, per byte of S per pass
};

Routed route(const CollectivePlan &plan, const Fabric &fabric, Router &router,
             const std::array<double, kTierCount> &efficiency)
{
    std::unordered_map<int, double> load;
    std::unordered_map<int, double> sent;
    for (const PlannedFlow &f : plan.flows) {
        sent[f.src] += f.unit;
        for (const RouteHop &hop : router.route(f.src, f.dst))
            load[hop.link] += f.unit * hop.share;
    }
    for (const PlannedLinkLoad &l : plan.links) {
        load[l.link] += l.unit;
        const FabricLink &link = fabric.link(l.link);
        if (fabric.node(link.src).kind == NodeKind::Gpu) // what a GPU pushes into the NVSwitch
            sent[link.src] += l.unit;
    }
    Routed r;
    for (const auto &[link, bytes] : load) {
        const FabricLink &l = fabric.link(link);
        const double t = bytes / (l.bandwidth * efficiency[index(l.tier)]);
        if (t > r.secondsPerByte || (t == r.secondsPerByte && link < r.bottleneck)) {
            r.secondsPerByte = t;
            r.bottleneck = link;
        }
    }
    for (const auto &[who, bytes] : sent)
        r.maxSent = std::max(r.maxSent, bytes);
    return r;
}

/// The busiest link's seconds per byte of S per pass for `plan` under hashed or adaptive ECMP,
/// seed `seed` (route() for the ideal split).
double ecmpSecondsPerByte(const CollectivePlan &plan, const Fabric &fabric, EcmpRouteBook &book,
    const std::array<double, kTierCount> &efficiency, const EcmpRouting &routing,
    std::uint64_t seed, std::unordered_map<int, double> &load)
{
    load.clear();
    const bool adaptive = routing.mode == EcmpMode::Adaptive;
    const int qps = std::max(1, routing.qpsPerConnection);
    for (std::size_t i = 0; i < plan.flows.size(); ++i) {
        const PlannedFlow &f = plan.flows[i];
        const int r = book.route(f.src, f.dst);
        if (r < 0)
            continue;
        if (adaptive || !book.hasChoice(r)) {
            book.forEachHop(r, [&](int link, double share) { load[link] += f.unit * share; });
            continue;
        }
        // Each plan flow is one channel's connection (collectiveplanner.h).
        for (int q = 0; q < qps; ++q)
            book.walk(r, ecmpFlowKey(seed, 0, f.src, f.dst, static_cast<int>(i), q),
                [&](int link) { load[link] += f.unit / qps; });
    }
    for (const PlannedLinkLoad &l : plan.links)
        load[l.link] += l.unit;
    double worst = 0.0;
    for (const auto &[link, bytes] : load) {
        const FabricLink &l = fabric.link(link);
        double c = l.bandwidth * efficiency[index(l.tier)];
        if (adaptive && book.isChoiceLink(link))
            c *= routing.adaptiveEfficiency;
        worst = std::max(worst, bytes / c);
    }
    return worst;
}

} // namespace

/// nccl-tests bus-bandwidth factors (nccl-tests doc/PERFORMANCE.md): all-reduce 2(n-1)/n,
/// all-gather / reduce-scatter / all-to-all (n-1)/n, send-recv 1.
double busBandwidthFactor(Collective c, int n)
{
    if (n <= 1)
        return c == Collective::SendRecv ? 1.0 : 0.0;
    const double f = static_cast<double>(n - 1) / static_cast<double>(n);
    switch (c) {
    case Collective::AllReduce:
        return 2.0 * f;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll:
        return f;
    case Collective::SendRecv:
        return 1.0;
    }
    return 0.0;
}

std::vector<PlanAlgorithm> autoCandidates(Collective op)
{
    switch (op) {
    case Collective::AllReduce:
        // NCCL's own algorithms: "we only build flat rings, no 2D ring" (NVIDIA/nccl issue
        // #471), so the hierarchical ring runs only when asked for.
        return {PlanAlgorithm::Ring, PlanAlgorithm::Tree, PlanAlgorithm::Nvls};
    case Collective::AllGather:
    case Collective::ReduceScatter:
        return {PlanAlgorithm::Ring, PlanAlgorithm::Pat, PlanAlgorithm::Nvls};
    case Collective::AllToAll:
        return {PlanAlgorithm::Pairwise};
    case Collective::SendRecv:
        break;
    }
    return {PlanAlgorithm::PointToPoint};
}

std::vector<PlanAlgorithm> requestedAlgorithms(CollectiveAlgorithm option, Collective op,
                                               bool hierarchicalAllReduce)
{
    if (option != CollectiveAlgorithm::Auto)
        return {planAlgorithmFor(option)}; // the planner falls back where it cannot run
    if (hierarchicalAllReduce && op == Collective::AllReduce)
        return {PlanAlgorithm::Hierarchical};
    return autoCandidates(op);
}

CollectiveResult estimateCollective(const Fabric &fabric, Router &router, const Mapping &mapping,
    int worldSize, Collective op, const std::vector<int> &ranks, double bytes,
    CollectiveAlgorithm option, const nccltuning::DeviceTuning &device, bool hierarchicalAllReduce,
    const EcmpRouting &routing)
{
    const int world = worldSize;
    const int n = static_cast<int>(ranks.size());
    if (n < 1)
        throw ScenarioError("ranks", "at least one rank is needed");
    // Two ranks: a sender and its receiver; more: nccl-tests' ring of sends (each rank to the
    // next, src/sendrecv.cu), which the planner builds for PointToPoint.
    if (op == Collective::SendRecv && n < 2)
        throw ScenarioError("ranks",
            "send-recv takes at least two ranks (a sender and its receiver, or nccl-tests' ring "
            "of sends)");
    std::vector<int> seen(world, 0);
    for (int r : ranks) {
        if (r < 0 || r >= world)
            throw ScenarioError("ranks", "rank " + std::to_string(r) + " is outside 0.."
                                             + std::to_string(world - 1));
        if (seen[r]++)
            throw ScenarioError("ranks", "rank " + std::to_string(r) + " is listed twice");
    }
    if (!(bytes > 0.0) || !std::isfinite(bytes))
        throw ScenarioError("bytes", "the message size must be a positive number of bytes");

    std::vector<int> slots;
    slots.reserve(ranks.size());
    for (const int r : ranks)
        slots.push_back(mapping.slotOf(r));
    const int passes = op == Collective::AllToAll || op == Collective::SendRecv ? 1 : ringPasses(op);

    CollectiveResult result;
    result.busFactor = busBandwidthFactor(op, n);
    double bestSent = 0.0;
    bool found = false;
    // Hashed / adaptive ECMP: per seed, the fastest algorithm's time on that seed's loads.
    const bool spread = routing.mode != EcmpMode::Ideal && n > 1;
    const int seeds = routing.mode == EcmpMode::Hashed ? std::max(1, routing.seeds) : 1;
    std::optional<EcmpRouteBook> book;
    if (spread)
        book.emplace(fabric, router);
    std::vector<double> seedBest(spread ? sz(seeds) : 0, 0.0);
    std::unordered_map<int, double> ecmpLoad;
    for (const PlanAlgorithm wanted : requestedAlgorithms(option, op, hierarchicalAllReduce)) {
        const CollectivePlan plan =
            planCollective(wanted, op, slots, fabric, router, device.nvlsEfficiency);
        const bool seenBefore = std::any_of(result.considered.begin(), result.considered.end(),
            [&](const AlgorithmTime &t) { return t.algorithm == plan.algorithm; });
        if (seenBefore)
            continue; // e.g. hierarchical on one server is the ring
        const Routed routed = route(plan, fabric, router,
                                    nccltuning::linkEfficiency(plan.algorithm, device));
        const nccltuning::ProtocolChoice choice = nccltuning::fastestProtocol(
            plan.algorithm, plan.chain, passes, bytes, routed.secondsPerByte, device);
        AlgorithmTime t;
        t.algorithm = plan.algorithm;
        t.protocol = choice.protocol;
        t.time = n > 1 ? choice.time : 0.0;
        t.alphaTime = n > 1 ? choice.alpha : 0.0;
        t.channels = plan.channels;
        if (n > 1)
            t.protocolTimes = choice.times;
        if (spread) {
            const std::array<double, kTierCount> eff
                = nccltuning::linkEfficiency(plan.algorithm, device);
            double sum = 0.0;
            for (int seed = 0; seed < seeds; ++seed) {
                const double spb = ecmpSecondsPerByte(
                    plan, fabric, *book, eff, routing, static_cast<std::uint64_t>(seed), ecmpLoad);
                const double time = nccltuning::fastestProtocol(
                    plan.algorithm, plan.chain, passes, bytes, spb, device)
                                        .time;
                sum += time;
                double &best = seedBest[sz(seed)];
                best = result.considered.empty() ? time : std::min(best, time);
            }
            t.time = sum / seeds;
        }
        result.considered.push_back(t);
        // The same margin as the protocol choice: a near-tie keeps the earlier candidate.
        if (!found || t.time < result.time * (1.0 - 1e-9)) {
            found = true;
            result.time = t.time;
            result.alphaTime = t.alphaTime;
            result.algorithm = t.algorithm;
            result.protocol = t.protocol;
            result.channels = t.channels;
            result.bottleneckLink = routed.bottleneck;
            result.chain = plan.chain;
            bestSent = routed.maxSent;
        }
    }
    result.timeP99 = result.time;
    if (spread) {
        result.time = ecmpMean(seedBest);
        result.timeP99 = percentile99(seedBest);
    }
    result.bytesSentPerRank = passes * bestSent * bytes;
    result.algBandwidth = result.time > 0.0 ? bytes / result.time : 0.0;
    result.busBandwidth = result.algBandwidth * result.busFactor;
    return result;
}

} // namespace railyard
