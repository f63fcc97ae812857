#include "randomscenario.h"

#include "fixtures.h"

#include "base/physicalranges.h"

#include <algorithm>
#include <array>
#include <random>
#include <vector>

namespace railyard::fixtures {

namespace {

template <typename T, std::size_t N>
T pick(std::mt19937 &rng, const std::array<T, N> &from)
{
    return from[std::uniform_int_distribution<std::size_t>(0, N - 1)(rng)];
}

bool coin(std::mt19937 &rng, double p = 0.5)
{
    return std::bernoulli_distribution(p)(rng);
}

} // namespace

Scenario randomScenario(std::uint32_t seed)
{
    std::mt19937 rng(seed);
    const int gpus = pick(rng, std::array<int, 3>{2, 4, 8});
    const int servers = pick(rng, std::array<int, 5>{1, 2, 4, 6, 8});
    const int tp = std::min(gpus, pick(rng, std::array<int, 4>{1, 2, 4, 8}));
    const int slots = servers * gpus;
    const int pp = pick(rng, std::array<int, 4>{1, 2, 3, 4});
    const int cell = tp * pp;
    const bool moe = coin(rng, 0.25);
    const int ep = moe ? pick(rng, std::array<int, 2>{1, 2}) : 1;
    int dp = slots % cell == 0 ? slots / cell : 1;
    if (dp % ep != 0)
        dp = ep;

    Scenario s = moe ? smallMoe(servers, gpus, degrees(tp, pp, dp, 1, ep), 4, 2)
                     : smallDense(servers, gpus, degrees(tp, pp, dp));
    s.fabric = coin(rng) ? railFabric(servers, gpus, pick(rng, std::array<int, 3>{1, 2, 4}), 16)
                         : torFabric(servers, gpus, pick(rng, std::array<int, 3>{0, 1, 2}), 16);
    if (coin(rng, 0.3))
        s.fabric.leafOversubscription = pick(rng, std::array<double, 3>{1.5, 2.0, 4.0});
    if (coin(rng, 0.2))
        s.fabric.spineOversubscription = 2.0;
    s.fabric.pxn = coin(rng, 0.3);
    if (coin(rng, 0.3))
        s.fabric.nic.gbps = pick(rng, std::array<double, 3>{50.0, 100.0, 200.0});
    s.model.layers = pp * pick(rng, std::array<int, 3>{2, 4, 6});
    s.model.seq = pick(rng, std::array<int, 3>{512, 2048, 8192});
    s.placement = pick(rng, std::array<Placement, 3>{Placement::Packed, Placement::RailAligned,
                                                     Placement::Scattered});

    TrainingSpec &t = s.training;
    const int m = pick(rng, std::array<int, 4>{1, 2, 4, 8}) * pp;
    t.globalBatch = m * t.microBatch * dp;
    t.sequenceParallel = tp > 1 && (moe || coin(rng, 0.7));
    t.distributedOptimizer = coin(rng, 0.7);
    t.recompute = pick(rng, std::array<Recompute, 3>{Recompute::None, Recompute::Selective,
                                                     Recompute::Full});
    t.schedule = pp > 1 ? pick(rng,
                     std::array<ScheduleKind, 5> { ScheduleKind::GPipe, ScheduleKind::OneFOneB,
                         ScheduleKind::Interleaved, ScheduleKind::ZbH1, ScheduleKind::DualPipe })
                        : ScheduleKind::OneFOneB;
    // DualPipe needs an even pp and m >= 2 pp (even, as m is a multiple of pp here).
    if (t.schedule == ScheduleKind::DualPipe && (pp % 2 != 0 || m < 2 * pp))
        t.schedule = ScheduleKind::ZbH1;
    t.interleave = t.schedule == ScheduleKind::Interleaved ? 2 : 1;
    t.dpOverlap = coin(rng, 0.6);
    t.overlapParamGather = t.dpOverlap && t.distributedOptimizer && coin(rng);
    t.tpCommOverlap = t.sequenceParallel && coin(rng);
    if (pp > 1 && coin(rng, 0.4)) {
        // Move layers off the end stages (as the embedding and the LM head sit there).
        const int chunks = t.interleave;
        std::vector<int> split(static_cast<std::size_t>(pp), s.model.layers / pp);
        if (split.front() > chunks && split.size() > 2) {
            split.front() -= chunks;
            split[1] += chunks;
        }
        t.layersPerStage = split;
    }
    // Now and then one link kind at an edge of its accepted range (base/physicalranges.h):
    // the slowest and the fastest link, the longest and no latency, must still evaluate to
    // finite figures (#40). Drawn last, so the draws above stay those of earlier versions.
    if (coin(rng, 0.1)) {
        const std::array<LinkSpec *, 4> links { &s.fabric.scaleUp, &s.fabric.pcie, &s.fabric.nic,
            &s.fabric.fabricPort };
        LinkSpec &l = *pick(rng, links);
        l.gbps = coin(rng) ? ranges::kMinLinkGbps : ranges::kMaxLinkGbps;
        l.latencyUs = coin(rng) ? 0.0 : ranges::kMaxLatencyUs;
    }
    s.slots.clear();
    return s;
}

} // namespace railyard::fixtures
