#pragma once

#include <QGraphicsItem>
#include <QString>
#include <QStringList>

namespace railyard {

/**
 * The key of the fabric view: the link-load colour scale with its numeric range (0-100 %, or
 * 0 to the report's highest utilisation on the relative scale), the idle and bottleneck styles, the chip colouring and the
 * partner highlight colours. Ignores the view transform (constant size on screen); the view
 * keeps it in its top-left corner.
 */
class LegendItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 6 };

    LegendItem();

    int type() const override { return Type; }
    /// The colour ramp spans 0 .. `scaleTop` (1 = 100 % on the absolute scale; the bottleneck's
    /// utilisation on the relative one, `relative` true); `peak` is the bottleneck's
    /// utilisation, shown next to its name.
    void setLoadRange(double scaleTop, double peak, const QString &bottleneck, bool relative);
    double maxUtilisation() const { return m_max; }
    bool isRelative() const { return m_relative; }
    QString bottleneckText() const { return m_bottleneck; }
    void setColouring(QChar coordinate, int values);
    void setDimensions(bool ep, bool cp);
    /// Non-empty: the links show external values (FabricView::setLinkOverlay) under this
    /// title, on a fixed 0..100 % scale.
    void setOverlayTitle(const QString &title);
    QString overlayTitle() const { return m_overlayTitle; }
    /// Non-empty: a third row explains the emphasised links (FabricView::setEmphasis).
    void setCaption(const QString &caption);
    QString caption() const { return m_caption; }

    /// The call to action under the chip colours ("drag a chip or a server bar ..."), and the
    /// lines it is drawn in: one, or one per gesture when one would not fit. Never elided.
    static QString hintText();
    QStringList hintLines() const;
    /// From the legend's left edge to the end of the hint's longest line.
    double hintWidth() const;
    /// Presentation mode: the key without what a room cannot use from afar (the gestures'
    /// hint, the bottleneck's name, which the summary bar shows in full), its smallest type
    /// as large as the rest, so that scaled by the view (setScale) every word reaches the
    /// room's size.
    void setStage(bool on);
    bool isStage() const { return m_stage; }
    /// The smallest type drawn, in the item's own pixels (before setScale).
    double smallestPixels() const { return m_stage ? 10.0 : 8.0; }

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
               QWidget *widget) override;

private:
    double captionTop() const;

    double m_max = 1.0;
    double m_peak = 0.0;
    QString m_bottleneck;
    bool m_relative = false;
    QChar m_coordinate = QLatin1Char('t');
    int m_values = 1;
    bool m_ep = false;
    bool m_cp = false;
    QString m_overlayTitle;
    QString m_caption;
    bool m_stage = false;
};

} // namespace railyard
