#include "cost/collectivesteps.h"

#include "cost/collectiveplanner.h"
#include "cost/ringorder.h"
#include "fabric/fabric.h"
#include "fabric/router.h"

#include <algorithm>
#include <map>
#include <unordered_map>

/*
 * The steps of each algorithm, each matching the planner's flows (collectiveplanner.cpp) byte
 * for byte once summed (n members, C channels, L members per server, N servers, S bytes):
 *  - ring: each pass n-1 steps in which every rank sends S/(nC) to its successor on each of
 *    the C rings (Patarasuk & Yuan 2009): an all-reduce's reduce-scatter then all-gather.
 *  - tree: the reduction climbs each server's chain (the chain's far end first) and then both
 *    binary trees level by level, the broadcast comes back down the same way; every chain
 *    edge carries S/C each way, every tree edge S/(2C) each way per tree.
 *  - nvls: one reduce-scatter step (a GPU pushes S into the NVSwitch and reads back its reduced
 *    S/L) and one all-gather step (pushes S/L, reads S), as NVIDIA/nccl issue #1083 states.
 *  - nvls-tree: NVLS reduce-scatter in every server, the trees per rail up and down with S/L,
 *    NVLS all-gather.
 *  - hierarchical: ring reduce-scatter inside the servers (L-1 steps of S/L), ring all-reduce
 *    of S/L per rail across the servers (2(N-1) steps of S/(LN)), ring all-gather inside.
 *  - pat: log2 n steps, the k-th sending min(2^k, n-2^k) blocks of S/n 2^k members ahead.
 *  - pairwise: n-1 steps, in step k every member sends S/n to the member k ahead.
 */

namespace railyard {

namespace {

/// Builds the phases of one group: sends by member index, routed once at the end.
class StepBuilder
{
public:
    StepBuilder(const PlannerGroup &group, CollectiveSteps &out)
        : m_group(group)
        , m_out(out)
    {
    }

    StepPhase &phase(std::string name, int count = 1, int chunkShift = 0)
    {
        StepPhase &p = m_out.phases.emplace_back();
        p.name = std::move(name);
        p.count = count;
        p.chunkShift = chunkShift;
        return p;
    }
    void send(StepPhase &p, int from, int to, double bytes, int chunk = -1)
    {
        const int a = m_group.members[static_cast<std::size_t>(from)].slot;
        const int b = m_group.members[static_cast<std::size_t>(to)].slot;
        if (bytes > 0.0 && a != b)
            p.sends.push_back({ from, to, a, b, bytes, chunk });
    }
    /// The ring `order` (member indexes) sends `bytes` a step; the member at ring position i
    /// sends chunk (i + first) in the phase's first step.
    void ring(StepPhase &p, const std::vector<int> &order, double bytes, int first)
    {
        const int k = static_cast<int>(order.size());
        if (k < 2)
            return;
        for (int i = 0; i < k; ++i)
            send(p, order[static_cast<std::size_t>(i)],
                order[static_cast<std::size_t>((i + 1) % k)], bytes, (i + first) % m_out.chunks);
    }

private:
    const PlannerGroup &m_group;
    CollectiveSteps &m_out;
};

/// Depth of node r in double binary tree t over `nodes` (root 0).
int treeDepth(int t, int r, int nodes)
{
    int d = 0;
    for (int x = doubleBinaryTreeParent(t, r, nodes); x >= 0;
         x = doubleBinaryTreeParent(t, x, nodes))
        ++d;
    return d;
}

/// The double binary trees over `heads` (member indexes, one per node), `bytes` per edge per
/// tree, added as `depth` up levels (deepest first) into `up` and down levels into `down`.
void treeLevels(std::vector<std::vector<std::pair<int, int>>> &up,
    std::vector<std::vector<std::pair<int, int>>> &down, const std::vector<int> &heads)
{
    const int nodes = static_cast<int>(heads.size());
    for (int t = 0; t < 2 && nodes > 1; ++t)
        for (int r = 0; r < nodes; ++r) {
            const int parent = doubleBinaryTreeParent(t, r, nodes);
            if (parent < 0)
                continue;
            const auto depth = static_cast<std::size_t>(treeDepth(t, r, nodes));
            if (up.size() < depth)
                up.resize(depth);
            if (down.size() < depth)
                down.resize(depth);
            up[depth - 1].push_back(
                { heads[static_cast<std::size_t>(r)], heads[static_cast<std::size_t>(parent)] });
            down[depth - 1].push_back(
                { heads[static_cast<std::size_t>(parent)], heads[static_cast<std::size_t>(r)] });
        }
}

void routePhase(StepPhase &p, Router &router)
{
    std::unordered_map<int, double> load;
    for (const StepSend &s : p.sends)
        for (const RouteHop &hop : router.route(s.fromSlot, s.toSlot))
            load[hop.link] += s.bytes * hop.share;
    for (const StepLink &l : p.direct)
        load[l.link] += l.bytes;
    p.links.clear();
    p.links.reserve(load.size());
    for (const auto &[link, bytes] : load)
        p.links.push_back({ link, bytes });
    std::sort(p.links.begin(), p.links.end(),
        [](const StepLink &a, const StepLink &c) { return a.link < c.link; });
}

/// NVLS loads of one server's members: GPU -> NVSwitch `up`, NVSwitch -> GPU `down`.
void nvlsDirect(StepPhase &p, const Fabric &fabric, const PlannerGroup &g, const ServerMembers &s,
    double up, double down)
{
    const int sw = fabric.scaleUpVertex(s.server);
    for (const int i : s.members) {
        const int gpu = fabric.gpuVertex(g.members[static_cast<std::size_t>(i)].slot);
        p.direct.push_back({ fabric.linkBetween(gpu, sw), up });
        p.direct.push_back({ fabric.linkBetween(sw, gpu), down });
    }
}

void addTree(StepBuilder &b, CollectiveSteps &out, const PlannerGroup &g, double bytes)
{
    std::size_t channels = 1;
    for (const ServerMembers &s : g.servers)
        channels = std::max(channels, s.nics.size());
    const double c = static_cast<double>(channels);
    out.channels = static_cast<int>(channels);
    // Chain edges by their distance from the chain's end (the far end sends first), tree
    // edges by depth: levels of (from, to) member pairs.
    std::vector<std::vector<std::pair<int, int>>> chainUp, treeUp, treeDown;
    std::vector<int> order, heads;
    for (std::size_t ch = 0; ch < channels; ++ch) {
        heads.clear();
        for (const ServerMembers &s : g.servers) {
            chainOrder(s, g.members, static_cast<int>(ch), order);
            heads.push_back(order.front());
            const std::size_t len = order.size();
            if (chainUp.size() + 1 < len)
                chainUp.resize(len - 1);
            for (std::size_t j = 1; j < len; ++j)
                chainUp[len - 1 - j].push_back({ order[j], order[j - 1] });
        }
        treeLevels(treeUp, treeDown, heads);
    }
    for (const auto &pairs : chainUp) {
        StepPhase &p = b.phase("up: reduce along the chain inside each server");
        for (const auto &[from, to] : pairs)
            b.send(p, from, to, bytes / c);
    }
    for (auto it = treeUp.rbegin(); it != treeUp.rend(); ++it) {
        StepPhase &p = b.phase("up: reduce across servers (both trees)");
        for (const auto &[from, to] : *it)
            b.send(p, from, to, bytes / (2.0 * c));
    }
    for (const auto &pairs : treeDown) {
        StepPhase &p = b.phase("down: broadcast across servers (both trees)");
        for (const auto &[from, to] : pairs)
            b.send(p, from, to, bytes / (2.0 * c));
    }
    for (auto it = chainUp.rbegin(); it != chainUp.rend(); ++it) {
        StepPhase &p = b.phase("down: broadcast along the chain inside each server");
        for (const auto &[from, to] : *it)
            b.send(p, to, from, bytes / c);
    }
}

void addNvlsTree(
    StepBuilder &b, CollectiveSteps &out, const Fabric &fabric, const PlannerGroup &g, double bytes)
{
    const std::size_t l = g.servers.front().members.size();
    const double dl = static_cast<double>(l);
    out.channels = static_cast<int>(l);
    std::vector<std::vector<std::pair<int, int>>> up, down;
    for (std::size_t j = 0; j < l; ++j) {
        std::vector<int> column;
        for (const ServerMembers &s : g.servers)
            column.push_back(s.members[j]);
        treeLevels(up, down, column);
    }
    StepPhase &rs = b.phase("NVLS reduce-scatter inside each server");
    for (const ServerMembers &s : g.servers)
        nvlsDirect(rs, fabric, g, s, bytes, bytes / dl);
    for (auto it = up.rbegin(); it != up.rend(); ++it) {
        StepPhase &p = b.phase("up: reduce each rail's S/L across servers (both trees)");
        for (const auto &[from, to] : *it)
            b.send(p, from, to, bytes / (2.0 * dl));
    }
    for (const auto &pairs : down) {
        StepPhase &p = b.phase("down: broadcast each rail's S/L across servers (both trees)");
        for (const auto &[from, to] : pairs)
            b.send(p, from, to, bytes / (2.0 * dl));
    }
    StepPhase &ag = b.phase("NVLS all-gather inside each server");
    for (const ServerMembers &s : g.servers)
        nvlsDirect(ag, fabric, g, s, bytes / dl, bytes);
}

void addHierarchical(StepBuilder &b, CollectiveSteps &out, const PlannerGroup &g, double bytes)
{
    const std::size_t l = g.servers.front().members.size();
    const int li = static_cast<int>(l);
    const int ni = static_cast<int>(g.servers.size());
    const double dl = li, dn = ni;
    out.channels = li;
    const auto inside = [&](const char *name) {
        if (li < 2)
            return;
        StepPhase &p = b.phase(name, li - 1, -1);
        for (const ServerMembers &s : g.servers)
            b.ring(p, std::vector<int>(s.members.begin(), s.members.end()), bytes / dl, 0);
    };
    const auto across = [&](const char *name) {
        StepPhase &p = b.phase(name, ni - 1, -1);
        for (std::size_t j = 0; j < l; ++j) {
            std::vector<int> column;
            for (const ServerMembers &s : g.servers)
                column.push_back(s.members[j]);
            b.ring(p, column, bytes / (dl * dn), 0);
        }
    };
    inside("reduce-scatter inside each server");
    across("reduce-scatter of each rail's S/L across servers");
    across("all-gather of each rail's S/L across servers");
    inside("all-gather inside each server");
}

} // namespace

int CollectiveSteps::stepCount() const
{
    int n = 0;
    for (const StepPhase &p : phases)
        n += p.count;
    return n;
}

int CollectiveSteps::phaseOf(int step, int *inPhase) const
{
    for (std::size_t i = 0; i < phases.size(); ++i) {
        if (step < phases[i].count) {
            if (inPhase)
                *inPhase = step;
            return static_cast<int>(i);
        }
        step -= phases[i].count;
    }
    return -1;
}

std::string CollectiveSteps::label(int step) const
{
    const int p = phaseOf(step);
    if (p < 0)
        return {};
    return algorithmText + " step " + std::to_string(step + 1) + "/" + std::to_string(stepCount())
        + ": " + phases[static_cast<std::size_t>(p)].name;
}

const std::vector<StepLink> &CollectiveSteps::stepLinks(int step) const
{
    static const std::vector<StepLink> none;
    const int p = phaseOf(step);
    return p < 0 ? none : phases[static_cast<std::size_t>(p)].links;
}

int CollectiveSteps::chunkOf(int step, int send) const
{
    int in = 0;
    const int p = phaseOf(step, &in);
    if (p < 0)
        return -1;
    const StepPhase &ph = phases[static_cast<std::size_t>(p)];
    const int c = ph.sends[static_cast<std::size_t>(send)].chunk;
    if (c < 0 || chunks < 1)
        return c;
    return ((c + ph.chunkShift * in) % chunks + chunks) % chunks;
}

std::vector<StepLink> CollectiveSteps::totals() const
{
    std::map<int, double> sum;
    for (const StepPhase &p : phases)
        for (const StepLink &l : p.links)
            sum[l.link] += l.bytes * p.count;
    std::vector<StepLink> out;
    out.reserve(sum.size());
    for (const auto &[link, sumBytes] : sum)
        out.push_back({ link, sumBytes });
    return out;
}

CollectiveSteps collectiveSteps(PlanAlgorithm wanted, Collective op, const std::vector<int> &slots,
    double bytes, const Fabric &fabric, Router &router, double nvlsEfficiency,
    const std::vector<double> &shares)
{
    const PlannerGroup g = plannerGroup(fabric, slots);
    CollectiveSteps out;
    out.op = op;
    out.bytes = bytes;
    out.members = static_cast<int>(slots.size());
    out.algorithm = plannedAlgorithm(wanted, op, g, nvlsEfficiency);
    out.algorithmText = std::string(planAlgorithmName(out.algorithm));
    const int n = out.members;
    out.chunks = std::max(1, n);
    if (n < 2)
        return out;
    const double dn = n;
    StepBuilder b(g, out);
    const bool reduce = op == Collective::AllReduce || op == Collective::ReduceScatter;
    const bool gather = op == Collective::AllReduce || op == Collective::AllGather;
    switch (out.algorithm) {
    case PlanAlgorithm::Ring:
    case PlanAlgorithm::MemberOrder: {
        std::vector<std::vector<int>> rings;
        if (out.algorithm == PlanAlgorithm::Ring) {
            buildRings(g.members, g.servers, rings);
        } else {
            rings.emplace_back(static_cast<std::size_t>(n));
            for (int i = 0; i < n; ++i)
                rings[0][static_cast<std::size_t>(i)] = i;
        }
        out.channels = static_cast<int>(rings.size());
        const double each = bytes / (dn * out.channels);
        // NCCL's ring: in reduce-scatter step k rank r sends chunk (r - k) mod n; the
        // all-gather starts with the chunk each rank finished reducing, (r + 1) mod n.
        if (reduce) {
            StepPhase &p = b.phase("reduce-scatter", n - 1, -1);
            for (const std::vector<int> &ring : rings)
                b.ring(p, ring, each, 0);
        }
        if (gather) {
            StepPhase &p = b.phase("all-gather", n - 1, -1);
            for (const std::vector<int> &ring : rings)
                b.ring(p, ring, each, op == Collective::AllReduce ? 1 : 0);
        }
        break;
    }
    case PlanAlgorithm::Tree:
        addTree(b, out, g, bytes);
        break;
    case PlanAlgorithm::Nvls: {
        const ServerMembers &s = g.servers.front();
        if (reduce)
            nvlsDirect(b.phase("NVLS reduce-scatter: each GPU pushes S, reads its reduced S/n"),
                fabric, g, s, bytes, bytes / dn);
        if (gather)
            nvlsDirect(b.phase("NVLS all-gather: each GPU pushes S/n, reads S"), fabric, g, s,
                bytes / dn, bytes);
        break;
    }
    case PlanAlgorithm::NvlsTree:
        addNvlsTree(b, out, fabric, g, bytes);
        break;
    case PlanAlgorithm::Hierarchical:
        addHierarchical(b, out, g, bytes);
        break;
    case PlanAlgorithm::Pat: {
        std::vector<int> distances;
        for (int d = 1; d < n; d *= 2)
            distances.push_back(d);
        // A reduce-scatter halves the distance as it goes; an all-gather doubles it.
        if (op == Collective::ReduceScatter)
            std::reverse(distances.begin(), distances.end());
        for (const int d : distances) {
            StepPhase &p = b.phase("send " + std::to_string(std::min(d, n - d)) + " block"
                + (std::min(d, n - d) == 1 ? "" : "s") + " to the member " + std::to_string(d)
                + " ahead");
            for (int i = 0; i < n; ++i)
                b.send(p, i, (i + d) % n, std::min(d, n - d) / dn * bytes);
        }
        break;
    }
    case PlanAlgorithm::Pairwise: {
        const bool skewed = shares.size() == static_cast<std::size_t>(n);
        for (int k = 1; k < n; ++k) {
            StepPhase &p = b.phase("every member sends to the member " + std::to_string(k)
                + " ahead" + (skewed ? " (dispatch and combine)" : ""));
            for (int i = 0; i < n; ++i) {
                const int j = (i + k) % n;
                if (!skewed) {
                    b.send(p, i, j, bytes / dn, j);
                    continue;
                }
                // TrafficModel: dispatch i -> j carries S H_j, combine j -> i the same back,
                // each pattern weighed by half of the op's bytes.
                b.send(p, i, j, 0.5 * bytes * shares[static_cast<std::size_t>(j)], j);
                b.send(p, j, i, 0.5 * bytes * shares[static_cast<std::size_t>(j)], j);
            }
        }
        break;
    }
    case PlanAlgorithm::PointToPoint: {
        StepPhase &p = b.phase(n == 2 ? "send" : "every member sends to the next");
        if (n == 2)
            b.send(p, 0, 1, bytes);
        else
            for (int i = 0; i < n; ++i)
                b.send(p, i, (i + 1) % n, bytes);
        break;
    }
    }
    for (StepPhase &p : out.phases)
        routePhase(p, router);
    return out;
}

CollectiveSteps pipelineSteps(
    const std::vector<int> &slots, double bytes, bool wrap, Router &router)
{
    CollectiveSteps out;
    out.op = Collective::SendRecv;
    out.algorithm = PlanAlgorithm::PointToPoint;
    out.algorithmText = "pipeline";
    out.bytes = bytes;
    out.members = static_cast<int>(slots.size());
    const int n = out.members;
    const auto add = [&](int from, int to, const std::string &what) {
        StepPhase &p = out.phases.emplace_back();
        p.name = "stage " + std::to_string(from) + " -> " + std::to_string(to) + " (" + what + ")";
        const int a = slots[static_cast<std::size_t>(from)];
        const int b = slots[static_cast<std::size_t>(to)];
        if (a != b)
            p.sends.push_back({ from, to, a, b, bytes, -1 });
    };
    for (int s = 0; s + 1 < n; ++s)
        add(s, s + 1, "activations");
    if (wrap && n > 1)
        add(n - 1, 0, "activations, next model chunk");
    if (wrap && n > 1)
        add(0, n - 1, "gradients, previous model chunk");
    for (int s = n - 1; s > 0; --s)
        add(s, s - 1, "gradients");
    for (StepPhase &p : out.phases)
        routePhase(p, router);
    return out;
}

CollectiveSteps concurrentSteps(std::vector<CollectiveSteps> groups)
{
    if (groups.empty())
        return {};
    CollectiveSteps out = std::move(groups.front());
    const auto sameShape = [](const CollectiveSteps &a, const CollectiveSteps &b) {
        if (a.phases.size() != b.phases.size())
            return false;
        for (std::size_t i = 0; i < a.phases.size(); ++i)
            if (a.phases[i].count != b.phases[i].count)
                return false;
        return true;
    };
    std::vector<CollectiveSteps> after;
    for (std::size_t g = 1; g < groups.size(); ++g) {
        CollectiveSteps &other = groups[g];
        out.members = std::max(out.members, other.members);
        if (!sameShape(out, other) || out.chunks != other.chunks) {
            after.push_back(std::move(other));
            continue;
        }
        for (std::size_t i = 0; i < out.phases.size(); ++i) {
            StepPhase &p = out.phases[i];
            StepPhase &o = other.phases[i];
            p.sends.insert(p.sends.end(), o.sends.begin(), o.sends.end());
            p.direct.insert(p.direct.end(), o.direct.begin(), o.direct.end());
            std::vector<StepLink> merged;
            merged.reserve(p.links.size() + o.links.size());
            std::merge(p.links.begin(), p.links.end(), o.links.begin(), o.links.end(),
                std::back_inserter(merged),
                [](const StepLink &a, const StepLink &b) { return a.link < b.link; });
            p.links.clear();
            for (const StepLink &l : merged) {
                if (!p.links.empty() && p.links.back().link == l.link)
                    p.links.back().bytes += l.bytes;
                else
                    p.links.push_back(l);
            }
        }
    }
    for (CollectiveSteps &other : after) {
        const std::string prefix = other.algorithmText + ", another group: ";
        for (StepPhase &p : other.phases) {
            p.name = prefix + p.name;
            out.phases.push_back(std::move(p));
        }
    }
    return out;
}

std::vector<int> sendPath(const Fabric &fabric, Router &router, int srcSlot, int dstSlot, int pick)
{
    std::vector<int> path;
    const std::span<const RouteHop> hops = router.route(srcSlot, dstSlot);
    const int target = fabric.gpuVertex(dstSlot);
    int at = fabric.gpuVertex(srcSlot);
    std::vector<int> branches;
    // A route has no cycle: at most one link per hop of it.
    for (std::size_t guard = 0; at != target && guard <= hops.size(); ++guard) {
        branches.clear();
        for (const RouteHop &h : hops)
            if (fabric.link(h.link).src == at)
                branches.push_back(h.link);
        if (branches.empty())
            break;
        const int link = branches[static_cast<std::size_t>(pick) % branches.size()];
        path.push_back(link);
        at = fabric.link(link).dst;
    }
    return path;
}

} // namespace railyard
