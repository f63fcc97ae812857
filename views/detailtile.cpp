#include "detailtile.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace railyard {

DetailTile::DetailTile()
{
    setAcceptedMouseButtons(Qt::NoButton);
    // Not ItemHasNoContents: Qt only prunes the children of an item that has contents and
    // contains (or clips) its children when the item is outside the exposed area.
    setFlag(ItemContainsChildrenInShape);
}

void DetailTile::fitChildren()
{
    prepareGeometryChange();
    m_bounds = childrenBoundingRect();
}

void DetailTile::setShown(bool shown)
{
    setOpacity(shown ? 1.0 : 0.0);
}

void DetailTile::paint(QPainter *, const QStyleOptionGraphicsItem *, QWidget *)
{
}

DetailTileGrid::DetailTileGrid(const QRectF &bounds, int servers)
    : m_bounds(bounds)
    , m_side(std::max(1, static_cast<int>(std::ceil(std::sqrt(servers / kServersPerTile)))))
    , m_cells(static_cast<std::size_t>(m_side) * static_cast<std::size_t>(m_side), nullptr)
{
}

DetailTileGrid::~DetailTileGrid()
{
    for (DetailTile *tile : m_cells)
        delete tile;
}

DetailTile *DetailTileGrid::at(const QPointF &p)
{
    const auto cell = [this](double v, double from, double span) {
        return std::clamp(
            static_cast<int>((v - from) / std::max(span, 1.0) * m_side), 0, m_side - 1);
    };
    const int col = cell(p.x(), m_bounds.left(), m_bounds.width());
    const int row = cell(p.y(), m_bounds.top(), m_bounds.height());
    DetailTile *&tile = m_cells[static_cast<std::size_t>(row * m_side + col)];
    if (!tile)
        tile = new DetailTile;
    return tile;
}

std::vector<DetailTile *> DetailTileGrid::take()
{
    std::vector<DetailTile *> tiles;
    for (DetailTile *&tile : m_cells) {
        if (tile)
            tiles.push_back(std::exchange(tile, nullptr));
    }
    return tiles;
}

} // namespace railyard
