#pragma once

#include "fabric/failedcomponent.h"
#include "scenario/scenario.h"
#include "studies/remapresult.h"

#include <vector>

/**
 * The failure remap study: after a server, GPU, NIC or leaf fails, build the degraded scenario
 * with one of three strategies (studies/remapresult.h describes them and the result) and
 * evaluate it. The readable comparison is studies/remaptext.h.
 */
namespace railyard {

/// Applies `failures` (added to any the healthy scenario already lists) with one strategy.
/// Throws ScenarioError for bad input: a healthy scenario that does not evaluate, a failure
/// index outside the fabric, a failure listed twice. An impossible strategy is not an error:
/// the result says why (`possible` false).
RemapResult remap(
    const Scenario &healthy, const std::vector<FailedComponent> &failures, RemapStrategy strategy);
/// The spares strategy with a hot spare (studies/remapresult.h, HotSpare): throws ScenarioError
/// ("--spare") for a spare outside the fabric or of another kind than server or gpu; a spare that
/// cannot take the hit ranks under the rules makes the result impossible, with the reason.
RemapResult remap(const Scenario &healthy, const std::vector<FailedComponent> &failures,
    RemapStrategy strategy, const HotSpare &spare);
/// Every strategy, in allRemapStrategies() order, sharing one healthy evaluation.
std::vector<RemapResult> remapAll(
    const Scenario &healthy, const std::vector<FailedComponent> &failures);
/// The recommended result: possible, shards fit in memory, highest samples/s, then fewest
/// dropped and moved ranks. -1 when none is possible.
int bestRemap(const std::vector<RemapResult> &results);

} // namespace railyard
