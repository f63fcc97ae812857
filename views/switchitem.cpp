#include "switchitem.h"
#include "stagetext.h"

#include "colorscale.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "painting.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace railyard {

SwitchItem::SwitchItem(const FabricItem *root, int vertex)
    : m_vertex(vertex)
{
    const Fabric &f = root->fabric();
    const FabricNode &node = f.node(vertex);
    const QRectF r = root->layout().switchRect(vertex);
    setPos(r.topLeft());
    m_rect = QRectF(QPointF(0, 0), r.size());
    setCacheMode(DeviceCoordinateCache);
    switch (node.kind) {
    case NodeKind::Leaf:
        if (node.rail >= 0) {
            m_fill = ColorScale::railColour(node.rail);
            m_label = QStringLiteral("rail %1").arg(node.rail);
            m_sublabel = QStringLiteral("leaf · SU %1").arg(node.su);
        } else {
            m_fill = QColor(0xd8, 0xdd, 0xe2);
            m_label = QString::fromStdString(node.name);
            m_sublabel = QStringLiteral("top-of-rack leaf");
        }
        break;
    case NodeKind::Spine:
        m_fill = QColor(0xc5, 0xcb, 0xd3);
        m_label = QStringLiteral("spine %1").arg(node.local);
        m_sublabel = QStringLiteral("pod %1").arg(node.pod);
        break;
    case NodeKind::Core:
        m_fill = QColor(0x93, 0x9c, 0xa8);
        m_label = QStringLiteral("core %1").arg(node.local);
        m_sublabel = QStringLiteral("group %1").arg(node.pod);
        break;
    default:
        m_fill = QColor(0xa9, 0xb1, 0xbb);
        m_label = QStringLiteral("super %1").arg(node.local);
        m_sublabel = QStringLiteral("plane %1").arg(node.pod);
        break;
    }
}

void SwitchItem::setEmphasised(bool emphasised)
{
    if (emphasised == m_emphasised)
        return;
    m_emphasised = emphasised;
    update();
}

QRectF SwitchItem::boundingRect() const
{
    return m_rect.adjusted(-4, -4, 4, 4); // room for the emphasis outline
}

void SwitchItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    painter->setRenderHint(QPainter::Antialiasing, lod > 0.3);
    painter->setPen(QPen(m_fill.darker(165), 1.0));
    painter->setBrush(m_fill);
    drawBox(painter, m_rect.adjusted(0.5, 0.5, -0.5, -0.5), 4, lod);
    if (m_emphasised) {
        painter->setPen(QPen(FabricItem::emphasisColour(), 3.0));
        painter->setBrush(Qt::NoBrush);
        drawBox(painter, m_rect.adjusted(-2, -2, 2, 2), 5, lod);
    }
    if (lod * m_rect.width() < 40.0 || lod < 0.25 || stageDrawsLabels(this))
        return;
    QFont font = painter->font();
    font.setBold(true);
    painter->setPen(QColor(0x21, 0x25, 0x29));
    if (lod < 0.7) {
        // Zoomed out: one line, as large as the box allows.
        font.setPixelSize(18);
        painter->setFont(font);
        painter->drawText(m_rect, Qt::AlignCenter,
            QFontMetricsF(font).elidedText(m_label, Qt::ElideRight, m_rect.width() - 4));
        return;
    }
    font.setPixelSize(11);
    painter->setFont(font);
    const QFontMetricsF fm(font);
    const bool two = m_rect.width() > 60.0;
    const QRectF top = two ? m_rect.adjusted(2, 2, -2, -m_rect.height() / 2 + 2) : m_rect;
    painter->drawText(top, Qt::AlignCenter, fm.elidedText(m_label, Qt::ElideRight, top.width()));
    if (two) {
        font.setBold(false);
        font.setPixelSize(9);
        painter->setFont(font);
        painter->setPen(QColor(0x34, 0x3a, 0x40));
        const QRectF bottom = m_rect.adjusted(2, m_rect.height() / 2 - 1, -2, -2);
        painter->drawText(bottom, Qt::AlignCenter,
            QFontMetricsF(font).elidedText(m_sublabel, Qt::ElideRight, bottom.width()));
    }
}

} // namespace railyard
