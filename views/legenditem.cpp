#include "legenditem.h"

#include "colorscale.h"
#include "fabricitem.h"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <vector>

namespace railyard {

namespace {
constexpr double kWidth = 600.0;
constexpr double kRow1 = 4.0;
constexpr double kRow2 = 23.0;
constexpr double kRowHeight = 15.0;
/// The gestures' row, under the chip colours (a row of its own: beside them it was elided).
constexpr double kHintRow = 39.0;
constexpr double kHintLine = 13.0;
constexpr int kHintPixels = 10;
constexpr double kCaptionHeight = 19.0;
/// Presentation mode's key is narrower: no gestures' hint, no bottleneck name (see setStage()).
constexpr double kStageWidth = 480.0;

QString legendPercent(double u)
{
    const double p = u * 100.0;
    return QString::number(p, 'f', p < 1.0 ? 2 : (p < 10.0 ? 1 : 0)) + QStringLiteral(" %");
}

/// Draws text at (x, row) and returns the x after it plus a gap.
double text(QPainter *painter, double x, double row, const QString &s, double gap = 6.0)
{
    const QFontMetricsF fm(painter->font());
    const double w = fm.horizontalAdvance(s);
    painter->drawText(QRectF(x, row, w + 1.0, kRowHeight), Qt::AlignLeft | Qt::AlignVCenter, s);
    return x + w + gap;
}
} // namespace

LegendItem::LegendItem()
{
    setFlag(ItemIgnoresTransformations);
    setAcceptedMouseButtons(Qt::NoButton);
    setZValue(1000.0);
}

void LegendItem::setLoadRange(double scaleTop, double peak, const QString &bottleneck,
                              bool relative)
{
    if (scaleTop == m_max && peak == m_peak && bottleneck == m_bottleneck
        && relative == m_relative)
        return;
    m_max = scaleTop;
    m_peak = peak;
    m_bottleneck = bottleneck;
    m_relative = relative;
    update();
}

void LegendItem::setColouring(QChar coordinate, int values)
{
    if (coordinate == m_coordinate && values == m_values)
        return; // the view calls this after every report: repaint only on a change
    m_coordinate = coordinate;
    m_values = values;
    update();
}

void LegendItem::setDimensions(bool ep, bool cp)
{
    if (ep == m_ep && cp == m_cp)
        return;
    m_ep = ep;
    m_cp = cp;
    update();
}

void LegendItem::setOverlayTitle(const QString &title)
{
    if (title == m_overlayTitle)
        return;
    m_overlayTitle = title;
    update();
}

void LegendItem::setCaption(const QString &caption)
{
    if (caption == m_caption)
        return;
    prepareGeometryChange();
    m_caption = caption;
    update();
}

QString LegendItem::hintText()
{
    return QStringLiteral("drag a chip or a server bar to move ranks · Shift+drag selects");
}

QStringList LegendItem::hintLines() const
{
    if (m_stage)
        return {}; // a room does not drag chips from afar
    QFont font;
    font.setPixelSize(kHintPixels);
    const QFontMetricsF fm(font);
    const double room = kWidth - 16.0;
    // One line when it fits, else one line per gesture: whole words, never elided.
    if (fm.horizontalAdvance(hintText()) <= room)
        return { hintText() };
    return hintText().split(QStringLiteral(" · "));
}

double LegendItem::hintWidth() const
{
    QFont font;
    font.setPixelSize(kHintPixels);
    const QFontMetricsF fm(font);
    double w = 0.0;
    for (const QString &line : hintLines())
        w = std::max(w, fm.horizontalAdvance(line));
    return 8.0 + w;
}

double LegendItem::captionTop() const
{
    return kHintRow + kHintLine * static_cast<double>(hintLines().size()) + 2.0;
}

void LegendItem::setStage(bool on)
{
    if (on == m_stage)
        return;
    prepareGeometryChange();
    m_stage = on;
    update();
}

QRectF LegendItem::boundingRect() const
{
    return QRectF(0, 0, m_stage ? kStageWidth : kWidth,
        captionTop() + (m_caption.isEmpty() ? 2.0 : kCaptionHeight));
}

void LegendItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(QPen(QColor(0xce, 0xd4, 0xda), 1.0));
    painter->setBrush(QColor(255, 255, 255, 235));
    painter->drawRoundedRect(boundingRect().adjusted(0.5, 0.5, -0.5, -0.5), 5, 5);
    const QColor ink(0x21, 0x25, 0x29), grey(0x6c, 0x75, 0x7d);

    // Row 1: the load scale from idle to the report's highest utilisation, and the bottleneck.
    QFont font = painter->font();
    font.setPixelSize(11);
    font.setBold(true);
    painter->setFont(font);
    painter->setPen(ink);
    const bool overlay = !m_overlayTitle.isEmpty();
    double x = text(painter, 8, kRow1,
                    overlay ? QFontMetricsF(font).elidedText(m_overlayTitle, Qt::ElideRight, 150)
                            : QStringLiteral("Link load"),
                    8);
    font.setBold(false);
    font.setPixelSize(10);
    painter->setFont(font);
    painter->setPen(Qt::NoPen);
    painter->setBrush(ColorScale::idleColour());
    painter->drawRect(QRectF(x, kRow1 + 4, 16, 7));
    painter->setPen(grey);
    x = text(painter, x + 19, kRow1, QStringLiteral("idle"), 8);
    painter->setPen(ink);
    x = text(painter, x, kRow1, QStringLiteral("0"), 3);
    const QRectF ramp(x, kRow1 + 4, 120, 7);
    QLinearGradient g(ramp.topLeft(), ramp.topRight());
    g.setStops(ColorScale::loadStops());
    painter->setPen(Qt::NoPen);
    painter->setBrush(g);
    painter->drawRect(ramp);
    painter->setPen(ink);
    x = text(painter, ramp.right() + 4, kRow1,
             overlay      ? QStringLiteral("100 % (given values)")
                 : m_relative ? legendPercent(m_max) + QStringLiteral(" (relative: 0 .. bottleneck)")
                              : QStringLiteral("100 % busy / iteration"),
             12);
    QPen glow(QColor(0xe0, 0x31, 0x31, 90), 8.0, Qt::SolidLine, Qt::RoundCap);
    painter->setPen(glow);
    painter->drawLine(QPointF(x + 4, kRow1 + 7.5), QPointF(x + 18, kRow1 + 7.5));
    painter->setPen(QPen(ColorScale::loadColour(1.0), 2.2));
    painter->drawLine(QPointF(x + 4, kRow1 + 7.5), QPointF(x + 18, kRow1 + 7.5));
    painter->setPen(ink);
    const QFontMetricsF fm(font);
    if (m_stage)
        text(painter, x + 24, kRow1,
            overlay ? QStringLiteral("hottest") : QStringLiteral("bottleneck"));
    else
        painter->drawText(QRectF(x + 24, kRow1, kWidth - x - 30, kRowHeight),
            Qt::AlignLeft | Qt::AlignVCenter,
            fm.elidedText(
                (overlay ? QStringLiteral("hottest %1 %2") : QStringLiteral("bottleneck %1 %2"))
                    .arg(m_bottleneck, legendPercent(m_peak)),
                Qt::ElideMiddle, kWidth - x - 30));

    // Row 2: chip colours, partner rings, the gestures.
    x = text(painter, 8, kRow2, QStringLiteral("chips by %1:").arg(m_coordinate), 4);
    const int shown = std::min(m_values, 10);
    for (int v = 0; v < shown; ++v) {
        const QRectF sw(x, kRow2 + 1.5, 13, 12);
        painter->setPen(QPen(QColor(0x49, 0x50, 0x57), 0.6));
        painter->setBrush(ColorScale::coordinateColour(v, m_values));
        painter->drawRoundedRect(sw, 2, 2);
        QFont small = font;
        small.setPixelSize(static_cast<int>(smallestPixels()));
        painter->setFont(small);
        painter->setPen(ink);
        painter->drawText(sw, Qt::AlignCenter, QString::number(v));
        x += 15;
    }
    painter->setFont(font);
    if (m_values > shown)
        x = text(painter, x, kRow2, QStringLiteral("…"), 2);
    x = text(painter, x + 10, kRow2, QStringLiteral("partners:"), 5);
    std::vector<Dim> dims{Dim::Tp, Dim::Pp, Dim::Dp};
    if (m_ep)
        dims.push_back(Dim::Ep);
    if (m_cp)
        dims.push_back(Dim::Cp);
    for (Dim d : dims) {
        painter->setPen(QPen(ColorScale::dimColour(d), 2.2));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(QRectF(x, kRow2 + 3, 13, 9), 2, 2);
        painter->setPen(ink);
        x = text(painter, x + 16, kRow2, ColorScale::dimLabel(d), 7);
    }

    // Row 3: the gestures, whole (the first thing a newcomer reads).
    painter->setPen(grey);
    font.setPixelSize(kHintPixels);
    painter->setFont(font);
    double hintY = kHintRow;
    for (const QString &line : hintLines()) {
        painter->drawText(
            QRectF(8, hintY, kWidth - 16, kHintLine), Qt::AlignLeft | Qt::AlignVCenter, line);
        hintY += kHintLine;
    }

    // Last row (only with an emphasis): the emphasis swatch and what it means.
    if (m_caption.isEmpty())
        return;
    const double captionRow = captionTop();
    const double y = captionRow + 7.5;
    painter->setPen(QPen(FabricItem::emphasisColour(), 7.0));
    painter->drawLine(QPointF(12, y), QPointF(30, y));
    painter->setPen(QPen(Qt::white, 3.5));
    painter->drawLine(QPointF(12, y), QPointF(30, y));
    font.setPixelSize(10);
    painter->setFont(font);
    painter->setPen(ink);
    const double width = boundingRect().width();
    painter->drawText(QRectF(38, captionRow, width - 46, kRowHeight),
        Qt::AlignLeft | Qt::AlignVCenter,
        QFontMetricsF(font).elidedText(m_caption, Qt::ElideRight, width - 46));
}

} // namespace railyard
