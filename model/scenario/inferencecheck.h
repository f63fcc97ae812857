#pragma once

namespace railyard {

struct Scenario;

/**
 * Checks the inference part of a scenario against the rest of it and throws ScenarioError with a
 * one-line message naming the field: pool degrees against its GPUs and the model, servers and
 * slots out of range or used by two pools, a decode pool without a prefill pool (and back),
 * colocated pools mixed with prefill/decode pools, weights plus KV cache not fitting HBM.
 * Does nothing for a training-only scenario.
 */
void validateInference(const Scenario &scenario);

} // namespace railyard
