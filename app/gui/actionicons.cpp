#include "actionicons.h"

#include "layout/mapping.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QStyle>

#include <array>
#include <functional>

namespace railyard {

namespace {

/// Four tensor-shard colours (the Okabe-Ito palette, readable by colour-blind users).
const QColor kShard[4] = {QColor(0x00, 0x72, 0xb2), QColor(0xe6, 0x9f, 0x00), QColor(0x00, 0x9e, 0x73),
                          QColor(0xcc, 0x79, 0xa7)};

/// Draws `paint` on a 24-unit canvas at 1x and 2x.
QIcon painted(const std::function<void(QPainter &)> &paint)
{
    QIcon icon;
    for (int scale : {1, 2}) {
        QPixmap pixmap(24 * scale, 24 * scale);
        pixmap.setDevicePixelRatio(scale);
        pixmap.fill(Qt::transparent);
        QPainter p(&pixmap);
        p.setRenderHint(QPainter::Antialiasing);
        paint(p);
        p.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

} // namespace

QIcon placementIcon(Placement placement)
{
    return painted([placement](QPainter &p) {
        // Rows are servers, columns GPU indices (= rails); a cell's colour is its rank's t for
        // a 4-way TP job on 4 x 4 slots. Packed and rail-aligned keep t on GPU t; scattered
        // (rank r -> server r mod 4) puts all four shards of a TP group on different servers,
        // so each server holds one shard only.
        for (int server = 0; server < 4; ++server) {
            for (int gpu = 0; gpu < 4; ++gpu) {
                const int t = placement == Placement::Scattered ? server : gpu;
                p.setPen(Qt::NoPen);
                p.setBrush(kShard[t]);
                p.drawRoundedRect(QRectF(2 + gpu * 5.2, 2 + server * 5.2, 4.4, 4.4), 1, 1);
            }
        }
        if (placement == Placement::RailAligned) {
            p.setPen(QPen(QColor(40, 40, 40), 1.2));
            for (int gpu = 0; gpu < 4; ++gpu)
                p.drawLine(QPointF(4.2 + gpu * 5.2, 1), QPointF(4.2 + gpu * 5.2, 23));
        }
    });
}

QIcon colourByIcon(QChar coordinate)
{
    const int index = coordinate == QLatin1Char('d') ? 0 : coordinate == QLatin1Char('p') ? 1 : 2;
    return painted([index, coordinate](QPainter &p) {
        p.setPen(Qt::NoPen);
        p.setBrush(kShard[index]);
        p.drawRoundedRect(QRectF(2, 2, 20, 20), 4, 4);
        QFont font = QApplication::font();
        font.setBold(true);
        font.setPixelSize(15);
        p.setFont(font);
        p.setPen(Qt::white);
        p.drawText(QRectF(2, 1, 20, 20), Qt::AlignCenter, QString(coordinate));
    });
}

QIcon zoomIcon(int direction)
{
    return painted([direction](QPainter &p) {
        const QColor ink = QApplication::palette().color(QPalette::WindowText);
        p.setPen(QPen(ink, 2));
        p.setBrush(Qt::NoBrush);
        if (direction == 0) {
            // Four corners: fit to the window.
            for (const auto &[x, y, dx, dy] : {std::array<int, 4>{3, 3, 1, 1}, {21, 3, -1, 1}, {3, 21, 1, -1}, {21, 21, -1, -1}}) {
                QPainterPath path;
                path.moveTo(x + 6 * dx, y);
                path.lineTo(x, y);
                path.lineTo(x, y + 6 * dy);
                p.drawPath(path);
            }
            p.drawRect(QRectF(8, 8, 8, 8));
            return;
        }
        p.drawEllipse(QRectF(3, 3, 13, 13));
        p.setPen(QPen(ink, 3, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(15, 15), QPointF(21, 21));
        p.setPen(QPen(ink, 1.8));
        p.drawLine(QPointF(6.5, 9.5), QPointF(12.5, 9.5));
        if (direction > 0)
            p.drawLine(QPointF(9.5, 6.5), QPointF(9.5, 12.5));
    });
}

QIcon themedIcon(const char *themeName, int standardPixmap)
{
    const QIcon themed = QIcon::fromTheme(QString::fromLatin1(themeName));
    if (!themed.isNull())
        return themed;
    return QApplication::style()->standardIcon(static_cast<QStyle::StandardPixmap>(standardPixmap));
}

} // namespace railyard
