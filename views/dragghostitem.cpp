#include "dragghostitem.h"

#include "fabriclayout.h"

#include <QPainter>

#include <algorithm>

namespace railyard {

namespace {
constexpr int kStackShown = 4; // a multi-rank drag shows a short stack and a count badge
}

DragGhostItem::DragGhostItem(std::vector<Chip> chips)
    : m_chips(std::move(chips))
{
    setAcceptedMouseButtons(Qt::NoButton);
    setAcceptHoverEvents(false);
    setZValue(2000.0);
    setOpacity(0.9);
}

QRectF DragGhostItem::boundingRect() const
{
    const int layers = std::min<int>(kStackShown, static_cast<int>(m_chips.size()));
    return QRectF(-FabricLayout::kChipWidth / 2 - 4, -FabricLayout::kChipHeight / 2 - 4,
                  FabricLayout::kChipWidth + 8 + 5.0 * (layers - 1) + 16,
                  FabricLayout::kChipHeight + 8 + 5.0 * (layers - 1) + 10);
}

void DragGhostItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->setRenderHint(QPainter::Antialiasing, true);
    const int layers = std::min<int>(kStackShown, static_cast<int>(m_chips.size()));
    const QRectF chip(-FabricLayout::kChipWidth / 2, -FabricLayout::kChipHeight / 2,
                      FabricLayout::kChipWidth, FabricLayout::kChipHeight);
    for (int i = layers - 1; i >= 0; --i) {
        const QRectF r = chip.translated(5.0 * i, 5.0 * i);
        painter->setPen(QPen(QColor(0x21, 0x25, 0x29), 1.2));
        painter->setBrush(m_chips[static_cast<std::size_t>(i)].fill);
        painter->drawRoundedRect(r, 4, 4);
    }
    QFont font = painter->font();
    font.setPixelSize(14);
    font.setBold(true);
    painter->setFont(font);
    painter->setPen(QColor(0x21, 0x25, 0x29));
    painter->drawText(chip, Qt::AlignCenter, QString::number(m_chips.front().rank));
    if (m_chips.size() > 1) {
        const QRectF badge(chip.right() + 5.0 * (layers - 1) - 4, chip.bottom() + 5.0 * (layers - 1) - 4,
                           22, 16);
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(0x1c, 0x7e, 0xd6));
        painter->drawRoundedRect(badge, 8, 8);
        font.setPixelSize(10);
        painter->setFont(font);
        painter->setPen(Qt::white);
        painter->drawText(badge, Qt::AlignCenter, QStringLiteral("×%1").arg(m_chips.size()));
    }
}

} // namespace railyard
