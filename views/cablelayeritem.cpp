#include "cablelayeritem.h"

#include "cableraster.h"
#include "colorscale.h"
#include "fabricitem.h"
#include "linkitem.h"

#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QVarLengthArray>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace railyard {

namespace {
// Pens are cosmetic (constant on screen); cables are only drawn at zoom >= the overview
// threshold, so this scene margin covers the widest pen (the bottleneck's glow) there.
constexpr double kMargin = 40.0;
} // namespace

CableLayerItem::CableLayerItem(const FabricItem *root)
    : m_root(root)
{
    setZValue(-1.0); // behind servers and switches: the cables show in the gaps
    setAcceptedMouseButtons(Qt::NoButton);
    setFlag(ItemUsesExtendedStyleOption); // exposedRect: walk only the cables it touches
}

void CableLayerItem::addCable(LinkItem *item, const QPolygonF &path)
{
    prepareGeometryChange();
    Cable c;
    c.item = item;
    c.first = static_cast<int>(m_points.size());
    c.count = static_cast<int>(path.size());
    // A straight vertical run has an empty bounding rectangle, which intersects nothing.
    c.bounds = path.boundingRect().adjusted(-1, -1, 1, 1);
    m_points.insert(m_points.end(), path.begin(), path.end());
    m_bounds |= c.bounds.adjusted(-kMargin, -kMargin, kMargin, kMargin);
    const auto cable = static_cast<std::size_t>(item->cable());
    if (m_indexOfCable.size() <= cable)
        m_indexOfCable.resize(cable + 1, -1);
    m_indexOfCable[cable] = static_cast<int>(m_cables.size());
    m_cables.push_back(c);
}

void CableLayerItem::updateCable(int cable)
{
    if (cable < 0 || cable >= static_cast<int>(m_indexOfCable.size()))
        return;
    const int i = m_indexOfCable[static_cast<std::size_t>(cable)];
    if (i >= 0)
        update(m_cables[static_cast<std::size_t>(i)].bounds.adjusted(
            -kMargin, -kMargin, kMargin, kMargin));
}

double CableLayerItem::lineWidth(double lod, bool loaded, bool emphasised)
{
    // At most 1 px when zoomed out: the fan of a large fabric's cables stays readable.
    const double width = loaded ? (lod < 0.45 ? 1.0 : (lod < 0.8 ? 1.6 : 2.2)) : 1.0;
    return emphasised ? std::max(width, 2.5) : width;
}

template<typename F>
void CableLayerItem::forEachHalf(const Cable &cable, F &&segment) const
{
    const QPointF *p = m_points.data() + cable.first;
    double total = 0.0;
    for (int k = 1; k < cable.count; ++k)
        total += QLineF(p[k - 1], p[k]).length();
    double walked = 0.0;
    const double half = total / 2.0;
    for (int k = 1; k < cable.count; ++k) {
        const QLineF line(p[k - 1], p[k]);
        const double length = line.length();
        if (walked < half && walked + length > half && length > 0.0) {
            const QPointF middle = line.pointAt((half - walked) / length);
            segment(p[k - 1], middle, false);
            segment(middle, p[k], true);
        } else {
            segment(p[k - 1], p[k], walked >= half);
        }
        walked += length;
    }
}

QColor CableLayerItem::pieceColour(const LinkItem *item, bool second)
{
    return second && item->showsMeasured() ? item->measuredColour() : item->lineColour();
}

void CableLayerItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const QRectF exposed = option->exposedRect.isEmpty() ? m_bounds : option->exposedRect;
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    // Cables reaching into the exposed rectangle (the widest pen spreads ~6 px either side).
    const double reach = 8.0 / std::max(lod, 1e-3);
    const QRectF near = exposed.adjusted(-reach, -reach, reach, reach);
    std::vector<int> plain, lit;
    plain.reserve(m_cables.size());
    for (std::size_t i = 0; i < m_cables.size(); ++i) {
        const Cable &c = m_cables[i];
        if (!near.intersects(c.bounds))
            continue;
        const LinkItem *l = c.item;
        (l->isBottleneck() || l->routeMask() || l->isEmphasised() ? lit : plain)
            .push_back(static_cast<int>(i));
    }
    if (!m_rasterised || !rasterisePlain(painter, exposed, lod, plain)) {
        for (int i : plain)
            strokePlain(painter, m_cables[static_cast<std::size_t>(i)], lod);
    }
    // Highlighted cables above the rest: routes, then the bottleneck, then emphasis.
    std::stable_sort(lit.begin(), lit.end(), [this](int a, int b) {
        return m_cables[static_cast<std::size_t>(a)].item->zValue()
            < m_cables[static_cast<std::size_t>(b)].item->zValue();
    });
    for (int i : lit)
        strokeHighlighted(painter, m_cables[static_cast<std::size_t>(i)], lod);
}

bool CableLayerItem::rasterisePlain(
    QPainter *painter, const QRectF &exposed, double lod, const std::vector<int> &cables)
{
    QPaintDevice *device = painter->device();
    const QTransform world = painter->worldTransform();
    if (!device || !painter->paintEngine() || painter->paintEngine()->type() != QPaintEngine::Raster
        || world.type() > QTransform::TxScale)
        return false;
    // Buffer pixels are device pixels: logical coordinates (the painter's without its world
    // transform) times the device pixel ratio.
    const double dpr = device->devicePixelRatio();
    const QTransform toPixels = world * QTransform::fromScale(dpr, dpr);
    const QRect area = toPixels.mapRect(exposed).toAlignedRect()
        & toPixels.mapRect(m_bounds).toAlignedRect()
        & QRect(0, 0, static_cast<int>(std::ceil(device->width() * dpr)),
            static_cast<int>(std::ceil(device->height() * dpr)));
    if (area.isEmpty())
        return true;
    if (m_buffer.width() < area.width() || m_buffer.height() < area.height()) {
        m_buffer = QImage(std::max(m_buffer.width(), area.width()),
            std::max(m_buffer.height(), area.height()), QImage::Format_ARGB32_Premultiplied);
    }
    if (m_buffer.isNull())
        return false;
    m_buffer.setDevicePixelRatio(dpr);
    const auto stride = static_cast<int>(m_buffer.bytesPerLine());
    auto *bits = reinterpret_cast<std::uint32_t *>(m_buffer.bits());
    for (int y = 0; y < area.height(); ++y)
        std::memset(m_buffer.scanLine(y), 0, static_cast<std::size_t>(area.width()) * 4);

    CableRaster raster(bits, area.width(), area.height(), stride);
    const QTransform toBuffer = toPixels * QTransform::fromTranslate(-area.x(), -area.y());
    for (int i : cables) {
        const Cable &c = m_cables[static_cast<std::size_t>(i)];
        const double width = lineWidth(lod, c.item->worstUtilisation() > 0.0, false) * dpr;
        const QRgb first = qPremultiply(pieceColour(c.item, false).rgba());
        if (!c.item->showsMeasured()) {
            const QPointF *p = m_points.data() + c.first;
            QPointF from = toBuffer.map(p[0]);
            for (int k = 1; k < c.count; ++k) {
                const QPointF to = toBuffer.map(p[k]);
                raster.stroke(from, to, width, first);
                from = to;
            }
            continue;
        }
        const QRgb second = qPremultiply(pieceColour(c.item, true).rgba());
        forEachHalf(c, [&](QPointF from, QPointF to, bool inSecond) {
            raster.stroke(toBuffer.map(from), toBuffer.map(to), width, inSecond ? second : first);
        });
    }
    painter->save();
    painter->resetTransform();
    painter->drawImage(QPointF(area.x() / dpr, area.y() / dpr), m_buffer,
        QRectF(0, 0, area.width(), area.height()));
    painter->restore();
    return true;
}

void CableLayerItem::strokePlain(QPainter *painter, const Cable &cable, double lod) const
{
    const LinkItem *l = cable.item;
    QPen pen(l->lineColour(), lineWidth(lod, l->worstUtilisation() > 0.0, false), Qt::SolidLine,
        Qt::SquareCap);
    pen.setCosmetic(true);
    if (l->showsMeasured()) {
        painter->setRenderHint(QPainter::Antialiasing, true);
        forEachHalf(cable, [&](QPointF from, QPointF to, bool second) {
            pen.setColor(pieceColour(l, second));
            painter->setPen(pen);
            painter->drawLine(QLineF(from, to));
        });
        return;
    }
    painter->setPen(pen);
    // Square-capped segments, not a joined polyline (the caps cover the joints): axis-aligned
    // runs without antialiasing (crisper, as the raster path draws them), the others with.
    QVarLengthArray<QLineF, 8> straight, slanted;
    const QPointF *p = m_points.data() + cable.first;
    for (int k = 1; k < cable.count; ++k) {
        const QLineF segment(p[k - 1], p[k]);
        (segment.dx() == 0.0 || segment.dy() == 0.0 ? straight : slanted).append(segment);
    }
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->drawLines(straight.constData(), static_cast<int>(straight.size()));
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->drawLines(slanted.constData(), static_cast<int>(slanted.size()));
}

void CableLayerItem::strokeHighlighted(QPainter *painter, const Cable &cable, double lod) const
{
    const LinkItem *l = cable.item;
    const QPointF *points = m_points.data() + cable.first;
    painter->setRenderHint(QPainter::Antialiasing, true);
    if (l->isBottleneck()) {
        QPen glow(QColor(0xe0, 0x31, 0x31, 90), 11.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
        glow.setCosmetic(true);
        painter->setPen(glow);
        painter->drawPolyline(points, cable.count);
    }
    for (Dim d : { Dim::Dp, Dim::Pp, Dim::Ep, Dim::Cp, Dim::Tp }) {
        if (l->routeMask() & (1u << index(d))) {
            QColor c = ColorScale::dimColour(d);
            c.setAlpha(150);
            QPen under(c, 6.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin);
            under.setCosmetic(true);
            painter->setPen(under);
            painter->drawPolyline(points, cable.count);
            break;
        }
    }
    if (l->isEmphasised()) {
        // An outline with a white core: distinct from the load scale, which stays readable
        // inside it (the emphasis never changes a link's load colour).
        QPen outline(FabricItem::emphasisColour(), 8.0, Qt::SolidLine, Qt::SquareCap);
        outline.setCosmetic(true);
        QPen core(Qt::white, 4.5, Qt::SolidLine, Qt::SquareCap);
        core.setCosmetic(true);
        for (const QPen &pen : { outline, core }) {
            painter->setPen(pen);
            for (int k = 1; k < cable.count; ++k)
                painter->drawLine(points[k - 1], points[k]);
        }
    }
    QPen pen(l->lineColour(), lineWidth(lod, l->worstUtilisation() > 0.0, l->isEmphasised()),
        Qt::SolidLine, Qt::SquareCap);
    pen.setCosmetic(true);
    forEachHalf(cable, [&](QPointF from, QPointF to, bool second) {
        const QLineF segment(from, to);
        pen.setColor(pieceColour(l, second));
        painter->setPen(pen);
        painter->setRenderHint(QPainter::Antialiasing, segment.dx() != 0.0 && segment.dy() != 0.0);
        painter->drawLine(segment);
    });
}

} // namespace railyard
