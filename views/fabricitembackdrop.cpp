// FabricItem, part 3: the backdrop it paints itself under the items (pod and scalable-unit
// frames, rack-scale NVLink domains, rail bands), cached as one device-coordinate pixmap.
#include "fabricitem.h"

#include "colorscale.h"
#include "fabriclayout.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace railyard {

namespace {

/**
 * Rectangles (some of a list's elements) sorted by their left edge, for the question "which of
 * them may contain or cross this rectangle": those whose left edge lies from the rectangle's
 * left minus the widest one's width to its right (a rectangle that contains or crosses another
 * starts there), answered in the list's order.
 */
class BackdropRectIndex
{
public:
    template<typename T, typename RectOf>
    BackdropRectIndex(const std::vector<T> &items, RectOf rectOf)
    {
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (const std::optional<QRectF> r = rectOf(items[i])) {
                const QRectF n = r->normalized();
                m_byLeft.push_back({ n.left(), i });
                m_widest = std::max(m_widest, n.width());
            }
        }
        std::sort(m_byLeft.begin(), m_byLeft.end());
    }

    std::vector<std::size_t> near(const QRectF &rect) const
    {
        const QRectF n = rect.normalized();
        auto it = std::lower_bound(m_byLeft.begin(), m_byLeft.end(),
            std::pair<double, std::size_t>(n.left() - m_widest, 0));
        std::vector<std::size_t> found;
        for (; it != m_byLeft.end() && it->first <= n.right(); ++it)
            found.push_back(it->second);
        std::sort(found.begin(), found.end());
        return found;
    }

private:
    std::vector<std::pair<double, std::size_t>> m_byLeft; ///< left edge, index in the list
    double m_widest = 0.0;
};

} // namespace

QColor FabricItem::railBandColour(int rail)
{
    QColor c = ColorScale::railColour(rail);
    c.setAlpha(120);
    return c;
}

QColor FabricItem::overOpaque(const QColor &top, const QColor &below)
{
    // Porter-Duff "source over" an opaque colour: what QPainter's default composition mode
    // makes of `top` drawn over `below`.
    const double a = top.alphaF();
    const auto mix
        = [a](int t, int b) { return static_cast<int>(std::lround(a * t + (1.0 - a) * b)); };
    return QColor(mix(top.red(), below.red()), mix(top.green(), below.green()),
        mix(top.blue(), below.blue()));
}

void FabricItem::batchBands()
{
    // What lies under a band in this item's own drawing: the innermost frame around it (scalable
    // units and ToR groups over pods) or a rack-scale domain, else the view's white. Over one
    // opaque colour a band is drawn opaque in the colour its translucent fill would make
    // there: Qt's raster engine blends a translucent fill pixel by pixel (and hands large
    // ones to its thread pool), which was half of the first detailed frame at 131,072 GPUs.
    // A band that crosses a frame's or a domain's edge keeps its translucent fill.
    m_bands.clear();
    // Each band is tested only against the frames and domains near it (a superset of those that
    // contain or cross it), in their order: every band against every frame (4,096 scalable
    // units and 512 pods at 1,048,576 GPUs) was about a second of opening the view there.
    const BackdropRectIndex pods(m_layout->frames(), [](const FabricLayout::Frame &f) {
        return f.pod ? std::optional<QRectF>(f.rect) : std::nullopt;
    });
    const BackdropRectIndex groups(m_layout->frames(), [](const FabricLayout::Frame &f) {
        return f.pod ? std::nullopt : std::optional<QRectF>(f.rect);
    });
    const BackdropRectIndex domains(m_layout->domains(),
        [](const FabricLayout::Domain &d) { return std::optional<QRectF>(d.rect); });
    std::map<QRgb, std::size_t> batchOf; // by the colour drawn, ARGB
    for (const FabricLayout::Band &band : m_layout->bands()) {
        QColor below = Qt::white;
        bool uniform = true;
        for (const bool pod : { true, false }) { // pods first: a group inside wins
            for (const std::size_t i : (pod ? pods : groups).near(band.rect)) {
                const QRectF &frame = m_layout->frames()[i].rect;
                if (frame.contains(band.rect))
                    below = pod ? podFill() : groupFill();
                else if (frame.intersects(band.rect))
                    uniform = false;
            }
        }
        for (const std::size_t i : domains.near(band.rect)) {
            const QRectF &domain = m_layout->domains()[i].rect;
            if (domain.contains(band.rect))
                below = domainFill();
            else if (domain.intersects(band.rect))
                uniform = false;
        }
        const QColor colour
            = uniform ? overOpaque(railBandColour(band.rail), below) : railBandColour(band.rail);
        const auto [it, added] = batchOf.try_emplace(colour.rgba(), m_bands.size());
        if (added)
            m_bands.push_back({ colour, {} });
        m_bands[it->second].rects.append(band.rect);
    }
}

QRectF FabricItem::boundingRect() const
{
    return m_layout ? m_layout->bounds() : QRectF();
}

void FabricItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const QRectF exposed = option->exposedRect.isEmpty() ? boundingRect() : option->exposedRect;
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    painter->setRenderHint(QPainter::Antialiasing, lod > 0.3);
    for (int pass = 0; pass < 2; ++pass) { // pods, then the groups inside them
        for (const FabricLayout::Frame &frame : m_layout->frames()) {
            if (frame.pod != (pass == 0) || !exposed.intersects(frame.rect))
                continue;
            // Dashes only near: a dashed outline of a large frame is costly when zoomed out.
            QPen pen(QColor(0xad, 0xb5, 0xbd), frame.pod ? 1.5 : 1.0,
                frame.pod && lod > 0.3 ? Qt::DashLine : Qt::SolidLine);
            pen.setCosmetic(true);
            painter->setPen(pen);
            painter->setBrush(frame.pod ? podFill() : groupFill());
            if (lod > 0.3)
                painter->drawRoundedRect(frame.rect, 8, 8);
            else
                painter->drawRect(frame.rect);
        }
    }
    // Rack-scale NVLink domains: one band around each domain's trays, in the scale-up colour
    // family (violet), under the rail bands and the servers.
    for (const FabricLayout::Domain &domain : m_layout->domains()) {
        if (!exposed.intersects(domain.rect))
            continue;
        QPen pen(domainOutline(), 2.0);
        pen.setCosmetic(true);
        painter->setPen(pen);
        painter->setBrush(domainFill());
        if (lod > 0.3)
            painter->drawRoundedRect(domain.rect, 6, 6);
        else
            painter->drawRect(domain.rect);
    }
    // Rail bands: axis-aligned, one batched call per colour (batchBands()). Not in the overview
    // nor when zoomed far out: thousands of slivers cost more than they show (the leaves carry
    // the rail colours); at 131,072 GPUs, translucent, they were half of a zoom step's frame
    // near the detailed drawing (bench_gui BM_Zoom131k/8: 53 ms with them, 26 ms without).
    if (m_overview || lod < 0.15)
        return;
    painter->setRenderHint(QPainter::Antialiasing, false);
    painter->setPen(Qt::NoPen);
    for (const BandBatch &batch : m_bands) {
        painter->setBrush(batch.colour);
        painter->drawRects(batch.rects);
    }
}

} // namespace railyard
