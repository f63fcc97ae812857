#pragma once

#include <QGraphicsItem>

namespace railyard {

class FabricItem;

/**
 * The names of the scalable-unit, ToR-group and pod frames, drawn above the items at a
 * constant size on screen with a light backing, so "pod 12" stays readable in the zoomed-out
 * overview of a 16,384-GPU fabric (where the frame margins are a few pixels high).
 */
class FrameLabelsItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 8 };

    explicit FrameLabelsItem(const FabricItem *root);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
               QWidget *widget) override;

private:
    const FabricItem *m_root;
};

} // namespace railyard
