#include "studies/countercompare.h"

#include "base/scenarioerror.h"
#include "cost/costreport.h"
#include "fabric/cablingbuilder.h"
#include "fabric/fabric.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

namespace railyard {

namespace {

/** The two directed links a port's counters load: what it sends and what it receives. */
struct CcPortLinks
{
    int tx = -1, rx = -1;
};

std::string ccShortName(const std::string &host)
{
    return host.substr(0, host.find('.'));
}

/// An RDMA device by its name (the shapes cablingcsv.h accepts for a NIC port): mlx5_, ib, hca,
/// nic or rdma, then digits. Network interfaces ("eth0", "ens1f0np0") map through the fabric's
/// nic_devices or a mapping file only: their trailing digits say nothing about the NIC index.
bool ccRdmaName(const std::string &device)
{
    std::string lower = device;
    std::transform(lower.begin(), lower.end(), lower.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const std::string_view prefix : { "mlx5_", "nic", "hca", "ib", "rdma" }) {
        if (lower.rfind(prefix, 0) != 0 || lower.size() == prefix.size())
            continue;
        if (std::all_of(lower.begin() + static_cast<std::ptrdiff_t>(prefix.size()), lower.end(),
                [](unsigned char c) { return std::isdigit(c) != 0; }))
            return true;
    }
    return false;
}

/** Port -> links, by the mapping file, the servers' NICs and the cabling inventory. */
class CcResolver
{
public:
    CcResolver(const Fabric &fabric, const PortMap *map)
        : m_fabric(fabric)
        , m_map(map)
    {
        const FabricGraph &g = fabric.graph();
        for (std::size_t v = 0; v < boost::num_vertices(g); ++v)
            m_vertex.try_emplace(g[v].name, static_cast<int>(v));
        for (int s = 0; s < fabric.servers(); ++s) {
            m_server.try_emplace(fabric.serverName(s), s);
            m_server.try_emplace(ccShortName(fabric.serverName(s)), s);
        }
    }

    /// Returns the links, or {-1, -1} with `why` saying what was missing.
    CcPortLinks resolve(const PortRate &p, std::string &why) const
    {
        if (m_map) {
            if (const PortMapEntry *e = m_map->find(p.host, p.device, p.port))
                return fromMap(*e);
        }
        const auto server = m_server.find(p.host);
        const FabricSpec &spec = m_fabric.spec();
        if (server != m_server.end()) {
            const bool listed = std::find(spec.nicDevices.begin(), spec.nicDevices.end(), p.device)
                != spec.nicDevices.end();
            const int nic = listed || ccRdmaName(p.device) ? cablingNicIndex(spec, p.device) : -1;
            if (nic < 0 || nic >= m_fabric.nicsPerServer()) {
                why = "device " + p.device + " is no NIC of server " + p.host
                    + " (fabric.nic_devices, mlx5_N, or a --map row)";
                return {};
            }
            int plane = 0;
            if (m_fabric.planeCount() > 1 && !p.port.empty()
                && std::all_of(p.port.begin(), p.port.end(),
                    [](unsigned char c) { return std::isdigit(c) != 0; })
                && p.port.size() < 4) {
                plane = std::clamp(std::stoi(p.port) - 1, 0, m_fabric.planeCount() - 1);
            }
            const int leaf = m_fabric.leafOfNicPort(server->second, nic, plane);
            if (leaf < 0) {
                why = "NIC " + p.device + " of " + p.host + " has no cable in the fabric";
                return {};
            }
            return links(m_fabric.nicVertex(server->second, nic), m_fabric.leafVertex(leaf));
        }
        // A switch port: the cable of the inventory that ends there.
        const std::string &sw = p.host.empty() ? p.device : p.host;
        for (const Cable &c : spec.cabling) {
            const bool a = c.aDevice == sw && c.aPort == p.port;
            const bool b = c.bDevice == sw && c.bPort == p.port;
            if (!a && !b)
                continue;
            const int own = cableEnd(a ? c.aDevice : c.bDevice, a ? c.aPort : c.bPort);
            const int peer = cableEnd(a ? c.bDevice : c.aDevice, a ? c.bPort : c.aPort);
            if (own >= 0 && peer >= 0 && m_fabric.linkBetween(own, peer) >= 0)
                return links(own, peer);
        }
        why = "no server, cable or --map row names " + sw
            + (p.port.empty() ? "" : " port " + p.port);
        return {};
    }

private:
    CcPortLinks links(int from, int to) const
    {
        return { m_fabric.linkBetween(from, to), m_fabric.linkBetween(to, from) };
    }

    int cableEnd(const std::string &device, const std::string &port) const
    {
        const auto server = m_server.find(device);
        if (server != m_server.end()) {
            const int nic = cablingNicIndex(m_fabric.spec(), port);
            return nic >= 0 && nic < m_fabric.nicsPerServer()
                ? m_fabric.nicVertex(server->second, nic)
                : -1;
        }
        const auto v = m_vertex.find(device);
        return v == m_vertex.end() ? -1 : v->second;
    }

    CcPortLinks fromMap(const PortMapEntry &e) const
    {
        const std::string where = m_map->file + ":" + std::to_string(e.line);
        const auto from = m_vertex.find(e.from);
        const auto to = m_vertex.find(e.to);
        for (const auto &[it, name] : { std::pair { from, e.from }, std::pair { to, e.to } }) {
            if (it == m_vertex.end())
                throw ScenarioError(where,
                    "no fabric node is named \"" + name + "\" (names as reports print them: "
                        + m_fabric.node(m_fabric.nicVertex(0, 0)).name + ", "
                        + m_fabric.node(m_fabric.leafVertex(0)).name + ")");
        }
        const CcPortLinks l = links(from->second, to->second);
        if (l.tx < 0)
            throw ScenarioError(where, "no link joins " + e.from + " and " + e.to);
        return l;
    }

    const Fabric &m_fabric;
    const PortMap *m_map;
    std::unordered_map<std::string, int> m_vertex;
    std::unordered_map<std::string, int> m_server;
};

bool ccNicLink(const Fabric &f, int link)
{
    const FabricLink &l = f.link(link);
    return f.node(l.src).kind == NodeKind::Nic || f.node(l.dst).kind == NodeKind::Nic;
}

bool ccUplink(const Fabric &f, int link)
{
    const NodeKind s = f.node(f.link(link).src).kind, d = f.node(f.link(link).dst).kind;
    return (s == NodeKind::Leaf && d == NodeKind::Spine)
        || (s == NodeKind::Spine && d == NodeKind::SuperSpine);
}

std::string ccPercent(double u)
{
    const double v = std::round(u * 1000.0) / 10.0;
    std::string s = std::to_string(v);
    s.erase(s.find('.') + 2);
    return s + " %";
}

/// The cause and sentence of one measured direction, or false when it agrees.
bool ccClassify(const Fabric &f, const MeasuredLink &m, const std::vector<double> &measured,
    CounterDivergence &d)
{
    const double diff = m.measured - m.predicted;
    if (std::abs(diff) < kCounterAgreement)
        return false;
    d.link = m.link;
    d.measured = m.measured;
    d.predicted = m.predicted;
    d.score = std::abs(diff);
    const std::string name = f.linkName(m.link);
    const std::string figures
        = name + ": measured " + ccPercent(m.measured) + ", predicted " + ccPercent(m.predicted);
    if (diff < 0.0) {
        if (m.measured < kCounterIdle && ccNicLink(f, m.link)) {
            d.cause = DivergenceCause::IdleNic;
            d.text = figures
                + ". The NIC carries nothing: its port is down, NCCL does not use it "
                  "(NCCL_IB_HCA, a mis-bound GPU) or its rank is missing.";
        } else {
            d.cause = DivergenceCause::BelowPrediction;
            d.text = figures
                + (m.measured < kCounterIdle
                        ? ". The link carries nothing: a down cable or port."
                        : ". Far below prediction: a slow or retrained cable (check its speed "
                          "and width), or its traffic took other paths.");
        }
        return true;
    }
    if (m.predicted < kCounterAgreement) {
        d.cause = DivergenceCause::UnpredictedTraffic;
        d.text = figures
            + (ccNicLink(f, m.link)
                    ? ". Traffic where none is predicted: a mis-bound NIC (a GPU sends through "
                      "another NIC than the layout's) or a ring on the wrong rail."
                    : ". Traffic where none is predicted: cross-rail traffic (NCCL_CROSS_NIC, a "
                      "mis-bound NIC, a ring leaving its rail) or another job.");
        return true;
    }
    if (ccUplink(f, m.link)) {
        // Siblings: the other measured uplinks of the same switch at the same tier.
        const FabricLink &l = f.link(m.link);
        double sum = 0.0;
        int n = 0;
        for (auto [it, end] = boost::out_edges(static_cast<FabricVertex>(l.src), f.graph());
             it != end; ++it) {
            const int id = f.graph()[*it].id;
            if (id != m.link && f.linkTier(id) == f.linkTier(m.link) && ccUplink(f, id)
                && !std::isnan(measured[static_cast<std::size_t>(id)])) {
                sum += measured[static_cast<std::size_t>(id)];
                ++n;
            }
        }
        if (n > 0 && sum / n <= m.measured / 2.0) {
            d.cause = DivergenceCause::EcmpCollision;
            d.text = figures + ", while its " + std::to_string(n) + " sibling uplinks average "
                + ccPercent(sum / n)
                + ". ECMP collision: several flows hashed onto this path (more QPs per "
                  "connection, adaptive routing or a hash with the QP spread them).";
            return true;
        }
    }
    d.cause = DivergenceCause::AbovePrediction;
    d.text = figures
        + ". Above prediction: traffic the model does not carry (another job, "
          "storage) or a collision upstream.";
    return true;
}

} // namespace

std::string divergenceCauseName(DivergenceCause cause)
{
    switch (cause) {
    case DivergenceCause::EcmpCollision:
        return "ecmp-collision";
    case DivergenceCause::BelowPrediction:
        return "below-prediction";
    case DivergenceCause::UnpredictedTraffic:
        return "unpredicted-traffic";
    case DivergenceCause::IdleNic:
        return "idle-nic";
    case DivergenceCause::AbovePrediction:
        break;
    }
    return "above-prediction";
}

CounterComparison compareCounters(const std::vector<PortRate> &rates, const PortMap *map,
    const Fabric &fabric, const CostReport &report)
{
    CounterComparison out;
    out.ports = static_cast<int>(rates.size());
    const CcResolver resolver(fabric, map);
    // Per directed link, the rates its sending end and its receiving end counted.
    std::map<int, std::pair<double, std::string>> sent, received;
    for (const PortRate &p : rates) {
        out.window = std::max(out.window, p.window);
        std::string why;
        const CcPortLinks l = resolver.resolve(p, why);
        const std::string name = portText(p.host, p.device, p.port);
        if (l.tx < 0) {
            out.unmapped.push_back(name + " (" + p.where + "): " + why);
            continue;
        }
        auto add = [&](std::map<int, std::pair<double, std::string>> &side, int link, double rate,
                       const char *way) {
            auto &[sum, ports] = side[link];
            sum += rate;
            ports += (ports.empty() ? "" : ", ") + name + " " + way;
        };
        add(sent, l.tx, p.txRate, "tx");
        add(received, l.rx, p.rxRate, "rx");
    }
    if (sent.empty())
        throw ScenarioError("counters",
            "none of the " + std::to_string(rates.size())
                + " ports maps to a fabric link: name the servers as the scenario does, or "
                  "give a mapping file (--map)"
                + (out.unmapped.empty() ? std::string() : "; first: " + out.unmapped.front()));
    std::map<int, std::pair<double, std::string>> chosen = received;
    for (const auto &[link, value] : sent)
        chosen[link] = value; // the sending end's counter wins
    std::vector<double> measured(static_cast<std::size_t>(fabric.linkCount()), NAN);
    for (const auto &[link, value] : chosen) {
        MeasuredLink m;
        m.link = link;
        m.rate = value.first;
        m.measured = value.first / fabric.linkBandwidth(link);
        m.predicted = report.utilisation(link);
        m.ports = value.second;
        measured[static_cast<std::size_t>(link)] = m.measured;
        out.links.push_back(std::move(m));
    }
    // One divergence per cable: the direction that differs most.
    std::map<int, CounterDivergence> byCable;
    for (const MeasuredLink &m : out.links) {
        CounterDivergence d;
        if (!ccClassify(fabric, m, measured, d))
            continue;
        const int cable = std::min(m.link, fabric.link(m.link).reverse);
        const auto it = byCable.find(cable);
        if (it == byCable.end() || d.score > it->second.score)
            byCable[cable] = std::move(d);
    }
    for (auto &[cable, d] : byCable)
        out.divergences.push_back(std::move(d));
    std::stable_sort(out.divergences.begin(), out.divergences.end(),
        [](const CounterDivergence &a, const CounterDivergence &b) { return a.score > b.score; });
    return out;
}

std::vector<double> measuredUtilisation(const CounterComparison &comparison, int linkCount)
{
    std::vector<double> u(static_cast<std::size_t>(std::max(linkCount, 0)), NAN);
    for (const MeasuredLink &m : comparison.links) {
        if (m.link >= 0 && m.link < linkCount)
            u[static_cast<std::size_t>(m.link)] = m.measured;
    }
    return u;
}

} // namespace railyard
