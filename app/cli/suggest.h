#pragma once

#include <string>
#include <vector>

namespace railyard::cli {

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions, Damerau 1964):
/// the fewest single-character insertions, deletions, substitutions and swaps of two
/// neighbours that turn `a` into `b`. "--formt" -> "--format" is 1, "evalute" -> "evaluate" 1.
int editDistance(const std::string &a, const std::string &b);

/// The candidate the user most likely meant by `typed`, leading dashes ignored: the only
/// candidate `typed` is a prefix of, else the nearest by editDistance when it is close enough
/// to be a typo (at most a third of the candidate's length and at most 3 edits; names shorter
/// than 3 letters only by prefix). Empty when nothing is close.
std::string closestMatch(const std::string &typed, const std::vector<std::string> &candidates);

} // namespace railyard::cli
