#pragma once

#include <QGraphicsItem>

namespace railyard {

class ServerItem;

/**
 * The internal links of one server (GPU <-> NVSwitch, GPU <-> NIC over PCIe), drawn by
 * ServerItem::paintLinks() as a child of the server, below its chips, with a device-coordinate
 * cache of its own: a new load recolours these lines without re-rendering the server's cached
 * box, bar and NICs (two antialiased rounded rectangles per server, the larger part of a
 * server's repaint). A failed server draws its links itself, under its grey veil.
 */
class ServerLinksItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 11 };

    explicit ServerLinksItem(ServerItem *server);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    ServerItem *m_server;
};

} // namespace railyard
