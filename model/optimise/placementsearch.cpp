#include "optimise/placementsearch.h"

#include "base/scenarioerror.h"
#include "fabric/failedcomponent.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace railyard {

namespace {

/// The temperature falls geometrically from T0 to T0 x kCooling; T0 is the mean energy rise
/// of the uphill moves met during a greedy warm-up, so an average uphill move starts out
/// accepted with probability 1/e (the usual calibration: Kirkpatrick et al.; White, "Concepts
/// of scale in simulated annealing", ICCD 1984).
constexpr double kCooling = 1e-3;
constexpr int kWarmUpMoves = 64;
constexpr double kTieWeight = 1e-3; ///< weight of the iteration time in the energy
constexpr double kShapeWeight = 0.3; ///< weight of the links' squared busy times
constexpr double kRelativeTolerance = 1e-9;
constexpr int kMonitorEvery = 256; ///< evaluated moves between two monitor calls

/// Uniform in [0, 1) from 53 random bits: the same on every standard library, unlike
/// std::uniform_real_distribution, whose algorithm the standard leaves open.
double unitInterval(std::mt19937_64 &rng)
{
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

} // namespace

PlacementSearch::PlacementSearch(CostEngine &engine, const OptimiseOptions &options)
    : m_engine(engine)
    , m_options(options)
    , m_layout(engine.layout())
    , m_fabric(engine.fabric())
    , m_usable(usableSlots(engine.fabric(), engine.scenario().failures))
    , m_rng(options.seed)
{
    if (options.maxMoves <= 0 && options.seconds <= 0.0)
        throw ScenarioError("optimise", "needs a move limit or a time limit");
    const ParallelDegrees &deg = m_layout.degrees();
    const int gpus = m_fabric.gpusPerServer();
    switch (options.keep) {
    case KeepConstraint::TpInServer:
        m_tpAllowed = deg.tp > 1 ? (deg.tp + gpus - 1) / gpus : 0;
        break;
    case KeepConstraint::TpInScaleUp: {
        // One scale-up domain per TP group: a server, or a rack-scale NVLink domain (NVL72).
        const int domainGpus = m_fabric.scaleUpDomainGpus();
        if (deg.tp > domainGpus)
            throw ScenarioError("keep",
                "tp-in-scaleup: tp " + std::to_string(deg.tp) + " exceeds the scale-up domain ("
                    + (m_fabric.scaleUpDomainServers() == 1
                            ? "one server, " + std::to_string(gpus) + " GPUs"
                            : std::to_string(m_fabric.scaleUpDomainServers()) + " servers, "
                                + std::to_string(domainGpus) + " GPUs")
                    + "); use tp-in-server or none");
        m_tpAllowed = deg.tp > 1 ? 1 : 0;
        m_tpByDomain = true;
        break;
    }
    case KeepConstraint::None:
        break;
    }
    if (deg.tp > 1)
        m_gatherKinds.push_back(GroupKind::Tp);
    if (deg.ep > 1)
        m_gatherKinds.push_back(GroupKind::Ep);
    if (deg.cp > 1)
        m_gatherKinds.push_back(GroupKind::Cp);
    m_groupKinds = m_gatherKinds;
    if (deg.pp > 1)
        m_groupKinds.push_back(GroupKind::Pp);
}

int PlacementSearch::pick(int n)
{
    // Rejection sampling keeps every value equally likely and the sequence portable.
    const std::uint64_t range = static_cast<std::uint64_t>(n);
    const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max()
        - std::numeric_limits<std::uint64_t>::max() % range;
    std::uint64_t x = m_rng();
    while (x >= limit)
        x = m_rng();
    return static_cast<int>(x % range);
}

PlacementSearch::Move PlacementSearch::swapMove(int a, int b) const
{
    const Mapping &m = m_engine.mapping();
    if (a == b)
        return {};
    return { { a, m.slotOf(b) }, { b, m.slotOf(a) } };
}

PlacementSearch::Move PlacementSearch::rankToSlot(int rank, int slot) const
{
    const int other = m_engine.mapping().rankAt(slot);
    if (other >= 0)
        return swapMove(rank, other);
    return { { rank, slot } };
}

PlacementSearch::Move PlacementSearch::randomSwap()
{
    const int world = m_layout.worldSize();
    return world < 2 ? Move {} : swapMove(pick(world), pick(world));
}

PlacementSearch::Move PlacementSearch::intraServerSwap()
{
    // Another GPU index on the same server: a different NIC and rail, the same NVSwitch.
    const int gpus = m_fabric.gpusPerServer();
    const int rank = pick(m_layout.worldSize());
    const int slot = m_engine.mapping().slotOf(rank);
    const int server = m_fabric.serverOfSlot(slot);
    return rankToSlot(rank, server * gpus + pick(gpus));
}

PlacementSearch::Move PlacementSearch::consolidateMove()
{
    // A whole TP group onto the server that holds most of it (tp <= G): each member elsewhere
    // trades slots with a rank of another group there, which takes the member's old slot.
    const auto &groups = m_layout.groups(GroupKind::Tp);
    const std::span<const int> g
        = groups[static_cast<std::size_t>(pick(static_cast<int>(groups.size())))];
    const Mapping &m = m_engine.mapping();
    const int gpus = m_fabric.gpusPerServer();
    if (static_cast<int>(g.size()) > gpus)
        return {};
    std::vector<int> count(static_cast<std::size_t>(m_fabric.servers()), 0);
    int target = -1;
    for (int r : g) {
        const int server = m_fabric.serverOfSlot(m.slotOf(r));
        if (target < 0
            || ++count[static_cast<std::size_t>(server)] > count[static_cast<std::size_t>(target)]
            || (count[static_cast<std::size_t>(server)] == count[static_cast<std::size_t>(target)]
                && pick(2) == 0))
            target = server;
    }
    std::vector<int> spare; // slots on the target that hold no member
    for (int gpu = 0; gpu < gpus; ++gpu) {
        const int slot = target * gpus + gpu;
        const int holder = m.rankAt(slot);
        if (holder < 0 || std::find(g.begin(), g.end(), holder) == g.end())
            spare.push_back(slot);
    }
    Move move;
    std::size_t next = 0;
    for (int r : g) {
        if (m_fabric.serverOfSlot(m.slotOf(r)) == target)
            continue;
        if (next >= spare.size())
            return {};
        const int slot = spare[next++];
        move.emplace_back(r, slot);
        if (const int holder = m.rankAt(slot); holder >= 0)
            move.emplace_back(holder, m.slotOf(r));
    }
    return move;
}

PlacementSearch::Move PlacementSearch::gatherMove()
{
    // Half the time one member of a TP, EP or CP group joins another member's server (on a slot
    // no member holds); else one member of any group takes another member's GPU index on its
    // own server, hence its NIC and rail.
    // While a TP group is still split (a start that breaks the constraint), mostly the first.
    const bool rail = pick(m_excess > 0 ? 8 : 2) == 0 || m_gatherKinds.empty();
    GroupKind kind = GroupKind::Dp;
    if (!rail)
        kind
            = m_gatherKinds[static_cast<std::size_t>(pick(static_cast<int>(m_gatherKinds.size())))];
    const auto &groups = m_layout.groups(kind);
    const std::span<const int> g
        = groups[static_cast<std::size_t>(pick(static_cast<int>(groups.size())))];
    if (g.size() < 2)
        return randomSwap();
    const Mapping &m = m_engine.mapping();
    const int x = g[static_cast<std::size_t>(pick(static_cast<int>(g.size())))];
    const int y = g[static_cast<std::size_t>(pick(static_cast<int>(g.size())))];
    const int gpus = m_fabric.gpusPerServer();
    if (rail)
        return rankToSlot(
            x, m_fabric.serverOfSlot(m.slotOf(x)) * gpus + m_fabric.gpuOfSlot(m.slotOf(y)));
    const int server = m_fabric.serverOfSlot(m.slotOf(y));
    if (x == y || m_fabric.serverOfSlot(m.slotOf(x)) == server)
        return {};
    // Prefer a rank there whose own TP group has a member on x's server: the exchange then
    // spreads neither group.
    const int home = m_fabric.serverOfSlot(m.slotOf(x));
    std::vector<int> fits, others;
    for (int gpu = 0; gpu < gpus; ++gpu) {
        const int slot = server * gpus + gpu;
        const int holder = m.rankAt(slot);
        if (holder >= 0 && std::find(g.begin(), g.end(), holder) != g.end())
            continue;
        bool fit = holder < 0;
        if (holder >= 0)
            for (int r : m_layout.groups(GroupKind::Tp)[static_cast<std::size_t>(
                     m_layout.groupOf(GroupKind::Tp, holder))])
                fit = fit || (r != holder && m_fabric.serverOfSlot(m.slotOf(r)) == home);
        (fit ? fits : others).push_back(slot);
    }
    const std::vector<int> &choice = fits.empty() ? others : fits;
    if (choice.empty())
        return {};
    return rankToSlot(x, choice[static_cast<std::size_t>(pick(static_cast<int>(choice.size())))]);
}

PlacementSearch::Move PlacementSearch::freeSlotMove()
{
    const int slots = m_fabric.slotCount();
    if (slots == m_layout.worldSize())
        return randomSwap();
    // Any slot: a failed one is refused by check() and counted as the failure constraint.
    const int slot = pick(slots);
    if (m_engine.mapping().rankAt(slot) >= 0)
        return {};
    return { { pick(m_layout.worldSize()), slot } };
}

PlacementSearch::Move PlacementSearch::serverSwap()
{
    const int servers = m_fabric.servers();
    if (servers < 2)
        return randomSwap();
    const int a = pick(servers), b = pick(servers);
    if (a == b)
        return {};
    const Mapping &m = m_engine.mapping();
    const int gpus = m_fabric.gpusPerServer();
    Move move;
    for (int g = 0; g < gpus; ++g) {
        const int sa = a * gpus + g, sb = b * gpus + g;
        if (const int r = m.rankAt(sa); r >= 0)
            move.emplace_back(r, sb);
        if (const int r = m.rankAt(sb); r >= 0)
            move.emplace_back(r, sa);
    }
    return move;
}

PlacementSearch::Move PlacementSearch::groupSwap()
{
    // Two groups of one kind trade slots member by member: a TP group keeps its shape, two
    // pipeline paths (pp groups) trade all their stages' slots.
    if (m_groupKinds.empty())
        return randomSwap();
    const GroupKind kind
        = m_groupKinds[static_cast<std::size_t>(pick(static_cast<int>(m_groupKinds.size())))];
    const auto &groups = m_layout.groups(kind);
    const int n = static_cast<int>(groups.size());
    if (n < 2)
        return randomSwap();
    const auto &a = groups[static_cast<std::size_t>(pick(n))];
    const auto &b = groups[static_cast<std::size_t>(pick(n))];
    if (&a == &b)
        return {};
    const Mapping &m = m_engine.mapping();
    Move move;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        move.emplace_back(a[i], m.slotOf(b[i]));
        move.emplace_back(b[i], m.slotOf(a[i]));
    }
    return move;
}

PlacementSearch::Move PlacementSearch::stageAlignMove()
{
    // Every rank of one pipeline stage takes, on its own server, the GPU index (hence the NIC
    // and, on a rail-optimised fabric, the rail) of its partner in a neighbouring stage; the
    // ranks it displaces take the slots it left on that server. A stage whose DP groups each sit
    // on one rail, but on other rails than the next stage's, is a local minimum for single
    // swaps (each one takes a DP group off its rail to bring one pipeline send onto it); this
    // move aligns the whole stage at once and keeps every rank on its server.
    const int pp = m_layout.degrees().pp;
    if (pp < 2)
        return randomSwap();
    const int p = pick(pp);
    const int q = p == 0 ? 1 : (p == pp - 1 ? pp - 2 : p + (pick(2) == 0 ? -1 : 1));
    const Mapping &m = m_engine.mapping();
    const int gpus = m_fabric.gpusPerServer();
    std::vector<char> claimed(static_cast<std::size_t>(m_fabric.slotCount()), 0);
    Move move;
    std::vector<std::pair<int, int>> freed, displaced; // (server, slot) and (server, rank)
    for (int r = 0; r < m_layout.worldSize(); ++r) {
        const RankCoord c = m_layout.coord(r);
        if (c.p != p)
            continue;
        const int slot = m.slotOf(r);
        const int partner = m_layout.rankOf(c.t, q, c.d, c.c);
        const int want = m_fabric.serverOfSlot(slot) * gpus + m_fabric.gpuOfSlot(m.slotOf(partner));
        char &mark = claimed[static_cast<std::size_t>(want)];
        if (mark)
            return {}; // two ranks of the stage ask for one slot
        mark = 1;
        if (want != slot)
            move.emplace_back(r, want);
    }
    for (const auto &[rank, want] : move) {
        const int slot = m.slotOf(rank);
        if (!claimed[static_cast<std::size_t>(slot)])
            freed.emplace_back(m_fabric.serverOfSlot(slot), slot);
        const int holder = m.rankAt(want);
        if (holder >= 0 && m_layout.coord(holder).p != p)
            displaced.emplace_back(m_fabric.serverOfSlot(want), holder);
    }
    // Each server gives up as many slots as it claims, so its displaced ranks fit its freed slots.
    std::stable_sort(
        freed.begin(), freed.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::stable_sort(displaced.begin(), displaced.end(),
        [](const auto &a, const auto &b) { return a.first < b.first; });
    std::size_t f = 0;
    for (const auto &[server, rank] : displaced) {
        while (f < freed.size() && freed[f].first < server)
            ++f;
        if (f >= freed.size() || freed[f].first != server)
            return {};
        move.emplace_back(rank, freed[f++].second);
    }
    return move;
}

PlacementSearch::Move PlacementSearch::draw()
{
    // The mix: plain swaps explore, the structured moves make the large steps (a whole TP group,
    // a server, a pipeline path) that single swaps would need many uphill steps for.
    const int r = pick(100);
    if (m_excess > 0 && r < 25)
        return gatherMove(); // repairing a start that breaks the TP constraint
    if (m_excess > 0 && r < 50)
        return consolidateMove();
    if (r < 25)
        return randomSwap();
    if (r < 30)
        return stageAlignMove();
    if (r < 45)
        return intraServerSwap();
    if (r < 65)
        return gatherMove();
    if (r < 75)
        return freeSlotMove();
    if (r < 85)
        return serverSwap();
    return groupSwap();
}

int PlacementSearch::tpExcess(int group, const Move &move, bool after) const
{
    // Members outside the group's `allowed` fullest servers: 0 exactly when the group spans no
    // more servers than allowed, and it falls with every member that joins the majority, so
    // it guides a repair where the plain server count would sit on a plateau.
    const Mapping &m = m_engine.mapping();
    const std::span<const int> members
        = m_layout.groups(GroupKind::Tp)[static_cast<std::size_t>(group)];
    std::vector<std::pair<int, int>> counts; // server, members there
    counts.reserve(members.size());
    for (int r : members) {
        int slot = m.slotOf(r);
        if (after)
            for (const auto &[rank, s] : move)
                if (rank == r)
                    slot = s;
        const int server
            = m_tpByDomain ? m_fabric.scaleUpDomainOfSlot(slot) : m_fabric.serverOfSlot(slot);
        const auto it = std::find_if(
            counts.begin(), counts.end(), [server](const auto &c) { return c.first == server; });
        if (it == counts.end())
            counts.emplace_back(server, 1);
        else
            ++it->second;
    }
    std::sort(counts.begin(), counts.end(),
        [](const auto &a, const auto &b) { return a.second > b.second; });
    int kept = 0;
    for (std::size_t i = 0; i < counts.size() && static_cast<int>(i) < m_tpAllowed; ++i)
        kept += counts[i].second;
    return static_cast<int>(members.size()) - kept;
}

PlacementSearch::Verdict PlacementSearch::check(const Move &move) const
{
    const Mapping &m = m_engine.mapping();
    bool changes = false;
    m_excessChange = 0;
    for (const auto &[rank, slot] : move) {
        if (!m_usable[static_cast<std::size_t>(slot)])
            return Verdict::Failed;
        changes = changes || m.slotOf(rank) != slot;
    }
    if (!changes)
        return Verdict::Noop;
    if (m_tpAllowed > 0) {
        std::vector<int> groups;
        groups.reserve(move.size());
        int before = 0, after = 0;
        for (const auto &[rank, slot] : move) {
            const int g = m_layout.groupOf(GroupKind::Tp, rank);
            if (std::find(groups.begin(), groups.end(), g) != groups.end())
                continue;
            groups.push_back(g);
            before += tpExcess(g, move, false);
            after += tpExcess(g, move, true);
        }
        if (after > before)
            return Verdict::Tp;
        m_excessChange = after - before;
    }
    return Verdict::Ok;
}

double PlacementSearch::linkSquares() const
{
    return m_engine.linkBusySquares(); // kept by the engine as links change, no pass over them
}

double PlacementSearch::energy(const CostReport &report) const
{
    const double value = m_options.objective == Objective::EcmpP99
        ? objectiveValue(m_engine, m_options.objective) // report is the engine's
        : objectiveValue(report, m_options.objective);
    // A start of zero (no spine byte) keeps every byte costly: scale by one gigabyte.
    const double scale = m_startValue > 0.0 ? m_startValue : 1e9;
    double e = value / scale;
    if (m_options.objective != Objective::Iteration && m_startIteration > 0.0)
        e += kTieWeight * report.iterationTime / m_startIteration;
    // The objectives are maxima (the slowest group sets a phase, the busiest link the bound),
    // flat while any one group stays bad; the sum of squared link busy times falls with every
    // group that leaves a slow link, so it leads the search across those plateaus.
    if (m_startSquares > 0.0)
        e += kShapeWeight * linkSquares() / m_startSquares;
    // A start that breaks the TP constraint: each server a TP group spans beyond its allowance
    // costs as much as the whole objective of the start split over all of them (a penalty
    // method: the search is pulled to the feasible mappings, then stays there).
    if (m_startExcess > 0)
        e += static_cast<double>(m_excess) / m_startExcess;
    return e;
}

bool PlacementSearch::better(
    double value, double iteration, double bestValue, double bestIteration) const
{
    const double tol = kRelativeTolerance * std::max(std::abs(bestValue), 1e-30);
    if (value < bestValue - tol)
        return true;
    if (value > bestValue + tol)
        return false;
    return iteration < bestIteration * (1.0 - kRelativeTolerance);
}

SearchOutcome PlacementSearch::run(const SearchMonitor &monitor)
{
    using Clock = std::chrono::steady_clock;
    const auto started = Clock::now();
    SearchOutcome out;
    m_engine.refresh();
    m_startValue = objectiveValue(m_engine, m_options.objective);
    m_startIteration = m_engine.report().iterationTime;
    m_startSquares = linkSquares();
    m_excess = 0;
    if (m_tpAllowed > 0)
        for (int g = 0; g < static_cast<int>(m_layout.groups(GroupKind::Tp).size()); ++g)
            m_excess += tpExcess(g, {}, false);
    m_startExcess = m_excess;
    out.startValue = out.bestValue = m_startValue;
    out.startIteration = out.bestIteration = m_startIteration;
    out.bestSlots = m_engine.mapping().slots();
    double current = energy(m_engine.report());

    const auto fraction = [&]() {
        double f = 0.0;
        if (m_options.maxMoves > 0)
            f = static_cast<double>(out.evaluated) / static_cast<double>(m_options.maxMoves);
        if (m_options.seconds > 0.0) {
            const double t = std::chrono::duration<double>(Clock::now() - started).count();
            f = std::max(f, t / m_options.seconds);
        }
        return std::min(f, 1.0);
    };
    const auto report = [&]() {
        SearchProgress p;
        p.evaluated = out.evaluated;
        p.fraction = fraction();
        p.bestValue = out.bestValue;
        p.bestSlots = &out.bestSlots;
        return !monitor || monitor(p);
    };
    // Drawn moves that the constraints refuse cost no evaluation; a cap on them keeps a
    // search whose every move is refused from spinning.
    const long long maxProposed = m_options.maxMoves > 0 ? 50 * m_options.maxMoves + 1000 : -1;
    double f = 0.0;
    std::vector<double> warmUp; // uphill energy changes seen before T0 is set
    double t0 = 0.0;
    while (true) {
        if (m_options.maxMoves > 0 && out.evaluated >= m_options.maxMoves)
            break;
        if (maxProposed > 0 && out.proposed >= maxProposed)
            break;
        // The clock is read once per evaluated move only when a time limit applies.
        if (m_options.seconds > 0.0 || m_options.maxMoves > 0)
            f = fraction();
        if (f >= 1.0)
            break;
        const Move move = draw();
        ++out.proposed;
        if (move.empty()) {
            ++out.noop;
            continue;
        }
        switch (check(move)) {
        case Verdict::Noop:
            ++out.noop;
            continue;
        case Verdict::Tp:
            ++out.rejectedTp;
            continue;
        case Verdict::Failed:
            ++out.rejectedFailed;
            continue;
        case Verdict::Ok:
            break;
        }
        m_engine.moveRanks(move, false);
        m_engine.refreshFigures(); // what energy() and the objectives read
        ++out.evaluated;
        const CostReport &r = m_engine.report();
        const int excessBefore = m_excess;
        m_excess += m_excessChange;
        const double e = energy(r);
        bool accept = e <= current;
        if (!accept && warmUp.size() < kWarmUpMoves) {
            warmUp.push_back(e - current); // greedy until T0 is known
        } else if (!accept) {
            if (t0 <= 0.0) {
                double sum = 0.0;
                for (double d : warmUp)
                    sum += d;
                t0 = warmUp.empty() ? 1e-3 : sum / static_cast<double>(warmUp.size());
            }
            const double temperature = t0 * std::pow(kCooling, f);
            accept = unitInterval(m_rng) < std::exp((current - e) / temperature);
        }
        if (accept) {
            ++out.accepted;
            current = e;
            const double value = objectiveValue(m_engine, m_options.objective);
            if (better(value, r.iterationTime, out.bestValue, out.bestIteration)) {
                ++out.improvements;
                out.bestValue = value;
                out.bestIteration = r.iterationTime;
                out.bestSlots = m_engine.mapping().slots();
            }
        } else {
            m_excess = excessBefore;
            m_engine.revertMove(false); // the groups' earlier plans back, none planned again
        }
        if (out.evaluated % kMonitorEvery == 0 && !report()) {
            out.cancelled = true;
            break;
        }
    }
    out.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    m_engine.setMapping(Mapping(out.bestSlots, m_fabric.slotCount()));
    report();
    return out;
}

} // namespace railyard
