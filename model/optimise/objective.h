#pragma once

#include "cost/costreport.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace railyard {

class CostEngine;

/**
 * What the placement optimiser minimises, read from the engine's report:
 *  - Iteration: the predicted iteration time;
 *  - Spine: bytes per iteration over leaf<->spine and spine<->super-spine links;
 *  - P99: the 99th-percentile link busy time per iteration (nearest rank over every directed
 *    link), i.e. p99 utilisation times the iteration time;
 *  - MaxLink: the busiest link's busy time per iteration;
 *  - EcmpP99: the p99 iteration time over the seeds of the scenario's hashed ECMP
 *    (fabric.routing, CostEngine::ecmp(), docs/ecmp.md): every move re-times each seed, so a
 *    search runs about seeds times fewer moves per second. Under ideal routing it is the
 *    iteration time.
 * The link objectives take busy seconds, not utilisation: utilisation divides by the iteration
 * time, so a mapping that slowed the whole job down would look better.
 */
enum class Objective { Iteration, Spine, P99, MaxLink, EcmpP99 };
/// "iteration", "spine", "p99", "max-link", "ecmp-p99"
std::string_view objectiveName(Objective o);
bool parseObjective(std::string_view name, Objective &out);
const std::vector<Objective> &allObjectives();
/// The objective read from a report; EcmpP99 needs the engine (below) and reads the iteration.
double objectiveValue(const CostReport &report, Objective o);
/// The objective of the engine's current mapping: EcmpP99 from CostEngine::ecmp(), the others
/// from its report.
double objectiveValue(const CostEngine &engine, Objective o);

/**
 * What a move may not break. TpInServer: no TP group on more servers than it needs
 * (ceil(tp / G)); TpInScaleUp: every TP group inside one scale-up (NVLink) domain (one server's
 * NVSwitch, or a rack-scale domain of fabric.scaleup_domain_servers trays such as NVL72), so tp
 * must not exceed the domain's GPUs; None: anything goes.
 * A start that breaks the constraint is repaired, never made worse: a move may not raise the
 * number of servers beyond the allowance summed over the groups it touches.
 */
enum class KeepConstraint { TpInServer, TpInScaleUp, None };
std::string_view keepName(KeepConstraint k); ///< "tp-in-server", "tp-in-scaleup", "none"
bool parseKeep(std::string_view name, KeepConstraint &out);

/** The mapping the search starts from: the scenario's own, or a preset placed on healthy slots. */
enum class StartFrom { Current, Packed, RailAligned, Scattered };
std::string_view startName(StartFrom s); ///< "current", "packed", "rail-aligned", "scattered"
bool parseStart(std::string_view name, StartFrom &out);

/** The optimiser's settings. The search stops at whichever limit comes first. */
struct OptimiseOptions
{
    Objective objective = Objective::Iteration;
    KeepConstraint keep = KeepConstraint::TpInServer;
    StartFrom from = StartFrom::Current;
    std::uint64_t seed = 1;
    double seconds = 10.0; ///< wall-time limit; <= 0: none (then maxMoves must be set)
    long long maxMoves = 0; ///< evaluated moves; 0: none. With it alone the run is deterministic
};

} // namespace railyard
