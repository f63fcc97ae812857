// FabricItem, part 2: what the application lays over the engine's picture (emphasised links,
// links coloured by external values, failed servers and slots). None of it is the document's:
// the view only draws the ids and values it is given.
#include "fabricitem.h"

#include "bundleitem.h"
#include "document/scenariodocument.h"
#include "linkitem.h"
#include "serveritem.h"
#include "slotitem.h"
#include "switchitem.h"

#include <cmath>

namespace railyard {

double FabricItem::shownUtilisation(int link) const
{
    if (m_overlayOn) {
        const auto it = m_overlay.find(link);
        return it != m_overlay.end() && it->second > 0.0 ? it->second : 0.0;
    }
    const CostReport &r = m_document->report();
    if (!m_jobOthers.empty() && link >= 0 && static_cast<std::size_t>(link) < m_jobOthers.size()
        && static_cast<std::size_t>(link) < r.links.size() && m_jobIteration > 0.0) {
        const double bandwidth = m_fabric->linkBandwidth(link);
        const double own = bandwidth > 0.0
            ? r.links[static_cast<std::size_t>(link)].bytes / (bandwidth * m_jobIteration)
            : 0.0;
        return m_jobOthers[static_cast<std::size_t>(link)] + own;
    }
    return r.utilisation(link);
}

void FabricItem::setJobLoads(std::vector<double> othersUtilisation, double activeIteration)
{
    if (othersUtilisation.size() != static_cast<std::size_t>(m_fabric->linkCount()))
        othersUtilisation.clear(); // another fabric's figures (a rebuild is on its way)
    if (othersUtilisation == m_jobOthers && activeIteration == m_jobIteration)
        return;
    m_jobOthers = std::move(othersUtilisation);
    m_jobIteration = activeIteration;
    recolour(ReportChange { {}, true, false }, true);
}

void FabricItem::setEmphasis(const std::vector<int> &linkIds, const QString &caption)
{
    applyEmphasis(false);
    m_emphasis.clear();
    for (int id : linkIds) {
        if (id >= 0 && id < m_fabric->linkCount())
            m_emphasis.push_back(id);
    }
    m_emphasisCaption = m_emphasis.empty() ? QString() : caption;
    applyEmphasis(true);
    Q_EMIT legendChanged();
}

void FabricItem::applyEmphasis(bool on)
{
    const Fabric &f = *m_fabric;
    for (int id : m_emphasis) {
        const FabricLink &l = f.link(id);
        if (l.tier == Tier::ScaleUp || l.tier == Tier::Pcie) {
            const FabricNode &gpu = f.node(f.node(l.src).kind == NodeKind::Gpu ? l.src : l.dst);
            if (ServerItem *server = serverItem(gpu.server))
                server->setLinkEmphasised(gpu.local, l.tier == Tier::ScaleUp, on);
        } else {
            if (LinkItem *item = m_links.value(id >> 1))
                item->setEmphasised(on);
            const int line = m_cableLine[static_cast<std::size_t>(id >> 1)];
            if (BundleItem *bundle = bundleItem(l.tier); bundle && line >= 0)
                bundle->setEmphasised(line, on);
        }
        // Its endpoints: switches, NICs, GPUs, the NVSwitch.
        for (int vertex : { l.src, l.dst }) {
            const FabricNode &n = f.node(vertex);
            switch (n.kind) {
            case NodeKind::Gpu:
                if (SlotItem *slot = slotItem(n.server * f.gpusPerServer() + n.local))
                    slot->setEmphasised(on);
                break;
            case NodeKind::Nic:
                if (ServerItem *server = serverItem(n.server))
                    server->setNicEmphasised(n.local, on);
                break;
            case NodeKind::ScaleUpSwitch:
                if (ServerItem *server = serverItem(n.server))
                    server->setBarEmphasised(on);
                break;
            default:
                if (SwitchItem *sw = switchItem(vertex))
                    sw->setEmphasised(on);
                break;
            }
        }
    }
    updateOverview(); // the blocks read the switches' emphasis again; cheap when not zoomed out
}

void FabricItem::setLinkOverlay(std::unordered_map<int, double> valueByLink, const QString &title)
{
    m_overlay = std::move(valueByLink);
    m_overlayTitle = title.isEmpty() ? QStringLiteral("Overlay") : title;
    m_overlayOn = true;
    recolour(ReportChange {}, true);
}

int FabricItem::overlayPeakLink() const
{
    int peak = -1;
    double top = 0.0;
    for (const auto &[link, value] : m_overlay)
        if (value > top || (value == top && value > 0.0 && link < peak)) {
            peak = link;
            top = value;
        }
    return m_overlayOn ? peak : -1;
}

void FabricItem::clearLinkOverlay()
{
    if (!m_overlayOn)
        return;
    m_overlayOn = false;
    m_overlay.clear();
    m_overlayTitle.clear();
    recolour(ReportChange {}, true);
}

void FabricItem::setMeasuredUtilisation(std::vector<double> measured)
{
    m_measured = std::move(measured);
    if (static_cast<int>(m_measured.size()) != m_fabric->linkCount())
        m_measured.clear(); // another fabric's values: they name other links
    if (!m_measuredShown)
        return; // nothing shows them yet
    recolour(ReportChange {}, true);
    repaintCables();
}

void FabricItem::setMeasuredShown(bool shown)
{
    if (shown == m_measuredShown)
        return;
    m_measuredShown = shown;
    recolour(ReportChange {}, true); // the range is absolute while measurements show
    repaintCables();
    Q_EMIT legendChanged();
}

double FabricItem::measuredUtilisation(int link) const
{
    return link >= 0 && link < static_cast<int>(m_measured.size())
        ? m_measured[static_cast<std::size_t>(link)]
        : std::nan("");
}

void FabricItem::repaintCables()
{
    for (LinkItem *item : std::as_const(m_links))
        item->syncWithModel();
}

void FabricItem::markFailed(const std::vector<int> &servers, const std::vector<int> &slots)
{
    applyFailed(false);
    m_failedServers = servers;
    m_failedSlots = slots;
    applyFailed(true);
}

void FabricItem::applyFailed(bool on)
{
    for (int server : m_failedServers) {
        if (ServerItem *item = serverItem(server))
            item->setFailed(on);
    }
    for (int slot : m_failedSlots) {
        if (SlotItem *item = slotItem(slot))
            item->setFailed(on);
    }
    updateOverview(); // the blocks read the marks again; cheap when not zoomed out
}

} // namespace railyard
