#include "cost/collectiveplanner.h"

#include "cost/ringorder.h"
#include "fabric/fabric.h"
#include "fabric/router.h"

#include "base/units.h"

#include <boost/container/small_vector.hpp>

#include <algorithm>
#include <limits>
#include <span>

/*
 * Flows per algorithm, per byte of S and per pass (an all-reduce = two passes), for n members
 * on N servers with L members each where that matters, C channels:
 *
 *  - ring: C rings (cost/ringorder.h), each edge (n-1)/n / C (Patarasuk & Yuan 2009: every
 *    rank sends S/n in each of the n-1 steps of a pass; NCCL splits S over its channels).
 *  - tree: per channel a chain inside each server and NCCL's two binary trees over the servers
 *    (src/graph/trees.cc), each tree carrying half of the channel's data: an all-reduce reduces
 *    up and broadcasts down, so every chain edge carries S/C each way and every tree edge
 *    S/(2C) each way per tree over the whole operation (Sanders, Speck & Traeff, "Two-tree
 *    algorithms for full bandwidth broadcast, reduction and scan", Parallel Computing 2009).
 *  - nvls: NVLink SHARP in the NVSwitch: for a reduce-scatter a GPU sends S into the switch and
 *    receives its reduced S/L, for an all-gather sends S/L and receives S (stated by the NCCL
 *    team in NVIDIA/nccl issue #1083); the all-reduce does both.
 *  - nvls-tree: NVLS reduce-scatter inside each server, a double binary tree of S/L per rail
 *    (GPU j of every server) across servers, NVLS all-gather (NCCL's NVLSTree).
 *  - hierarchical: ring reduce-scatter inside each server ((L-1)/L per edge), ring all-reduce
 *    of S/L per rail across servers ((N-1)/N / L per edge), ring all-gather inside (Horovod's
 *    hierarchical all-reduce; ASTRA-sim's multi-dimensional all-reduce).
 *  - pat: log2(n) steps, the k-th sending min(2^k, n - 2^k) blocks of S/n to the member 2^k
 *    ahead (Bruck et al., IEEE TPDS 1997, the pattern NCCL's PAT follows for one GPU per node).
 *  - pairwise: S/n between every ordered pair (nccl-tests alltoall).
 *
 * "Server" above means a scale-up domain: with rack-scale domains (GB200 NVL72, 18 trays on one
 * NVLink switch system) the members of one rack form one node, as in NCCL's multi-node NVLink
 * (MNNVL) support, where the GPUs of an NVLink domain are treated as one node and their rings
 * and trees run over NVLink. NVLS in a rack-scale domain uses the same per-GPU NVLink loads as on
 * one server; the NVLink switch trays' SHARP capacity and the NVLS domain limits are not modelled.
 *
 * Every phase of an algorithm runs at once, chunk by chunk (NCCL pipelines rings, trees and
 * NVLS trees in chunks), so the engine times all of a plan's flows as one phase: the critical
 * chain's latency plus the most loaded link's bytes over its bandwidth. A sequential sum of
 * the phases (ASTRA-sim's analytical backend without chunk pipelining) would give a DGX H100
 * multi-node all-reduce about 230 GB/s of bus bandwidth, where measurements show the NICs'
 * 8 x ~47 GB/s (nccl-tests issues #290 and #119).
 *
 * The chain of a pipelined ring pass is every edge but the cheapest (the chunk that starts
 * right after the cheapest edge crosses all the others), summed hop by hop; of parallel parts
 * (channels, trees, servers) the one with the most steps counts.
 */

namespace railyard {

PlanAlgorithm planAlgorithmFor(CollectiveAlgorithm option)
{
    switch (option) {
    case CollectiveAlgorithm::MemberOrder:
        return PlanAlgorithm::MemberOrder;
    case CollectiveAlgorithm::Tree:
        return PlanAlgorithm::Tree;
    case CollectiveAlgorithm::Nvls:
        return PlanAlgorithm::Nvls;
    case CollectiveAlgorithm::Hierarchical:
        return PlanAlgorithm::Hierarchical;
    case CollectiveAlgorithm::Pat:
        return PlanAlgorithm::Pat;
    case CollectiveAlgorithm::Auto:
    case CollectiveAlgorithm::Ring:
        break;
    }
    return PlanAlgorithm::Ring;
}

bool algorithmRuns(PlanAlgorithm a, Collective op)
{
    const bool reduceLike = op == Collective::AllReduce || op == Collective::AllGather
        || op == Collective::ReduceScatter;
    switch (a) {
    case PlanAlgorithm::Ring:
    case PlanAlgorithm::MemberOrder:
    case PlanAlgorithm::Nvls:
        return reduceLike;
    case PlanAlgorithm::Tree:
    case PlanAlgorithm::NvlsTree:
    case PlanAlgorithm::Hierarchical:
        return op == Collective::AllReduce;
    case PlanAlgorithm::Pat:
        return op == Collective::AllGather || op == Collective::ReduceScatter;
    case PlanAlgorithm::Pairwise:
        return op == Collective::AllToAll;
    case PlanAlgorithm::PointToPoint:
        return op == Collective::SendRecv;
    }
    return false;
}

int doubleBinaryTreeParent(int tree, int r, int n)
{
    // Tree 0: the lowest set bit of r decides its level; its parent sets the next bit up, or
    // clears its own bit when that would leave the tree. Tree 1 mirrors tree 0 (even n) or
    // shifts it by one rank (odd n), so each node is a leaf in one of the two trees.
    const auto btree = [n](int x) {
        if (x == 0)
            return -1;
        const int bit = x & -x;
        const int up = (x ^ bit) | (bit << 1);
        return up < n ? up : (x ^ bit);
    };
    if (tree == 0)
        return btree(r);
    if (n % 2 == 0) {
        const int p = btree(n - 1 - r);
        return p < 0 ? -1 : n - 1 - p;
    }
    const int p = btree((r - 1 + n) % n);
    return p < 0 ? -1 : (p + 1) % n;
}

namespace {

/// A part of a chain: its summed hop latency and its steps by kind.
struct ChainPart
{
    double wire = 0.0;
    int scaleUp = 0;
    int network = 0;
    double networkWire = 0.0; ///< the network steps' part of `wire`
    Tier reach = Tier::ScaleUp; ///< the farthest tier a step's route takes
};

/// The longer of two concurrent chains: more steps first (every step pays the protocol's
/// per-step latency, which exceeds the fabric's differences between hops), then more network
/// steps, then more fabric latency; the earlier on a tie.
ChainPart longer(const ChainPart &a, const ChainPart &b)
{
    const int sa = a.scaleUp + a.network, sb = b.scaleUp + b.network;
    if (sa != sb)
        return sb > sa ? b : a;
    if (a.network != b.network)
        return b.network > a.network ? b : a;
    return b.wire > a.wire ? b : a;
}

ChainPart operator+(const ChainPart &a, const ChainPart &b)
{
    return { a.wire + b.wire, a.scaleUp + b.scaleUp, a.network + b.network,
        a.networkWire + b.networkWire, std::max(a.reach, b.reach) };
}

class Builder
{
public:
    Builder(const Fabric &fabric, Router &router, const PlannerGroup &group, CollectivePlan &plan)
        : m_fabric(fabric)
        , m_router(router)
        , m_members(group.members)
        , m_servers(group.servers)
        , m_plan(plan)
    {
    }

    const std::vector<RingMember> &members() const { return m_members; }
    const std::vector<ServerMembers> &servers() const { return m_servers; }
    int n() const { return static_cast<int>(m_members.size()); }
    int serverCount() const { return static_cast<int>(m_servers.size()); }

    void flow(int a, int b, double unit)
    {
        if (unit > 0.0 && m_members[a].slot != m_members[b].slot)
            m_plan.flows.push_back({ m_members[a].slot, m_members[b].slot, unit, a, b });
    }
    /// The same over the NICs `nics` (a logged hop's), when it names any.
    void flow(int a, int b, double unit, RouteNics nics)
    {
        if (!nics.any())
            flow(a, b, unit);
        else if (unit > 0.0 && m_members[a].slot != m_members[b].slot)
            m_plan.nicFlows.push_back(
                { { m_members[a].slot, m_members[b].slot, unit, a, b }, nics });
    }
    /// One hop of the chain from member a to member b (over the NICs `nics`, when named).
    ChainPart hop(int a, int b, RouteNics nics = {})
    {
        const bool network = m_members[a].domain != m_members[b].domain;
        Tier reach = Tier::ScaleUp;
        const double wire = nics.any()
            ? m_router.latency(m_members[a].slot, m_members[b].slot, nics, reach)
            : m_router.latency(m_members[a].slot, m_members[b].slot, reach);
        if (!network)
            return { wire, 1, 0, 0.0, Tier::ScaleUp };
        return { wire, 0, 1, wire, reach };
    }

    /// Flows of one ring (member indexes) and the chain of one of its passes; `nics`: per
    /// member, the NICs of its hop as NCCL logged them (empty: the GPUs' own).
    ChainPart ring(std::span<const int> order, double unit, std::span<const RouteNics> nics = {})
    {
        const std::size_t k = order.size();
        if (k < 2)
            return {};
        ChainPart total, cheapest { std::numeric_limits<double>::infinity(), 0, 0 };
        for (std::size_t i = 0; i < k; ++i) {
            const RouteNics via = nics.empty() ? RouteNics {} : nics[sz(order[i])];
            flow(order[i], order[(i + 1) % k], unit, via);
            const ChainPart h = hop(order[i], order[(i + 1) % k], via);
            total = total + h;
            if (h.wire < cheapest.wire)
                cheapest = h;
        }
        return { total.wire - cheapest.wire, total.scaleUp - cheapest.scaleUp,
            total.network - cheapest.network, total.networkWire - cheapest.networkWire,
            total.reach };
    }

    /// Both binary trees over the servers' members `heads` (one per server), each edge
    /// `unit` each way; returns the longest path from a node to its root.
    template<typename Heads> ChainPart trees(const Heads &heads, double unit)
    {
        const int nodes = static_cast<int>(heads.size());
        ChainPart longest;
        // Inline storage for the groups a search re-plans move after move (a DP group over a few
        // dozen servers): no allocation per plan.
        boost::container::small_vector<ChainPart, 64> up(sz(nodes)); // node -> parent, once each
        boost::container::small_vector<int, 64> parent(sz(nodes));
        for (int t = 0; t < 2 && nodes > 1; ++t) {
            for (int r = 0; r < nodes; ++r) {
                parent[r] = doubleBinaryTreeParent(t, r, nodes);
                if (parent[r] >= 0) {
                    flow(heads[r], heads[parent[r]], unit);
                    flow(heads[parent[r]], heads[r], unit);
                    up[r] = hop(heads[r], heads[parent[r]]);
                }
            }
            // Path to the root: parents are found by walking up (depth <= log2 n + 1), each
            // edge's hop looked up once per tree rather than once per node below it.
            for (int r = 0; r < nodes; ++r) {
                ChainPart p;
                for (int x = r; parent[x] >= 0; x = parent[x])
                    p = p + up[x];
                longest = longer(longest, p);
            }
        }
        return longest;
    }

    /// NVLS: each member's GPU -> NVSwitch and NVSwitch -> GPU link, `up` and `down` each.
    void nvlsLoads(const ServerMembers &s, double up, double down)
    {
        const int server = s.server;
        for (const int i : s.members) {
            const int gpu = m_fabric.gpuVertex(m_members[i].slot);
            const int sw = m_fabric.scaleUpVertex(server);
            m_plan.links.push_back({ m_fabric.linkBetween(gpu, sw), up });
            m_plan.links.push_back({ m_fabric.linkBetween(sw, gpu), down });
        }
    }

private:
    const Fabric &m_fabric;
    Router &m_router;
    const std::vector<RingMember> &m_members;
    const std::vector<ServerMembers> &m_servers;
    CollectivePlan &m_plan;
};

} // namespace

PlanAlgorithm plannedAlgorithm(
    PlanAlgorithm a, Collective op, const PlannerGroup &group, double nvls)
{
    if (!algorithmRuns(a, op)) {
        if (op == Collective::AllToAll)
            return PlanAlgorithm::Pairwise;
        if (op == Collective::SendRecv)
            return PlanAlgorithm::PointToPoint;
        a = PlanAlgorithm::Ring;
    }
    const bool oneServer = group.servers.size() == 1;
    const bool uniform = uniformPerServer(group.servers);
    switch (a) {
    case PlanAlgorithm::Nvls:
    case PlanAlgorithm::NvlsTree:
        if (nvls <= 0.0)
            return PlanAlgorithm::Ring;
        if (oneServer)
            return PlanAlgorithm::Nvls;
        if (op != Collective::AllReduce || !uniform)
            return PlanAlgorithm::Ring;
        // One member per server leaves no NVSwitch to reduce in: that is the plain tree.
        return group.servers.front().members.size() > 1 ? PlanAlgorithm::NvlsTree
                                                        : PlanAlgorithm::Tree;
    case PlanAlgorithm::Hierarchical:
        return oneServer || !uniform ? PlanAlgorithm::Ring : a;
    case PlanAlgorithm::Pat:
        return group.servers.size() == group.members.size() ? a : PlanAlgorithm::Ring;
    case PlanAlgorithm::Ring:
    case PlanAlgorithm::MemberOrder:
    case PlanAlgorithm::Tree:
    case PlanAlgorithm::Pairwise:
    case PlanAlgorithm::PointToPoint:
        break;
    }
    return a;
}

PlannerGroup plannerGroup(const Fabric &fabric, const std::vector<int> &slots)
{
    PlannerGroup g;
    plannerGroup(fabric, slots, g);
    return g;
}

void plannerGroup(const Fabric &fabric, const std::vector<int> &slots, PlannerGroup &out)
{
    ringMembers(fabric, slots, out.members);
    membersByServer(out.members, out.servers);
    out.rings = nullptr;
    out.ringNics = nullptr;
}

CollectivePlan planCollective(PlanAlgorithm wanted, Collective op, const std::vector<int> &slots,
    const Fabric &fabric, Router &router, double nvlsEfficiency)
{
    return planCollective(wanted, op, plannerGroup(fabric, slots), fabric, router, nvlsEfficiency);
}

CollectivePlan planCollective(PlanAlgorithm wanted, Collective op, const PlannerGroup &group,
    const Fabric &fabric, Router &router, double nvlsEfficiency)
{
    CollectivePlan plan;
    planCollective(wanted, op, group, fabric, router, nvlsEfficiency, plan);
    return plan;
}

void planCollective(PlanAlgorithm wanted, Collective op, const PlannerGroup &group,
    const Fabric &fabric, Router &router, double nvlsEfficiency, CollectivePlan &plan)
{
    plan.channels = 1;
    plan.flows.clear();
    plan.nicFlows.clear();
    plan.links.clear();
    plan.chain = CollectiveChain {};
    Builder b(fabric, router, group, plan);
    const int n = b.n();
    const int servers = b.serverCount();
    plan.algorithm = plannedAlgorithm(wanted, op, group, nvlsEfficiency);
    plan.chain.ranks = n;
    plan.chain.servers = servers;
    if (n < 2)
        return;
    const double dn = n;
    ChainPart chain;
    switch (plan.algorithm) {
    case PlanAlgorithm::Ring: {
        const bool observed = group.rings != nullptr && !group.rings->empty();
        if (observed)
            plan.ringScratch = *group.rings; // what NCCL did (scenario nccl_observed)
        else
            buildRings(b.members(), b.servers(), plan.ringScratch);
        plan.channels = static_cast<int>(plan.ringScratch.size());
        for (std::size_t ch = 0; ch < plan.ringScratch.size(); ++ch) {
            // The NICs NCCL used on this channel, when logged (scenario nccl_observed).
            std::span<const RouteNics> nics;
            if (observed && group.ringNics != nullptr && ch < group.ringNics->size()
                && (*group.ringNics)[ch].size() == sz(n))
                nics = (*group.ringNics)[ch];
            chain = longer(
                chain, b.ring(plan.ringScratch[ch], (dn - 1.0) / dn / plan.channels, nics));
        }
        break;
    }
    case PlanAlgorithm::MemberOrder: {
        std::vector<int> order(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i)
            order[i] = i;
        chain = b.ring(order, (dn - 1.0) / dn);
        break;
    }
    case PlanAlgorithm::Tree: {
        std::size_t channels = 1;
        for (const ServerMembers &s : b.servers())
            channels = std::max(channels, s.nics.size());
        plan.channels = static_cast<int>(channels);
        const double c = plan.channels;
        // Reused server after server, channel after channel.
        boost::container::small_vector<int, 64> heads;
        std::vector<int> order;
        for (int ch = 0; ch < plan.channels; ++ch) {
            ChainPart inside;
            heads.clear();
            for (const ServerMembers &s : b.servers()) {
                chainOrder(s, b.members(), ch, order);
                heads.push_back(order.front());
                ChainPart along;
                for (std::size_t j = 0; j + 1 < order.size(); ++j) {
                    b.flow(order[j], order[j + 1], 1.0 / (2.0 * c));
                    b.flow(order[j + 1], order[j], 1.0 / (2.0 * c));
                    along = along + b.hop(order[j + 1], order[j]);
                }
                inside = longer(inside, along);
            }
            chain = longer(chain, inside + b.trees(heads, 1.0 / (4.0 * c)));
        }
        break;
    }
    case PlanAlgorithm::Nvls: {
        const ServerMembers &s = b.servers().front();
        const double up = op == Collective::AllReduce ? 0.5 * (1.0 + 1.0 / dn)
            : op == Collective::ReduceScatter         ? 1.0
                                                      : 1.0 / dn;
        const double down = op == Collective::AllReduce ? up
            : op == Collective::ReduceScatter           ? 1.0 / dn
                                                        : 1.0;
        b.nvlsLoads(s, up, down);
        chain = b.hop(s.members[0], s.members[1]);
        break;
    }
    case PlanAlgorithm::NvlsTree: {
        const std::size_t l = b.servers().front().members.size();
        const double dl = static_cast<double>(l);
        ChainPart inside;
        if (l > 1) {
            for (const ServerMembers &s : b.servers())
                b.nvlsLoads(s, 0.5 * (1.0 + 1.0 / dl), 0.5 * (1.0 + 1.0 / dl));
            const ServerMembers &s = b.servers().front();
            inside = b.hop(s.members[0], s.members[1]);
        }
        plan.channels = static_cast<int>(l);
        ChainPart across;
        for (std::size_t j = 0; j < l; ++j) {
            boost::container::small_vector<int, 64> column;
            for (const ServerMembers &s : b.servers())
                column.push_back(s.members[j]);
            across = longer(across, b.trees(column, 1.0 / (4.0 * dl)));
        }
        chain = inside + across;
        break;
    }
    case PlanAlgorithm::Hierarchical: {
        const std::size_t l = b.servers().front().members.size();
        const double dl = static_cast<double>(l);
        const double dservers = servers;
        ChainPart inside, across;
        for (const ServerMembers &s : b.servers())
            inside
                = longer(inside, b.ring({ s.members.data(), s.members.size() }, (dl - 1.0) / dl));
        plan.channels = static_cast<int>(l);
        for (std::size_t j = 0; j < l; ++j) {
            std::vector<int> column;
            for (const ServerMembers &s : b.servers())
                column.push_back(s.members[j]);
            across = longer(across, b.ring(column, (dservers - 1.0) / dservers / dl));
        }
        chain = inside + across;
        break;
    }
    case PlanAlgorithm::Pat: {
        for (int d = 1; d < n; d *= 2) {
            const double blocks = std::min(d, n - d);
            ChainPart step;
            for (int i = 0; i < n; ++i) {
                b.flow(i, (i + d) % n, blocks / dn);
                step = longer(step, b.hop(i, (i + d) % n));
            }
            chain = chain + step;
        }
        break;
    }
    case PlanAlgorithm::Pairwise: {
        for (int k = 1; k < n; ++k) {
            ChainPart step;
            for (int i = 0; i < n; ++i) {
                b.flow(i, (i + k) % n, 1.0 / dn);
                step = longer(step, b.hop(i, (i + k) % n));
            }
            chain = chain + step;
        }
        break;
    }
    case PlanAlgorithm::PointToPoint:
        // Two ranks: the sender and its receiver (a pipeline boundary). More: nccl-tests'
        // sendrecv_perf, where every rank sends its whole buffer to the next one in rank order
        // at once (src/sendrecv.cu: sendPeer = (rank+1) % nRanks), so the slowest hop decides.
        if (n == 2) {
            b.flow(0, 1, 1.0);
            chain = b.hop(0, 1);
            break;
        }
        for (int i = 0; i < n; ++i) {
            b.flow(i, (i + 1) % n, 1.0);
            chain = longer(chain, b.hop(i, (i + 1) % n));
        }
        break;
    }
    plan.chain.channels = plan.channels;
    plan.chain.wire = chain.wire;
    plan.chain.scaleUpSteps = chain.scaleUp;
    plan.chain.networkSteps = chain.network;
    plan.chain.networkWire = chain.networkWire;
    plan.chain.reach = chain.reach;
}

} // namespace railyard
