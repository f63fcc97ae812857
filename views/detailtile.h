#pragma once

#include <QGraphicsItem>
#include <QRectF>

namespace railyard {

/**
 * A parent for the detailed items (servers, switches, cable items) of one patch of the fabric,
 * and, one level up, the parent of all the patches' tiles.
 *
 * Grouping the 300,000 items of a 131,072-GPU fabric under tiles keeps what Qt's scene does
 * per frame proportional to the tiles rather than the items: QGraphicsScene walks every
 * top-level item when it processes dirty items (after any item's update()), and it skips a
 * tile outside the exposed area or the mouse's probe without visiting its children (the tile
 * declares ItemContainsChildrenInShape; its bounding rectangle is the union of its
 * children's, fitChildren()). Hiding the detailed drawing is one opacity change of the tile
 * holding the tiles, where a setVisible() per item notifies, purges the cache of and marks
 * dirty every one of them (0.2 s at that size): a fully transparent item is skipped with its
 * children when painting and when the scene looks for items under the mouse or a rubber band
 * (children combine their parent's opacity, QGraphicsItem::setOpacity), so a hidden tile's
 * items behave as hidden ones, though QGraphicsItem::isVisible() stays true.
 *
 * The tile paints nothing.
 */
class DetailTile : public QGraphicsItem
{
public:
    enum { Type = UserType + 13 };

    DetailTile();

    int type() const override { return Type; }
    /// Bounds the tile to its children as they are now (call after adding them).
    void fitChildren();
    /// Shown: the children paint and can be hit; hidden: neither (opacity 0).
    void setShown(bool shown);
    bool isShown() const { return opacity() > 0.0; }

    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    QRectF m_bounds;
};

} // namespace railyard
