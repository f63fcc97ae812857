#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QString>

#include <vector>

namespace railyard {

/**
 * The chip (or stack of chips) that follows the cursor while ranks are dragged. Purely visual:
 * it accepts no mouse buttons, so hit tests under the cursor find the slot beneath it.
 */
class DragGhostItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 7 };

    /** One dragged rank as drawn. */
    struct Chip
    {
        int rank = -1;
        QColor fill;
    };

    explicit DragGhostItem(std::vector<Chip> chips);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
               QWidget *widget) override;

private:
    std::vector<Chip> m_chips;
};

} // namespace railyard
