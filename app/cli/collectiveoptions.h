#pragma once

#include <string>
#include <vector>

namespace railyard {
class ParallelLayout;
}

namespace railyard::cli {

/**
 * The ranks of `collective --ranks`, in member order:
 *  - lists and ranges of global ranks: "0,8,16", "0-4095", "0-7,16";
 *  - "all": every rank;
 *  - a Megatron group: "KIND:INDEX" (the INDEX-th group of that kind, as `groups` lists them)
 *    or "KIND:x=v,..." (the one group whose members all have those coordinates, x one of
 *    d, p, t, c, e), for every kind: tp, pp, dp, cp, ep, dp-cp, tp-pp, edp.
 * Throws ScenarioError("--ranks", ...) naming the problem: a malformed number or range, a rank
 * outside the world, a rank listed twice, an unknown group kind, a group index out of range, a
 * selector that matches no group or several, or fewer than two ranks.
 */
std::vector<int> parseRankSelection(const std::string &text, const ParallelLayout &layout);

/**
 * The message size of `--bytes`: a plain number ("1e9", "4096"), or one with a unit: K, M, G,
 * T (powers of 10^3, "256M" = 256e6) or KiB, MiB, GiB, TiB (powers of 2^10, "1GiB" = 2^30),
 * optionally followed by B ("1GB"). Throws ScenarioError("--bytes", ...) for anything else or a
 * size that is not positive and finite.
 */
double parseByteSize(const std::string &text);

} // namespace railyard::cli
