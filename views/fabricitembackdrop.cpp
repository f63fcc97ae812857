// FabricItem, part 3: the backdrop it paints itself under the items (pod and scalable-unit
// frames, rack-scale NVLink domains, rail bands), cached as one device-coordinate pixmap.
#include "fabricitem.h"

#include "bandground.h"
#include "colorscale.h"
#include "fabriclayout.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <cmath>
#include <map>
#include <vector>

namespace railyard {

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
    const std::vector<BandGround> grounds = bandGrounds(*m_layout);
    std::map<QRgb, std::size_t> batchOf; // by the colour drawn, ARGB
    for (std::size_t b = 0; b < grounds.size(); ++b) {
        const FabricLayout::Band &band = m_layout->bands()[b];
        const bool uniform = grounds[b].uniform;
        QColor below = Qt::white;
        switch (grounds[b].below) {
        case BandGround::Below::Pod:
            below = podFill();
            break;
        case BandGround::Below::Group:
            below = groupFill();
            break;
        case BandGround::Below::Domain:
            below = domainFill();
            break;
        case BandGround::Below::White:
            break;
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
