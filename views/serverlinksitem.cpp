#include "serverlinksitem.h"

#include "serveritem.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

namespace railyard {

ServerLinksItem::ServerLinksItem(ServerItem *server)
    : QGraphicsItem(server)
    , m_server(server)
{
    setZValue(-1.0); // below the chips (its siblings), still above the server's box
    setAcceptedMouseButtons(Qt::NoButton);
    setCacheMode(DeviceCoordinateCache);
}

QRectF ServerLinksItem::boundingRect() const
{
    return m_server->boundingRect();
}

void ServerLinksItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    m_server->paintLinks(painter, option->levelOfDetailFromTransform(painter->worldTransform()));
}

} // namespace railyard
