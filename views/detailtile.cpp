#include "detailtile.h"

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

} // namespace railyard
