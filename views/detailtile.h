#pragma once

#include <QGraphicsItem>
#include <QPointF>
#include <QRectF>

#include <vector>

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

    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    QRectF m_bounds;
};

/**
 * A square grid of cells over a layout's bounds, about kServersPerTile servers' area each; the
 * items anchored in a cell share its tile (made on first use). Tiles of a few dozen servers
 * keep both costs small at 131,072 GPUs (512 tiles): a tile outside the exposed area is
 * skipped whole, one inside has its children visited; a 128-GPU fabric stays in one.
 */
class DetailTileGrid
{
public:
    static constexpr double kServersPerTile = 32.0;

    DetailTileGrid(const QRectF &bounds, int servers);
    ~DetailTileGrid();
    DetailTileGrid(const DetailTileGrid &) = delete;
    DetailTileGrid &operator=(const DetailTileGrid &) = delete;

    /// The tile of the cell holding `p` (clamped into the grid).
    DetailTile *at(const QPointF &p);
    /// The tiles made, row by row; the grid forgets them (the caller owns them).
    std::vector<DetailTile *> take();

private:
    QRectF m_bounds;
    int m_side;
    std::vector<DetailTile *> m_cells;
};

} // namespace railyard
