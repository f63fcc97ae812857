#include "optimise/optimiser.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fabric/failedcomponent.h"
#include "optimise/groupplacement.h"
#include "studies/remapplacement.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace railyard {

namespace {

ObjectiveFigures figuresOf(const CostEngine &e)
{
    ObjectiveFigures f;
    const CostReport &r = e.report();
    f.iteration = r.iterationTime;
    f.spineBytes = objectiveValue(r, Objective::Spine);
    f.p99Busy = objectiveValue(r, Objective::P99);
    f.maxBusy = objectiveValue(r, Objective::MaxLink);
    f.ecmpP99 = objectiveValue(e, Objective::EcmpP99);
    f.spineShare = r.spineBytesShare;
    f.tpGroupsSplit = tpGroupsSplit(e.fabric(), e.layout(), e.mapping().slots());
    f.dpGroupsOffRail = dpGroupsOffRail(e.fabric(), e.layout(), e.mapping().slots());
    return f;
}

std::vector<int> startSlots(const CostEngine &engine, StartFrom from)
{
    if (from == StartFrom::Current)
        return engine.mapping().slots();
    const Placement placement = from == StartFrom::Packed ? Placement::Packed
        : from == StartFrom::RailAligned                  ? Placement::RailAligned
                                                          : Placement::Scattered;
    const ParallelLayout &layout = engine.layout();
    const Fabric &fabric = engine.fabric();
    std::vector<int> slots = Mapping::place(placement, layout, fabric).slots();
    const std::vector<FailedComponent> &failures = engine.scenario().failures;
    if (failures.empty())
        return slots;
    // The preset on healthy hardware, as the GUI's presets place it: ranks whose preset slot
    // failed move, whole TP groups onto free lanes first.
    const remap_detail::Placed placed
        = remap_detail::placeRanks(layout, fabric, usableSlots(fabric, failures), slots);
    if (placed.shortfall > 0)
        throw ScenarioError("from",
            std::to_string(placed.shortfall) + " ranks of the " + std::string(startName(from))
                + " preset find no healthy GPU slot");
    return placed.slots;
}

double dimSpine(const CostReport &r, Dim d)
{
    return r.tierBytes[index(Tier::Spine)][index(d)]
        + r.tierBytes[index(Tier::SuperSpine)][index(d)];
}

std::vector<GroupLocality> stageLocality(
    const CostEngine &e, int stage, const std::vector<int> &before, const std::vector<int> &after)
{
    std::vector<GroupLocality> out;
    const ParallelDegrees &deg = e.layout().degrees();
    const std::pair<GroupKind, int> kinds[] = { { GroupKind::Tp, deg.tp },
        { GroupKind::Dp, deg.dp }, { GroupKind::Ep, deg.ep }, { GroupKind::Cp, deg.cp } };
    for (const auto &[kind, degree] : kinds) {
        if (degree < 2)
            continue;
        GroupLocality l;
        l.kind = kind;
        for (const std::span<const int> g : e.layout().groups(kind)) {
            if (e.layout().coord(g.front()).p != stage)
                continue;
            ++l.groups;
            const GroupSpread b = groupSpread(e.fabric(), g, before);
            const GroupSpread a = groupSpread(e.fabric(), g, after);
            l.oneServerBefore += b.servers == 1;
            l.oneServerAfter += a.servers == 1;
            l.oneRailBefore += b.rails == 1;
            l.oneRailAfter += a.rails == 1;
            l.oneLeafBefore += b.leaves == 1;
            l.oneLeafAfter += a.leaves == 1;
        }
        if (l.groups > 0)
            out.push_back(l);
    }
    return out;
}

/// Replays start -> best stage by stage on `engine` (which ends on `best`).
std::vector<StageStep> replayByStage(CostEngine &engine, const std::vector<int> &start,
    const std::vector<int> &best, Objective objective)
{
    const ParallelLayout &layout = engine.layout();
    const int slots = engine.fabric().slotCount();
    engine.setMapping(Mapping(start, slots));
    Mapping m(start, slots);
    std::vector<StageStep> steps;
    for (int p = 0; p < layout.degrees().pp; ++p) {
        // Each rank of the stage goes to its final slot; the rank there takes its old one. A
        // placed rank is never displaced again (final slots are distinct), so the steps end on
        // `best` exactly.
        const std::vector<int> before = m.slots();
        StageStep step;
        step.stage = p;
        for (int r = 0; r < layout.worldSize(); ++r) {
            if (layout.coord(r).p != p || m.slotOf(r) == best[static_cast<std::size_t>(r)])
                continue;
            ++step.ranksMoved;
            m.moveRank(r, best[static_cast<std::size_t>(r)]);
        }
        if (step.ranksMoved == 0)
            continue;
        std::vector<std::pair<int, int>> move;
        for (int r = 0; r < layout.worldSize(); ++r)
            if (m.slotOf(r) != before[static_cast<std::size_t>(r)])
                move.emplace_back(r, m.slotOf(r));
        const CostReport was = engine.report();
        step.before = objectiveValue(engine, objective);
        engine.moveRanks(move, true);
        const CostReport &now = engine.report();
        step.after = objectiveValue(engine, objective);
        step.iterationBefore = was.iterationTime;
        step.iterationAfter = now.iterationTime;
        step.spineBefore = objectiveValue(was, Objective::Spine);
        step.spineAfter = objectiveValue(now, Objective::Spine);
        step.groups = stageLocality(engine, p, start, best);
        steps.push_back(std::move(step));
    }
    engine.setMapping(Mapping(best, slots)); // a full evaluation: no residue of the replay
    return steps;
}

bool notWorse(const ObjectiveFigures &a, const ObjectiveFigures &b, Objective o)
{
    // a is not worse than b: lower objective, or the same and no slower.
    const double tol = 1e-9 * std::max(std::abs(b.value(o)), 1e-30);
    if (a.value(o) < b.value(o) - tol)
        return true;
    if (a.value(o) > b.value(o) + tol)
        return false;
    return a.iteration <= b.iteration * (1.0 + 1e-9);
}

} // namespace

double ObjectiveFigures::value(Objective o) const
{
    switch (o) {
    case Objective::Iteration:
        return iteration;
    case Objective::Spine:
        return spineBytes;
    case Objective::P99:
        return p99Busy;
    case Objective::MaxLink:
        return maxBusy;
    case Objective::EcmpP99:
        return ecmpP99;
    }
    return 0.0;
}

OptimiseResult optimise(
    const Scenario &scenario, const OptimiseOptions &options, const SearchMonitor &monitor)
{
    OptimiseResult out;
    out.options = options;
    const CostEngine current(scenario);
    out.current = figuresOf(current);
    const std::vector<int> start = startSlots(current, options.from);

    Scenario startScenario = scenario;
    startScenario.slots = start;
    CostEngine engine(startScenario, current.sharedFabric(), current.sharedRouter());
    out.start = figuresOf(engine);

    PlacementSearch search(engine, options);
    const SearchOutcome found = search.run(monitor);
    out.proposed = found.proposed;
    out.evaluated = found.evaluated;
    out.accepted = found.accepted;
    out.improvements = found.improvements;
    out.seconds = found.seconds;
    out.movesPerSecond
        = found.seconds > 0.0 ? static_cast<double>(found.evaluated) / found.seconds : 0.0;
    out.cancelled = found.cancelled;

    // The engine is on the best mapping, freshly evaluated; floating-point residue of the
    // incremental updates could leave a tie that is in truth no better: keep the start then.
    std::vector<int> best = engine.mapping().slots();
    out.result = figuresOf(engine);
    out.improved = best != start && notWorse(out.result, out.start, options.objective)
        && !notWorse(out.start, out.result, options.objective);
    if (!out.improved && best != start) {
        best = start;
        engine.setMapping(Mapping(best, engine.fabric().slotCount()));
        out.result = figuresOf(engine);
        out.notes.push_back("the search found no mapping better than the start; the start is kept");
    }
    const CostReport after = engine.report();
    for (std::size_t r = 0; r < best.size(); ++r)
        out.ranksMoved += best[r] != start[r];

    // Most rejections first (two entries at most, so no sort is needed).
    ConstraintCount failed { "failed hardware", found.rejectedFailed };
    if (options.keep != KeepConstraint::None && engine.layout().degrees().tp > 1) {
        ConstraintCount tp { std::string(keepName(options.keep)), found.rejectedTp };
        if (tp.rejected >= failed.rejected) {
            out.constraints.push_back(std::move(tp));
            out.constraints.push_back(std::move(failed));
        } else {
            out.constraints.push_back(std::move(failed));
            out.constraints.push_back(std::move(tp));
        }
    } else {
        out.constraints.push_back(std::move(failed));
    }
    if (out.constraints.front().rejected > 0)
        out.binding = out.constraints.front().name;

    out.steps = replayByStage(engine, start, best, options.objective);
    const CostEngine startEngine(startScenario, current.sharedFabric(), current.sharedRouter());
    const CostReport &before = startEngine.report();
    for (Dim d : kAllDims) {
        if (before.dimBytes[index(d)] <= 0.0 && after.dimBytes[index(d)] <= 0.0)
            continue;
        out.dims.push_back({ d, dimSpine(before, d), dimSpine(after, d),
            before.dimExposed[index(d)], after.dimExposed[index(d)] });
    }

    out.scenario = scenario;
    out.scenario.slots = best;
    out.startSlots = start;
    if (best != current.mapping().slots())
        out.scenario.mappingVersion = scenario.mappingVersion + 1;
    if (out.start.tpGroupsSplit > 0 && options.keep != KeepConstraint::None)
        out.notes.push_back("the start had " + std::to_string(out.start.tpGroupsSplit)
            + " TP groups split across servers; moves could only repair them");
    return out;
}

} // namespace railyard
