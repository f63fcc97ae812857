// CostEngine::ecmp(): hashed and adaptive ECMP over the engine's current mapping (docs/ecmp.md).

#include "cost/costengine.h"
#include "cost/costengineimpl.h"
#include "cost/ecmphashing.h"
#include "cost/trafficmodel.h"
#include "cost/trafficplan.h"

#include <algorithm>
#include <map>

namespace railyard {

namespace {

/** The logged flows of one pattern, their routes compiled, and what ideal spreading gives. */
struct EcmpPatternFlows
{
    struct Flow
    {
        int route = -1; ///< EcmpRouteBook id; -1 for a fixed link load
        int src = -1, dst = -1;
        double unit = 0.0;
        int connections = 1;
        int link = -1; ///< fixed link load (NVLS ports)
    };
    std::vector<Flow> flows;
    bool choice = false; ///< some flow has several equal-cost paths
    double idealTime = 0.0; ///< max over links of ideal load / achievable bandwidth
};

/** Dense per-link loads with the list of links touched, cleared in O(touched). */
struct EcmpLoads
{
    std::vector<double> value;
    std::vector<int> touched;
    explicit EcmpLoads(int links)
        : value(sz(links), 0.0)
    {
    }
    void add(int link, double v)
    {
        if (value[sz(link)] == 0.0)
            touched.push_back(link);
        value[sz(link)] += v;
    }
    void clear()
    {
        for (const int l : touched)
            value[sz(l)] = 0.0;
        touched.clear();
    }
};

} // namespace

EcmpReport CostEngine::ecmp(const EcmpRouting &routing) const
{
    Impl &m = *d; // re-timed per seed and put back (costengine.h)
    if (m.stale || m.partial) { // refresh(), as a const query may
        m.recompute(false);
        m.stale = false;
    }
    const CostReport base = m.report;
    const std::vector<double> baseOps = m.times.op;
    EcmpReport out;
    out.routing = routing;
    out.idealIterationTime = base.iterationTime;
    out.idealDpSyncTime = base.dpSyncTime;
    for (const double t : baseOps)
        out.ops.push_back({ t, t, t });
    const int linkCount = m.fabric.linkCount();
    const auto busiestUtilisation = [&](const CostReport &r) {
        double u = 0.0;
        for (int l = 0; l < linkCount; ++l)
            u = std::max(u, r.utilisation(l));
        return u;
    };
    if (routing.mode == EcmpMode::Ideal) {
        out.expectedIterationTime = out.p99IterationTime = base.iterationTime;
        out.iterationTimes = { base.iterationTime };
        out.expectedDpSyncTime = out.p99DpSyncTime = base.dpSyncTime;
        out.maxUtilisation = busiestUtilisation(base);
        out.worstSeed = 0;
        return out;
    }

    // The flows, as a build of the same traffic model emits them (same router, same setup:
    // the same patterns in the same order as the engine's own model).
    std::vector<TrafficModel::LoggedFlow> logged;
    {
        const TrafficPlan tp = planTraffic(m.scenario, m.plan);
        TrafficModel logger(m.fabric, m.layout, *m.router, tp.setup);
        logger.logFlows(&logged);
        logger.build(m.mapping);
    }
    TrafficModel &traffic = *m.traffic;
    const int patterns = traffic.patternCount();
    EcmpRouteBook book(m.fabric, *m.router);
    std::vector<EcmpPatternFlows> byPattern(sz(patterns));
    for (const TrafficModel::LoggedFlow &f : logged) {
        EcmpPatternFlows &p = byPattern[sz(f.pattern)];
        EcmpPatternFlows::Flow flow;
        flow.src = f.src;
        flow.dst = f.dst;
        flow.unit = f.unit;
        flow.connections = std::max(1, f.connections);
        flow.link = f.link;
        if (f.link < 0) {
            flow.route = book.route(f.src, f.dst, f.nics);
            if (flow.route < 0)
                continue;
            p.choice = p.choice || book.hasChoice(flow.route);
        }
        p.flows.push_back(flow);
    }

    const bool adaptive = routing.mode == EcmpMode::Adaptive;
    const int seeds = adaptive ? 1 : std::max(1, routing.seeds);
    const int qps = std::max(1, routing.qpsPerConnection);
    // Achievable bandwidth of a link for a pattern: its line rate times the pattern's tier
    // efficiency (TrafficPattern::efficiency, as maxRatio); adaptive spreading keeps
    // adaptiveEfficiency of the ECMP links'.
    const auto capacity = [&](int pattern, int link, bool spread) {
        const FabricLink &l = m.fabric.link(link);
        const double c = l.bandwidth * traffic.pattern(pattern).efficiency[sz(index(l.tier))];
        return spread && adaptive && book.isChoiceLink(link) ? c * routing.adaptiveEfficiency : c;
    };
    EcmpLoads load(linkCount);
    const auto idealLoads = [&](const EcmpPatternFlows &p) {
        load.clear();
        for (const EcmpPatternFlows::Flow &f : p.flows) {
            if (f.route < 0)
                load.add(f.link, f.unit);
            else
                book.forEachHop(
                    f.route, [&](int link, double share) { load.add(link, f.unit * share); });
        }
    };
    const auto slowest = [&](int pattern, bool spread) {
        // Max-min fair sharing weighted by bytes gives every flow through the busiest link the
        // same finish time, load / capacity; that link's is the pattern's (maxMinFairRates()).
        double t = 0.0;
        for (const int l : load.touched)
            t = std::max(t, load.value[sz(l)] / capacity(pattern, l, spread));
        return t;
    };
    // Ideal: per pattern its time, and per ECMP link the bytes per iteration it puts there.
    std::vector<double> idealLinkBytes(sz(linkCount), 0.0);
    std::vector<int> analysed;
    for (int p = 0; p < patterns; ++p) {
        EcmpPatternFlows &pf = byPattern[sz(p)];
        if (!pf.choice)
            continue; // every flow has one path: hashing changes nothing
        analysed.push_back(p);
        idealLoads(pf);
        pf.idealTime = slowest(p, false);
        const double w = traffic.pattern(p).weight;
        for (const int l : load.touched)
            if (book.isChoiceLink(l))
                idealLinkBytes[sz(l)] += w * load.value[sz(l)];
    }
    std::vector<int> choiceLinks;
    for (int l = 0; l < linkCount; ++l)
        if (book.isChoiceLink(l))
            choiceLinks.push_back(l);

    // One seed's loads of pattern p (hashed, or the ideal split under adaptive); `count`
    // (optional) tallies the queue pairs per link.
    const auto seedLoads = [&](int p, std::uint64_t seed, std::vector<int> *count) {
        const EcmpPatternFlows &pf = byPattern[sz(p)];
        if (adaptive) {
            idealLoads(pf);
            return;
        }
        load.clear();
        for (const EcmpPatternFlows::Flow &f : pf.flows) {
            if (f.route < 0) {
                load.add(f.link, f.unit);
            } else if (!book.hasChoice(f.route)) {
                book.forEachHop(
                    f.route, [&](int link, double share) { load.add(link, f.unit * share); });
            } else {
                const double u = f.unit / (static_cast<double>(f.connections) * qps);
                for (int c = 0; c < f.connections; ++c)
                    for (int q = 0; q < qps; ++q)
                        book.walk(f.route, ecmpFlowKey(seed, p, f.src, f.dst, c, q), [&](int link) {
                            load.add(link, u);
                            if (count && book.isChoiceLink(link))
                                ++(*count)[sz(link)];
                        });
            }
        }
    };

    std::vector<std::vector<double>> seedLinkBytes(sz(seeds)); // [seed][index in choiceLinks]
    std::vector<double> dpSync, maxLinkBytes;
    std::vector<std::vector<double>> opTimes(baseOps.size());
    std::vector<double> scales(sz(patterns), 1.0);
    std::vector<double> hashedLinkBytes(sz(linkCount), 0.0);
    double baseMaxBusy = 0.0; // the links ECMP does not touch keep their busy time
    for (int l = 0; l < linkCount; ++l)
        if (!book.isChoiceLink(l))
            baseMaxBusy = std::max(baseMaxBusy, base.links[sz(l)].busyTime);
    for (int s = 0; s < seeds; ++s) {
        std::fill(scales.begin(), scales.end(), 1.0);
        for (const int l : choiceLinks)
            hashedLinkBytes[sz(l)] = 0.0;
        for (const int p : analysed) {
            seedLoads(p, static_cast<std::uint64_t>(s), nullptr);
            const double t = slowest(p, true);
            const double ideal = byPattern[sz(p)].idealTime;
            scales[sz(p)] = ideal > 0.0 ? t / ideal : 1.0;
            const double w = traffic.pattern(p).weight;
            for (const int l : load.touched)
                if (book.isChoiceLink(l))
                    hashedLinkBytes[sz(l)] += w * load.value[sz(l)];
        }
        traffic.setRatioScales(scales);
        m.recompute(false, false);
        std::vector<double> &bytes = seedLinkBytes[sz(s)];
        bytes.reserve(choiceLinks.size());
        double maxBusy = baseMaxBusy, maxBytes = 0.0;
        for (const int l : choiceLinks) {
            const double b = std::max(
                0.0, base.links[sz(l)].bytes - idealLinkBytes[sz(l)] + hashedLinkBytes[sz(l)]);
            bytes.push_back(b);
            maxBytes = std::max(maxBytes, b);
            maxBusy = std::max(maxBusy, b / m.fabric.link(l).bandwidth);
        }
        // No iteration is shorter than its busiest link's busy time (CostReport::linkBoundTime).
        const double iteration = std::max(m.report.iterationTime, maxBusy);
        out.iterationTimes.push_back(iteration);
        out.maxUtilisation
            = std::max(out.maxUtilisation, iteration > 0.0 ? maxBusy / iteration : 0.0);
        dpSync.push_back(m.report.dpSyncTime);
        maxLinkBytes.push_back(maxBytes);
        for (std::size_t i = 0; i < baseOps.size(); ++i)
            opTimes[i].push_back(m.times.op[i]);
    }
    traffic.setRatioScales({});
    m.recompute(true);

    out.expectedIterationTime = ecmpMean(out.iterationTimes);
    out.p99IterationTime = percentile99(out.iterationTimes);
    out.expectedDpSyncTime = ecmpMean(dpSync);
    out.p99DpSyncTime = percentile99(dpSync);
    for (std::size_t i = 0; i < baseOps.size(); ++i) {
        out.ops[i].expected = ecmpMean(opTimes[i]);
        out.ops[i].p99 = percentile99(opTimes[i]);
    }
    out.worstSeed
        = static_cast<int>(std::max_element(out.iterationTimes.begin(), out.iterationTimes.end())
            - out.iterationTimes.begin());
    for (const int l : choiceLinks)
        out.idealMaxLinkBytes = std::max(out.idealMaxLinkBytes, base.links[sz(l)].bytes);
    out.expectedMaxLinkBytes = ecmpMean(maxLinkBytes);
    out.p99MaxLinkBytes = percentile99(maxLinkBytes);

    // Per ECMP link: its spread over the seeds, and in the worst seed its queue pairs and its
    // siblings' (the other ECMP links out of the same switch into the same tier).
    std::vector<int> flowsOn(sz(linkCount), 0);
    if (!adaptive)
        for (const int p : analysed)
            seedLoads(p, static_cast<std::uint64_t>(out.worstSeed), &flowsOn);
    std::vector<double> perSeed(sz(seeds));
    // Siblings: the ECMP links out of one switch into one tier, grouped once (a pod's leaves
    // have hundreds of uplinks each).
    std::map<std::pair<int, int>, std::vector<std::size_t>> siblingGroups;
    for (std::size_t i = 0; i < choiceLinks.size(); ++i) {
        const FabricLink &l = m.fabric.link(choiceLinks[i]);
        siblingGroups[{ l.src, index(l.tier) }].push_back(i);
    }
    for (std::size_t i = 0; i < choiceLinks.size(); ++i) {
        EcmpLinkFigure f;
        f.link = choiceLinks[i];
        f.idealBytes = base.links[sz(f.link)].bytes;
        for (int s = 0; s < seeds; ++s)
            perSeed[sz(s)] = seedLinkBytes[sz(s)][i];
        f.expectedBytes = ecmpMean(perSeed);
        f.p99Bytes = percentile99(perSeed);
        f.worstBytes = seedLinkBytes[sz(out.worstSeed)][i];
        f.flows = flowsOn[sz(f.link)];
        const FabricLink &link = m.fabric.link(f.link);
        double siblingBytes = 0.0, siblingFlows = 0.0;
        for (const std::size_t j : siblingGroups[{ link.src, index(link.tier) }]) {
            if (j == i)
                continue;
            ++f.siblings;
            siblingBytes += seedLinkBytes[sz(out.worstSeed)][j];
            siblingFlows += flowsOn[sz(choiceLinks[j])];
        }
        if (f.siblings > 0) {
            f.siblingMeanBytes = siblingBytes / f.siblings;
            f.siblingMeanFlows = siblingFlows / f.siblings;
        }
        f.collision = !adaptive && f.worstBytes >= EcmpLinkFigure::kCollisionRatio * f.idealBytes
            && f.worstBytes > f.siblingMeanBytes && f.worstBytes > 0.0;
        out.links.push_back(f);
    }
    std::stable_sort(out.links.begin(), out.links.end(),
        [](const EcmpLinkFigure &a, const EcmpLinkFigure &b) { return a.p99Bytes > b.p99Bytes; });
    return out;
}

} // namespace railyard
