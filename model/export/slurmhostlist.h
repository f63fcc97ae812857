#pragma once

#include <string>
#include <vector>

namespace railyard {

/**
 * Slurm's hostlist expressions, as topology.conf(5) uses them in `Nodes=` and `Switches=`
 * ("Nodes=tux[0-3,12,18-20]"; Slurm's hostlist expression parser, src/common/hostlist.c): a
 * name prefix, then a bracketed list of numbers and ranges with the width of their first number
 * kept ("node[000-015]"), joined by ','. The exports write them and the topology.conf reader
 * expands them.
 */
namespace slurmhostlist {

/// The names as one expression, in the order given: consecutive names that differ only in a
/// trailing number of one width are folded into one bracket ("node[000-003,007],gpu-a").
std::string compress(const std::vector<std::string> &names);

/// Every name an expression lists, in order. Throws std::invalid_argument with the reason (a
/// bracket not closed, a range running backwards, a nested bracket, more than `limit` names)
/// for the caller to place at its file:line.
std::vector<std::string> expand(const std::string &expression, std::size_t limit);

/// A name Slurm can hold as a node or switch name and a hostlist can carry: 1..64 letters,
/// digits, '-', '_', '.' (topology.conf(5): a SwitchName "cannot be longer than 64 characters";
/// '[', ']' and ',' are hostlist syntax), not starting with '-' or '.'.
bool plainName(const std::string &name);

} // namespace slurmhostlist

} // namespace railyard
