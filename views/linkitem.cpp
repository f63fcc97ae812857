#include "linkitem.h"

#include "cablelayeritem.h"
#include "colorscale.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"

#include <QPainterPathStroker>

#include <cmath>

namespace railyard {

namespace {
// As the cable layer's margin: the widest pen (the bottleneck's glow) at the smallest zoom
// cables are drawn at.
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
    setFlag(ItemHasNoContents); // the cable layer draws it
}

void LinkItem::syncWithModel()
{
    repaint();
}

void LinkItem::repaint()
{
    if (CableLayerItem *layer = m_root->cableLayer())
        layer->updateCable(m_cable);
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
    repaint();
}

void LinkItem::setEmphasised(bool emphasised)
{
    if (emphasised == m_emphasised)
        return;
    m_emphasised = emphasised;
    updateZ();
    repaint();
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

bool LinkItem::showsMeasured() const
{
    return m_root->measuredShown()
        && (!std::isnan(m_root->measuredUtilisation(forwardLink()))
            || !std::isnan(m_root->measuredUtilisation(reverseLink())));
}

QColor LinkItem::measuredColour() const
{
    double worst = 0.0;
    for (const int link : { forwardLink(), reverseLink() }) {
        const double u = m_root->measuredUtilisation(link);
        if (!std::isnan(u))
            worst = std::max(worst, u);
    }
    return ColorScale::utilisationColour(worst, 1.0);
}

void LinkItem::setRouteMask(unsigned mask)
{
    if (mask == m_routeMask)
        return;
    m_routeMask = mask;
    updateZ();
    repaint();
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

void LinkItem::paint(QPainter *, const QStyleOptionGraphicsItem *, QWidget *)
{
}

} // namespace railyard
