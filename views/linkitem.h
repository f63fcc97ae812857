#pragma once

#include <QGraphicsItem>
#include <QLineF>
#include <QList>
#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>

namespace railyard {

class FabricItem;

/**
 * One cable between a NIC and a leaf, a leaf and a spine, or a spine and a super-spine (a
 * switch-to-switch bundle of parallel ports is one cable in the Fabric, hence one line). Both
 * directions are loaded separately; the line shows the worse of the two, the tooltip both.
 * The values are the report's, stored as read (`utilisation(dir)`), never recomputed here.
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
    /// Utilisation as shown: direction 0 = forward (up), 1 = reverse (down).
    double utilisation(int direction) const { return direction == 0 ? m_up : m_down; }
    double worstUtilisation() const { return std::max(m_up, m_down); }

    /// Re-reads both directions' utilisation from the document's report (or the view's
    /// external overlay, FabricItem::shownUtilisation()).
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
    QPainterPath shape() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
               QWidget *widget) override;

private:
    void updateZ();

    const FabricItem *m_root;
    int m_cable;
    QPolygonF m_path;
    QList<QLineF> m_segments; ///< m_path as segments (see paint())
    QList<QLineF> m_straight; ///< its vertical and horizontal segments
    QList<QLineF> m_slanted;  ///< the others
    QRectF m_bounds;
    mutable QPainterPath m_shape; ///< built on first hit test
    double m_up = 0.0;
    double m_down = 0.0;
    unsigned m_routeMask = 0;
    bool m_bottleneck = false;
    bool m_emphasised = false;
};

} // namespace railyard
