#pragma once

#include <QGraphicsItem>
#include <QImage>
#include <QPointF>
#include <QPolygonF>
#include <QRectF>

#include <vector>

namespace railyard {

class FabricItem;
class LinkItem;

/**
 * Draws every cable of the detailed view (NIC-leaf, leaf-spine, spine-super-spine) as one
 * item. Each cable's polyline sits in one flat array; a repaint walks the cables inside the
 * exposed rectangle once. On a raster device the plain cables are rasterised by CableRaster
 * into one buffer at device resolution, blitted in one call; highlighted cables (bottleneck,
 * a focused rank's routes, emphasis) are few and stroked by QPainter on top, in the order of
 * their LinkItem's z value. Elsewhere (SVG export, printing, a rotated view) QPainter strokes
 * everything, so vectors stay vectors.
 *
 * The LinkItems stay in the scene, without contents: they hold each cable's state (load as
 * shown, highlight flags), answer hit tests and tooltips by their shape, and ask this layer
 * to repaint their cable.
 */
class CableLayerItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 9 };

    explicit CableLayerItem(const FabricItem *root);

    int type() const override { return Type; }
    /// Adds `item`'s cable along `path` (drawn in the order added).
    void addCable(LinkItem *item, const QPolygonF &path);
    int count() const { return static_cast<int>(m_cables.size()); }
    /// Repaints cable `cable` (link id >> 1): its load or highlight changed.
    void updateCable(int cable);
    /// Rasterise plain cables with CableRaster on raster devices (the default); off, QPainter
    /// strokes every cable (exports that must keep vectors).
    void setRasterised(bool rasterised) { m_rasterised = rasterised; }
    bool isRasterised() const { return m_rasterised; }
    /// Pen width in device pixels of a cable at level of detail `lod`: thinner when zoomed
    /// out, so a fan of 100+ cables stays a fan, not a solid wedge.
    static double lineWidth(double lod, bool loaded, bool emphasised);

    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    struct Cable
    {
        LinkItem *item = nullptr;
        int first = 0; ///< into m_points
        int count = 0; ///< points
        QRectF bounds; ///< of its path
    };
    bool rasterisePlain(
        QPainter *painter, const QRectF &exposed, double lod, const std::vector<int> &cables);
    void strokePlain(QPainter *painter, const Cable &cable, double lod) const;
    void strokeHighlighted(QPainter *painter, const Cable &cable, double lod) const;
    /// Calls `segment(from, to, second)` for each piece of the cable's polyline, split where
    /// half its length lies (`second`: the piece lies in the second half).
    template<typename F>
    void forEachHalf(const Cable &cable, F &&segment) const;
    /// The colour of a piece: the predicted one, or in the second half of a cable that shows a
    /// measurement (LinkItem::showsMeasured) the measured one.
    static QColor pieceColour(const LinkItem *item, bool second);

    const FabricItem *m_root;
    std::vector<Cable> m_cables;
    std::vector<QPointF> m_points; ///< every cable's polyline, one after the other
    std::vector<int> m_indexOfCable; ///< by cable id: index into m_cables, or -1
    QRectF m_bounds;
    QImage m_buffer; ///< reused between repaints
    bool m_rasterised = true;
};

} // namespace railyard
