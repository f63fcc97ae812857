#pragma once

#include "base/units.h"

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {


/** How the MoE router spreads token copies over the experts (model/workload/eprouting.cpp cites why). */
enum class RoutingKind { Uniform, Zipf, Explicit };
std::string_view routingKindName(RoutingKind kind); ///< "uniform", "zipf", "explicit"

/**
 * The router's destination distribution, the same for every MoE layer and every source rank.
 * Uniform: every expert equally likely (a perfectly load-balanced router, the engine's default).
 * Zipf: expert i (0-based) has popularity rank i + 1 and weight 1 / (i + 1)^s, so expert 0 is
 * the hottest; with Megatron's contiguous placement the hottest experts share EP member 0.
 * Explicit: one non-negative weight per expert (`hotness`, kept as written and normalised when
 * used), e.g. measured token counts per expert.
 */
struct ExpertRouting
{
    RoutingKind kind = RoutingKind::Uniform;
    double zipfExponent = 1.0; ///< s, Zipf only
    std::vector<double> hotness; ///< Explicit only: weight per expert, any positive scale

    bool isUniform() const { return kind == RoutingKind::Uniform; }
    bool operator==(const ExpertRouting &) const = default;
};

/// The accepted Zipf exponents: 0 (uniform) up to this (all but the first expert idle).
inline constexpr double kMaxZipfExponent = 10.0;
/// Largest hotness file read (bytes); 65536 experts of a few characters each fit easily.
inline constexpr long long kMaxHotnessFileBytes = 4 << 20;

/// Throws ScenarioError(field...) for a negative, non-finite or all-zero hotness, a hotness whose
/// length is not `experts` (checked only for MoE models, experts > 0) or an exponent outside
/// 0..kMaxZipfExponent. `field` is the routing's path, e.g. "model.routing".
void checkRouting(const ExpertRouting &routing, int experts, const std::string &field);

/// Share of all routed token copies that goes to each expert (sums to 1; empty for experts 0).
/// A token picks `topK` distinct experts, so no expert gets more than 1/topK of the copies: the
/// normalised weights are capped there and the excess is spread over the others in proportion
/// to their weights (water-filling).
std::vector<double> expertShares(const ExpertRouting &routing, int experts, int topK = 1);
/// H_j: share of the routed tokens each EP member receives, member j holding the contiguous
/// experts [j E/ep, (j+1) E/ep) (Megatron-Core's local expert indices). Sums to 1.
std::vector<double> memberShares(const ExpertRouting &routing, int experts, int ep, int topK = 1);
/// ep * max_j H_j: how many times the average routed tokens the busiest EP member processes
/// (1 for uniform routing).
double hotLoadFactor(const ExpertRouting &routing, int experts, int ep, int topK = 1);

/// Parses the CLI form: "uniform", "zipf:S" or "hotness:FILE". Throws ScenarioError("--routing").
ExpertRouting parseRoutingOption(const std::string &text);
/// Weights from text: a JSON array, a JSON object {"hotness": [...]}, or numbers separated by
/// commas, semicolons or white space (CSV; '#' starts a comment). `origin` names the source in
/// messages. Throws ScenarioError(origin, ...).
std::vector<double> parseHotnessText(const std::string &text, const std::string &origin);
/// Reads a hotness file (regular file, at most kMaxHotnessFileBytes). Throws ScenarioError.
std::vector<double> loadHotnessFile(const std::string &path);

} // namespace railyard
