// FabricView, part 5: Find. Selects a rank, a server, a switch or a link and brings it into
// view at a zoom where it is drawn in detail (FindBar asks; FabricFindIndex resolves the text).
#include "fabricview.h"

#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "legenditem.h"
#include "serveritem.h"
#include "slotitem.h"

#include <boost/graph/adjacency_list.hpp>

#include <algorithm>

namespace railyard {

namespace {

/// The share of the view a found part may fill: the rest shows what it connects to.
constexpr double kFindFill = 0.6;

} // namespace

void FabricView::showSceneRect(const QRectF &sceneRect)
{
    const QRect vp = viewport()->rect();
    const QRectF content = m_scene->sceneRect();
    const double reserve = m_legend->boundingRect().height() + 12.0;
    const double whole = std::min((vp.width() - 4.0) / std::max(1.0, content.width()),
        (vp.height() - reserve - 4.0) / std::max(1.0, content.height()));
    const double fits = std::min(kFindFill * vp.width() / std::max(1.0, sceneRect.width()),
        kFindFill * (vp.height() - reserve) / std::max(1.0, sceneRect.height()));
    const double closest = std::max(readableZoom(), zoom());
    const double s = std::max(whole, std::min(fits, closest));
    m_autoFit = false;
    setTransform(QTransform::fromScale(s, s));
    // The part centred in the room under the legend, even at the scene's edge: the view's
    // scene rectangle reaches as far as that needs (blank margin rather than an off-centre part).
    const QPointF centre = sceneRect.center() - QPointF(0.0, reserve / (2.0 * s));
    const QSizeF view(vp.width() / s, vp.height() / s);
    setSceneRect(content.adjusted(0.0, -reserve / s, 0.0, 0.0)
                     .united(QRectF(centre - QPointF(view.width() / 2, view.height() / 2), view)));
    centerOn(centre);
    updateLevelOfDetail();
    positionLegend();
}

bool FabricView::focusRank(int rank)
{
    const Mapping &mapping = m_document->mapping();
    if (rank < 0 || rank >= mapping.rankCount())
        return false;
    const int slot = mapping.slotOf(rank);
    const int server = m_root->fabric().serverOfSlot(slot);
    if (ServerItem *item = m_root->serverItem(server))
        showSceneRect(item->sceneBoundingRect());
    selectRank(rank);
    return true;
}

bool FabricView::focusServer(int server)
{
    const Fabric &f = m_root->fabric();
    if (server < 0 || server >= f.servers())
        return false;
    std::vector<int> links;
    for (int nic = 0; nic < f.nicsPerServer(); ++nic) {
        const auto v = static_cast<FabricVertex>(f.nicVertex(server, nic));
        for (const auto &e : boost::make_iterator_range(boost::out_edges(v, f.graph())))
            if (f.link(f.graph()[e].id).tier != Tier::Pcie
                && f.link(f.graph()[e].id).tier != Tier::ScaleUp)
                links.push_back(f.graph()[e].id);
    }
    setEmphasis(links,
        tr("found: %1 and its NIC uplinks").arg(QString::fromStdString(f.serverName(server))));
    showSceneRect(m_root->mapRectToScene(m_root->layout().serverRect(server)));
    say(tr("Server %1").arg(QString::fromStdString(f.serverName(server))));
    return true;
}

bool FabricView::focusSwitch(int vertex)
{
    const Fabric &f = m_root->fabric();
    if (vertex < 0 || vertex >= static_cast<int>(boost::num_vertices(f.graph())))
        return false;
    const QRectF rect = m_root->layout().switchRect(vertex);
    if (rect.isEmpty())
        return false; // not a leaf, spine or super-spine
    std::vector<int> links;
    for (const auto &e :
        boost::make_iterator_range(boost::out_edges(static_cast<FabricVertex>(vertex), f.graph())))
        links.push_back(f.graph()[e].id);
    const QString name = QString::fromStdString(f.node(vertex).name);
    setEmphasis(links, tr("found: %1 and its links").arg(name));
    showSceneRect(m_root->mapRectToScene(rect));
    say(tr("Switch %1").arg(name));
    return true;
}

bool FabricView::focusLink(int link, const QString &caption)
{
    const Fabric &f = m_root->fabric();
    if (link < 0 || link >= f.linkCount())
        return false;
    const FabricLink &l = f.link(link);
    QRectF rect;
    const QPolygonF &path = m_root->layout().cablePath(link >> 1);
    if (!path.isEmpty()) {
        rect = path.boundingRect();
    } else {
        // Inside a server (NVLink, PCIe): the server it belongs to.
        const int server = f.node(l.src).server >= 0 ? f.node(l.src).server : f.node(l.dst).server;
        if (server >= 0)
            rect = m_root->layout().serverRect(server);
    }
    setEmphasis({ link }, caption);
    if (!rect.isEmpty())
        showSceneRect(m_root->mapRectToScene(rect));
    say(QString::fromStdString(f.linkName(link)));
    return true;
}

int FabricView::showEcmpCollisions()
{
    const EcmpReport *e = m_document->ecmpReport();
    std::vector<int> links;
    if (e)
        for (const EcmpLinkFigure &f : e->links)
            if (f.collision)
                links.push_back(f.link);
    if (links.empty()) {
        clearEmphasis();
        return 0;
    }
    setEmphasis(links,
        tr("hot by collision: %n link(s) carrying %1 times their even share or more in the "
           "worst of %2 hashed seeds",
            nullptr, static_cast<int>(links.size()))
            .arg(EcmpLinkFigure::kCollisionRatio)
            .arg(e->routing.seeds));
    return static_cast<int>(links.size());
}

} // namespace railyard
