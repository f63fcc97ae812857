#pragma once

#include <QGraphicsItem>
#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>

namespace railyard {

class FabricItem;

/**
 * One cable between a NIC and a leaf, a leaf and a spine, or a spine and a super-spine (a
 * switch-to-switch bundle of parallel ports is one cable in the Fabric, hence one line). Both
 * directions are loaded separately; the line shows the worse of the two, the tooltip both.
 * The values are read from the report (or the view's overlay) when asked and when painting,
 * never stored or recomputed here, so a cable the root does not repaint still shows the truth.
 *
 * It paints nothing itself (ItemHasNoContents): the fabric's CableLayerItem draws all cables
 * in one pass from their LinkItems' state. The item stays in the scene for hit tests (its
 * shape), tooltips and its z value, which orders the highlighted cables in that layer.
 */
class LinkItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 4 };

    LinkItem(const FabricItem *root, int cable, const QPolygonF &path);

    int type() const override { return Type; }
    int cable() const { return m_cable; }
    int forwardLink() const { return m_cable * 2; } ///< towards the upper tier
    int reverseLink() const { return m_cable * 2 + 1; }
    /// Utilisation as shown: direction 0 = forward (up), 1 = reverse (down): the document's
    /// report, or the view's external overlay (FabricItem::shownUtilisation()).
    double utilisation(int direction) const;
    double worstUtilisation() const { return std::max(utilisation(0), utilisation(1)); }

    /// Its load changed: the cable layer repaints it.
    void syncWithModel();
    void setBottleneck(bool bottleneck);
    bool isBottleneck() const { return m_bottleneck; }
    /// Bit i: the cable carries a route of the focused rank to a partner in dimension Dim(i).
    void setRouteMask(unsigned mask);
    unsigned routeMask() const { return m_routeMask; }
    /// Drawn above every other cable (still below servers and switches, so it hides no chip),
    /// with an outline in FabricItem::emphasisColour() around its unchanged load colour.
    void setEmphasised(bool emphasised);
    bool isEmphasised() const { return m_emphasised; }
    static constexpr double kEmphasisZ = -0.3;

    QRectF boundingRect() const override;
    /// The colour of the line as painted (load scale, idle cables translucent).
    QColor lineColour() const;
    /// The root shows measurements and one of this cable's directions has one: the cable
    /// layer draws it split, lineColour() then measuredColour() (FabricItem::setMeasuredShown).
    bool showsMeasured() const;
    /// The worse measured direction on the absolute scale (an unmeasured direction counts 0).
    QColor measuredColour() const;
    QPainterPath shape() const override;
    /// Nothing: CableLayerItem draws the cable.
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    void updateZ();
    void repaint();

    const FabricItem *m_root;
    int m_cable;
    QPolygonF m_path;
    QRectF m_bounds;
    mutable QPainterPath m_shape; ///< built on first hit test
    unsigned m_routeMask = 0;
    bool m_bottleneck = false;
    bool m_emphasised = false;
};

} // namespace railyard
