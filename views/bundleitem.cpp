#include "bundleitem.h"

#include "colorscale.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "geometry.h"

#include <QLineF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace railyard {

BundleItem::BundleItem(const FabricItem *root, Tier tier)
    : m_root(root)
    , m_tier(tier)
{
    const auto &all = root->layout().bundles();
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (all[i].tier == tier) {
            m_bundles.push_back(static_cast<int>(i));
            m_bounds |= all[i].path.boundingRect();
            m_lineBounds.push_back(all[i].path.boundingRect().adjusted(-4, -4, 4, 4));
        }
    }
    m_bounds.adjust(-40, -40, 40, 40);
    m_worstCable.assign(m_bundles.size(), -1);
    m_worst.assign(m_bundles.size(), 0.0);
    m_colour.assign(m_bundles.size(), 0);
    m_colourOf.assign(m_bundles.size(), -1.0);
    m_routeMask.assign(m_bundles.size(), 0);
    m_emphasis.assign(m_bundles.size(), 0);
    setZValue(-1.0);
    setAcceptedMouseButtons(Qt::NoButton);
    setFlag(ItemUsesExtendedStyleOption); // for exposedRect culling
    // Thousands of antialiased lines at 131,072 GPUs: a repaint or a pan blits them, a
    // recoloured line repaints its own rectangle (syncLine), a zoom step all of them.
    setCacheMode(DeviceCoordinateCache);
}

void BundleItem::syncWithModel()
{
    for (std::size_t i = 0; i < m_bundles.size(); ++i)
        findWorst(i);
    if (isVisible())
        update();
}

void BundleItem::syncLine(int i)
{
    findWorst(static_cast<std::size_t>(i));
    if (isVisible()) {
        const auto &all = m_root->layout().bundles();
        update(all[static_cast<std::size_t>(m_bundles[static_cast<std::size_t>(i)])]
                   .path.boundingRect()
                   .adjusted(-8, -8, 8, 8));
    }
}

void BundleItem::findWorst(std::size_t i)
{
    const auto &all = m_root->layout().bundles();
    const int links = static_cast<int>(m_root->document()->report().links.size());
    double worst = -1.0;
    m_worstCable[i] = -1;
    for (int cable : all[static_cast<std::size_t>(m_bundles[i])].cables) {
        if (2 * cable + 1 >= links)
            continue;
        const double u = std::max(
            m_root->shownUtilisation(2 * cable), m_root->shownUtilisation(2 * cable + 1));
        if (u > worst) {
            worst = u;
            m_worstCable[i] = cable;
        }
    }
    m_worst[i] = std::max(worst, 0.0);
}

double BundleItem::worstUtilisation(int i) const
{
    return m_worst[static_cast<std::size_t>(i)];
}

int BundleItem::lineAt(const QPointF &scenePos, double tolerance) const
{
    const auto &all = m_root->layout().bundles();
    int best = -1;
    double bestDistance = tolerance;
    for (std::size_t i = 0; i < m_bundles.size(); ++i) {
        const QPolygonF &path = all[static_cast<std::size_t>(m_bundles[i])].path;
        if (!path.boundingRect()
                 .adjusted(-tolerance, -tolerance, tolerance, tolerance)
                 .contains(scenePos))
            continue;
        for (int k = 0; k + 1 < path.size(); ++k) {
            const double d = distanceToSegment(scenePos, path[k], path[k + 1]);
            if (d <= bestDistance) {
                bestDistance = d;
                best = static_cast<int>(i);
            }
        }
    }
    return best;
}

void BundleItem::setRouteMask(int i, unsigned mask)
{
    auto &m = m_routeMask[static_cast<std::size_t>(i)];
    if (m == static_cast<unsigned char>(mask))
        return;
    m = static_cast<unsigned char>(mask);
    if (isVisible())
        update();
}

void BundleItem::clearRouteMasks()
{
    std::fill(m_routeMask.begin(), m_routeMask.end(), 0);
    if (isVisible())
        update();
}

void BundleItem::setEmphasised(int i, bool emphasised)
{
    auto &e = m_emphasis[static_cast<std::size_t>(i)];
    if (bool(e) == emphasised)
        return;
    e = emphasised;
    m_anyEmphasis
        = std::any_of(m_emphasis.begin(), m_emphasis.end(), [](unsigned char x) { return x; });
    if (isVisible())
        update();
}

void BundleItem::clearEmphasis()
{
    if (!m_anyEmphasis)
        return;
    std::fill(m_emphasis.begin(), m_emphasis.end(), 0);
    m_anyEmphasis = false;
    if (isVisible())
        update();
}

QRectF BundleItem::boundingRect() const
{
    return m_bounds;
}

void BundleItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const auto &all = m_root->layout().bundles();
    const double maxUtil = m_root->maxUtilisation();
    const QRectF exposed = option->exposedRect;
    const int bottleneck = m_root->document()->report().bottleneckLink;
    // The line that carries the bottleneck (glows), found once rather than per line and pass.
    std::size_t bottleneckLine = m_bundles.size();
    for (std::size_t i = 0; bottleneck >= 0 && i < m_bundles.size(); ++i) {
        const auto &cables = all[static_cast<std::size_t>(m_bundles[i])].cables;
        if (std::find(cables.begin(), cables.end(), bottleneck / 2) != cables.end()) {
            bottleneckLine = i;
            break;
        }
    }
    const double lod
        = std::max(1e-9, option->levelOfDetailFromTransform(painter->worldTransform()));
    bool antialiased = true;
    painter->setRenderHint(QPainter::Antialiasing, true);
    const auto antialias = [&](bool on) {
        if (on != antialiased)
            painter->setRenderHint(QPainter::Antialiasing, on);
        antialiased = on;
    };
    // Most lines share their pen with the previous one (every idle line does): set a pen
    // only when it differs (a pen change costs the raster engine a state update).
    QRgb lastColour = 0;
    double lastWidth = -1.0;
    // Idle lines first, loaded ones on top, so a hot aggregate is never hidden; emphasised
    // lines last of all.
    for (int pass = 0; pass < (m_anyEmphasis ? 3 : 2); ++pass) {
        for (std::size_t i = 0; i < m_bundles.size(); ++i) {
            const double worst = worstUtilisation(static_cast<int>(i));
            const bool loaded = worst > 0.0;
            const int linePass = m_emphasis[i] ? 2 : (loaded ? 1 : 0);
            if (linePass != pass)
                continue;
            const FabricLayout::Bundle &b = all[static_cast<std::size_t>(m_bundles[i])];
            if (!exposed.isEmpty() && !exposed.intersects(m_lineBounds[i]))
                continue;
            antialias(true); // the glow, route and emphasis pens, and a slanted line
            if (i == bottleneckLine) {
                lastWidth = -1.0;
                QPen glow(QColor(0xe0, 0x31, 0x31, 90), 11.0, Qt::SolidLine, Qt::RoundCap);
                glow.setCosmetic(true);
                painter->setPen(glow);
                painter->drawPolyline(b.path);
            }
            for (Dim d : { Dim::Dp, Dim::Pp, Dim::Ep, Dim::Cp, Dim::Tp }) {
                if (m_routeMask[i] & (1u << index(d))) {
                    QColor c = ColorScale::dimColour(d);
                    c.setAlpha(150);
                    lastWidth = -1.0;
                    QPen under(c, 6.0, Qt::SolidLine, Qt::RoundCap);
                    under.setCosmetic(true);
                    painter->setPen(under);
                    painter->drawPolyline(b.path);
                    break;
                }
            }
            if (m_emphasis[i]) {
                lastWidth = -1.0;
                QPen outline(FabricItem::emphasisColour(), 9.0);
                outline.setCosmetic(true);
                painter->setPen(outline);
                painter->drawPolyline(b.path);
                QPen core(Qt::white, 5.0);
                core.setCosmetic(true);
                painter->setPen(core);
                painter->drawPolyline(b.path);
            }
            // The colour scale's result, kept per line while its load and the range stay.
            if (m_colourRange != maxUtil) {
                m_colourRange = maxUtil;
                std::fill(m_colourOf.begin(), m_colourOf.end(), -1.0);
            }
            if (m_colourOf[i] != worst) {
                m_colourOf[i] = worst;
                m_colour[i] = ColorScale::utilisationColour(worst, maxUtil).rgba();
            }
            QColor c = QColor::fromRgba(m_colour[i]);
            if (!loaded && !m_emphasis[i])
                c.setAlpha(110);
            const double width = loaded ? 2.5 : 1.0;
            // A riser (vertical) or any axis-aligned segment: a rectangle of the pen's width,
            // filled whole pixels at a time. The antialiased stroke of thousands of long risers
            // (the super-spine tier at 131,072 GPUs) was most of a zoom step's repaint.
            if (b.path.size() == 2
                && (b.path[0].x() == b.path[1].x() || b.path[0].y() == b.path[1].y())) {
                const double half = 0.5 * width / lod;
                antialias(false);
                painter->fillRect(
                    QRectF(b.path[0], b.path[1]).normalized().adjusted(-half, -half, half, half),
                    c);
                continue;
            }
            if (c.rgba() != lastColour || width != lastWidth) {
                QPen pen(c, width);
                pen.setCosmetic(true);
                painter->setPen(pen);
                lastColour = c.rgba();
                lastWidth = width;
            }
            // One segment as a line, not a polyline: the raster engine rasterises a solid
            // square-capped line directly, where a polyline of any width over one pixel goes
            // through the general stroker (most of a zoom step's repaint of thousands of lines).
            if (b.path.size() == 2)
                painter->drawLine(b.path[0], b.path[1]);
            else
                painter->drawPolyline(b.path);
        }
    }
}

} // namespace railyard
