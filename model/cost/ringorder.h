#pragma once

#include <boost/container/small_vector.hpp>

#include <vector>

namespace railyard {

class Fabric;

/**
 * Where one member of a collective group sits: its slot, server, GPU and NIC index, and its
 * scale-up (NVLink) domain: the server itself, or the rack of an NVL72-style fabric.
 */
struct RingMember
{
    int slot = -1;
    int server = -1;
    int gpu = -1;
    int nic = -1;
    int domain = -1;
};

/// The members of `slots` as RingMembers (server, GPU and NIC from the fabric's affinity).
std::vector<RingMember> ringMembers(const Fabric &fabric, const std::vector<int> &slots);
/// The same into `out` (cleared first), whose capacity a caller preparing group after group
/// reuses.
void ringMembers(const Fabric &fabric, const std::vector<int> &slots, std::vector<RingMember> &out);

/**
 * The members of a group in one scale-up domain (one server unless the fabric has rack-scale
 * domains): indexes into the member list, by slot (= by GPU index on one server). NCCL treats a
 * multi-node NVLink domain as one node (its MNNVL support), so rings, trees and NVLS see the
 * domain where they would see a server.
 */
struct ServerMembers
{
    int server = -1; ///< the server of the domain's first member
    /// Inline storage for a server's worth of GPUs (Boost.Container's small_vector): a group
    /// of 1,024 servers is grouped without 2,048 heap blocks.
    using Indexes = boost::container::small_vector<int, 8>;
    Indexes members; ///< sorted by slot
    Indexes nics; ///< distinct NIC indexes of those members, ascending
};

/// The group's scale-up domains (servers) in order of first appearance in the member list
/// (NCCL numbers its nodes in rank order), each with its members.
std::vector<ServerMembers> membersByServer(const std::vector<RingMember> &members);
/// The same into `out` (cleared first), whose capacity it reuses.
void membersByServer(const std::vector<RingMember> &members, std::vector<ServerMembers> &out);

/// True when every server holds the same number of members.
bool uniformPerServer(const std::vector<ServerMembers> &servers);

/**
 * Rings the way NCCL builds them (src/graph/search.cc, connect.cc): within a server first,
 * then across servers in node order, one channel per NIC the members use. A channel enters a
 * server on one NIC and leaves it on another (NCCL's ring pattern "NET n -> GPU a -> ... ->
 * GPU x -> NET m"), and odd servers swap the pair (connect.cc: "Alternate rings to avoid
 * crossing rails"), so every hop between servers with the same NICs stays on one rail; where
 * the NIC sets differ a server enters on the rail its predecessor left on when it can.
 *
 * Returns one ring per channel, each a permutation of member indexes (0..n-1). A group on
 * one server gets a single ring by GPU index (every ring loads an NVSwitch alike).
 */
std::vector<std::vector<int>> buildRings(const std::vector<RingMember> &members);
/// The same, with the members' servers already grouped (membersByServer(members)).
std::vector<std::vector<int>> buildRings(
    const std::vector<RingMember> &members, const std::vector<ServerMembers> &servers);
/// The same into `rings`, whose vectors keep their capacity (a planner re-planning group after
/// group allocates none once warm).
void buildRings(const std::vector<RingMember> &members, const std::vector<ServerMembers> &servers,
    std::vector<std::vector<int>> &rings);

/// The members of server `s` in the order a chain of channel `channel` visits them: the
/// member on the channel's NIC first (the tree's network end), the others by GPU index; into
/// `out` (cleared first), which a planner reuses server after server.
void chainOrder(const ServerMembers &s, const std::vector<RingMember> &members, int channel,
    std::vector<int> &out);

} // namespace railyard
