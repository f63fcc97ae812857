#include "linkitem.h"

#include "colorscale.h"
#include "fabricitem.h"
#include "document/scenariodocument.h"

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
    for (qsizetype i = 0; i + 1 < path.size(); ++i) {
        const QLineF segment(path[i], path[i + 1]);
        m_segments.append(segment);
        (segment.dx() == 0.0 || segment.dy() == 0.0 ? m_straight : m_slanted).append(segment);
    }
    setZValue(-1.0); // behind servers and switches: the cables show in the gaps
    setAcceptedMouseButtons(Qt::NoButton);
}

double LinkItem::utilisation(int direction) const
{
    const int link = forwardLink() + (direction == 0 ? 0 : 1);
    if (link >= static_cast<int>(m_root->document()->report().links.size()))
        return 0.0;
    return m_root->shownUtilisation(link);
}

void LinkItem::setBottleneck(bool bottleneck)
{
    if (bottleneck == m_bottleneck)
        return;
    m_bottleneck = bottleneck;
    updateZ();
    update();
}

void LinkItem::setEmphasised(bool emphasised)
{
    if (emphasised == m_emphasised)
        return;
    m_emphasised = emphasised;
    updateZ();
    update();
}

void LinkItem::updateZ()
{
    // Behind servers and switches (cables show in the gaps) unless emphasised; the bottleneck
    // and a focused rank's routes above the other cables.
    setZValue(m_emphasised ? kEmphasisZ : m_bottleneck ? -0.5 : (m_routeMask ? -0.7 : -1.0));
}

QColor LinkItem::lineColour() const
{
    const double worst = worstUtilisation();
    QColor colour = ColorScale::utilisationColour(worst, m_root->maxUtilisation());
    if (!(worst > 0.0))
        colour.setAlpha(m_routeMask || m_emphasised ? 255 : 120); // idle cables recede
    return colour;
}

void LinkItem::setRouteMask(unsigned mask)
{
    if (mask == m_routeMask)
        return;
    m_routeMask = mask;
    updateZ();
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
    // At most 1 px there: the raster engine's cosmetic stroker draws those several times
    // faster than any wider line, and a large fabric repaints 1,500 cables per drop.
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const double loadedWidth = lod < 0.45 ? 1.0 : (lod < 0.8 ? 1.6 : 2.2);
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
    if (m_emphasised) {
        // An outline with a white core: distinct from the load scale, which stays readable
        // inside it (the emphasis never changes a link's load colour).
        QPen outline(FabricItem::emphasisColour(), 8.0, Qt::SolidLine, Qt::SquareCap);
        outline.setCosmetic(true);
        painter->setPen(outline);
        painter->drawLines(m_segments);
        QPen core(Qt::white, 4.5, Qt::SolidLine, Qt::SquareCap);
        core.setCosmetic(true);
        painter->setPen(core);
        painter->drawLines(m_segments);
    }
    const QColor colour = lineColour();
    // Square-capped segments, not a joined polyline: the raster engine draws a thick cosmetic
    // line segment with its scanline rasteriser (QRasterPaintEngine::stroke, LinesHint), but
    // strokes a polyline into a path and fills that, ~10x slower. The caps cover the joints.
    const double width = worst > 0.0 ? loadedWidth : 1.0;
    QPen pen(colour, m_emphasised ? std::max(width, 2.5) : width, Qt::SolidLine, Qt::SquareCap);
    pen.setCosmetic(true);
    painter->setPen(pen);
    // Axis-aligned runs (most of a NIC cable's length, up its rack) look the same without
    // antialiasing, only crisper, and rasterise several times faster.
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->drawLines(m_straight);
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->drawLines(m_slanted);
}

} // namespace railyard
