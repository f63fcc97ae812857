#pragma once

#include <QGraphicsItem>

namespace railyard {

class FabricItem;

/**
 * The zoomed-out view's servers and switches, drawn by one item: in the overview the
 * ServerItems and SwitchItems are hidden and this item paints each one that meets the exposed
 * rectangle (the server's block, the switch's box) in a single pass. A 131,072-GPU fabric has
 * 16,384 servers and thousands of switches; as items, the scene visited, transformed and
 * painted each one on every frame (bench_gui's BM_Paint131k), most of a repaint. The hidden
 * items keep their state (colours, marks); hit testing finds them by geometry
 * (FabricView::hitAt).
 *
 * It keeps a device-coordinate cache (QGraphicsItem::DeviceCoordinateCache): a repaint or a pan
 * blits the pixmap (a pan paints only the strip scrolled in), a zoom step paints it again. The
 * blocks show chip colours, failed marks and switch emphasis, never link loads: a moved rank
 * invalidates only its server's block (updateServer), a recolour of the links nothing.
 */
class OverviewBlocksItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 12 };

    explicit OverviewBlocksItem(const FabricItem *root);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;
    /// Repaints only this server's block (its chips changed).
    void updateServer(int server);

private:
    const FabricItem *m_root;
};

} // namespace railyard
