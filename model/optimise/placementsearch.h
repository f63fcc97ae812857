#pragma once

#include "cost/costengine.h"
#include "optimise/objective.h"

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace railyard {

/** Where a running search stands, for a progress bar and a live view of the best mapping. */
struct SearchProgress
{
    long long evaluated = 0;
    double fraction = 0.0; ///< of the move or time budget, 0..1
    double bestValue = 0.0; ///< the objective of the best mapping so far
    const std::vector<int> *bestSlots = nullptr; ///< rank -> slot of that mapping
};

/// Called every few hundred moves and when the search ends; returning false stops it.
using SearchMonitor = std::function<bool(const SearchProgress &)>;

/** What one search did and the best mapping it found. */
struct SearchOutcome
{
    std::vector<int> bestSlots;
    double startValue = 0.0, bestValue = 0.0; ///< the objective
    double startIteration = 0.0, bestIteration = 0.0; ///< the tie-breaker
    long long proposed = 0; ///< moves drawn, constraint-rejected ones included
    long long evaluated = 0; ///< moves the engine evaluated
    long long accepted = 0;
    long long improvements = 0; ///< moves that set a new best
    long long rejectedTp = 0; ///< would have spread a TP group over more servers
    long long rejectedFailed = 0; ///< would have put a rank on failed hardware
    long long noop = 0; ///< changed nothing (e.g. swapping two empty slots)
    double seconds = 0.0;
    bool cancelled = false;
};

/**
 * Simulated annealing over rank -> slot mappings on a cost engine. Each step draws one move (a
 * swap of two ranks, a swap within one server, a move that gathers a group's member onto a
 * server the group already uses or onto another member's rail, one that brings a whole TP group
 * onto the server holding most of it, a move onto a free slot, the exchange of two servers'
 * contents or of two whole groups member by member, one that seats a whole pipeline stage on the
 * GPU indices of its neighbour stage), checks the constraint and the failed
 * hardware, applies it through the engine's incremental update, and accepts it with the
 * Metropolis rule exp(-dE / T) (Kirkpatrick, Gelatt, Vecchi, "Optimization by Simulated
 * Annealing", Science 1983). E = objective / start objective
 *   + 1e-3 x iteration / start iteration (ties on plateaus such as zero spine bytes)
 *   + 0.3 x sum of squared link busy times / the start's (leads across the plateaus of the
 *     max-type objectives)
 *   + TP members outside their groups' allowed servers / the start's (repairs a start that
 *     breaks the constraint).
 * Only the objective (then the iteration time) decides which mapping is best. T falls
 * geometrically over the budget from the mean uphill step of a short greedy warm-up to a
 * thousandth of it. A rejected move is undone without refreshing the report. The random numbers
 * come from one std::mt19937_64 seeded with the options' seed, so a move-limited run is the
 * same on every machine.
 */
class PlacementSearch
{
public:
    PlacementSearch(CostEngine &engine, const OptimiseOptions &options);

    /// Runs until the move or time limit or the monitor stops it; the engine is left on the
    /// best mapping found (its report up to date).
    SearchOutcome run(const SearchMonitor &monitor = {});

private:
    using Move = std::vector<std::pair<int, int>>; ///< rank -> new slot

    enum class Verdict { Ok, Noop, Tp, Failed };

    Move draw();
    Move swapMove(int a, int b) const;
    Move rankToSlot(int rank, int slot) const;
    Move randomSwap();
    Move intraServerSwap();
    Move gatherMove();
    Move consolidateMove();
    Move freeSlotMove();
    Move serverSwap();
    Move groupSwap();
    Move stageAlignMove();
    Verdict check(const Move &move) const;
    int tpExcess(int group, const Move &move, bool after) const;
    double linkSquares() const; ///< the engine's linkBusySquares()
    double energy(const CostReport &report) const;
    bool better(double value, double iteration, double bestValue, double bestIteration) const;
    int pick(int n); ///< uniform in [0, n)

    CostEngine &m_engine;
    OptimiseOptions m_options;
    const ParallelLayout &m_layout;
    const Fabric &m_fabric;
    std::vector<char> m_usable;
    std::vector<GroupKind> m_gatherKinds; ///< TP, EP, CP when wider than one rank
    std::vector<GroupKind> m_groupKinds; ///< those and PP, for whole-group swaps
    int m_tpAllowed = 0; ///< servers a TP group may span; 0 = unconstrained
    bool m_tpByDomain = false; ///< tp-in-scaleup: m_tpAllowed counts scale-up domains
    std::mt19937_64 m_rng;
    double m_startValue = 0.0, m_startIteration = 0.0, m_startSquares = 0.0;
    int m_excess = 0, m_startExcess = 0; ///< TP members outside their groups' allowed servers
    mutable int m_excessChange = 0; ///< of the move check() passed last
};

} // namespace railyard
