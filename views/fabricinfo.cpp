#include "fabricinfo.h"

#include "base/quantityformat.h"
#include "document/scenariodocument.h"
#include "io/reportjson.h"
#include "scenario/devicepools.h"

#include <algorithm>

namespace railyard {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

QString qs(std::string_view s)
{
    return QString::fromLatin1(s.data(), static_cast<int>(s.size()));
}

QString utilisationPercent(double u)
{
    const double p = u * 100.0;
    return QString::number(p, 'f', p > 0.0 && p < 1.0 ? 2 : 1) + QStringLiteral(" %");
}

QString tierLabel(Tier t)
{
    switch (t) {
    case Tier::ScaleUp:
        return QStringLiteral("scale-up (NVLink)");
    case Tier::Pcie:
        return QStringLiteral("PCIe (GPU↔NIC)");
    case Tier::Leaf:
        return QStringLiteral("NIC↔leaf");
    case Tier::Spine:
        return QStringLiteral("leaf↔spine");
    case Tier::SuperSpine:
        return QStringLiteral("spine↔super-spine");
    }
    return {};
}

/// One direction as a table row: name, bytes/iteration, utilisation, busy time, top dimension.
QString directionRow(const ScenarioDocument &doc, int link, bool worse)
{
    const CostReport &r = doc.report();
    const Fabric &f = doc.engine().fabric();
    if (link < 0 || link >= static_cast<int>(r.links.size()))
        return {};
    const LinkLoad &load = r.links[static_cast<std::size_t>(link)];
    const QString top
        = load.bytes > 0.0 ? qs(dimName(load.topDim())).toUpper() : QStringLiteral("—");
    const QString style = worse ? QStringLiteral(" style='font-weight:bold'") : QString();
    return QStringLiteral("<tr%1><td>%2</td><td align=right>%3</td><td align=right>%4</td>"
                          "<td align=right>%5</td><td align=center>%6</td></tr>")
        .arg(style, qs(f.linkName(link)).toHtmlEscaped(), qs(formatBytes(load.bytes)),
            utilisationPercent(r.utilisation(link)), qs(formatSeconds(load.busyTime)), top);
}

/// Hashed ECMP's account of both directions of a cable: hot by collision ("N flows hashed onto
/// this uplink while its M siblings carry X on average") or its spread over the seeds.
QString ecmpLines(const EcmpReport &e, const Fabric &f, int forward)
{
    QString html;
    for (const int id : { forward, forward ^ 1 }) {
        const auto it = std::find_if(
            e.links.begin(), e.links.end(), [id](const EcmpLinkFigure &x) { return x.link == id; });
        if (it == e.links.end())
            continue;
        const QString what = id == forward ? QStringLiteral("uplink") : QStringLiteral("downlink");
        if (it->collision)
            html += QStringLiteral("<br><span style='color:#e8590c'><b>hot by collision</b> — %1 "
                                   "flows hashed onto this %2 while its %3 siblings carry %4/iter "
                                   "on average (%5 flows each): %6/iter in the worst of %7 seeds "
                                   "against an even split of %8/iter</span>")
                        .arg(it->flows)
                        .arg(what)
                        .arg(it->siblings)
                        .arg(qs(formatBytes(it->siblingMeanBytes)))
                        .arg(it->siblingMeanFlows, 0, 'f', 1)
                        .arg(qs(formatBytes(it->worstBytes)))
                        .arg(e.routing.seeds)
                        .arg(qs(formatBytes(it->idealBytes)));
        else
            html += QStringLiteral("<br>hashed ECMP, %1 %2: even split %3/iter, expected %4, p99 "
                                   "%5 — no collision (hot only by design)")
                        .arg(qs(f.linkName(id)), what, qs(formatBytes(it->idealBytes)),
                            qs(formatBytes(it->expectedBytes)), qs(formatBytes(it->p99Bytes)));
    }
    return html;
}

/// Mixed devices: "h200, 141 GB HBM" for a server of a fabric with device pools, else "".
QString mixedDeviceText(const ScenarioDocument &doc, int server)
{
    const Scenario &s = doc.scenario();
    if (s.fabric.devicePools.empty() || server < 0 || server >= s.fabric.servers)
        return {};
    const ServerDevices devices = serverDevices(s.fabric, s.device);
    if (!devices.mixed())
        return {};
    const DeviceSpec &d = devices.ofServer(server);
    return QStringLiteral("%1, %2 HBM").arg(qs(d.name), qs(formatBytes(d.hbmBytes)));
}

QString linkTable(const ScenarioDocument &doc, int forward)
{
    const CostReport &r = doc.report();
    const Fabric &f = doc.engine().fabric();
    const FabricLink &l = f.link(forward);
    const bool upWorse = r.utilisation(forward) >= r.utilisation(forward ^ 1);
    QString html
        = QStringLiteral("<b>%1</b> · %2 · %3 Gb/s per direction")
              .arg(tierLabel(l.tier))
              .arg(l.ports > 1 ? QStringLiteral("%1 ports").arg(l.ports) : QStringLiteral("1 port"))
              .arg(bytesPerSecondToGbps(l.bandwidth), 0, 'f', 0);
    html += QStringLiteral("<table cellspacing=0 cellpadding=2>"
                           "<tr><th align=left>direction</th><th>bytes/iter</th><th>util</th>"
                           "<th>busy</th><th>top</th></tr>");
    html += directionRow(doc, forward, upWorse);
    html += directionRow(doc, forward ^ 1, !upWorse);
    html += QStringLiteral("</table>");
    // Rail-only (and PXN) fabrics forward cross-rail sends between servers over NVLink to a
    // proxy GPU (router.cpp): their bytes keep their dimension, so a scale-up link's DP and PP
    // bytes include that forwarding (or are a pipeline boundary inside the domain).
    if (l.tier == Tier::ScaleUp && (f.railOnly() || f.spec().pxn)) {
        double carried = 0.0;
        for (const int id : { forward, forward ^ 1 })
            carried += r.links[static_cast<std::size_t>(id)].dimBytes[index(Dim::Dp)]
                + r.links[static_cast<std::size_t>(id)].dimBytes[index(Dim::Pp)];
        if (carried > 0.0)
            html += QStringLiteral("<br>%1 of DP/PP bytes per iteration: cross-rail sends "
                                   "forwarded over NVLink to the GPU on the destination rail "
                                   "(%2), or pipeline boundaries inside the domain")
                        .arg(qs(formatBytes(carried)),
                            f.railOnly() ? QStringLiteral("rail-only: no spine")
                                         : QStringLiteral("PXN"));
    }
    if (const EcmpReport *e = doc.ecmpReport())
        html += ecmpLines(*e, f, forward);
    if (r.bottleneckLink >= 0 && (r.bottleneckLink | 1) == (forward | 1))
        html += QStringLiteral("<br><span style='color:#c92a2a'><b>bottleneck</b> — the most "
                               "utilised link of the fabric</span>");
    return html;
}

} // namespace

QString FabricInfo::cableToolTip(const ScenarioDocument &doc, int cable)
{
    return linkTable(doc, cable * 2);
}

QString FabricInfo::internalLinkToolTip(const ScenarioDocument &doc, int link)
{
    return linkTable(doc, link & ~1);
}

QString FabricInfo::cableStatus(const ScenarioDocument &doc, int cable)
{
    const CostReport &r = doc.report();
    const Fabric &f = doc.engine().fabric();
    const int up = cable * 2;
    if (up + 1 >= static_cast<int>(r.links.size()))
        return {};
    const int link = r.utilisation(up) >= r.utilisation(up + 1) ? up : up + 1;
    const LinkLoad &load = r.links[static_cast<std::size_t>(link)];
    QString s = QStringLiteral("%1: %2/iter, %3 busy (%4)")
                    .arg(qs(f.linkName(link)), qs(formatBytes(load.bytes)),
                        utilisationPercent(r.utilisation(link)), qs(formatSeconds(load.busyTime)));
    if (load.bytes > 0.0)
        s += QStringLiteral(", mostly %1").arg(qs(dimName(load.topDim())).toUpper());
    return s;
}

namespace {

/// "leaf-su3-rail2 uplinks (32 cables)" for the aggregate of `cables`.
QString bundleTitle(const ScenarioDocument &doc, const std::vector<int> &cables)
{
    const Fabric &f = doc.engine().fabric();
    const FabricLink &l = f.link(2 * cables.front());
    const QString n = QString::number(cables.size());
    if (l.tier == Tier::Leaf)
        return QStringLiteral("%1 NIC cables of a rack to %2").arg(n, qs(f.node(l.dst).name));
    return QStringLiteral("%1 uplinks of %2 (%3)")
        .arg(n, qs(f.node(l.src).name), tierLabel(l.tier));
}

/// Cables sorted by their worse direction's utilisation, highest first.
std::vector<std::pair<double, int>> worstFirst(
    const ScenarioDocument &doc, const std::vector<int> &cables)
{
    const CostReport &r = doc.report();
    std::vector<std::pair<double, int>> order;
    for (int c : cables) {
        const int link = r.utilisation(2 * c) >= r.utilisation(2 * c + 1) ? 2 * c : 2 * c + 1;
        order.emplace_back(r.utilisation(link), link);
    }
    std::stable_sort(
        order.begin(), order.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    return order;
}

} // namespace

QString FabricInfo::bundleStatus(const ScenarioDocument &doc, const std::vector<int> &cables)
{
    if (cables.empty())
        return {};
    const auto order = worstFirst(doc, cables);
    return QStringLiteral("%1: worst %2 at %3")
        .arg(bundleTitle(doc, cables), qs(doc.engine().fabric().linkName(order.front().second)),
            utilisationPercent(order.front().first));
}

QString FabricInfo::bundleToolTip(const ScenarioDocument &doc, const std::vector<int> &cables)
{
    if (cables.empty())
        return {};
    const CostReport &r = doc.report();
    const auto order = worstFirst(doc, cables);
    double bytes = 0.0;
    for (int c : cables)
        bytes += r.links[static_cast<std::size_t>(2 * c)].bytes
            + r.links[static_cast<std::size_t>(2 * c + 1)].bytes;
    QString html = QStringLiteral("<b>%1</b> · %2/iter in total<br>drawn as one line in the "
                                  "colour of its busiest cable")
                       .arg(bundleTitle(doc, cables).toHtmlEscaped(), qs(formatBytes(bytes)));
    html += QStringLiteral("<table cellspacing=0 cellpadding=2>"
                           "<tr><th align=left>busiest directions</th><th>bytes/iter</th>"
                           "<th>util</th><th>busy</th><th>top</th></tr>");
    const std::size_t shown = std::min<std::size_t>(order.size(), 5);
    for (std::size_t i = 0; i < shown; ++i)
        html += directionRow(doc, order[i].second, i == 0);
    html += QStringLiteral("</table>");
    if (order.size() > shown)
        html += QStringLiteral("… and %1 more").arg(order.size() - shown);
    return html;
}

QString FabricInfo::rankLabel(const ScenarioDocument &doc, int rank)
{
    const ParallelLayout &layout = doc.engine().layout();
    const RankCoord c = layout.coord(rank);
    QString s = QStringLiteral("rank %1 (d=%2, p=%3, t=%4").arg(rank).arg(c.d).arg(c.p).arg(c.t);
    if (layout.degrees().cp > 1)
        s += QStringLiteral(", c=%1").arg(c.c);
    if (layout.degrees().ep > 1)
        s += QStringLiteral(", e=%1").arg(c.e);
    return s + QLatin1Char(')');
}

QString FabricInfo::slotName(const ScenarioDocument &doc, int slot)
{
    const Fabric &f = doc.engine().fabric();
    return qs(f.node(f.gpuVertex(slot)).name);
}

QString FabricInfo::slotStatus(const ScenarioDocument &doc, int slot)
{
    const Fabric &f = doc.engine().fabric();
    const int rank = doc.mapping().rankAt(slot);
    QString where = slotName(doc, slot);
    if (f.railCount() > 0)
        where += QStringLiteral(" · rail %1").arg(f.railOfSlot(slot));
    const QString device = mixedDeviceText(doc, f.serverOfSlot(slot));
    if (!device.isEmpty())
        where += QStringLiteral(" · ") + device;
    if (rank < 0)
        return QStringLiteral("%1: empty slot").arg(where);
    return QStringLiteral("%1 on %2").arg(rankLabel(doc, rank), where);
}

QString FabricInfo::slotToolTip(const ScenarioDocument &doc, int slot)
{
    const Fabric &f = doc.engine().fabric();
    const CostReport &r = doc.report();
    QString html = QStringLiteral("<b>%1</b>").arg(slotStatus(doc, slot).toHtmlEscaped());
    const int gpu = f.gpuVertex(slot);
    const int server = f.serverOfSlot(slot);
    const int up = f.linkBetween(gpu, f.scaleUpVertex(server));
    const int pcie = f.linkBetween(gpu, f.nicVertex(server, f.nicOfGpu(f.gpuOfSlot(slot))));
    html += QStringLiteral("<table cellspacing=0 cellpadding=2>");
    for (const auto &[label, link] : { std::pair(QStringLiteral("NVLink port"), up),
             std::pair(QStringLiteral("PCIe to NIC"), pcie) }) {
        if (link < 0)
            continue;
        const LinkLoad &a = r.links[static_cast<std::size_t>(link)];
        const LinkLoad &b = r.links[static_cast<std::size_t>(link ^ 1)];
        html += QStringLiteral("<tr><td>%1</td><td>out %2 (%3)</td><td>in %4 (%5)</td></tr>")
                    .arg(label, qs(formatBytes(a.bytes)), utilisationPercent(r.utilisation(link)),
                        qs(formatBytes(b.bytes)), utilisationPercent(r.utilisation(link ^ 1)));
    }
    html += QStringLiteral("</table><i>drag to move or swap · hover shows partners</i>");
    return html;
}

QString FabricInfo::serverToolTip(const ScenarioDocument &doc, int server)
{
    const Fabric &f = doc.engine().fabric();
    QStringList ranks;
    for (int g = 0; g < f.gpusPerServer(); ++g) {
        const int rank = doc.mapping().rankAt(server * f.gpusPerServer() + g);
        ranks << (rank >= 0 ? QString::number(rank) : QStringLiteral("–"));
    }
    const QString device = mixedDeviceText(doc, server);
    const QString name = qs(f.serverName(server)).toHtmlEscaped()
        + (device.isEmpty() ? QString() : QStringLiteral(" · ") + device.toHtmlEscaped());
    return QStringLiteral("<b>%1</b><br>ranks on GPU 0..%2: %3<br><i>drag this bar onto another "
                          "server to move all its ranks (one undo step)</i>")
        .arg(name)
        .arg(f.gpusPerServer() - 1)
        .arg(ranks.join(QStringLiteral(", ")));
}

QString FabricInfo::switchToolTip(const ScenarioDocument &doc, int vertex)
{
    const Fabric &f = doc.engine().fabric();
    const CostReport &r = doc.report();
    const FabricNode &n = f.node(vertex);
    // Busiest port of the switch, both ways (read from the report, not recomputed).
    double worst = 0.0;
    int worstLink = -1;
    int ports = 0;
    const auto &g = f.graph();
    for (auto [it, end] = boost::out_edges(static_cast<FabricVertex>(vertex), g); it != end; ++it) {
        const int id = g[*it].id;
        ports += f.link(id).ports;
        for (int link : { id, id ^ 1 }) {
            if (r.utilisation(link) > worst) {
                worst = r.utilisation(link);
                worstLink = link;
            }
        }
    }
    QString html = QStringLiteral("<b>%1</b><br>%2 ports in use").arg(qs(n.name)).arg(ports);
    if (worstLink >= 0)
        html += QStringLiteral("<br>busiest: %1 at %2")
                    .arg(qs(f.linkName(worstLink)).toHtmlEscaped(), utilisationPercent(worst));
    return html;
}

QString FabricInfo::iterationDelta(double before, double after)
{
    const double change = before > 0.0 ? (after - before) / before * 100.0 : 0.0;
    return QStringLiteral("iteration %1 → %2 (%3%4 %)")
        .arg(qs(formatSeconds(before)), qs(formatSeconds(after)),
            change >= 0.0 ? QStringLiteral("+") : QString())
        .arg(change, 0, 'f', 1);
}

} // namespace railyard
