#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QPainterPath>
#include <QRectF>

#include <vector>

namespace railyard {

class FabricItem;

/**
 * Presentation mode's spotlight on one group: the fabric under a white veil except the
 * group's chips, and the group's routes drawn bright over the veil in its dimension's colour,
 * so a room sees one TP, PP or DP group and its traffic against a dimmed rest. The caller
 * (the app) passes the slots and the directed links of the routes the engine planned.
 */
class SpotlightItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 23 };

    explicit SpotlightItem(const FabricItem *root);

    int type() const override { return Type; }
    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

    /// Lights these GPU slots and links (directed ids; either direction lights the cable).
    void setGroup(
        const std::vector<int> &slots, const std::vector<int> &links, const QColor &colour);
    void clear();
    bool isActive() const { return m_active; }
    const std::vector<int> &slots() const { return m_slots; }
    const std::vector<int> &links() const { return m_links; }
    QColor colour() const { return m_colour; }

private:
    const FabricItem *m_root;
    bool m_active = false;
    std::vector<int> m_slots;
    std::vector<int> m_links;
    QColor m_colour;
    QRectF m_bounds;
    QPainterPath m_veil; ///< the fabric's rectangle less the lit chips
    QPainterPath m_routes; ///< the lit cables' polylines
    QPainterPath m_chips; ///< the lit chips' outlines
};

} // namespace railyard
