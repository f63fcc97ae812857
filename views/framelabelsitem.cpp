#include "framelabelsitem.h"
#include "stagetext.h"

#include "fabricitem.h"
#include "fabriclayout.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>

namespace railyard {

FrameLabelsItem::FrameLabelsItem(const FabricItem *root)
    : m_root(root)
{
    setZValue(5.0);
    setAcceptedMouseButtons(Qt::NoButton);
    setFlag(ItemUsesExtendedStyleOption);
}

QRectF FrameLabelsItem::boundingRect() const
{
    return m_root->layout().bounds();
}

void FrameLabelsItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    if (stageDrawsLabels(this))
        return; // presentation mode names the fabric's parts itself
    const double lod
        = std::max(option->levelOfDetailFromTransform(painter->worldTransform()), 1e-3);
    const QRectF exposed = option->exposedRect.isEmpty() ? boundingRect() : option->exposedRect;
    painter->setRenderHint(QPainter::Antialiasing, true);
    // Two faces (pods bold, scalable units and ToR groups plain), each at a constant size on
    // screen when zoomed out, growing with the zoom above 100 %.
    struct Face
    {
        QFont font;
        double px = 0.0;
        double height = 0.0; ///< of the backing box
    };
    Face faces[2];
    for (const bool pod : { false, true }) {
        Face &face = faces[pod];
        const double screenPx = pod ? 14.0 : 11.0;
        face.px = lod < 1.0 ? screenPx / lod : screenPx;
        face.font = painter->font();
        face.font.setPixelSize(std::max(1, static_cast<int>(face.px)));
        face.font.setBold(pod);
        face.height = QFontMetricsF(face.font).height() + face.px * 0.2;
    }
    for (const FabricLayout::Frame &frame : m_root->layout().frames()) {
        // Scalable-unit names only once the frame is wide enough on screen to carry one.
        if (frame.rect.width() * lod < (frame.pod ? 50.0 : 90.0))
            continue;
        const Face &face = faces[frame.pod];
        const double px = face.px;
        const double h = face.height;
        // In the frame's top margin while it is tall enough on screen; else centred on the
        // frame (the zoomed-out overview), over the servers.
        const double margin = frame.pod ? 30.0 : 26.0;
        const bool inMargin = margin >= h * 0.95;
        if (!inMargin && !m_root->isOverview())
            continue; // it would cover chips; the overview draws servers as blocks
        const auto boxOfWidth = [&](double w) {
            return inMargin
                ? QRectF(frame.rect.left() + px * 0.4, frame.rect.top() + 2.0, w, h)
                : QRectF(frame.rect.center().x() - w / 2.0,
                    frame.rect.center().y() - h / 2.0 + (frame.pod ? -h * 0.7 : h * 0.7), w, h);
        };
        // The text is measured only for a label that may show: shaping every frame's name
        // (a thousand at 131,072 GPUs) was a sixth of a frame. The widest box contains the box.
        const double widest = frame.rect.width() - px;
        if (!exposed.intersects(boxOfWidth(widest)))
            continue;
        const QFontMetricsF fm(face.font);
        const QRectF box
            = boxOfWidth(std::min(fm.horizontalAdvance(frame.label) + px * 0.8, widest));
        if (!exposed.intersects(box))
            continue;
        painter->setFont(face.font);
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(255, 255, 255, frame.pod ? 225 : 200));
        painter->drawRoundedRect(box, px * 0.3, px * 0.3);
        painter->setPen(frame.pod ? QColor(0x21, 0x25, 0x29) : QColor(0x49, 0x50, 0x57));
        painter->drawText(box, Qt::AlignCenter,
            fm.elidedText(frame.label, Qt::ElideRight, box.width() - px * 0.4));
    }
    QFont font = painter->font();
    // Rack-scale NVLink domains: the label sits just above the band's top edge, in the cable
    // tray between the racks and their leaves, once the band is wide enough on screen.
    for (const FabricLayout::Domain &domain : m_root->layout().domains()) {
        if (domain.rect.width() * lod < 90.0)
            continue;
        const double px = lod < 1.0 ? 11.0 / lod : 11.0;
        font.setPixelSize(std::max(1, static_cast<int>(px)));
        font.setBold(false);
        painter->setFont(font);
        const QFontMetricsF fm(font);
        const double w = std::min(fm.horizontalAdvance(domain.label) + px * 0.8,
                                  domain.rect.width());
        const double h = fm.height() + px * 0.2;
        const QRectF box(domain.rect.left(), domain.rect.top() - h - 1.0, w, h);
        if (!exposed.intersects(box))
            continue;
        painter->setPen(Qt::NoPen);
        painter->setBrush(FabricItem::domainFill());
        painter->drawRoundedRect(box, px * 0.3, px * 0.3);
        painter->setPen(FabricItem::domainOutline().darker(140));
        painter->drawText(box, Qt::AlignCenter,
                          fm.elidedText(domain.label, Qt::ElideRight, box.width() - px * 0.4));
    }
}

} // namespace railyard
