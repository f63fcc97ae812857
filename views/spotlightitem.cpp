#include "spotlightitem.h"

#include "fabricitem.h"
#include "fabriclayout.h"

#include <QPainter>

#include <algorithm>

namespace railyard {

namespace {

/// How much of the rest of the fabric the veil hides: enough that the lit group reads at once
/// from the back of a room, little enough that the fabric stays recognisable around it.
constexpr int kVeilAlpha = 185;

} // namespace

SpotlightItem::SpotlightItem(const FabricItem *root)
    : m_root(root)
{
    setAcceptedMouseButtons(Qt::NoButton);
    setZValue(880.0); // over the fabric, under the stage's names (890) and the notes (900)
    setVisible(false);
}

void SpotlightItem::clear()
{
    prepareGeometryChange();
    m_active = false;
    m_slots.clear();
    m_links.clear();
    m_veil = m_routes = m_chips = QPainterPath();
    m_bounds = QRectF();
    setVisible(false);
}

void SpotlightItem::setGroup(
    const std::vector<int> &slots, const std::vector<int> &links, const QColor &colour)
{
    clear();
    const Fabric &f = m_root->fabric();
    const FabricLayout &layout = m_root->layout();
    m_active = true;
    m_colour = colour;
    for (int s : slots)
        if (s >= 0 && s < f.slotCount())
            m_slots.push_back(s);
    for (int l : links)
        if (l >= 0 && l < f.linkCount())
            m_links.push_back(l);
    const auto chipOf = [&](int slot) {
        return m_root->mapRectToScene(
            layout.slotRect(f.gpuOfSlot(slot)).translated(layout.serverPos(f.serverOfSlot(slot))));
    };
    m_bounds = m_root->mapRectToScene(layout.bounds()).adjusted(-2000, -2000, 2000, 2000);
    QPainterPath holes;
    for (int s : std::as_const(m_slots)) {
        const QRectF chip = chipOf(s).adjusted(-2, -2, 2, 2);
        holes.addRoundedRect(chip, 3, 3);
        m_chips.addRoundedRect(chip, 3, 3);
    }
    m_veil.addRect(m_bounds);
    m_veil = m_veil.subtracted(holes);
    for (int l : std::as_const(m_links)) {
        const QPolygonF &path = layout.cablePath(l >> 1);
        if (path.size() >= 2) {
            m_routes.addPolygon(m_root->mapToScene(path));
            continue;
        }
        // A link inside a server (a GPU to its NVSwitch): from the chip to the server's bar.
        const FabricLink &link = f.link(l);
        for (const int v : { link.src, link.dst }) {
            const FabricNode &n = f.node(v);
            if (n.kind != NodeKind::Gpu || n.server < 0)
                continue;
            const int slot = n.server * f.gpusPerServer() + n.local;
            const QRectF bar
                = m_root->mapRectToScene(layout.barRect().translated(layout.serverPos(n.server)));
            m_routes.moveTo(chipOf(slot).center());
            m_routes.lineTo(QPointF(chipOf(slot).center().x(), bar.center().y()));
        }
    }
    setVisible(true);
    update();
}

void SpotlightItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    if (!m_active)
        return;
    painter->setRenderHint(QPainter::Antialiasing);
    painter->fillPath(m_veil, QColor(255, 255, 255, kVeilAlpha));
    QPen route(m_colour, 4.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
    route.setCosmetic(true);
    painter->setPen(route);
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(m_routes);
    QPen ring(m_colour, 3.0);
    ring.setCosmetic(true);
    painter->setPen(ring);
    painter->drawPath(m_chips);
}

} // namespace railyard
