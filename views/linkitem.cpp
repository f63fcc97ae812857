#include "linkitem.h"

#include "colorscale.h"
#include "fabricitem.h"
#include "scenariodocument.h"

#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>

namespace railyard {

namespace {
// Pens are cosmetic (constant on screen); link items are only visible at zoom >= the
// overview threshold, so this scene margin covers the widest pen (the glow) there.
constexpr double kMargin = 40.0;
} // namespace

LinkItem::LinkItem(const FabricItem *root, int cable, const QPolygonF &path)
    : m_root(root)
    , m_cable(cable)
    , m_path(path)
{
    m_bounds = path.boundingRect().adjusted(-kMargin, -kMargin, kMargin, kMargin);
    setZValue(-1.0); // behind servers and switches: the cables show in the gaps
    setAcceptedMouseButtons(Qt::NoButton);
}

void LinkItem::syncWithModel()
{
    const CostReport &report = m_root->document()->report();
    const int fwd = forwardLink();
    if (fwd + 1 >= static_cast<int>(report.links.size()))
        return;
    const double up = report.utilisation(fwd), down = report.utilisation(fwd + 1);
    if (up == m_up && down == m_down)
        return;
    m_up = up;
    m_down = down;
    update();
}

void LinkItem::setBottleneck(bool bottleneck)
{
    if (bottleneck == m_bottleneck)
        return;
    m_bottleneck = bottleneck;
    setZValue(bottleneck ? -0.5 : -1.0);
    update();
}

void LinkItem::setRouteMask(unsigned mask)
{
    if (mask == m_routeMask)
        return;
    m_routeMask = mask;
    setZValue(m_bottleneck ? -0.5 : (mask ? -0.7 : -1.0));
    update();
}

QRectF LinkItem::boundingRect() const
{
    return m_bounds;
}

QPainterPath LinkItem::shape() const
{
    if (m_shape.isEmpty()) {
        QPainterPath p;
        p.addPolygon(m_path);
        QPainterPathStroker stroker;
        stroker.setWidth(5.0);
        m_shape = stroker.createStroke(p);
    }
    return m_shape;
}

void LinkItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    // Thinner lines when zoomed out, so a fan of 100+ cables stays a fan, not a solid wedge.
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const double loadedWidth = lod < 0.45 ? 1.2 : (lod < 0.8 ? 1.6 : 2.2);
    painter->setRenderHint(QPainter::Antialiasing, true);
    const double worst = worstUtilisation();
    if (m_bottleneck) {
        QPen glow(QColor(0xe0, 0x31, 0x31, 90), 11.0, Qt::SolidLine, Qt::RoundCap,
                  Qt::RoundJoin);
        glow.setCosmetic(true);
        painter->setPen(glow);
        painter->drawPolyline(m_path);
    }
    for (Dim d : {Dim::Dp, Dim::Pp, Dim::Ep, Dim::Cp, Dim::Tp}) {
        if (m_routeMask & (1u << index(d))) {
            QColor c = ColorScale::dimColour(d);
            c.setAlpha(150);
            QPen under(c, 6.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
            under.setCosmetic(true);
            painter->setPen(under);
            painter->drawPolyline(m_path);
            break;
        }
    }
    QColor colour = ColorScale::utilisationColour(worst, m_root->maxUtilisation());
    if (!(worst > 0.0))
        colour.setAlpha(m_routeMask ? 255 : 120); // idle cables recede
    QPen pen(colour, worst > 0.0 ? loadedWidth : 1.0, Qt::SolidLine, Qt::FlatCap, Qt::RoundJoin);
    pen.setCosmetic(true);
    painter->setPen(pen);
    painter->drawPolyline(m_path);
}

} // namespace railyard
