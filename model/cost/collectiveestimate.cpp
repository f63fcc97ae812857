#include "cost/collectiveestimate.h"

#include "base/scenarioerror.h"
#include "fabric/fabric.h"
#include "fabric/router.h"
#include "layout/mapping.h"

#include <cmath>

namespace railyard {

namespace {

/// nccl-tests bus-bandwidth factors (nccl-tests doc/PERFORMANCE.md): all-reduce 2(n-1)/n,
/// all-gather / reduce-scatter / all-to-all (n-1)/n, send-recv 1.
double busFactorOf(Collective c, int n)
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

} // namespace

CollectiveResult estimateCollective(const Fabric &fabric, Router &router, const Mapping &mapping,
                                    int worldSize, Collective op, const std::vector<int> &ranks,
                                    double bytes)
{
    const int world = worldSize;
    const int n = static_cast<int>(ranks.size());
    if (n < 1)
        throw ScenarioError("ranks", "at least one rank is needed");
    if (op == Collective::SendRecv && n != 2)
        throw ScenarioError("ranks", "send-recv takes exactly two ranks (sender,receiver)");
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

    // Route the collective alone: per-link bytes of one run, and the slowest hop's latency.
    std::vector<std::pair<int, double>> touched;
    std::vector<double> load(fabric.linkCount(), 0.0);
    double alphaStep = 0.0;
    auto flow = [&](int src, int dst, double b) {
        const int s = mapping.slotOf(src), t = mapping.slotOf(dst);
        if (s == t)
            return;
        alphaStep = std::max(alphaStep, router.latency(s, t));
        for (const RouteHop &hop : router.route(s, t)) {
            if (load[hop.link] == 0.0)
                touched.push_back({hop.link, 0.0});
            load[hop.link] += b * hop.share;
        }
    };
    const double frac = static_cast<double>(n - 1) / static_cast<double>(n);
    int steps = 0;
    double sent = 0.0;
    switch (op) {
    case Collective::AllReduce:
    case Collective::AllGather:
    case Collective::ReduceScatter: {
        const int passes = ringPasses(op);
        for (int i = 0; i < n && n > 1; ++i)
            flow(ranks[i], ranks[(i + 1) % n], passes * frac * bytes);
        steps = passes * (n - 1);
        sent = passes * frac * bytes;
        break;
    }
    case Collective::AllToAll:
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j)
                if (i != j)
                    flow(ranks[i], ranks[j], bytes / n);
        steps = n - 1;
        sent = frac * bytes;
        break;
    case Collective::SendRecv:
        flow(ranks[0], ranks[1], bytes);
        steps = 1;
        sent = bytes;
        break;
    }
    CollectiveResult r;
    double worst = 0.0;
    for (auto &[link, unused] : touched) {
        const double t = load[link] / fabric.link(link).bandwidth;
        if (t > worst || (t == worst && link < r.bottleneckLink)) {
            worst = t;
            r.bottleneckLink = link;
        }
    }
    r.alphaTime = steps * alphaStep;
    r.time = r.alphaTime + worst;
    r.bytesSentPerRank = sent;
    r.busFactor = busFactorOf(op, n);
    r.algBandwidth = r.time > 0.0 ? bytes / r.time : 0.0;
    r.busBandwidth = r.algBandwidth * r.busFactor;
    return r;
}

} // namespace railyard
