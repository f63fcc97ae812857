#pragma once

#include <QPainter>
#include <QRectF>

namespace railyard {

/**
 * A rectangle with corners of `radius` scene units, drawn plain when the corners would span
 * under 1.5 device pixels at `lod` (device pixels per scene unit): there the rounding does not
 * show, and QPainter's rounded rectangle (a curved path, filled and stroked) costs tens of
 * times a rectangle, hundreds of chips and servers over in a zoomed-out detailed frame.
 */
inline void drawBox(QPainter *painter, const QRectF &rect, double radius, double lod)
{
    if (radius * lod < 1.5)
        painter->drawRect(rect);
    else
        painter->drawRoundedRect(rect, radius, radius);
}

} // namespace railyard
