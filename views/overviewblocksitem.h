#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QRgb>

#include <vector>

namespace railyard {

class FabricItem;
class SwitchItem;

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
 * invalidates only its server's block (syncServer), a recolour of the links nothing.
 */
class OverviewBlocksItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 12 };

    explicit OverviewBlocksItem(const FabricItem *root);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;
    /// Reads this server's chip colours and failed mark again and repaints only its block.
    void syncServer(int server);
    /// Reads every server's chips and marks again and repaints all (a new colouring, marks).
    void syncAll();

private:
    void readServer(int server);

    const FabricItem *m_root;
    // Copies of what the blocks show, contiguous: reading 131,072 chip items scattered over
    // the heap on every paint was a cache miss per chip (most of a zoom step's frame).
    std::vector<QRgb> m_chips; ///< per GPU slot (server x GPUs per server + GPU)
    std::vector<unsigned char> m_failed; ///< per server
    struct Switch
    {
        QRectF bounds; ///< scene coordinates, for culling
        QRectF box; ///< scene coordinates
        QColor fill;
        bool emphasised = false;
        SwitchItem *item = nullptr;
    };
    std::vector<Switch> m_switches;
};

} // namespace railyard
