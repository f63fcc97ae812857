#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QImage>
#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <unordered_map>
#include <utility>
#include <vector>

namespace railyard {

class FabricItem;

/**
 * One step of a watched collective drawn over the fabric: the links the step loads stroked in
 * an accent colour (thicker for more bytes) with their bytes written beside them where they are
 * readable, and the step's chunks as dots moving along their routes, coloured by chunk index.
 * The caller (the collective controller) passes link ids, bytes and chunk routes in; this item
 * only turns them into geometry (FabricLayout) and paints.
 *
 * Cheap to animate: the links and their labels are a child item that caches its picture as an
 * image of the visible area (its strokes built once per step into one path per width class,
 * drawn once per step and zoom, then blitted); the chunks' polylines are flattened into one
 * array with their cumulative lengths; a frame moves every chunk along its polyline and blits a
 * pre-drawn dot per chunk (many chunks: one dot per dot-sized cell of the screen, the first
 * chunk's), and only this item's rectangle is repainted.
 */
class CollectiveOverlayItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 30 };

    explicit CollectiveOverlayItem(const FabricItem *root);

    int type() const override { return Type; }

    /** A chunk of the step: the directed links of its route in order, and its colour index. */
    struct Chunk
    {
        std::vector<int> links;
        int colour = 0; ///< chunk index; colours cycle over `colours`
    };
    /// Shows a step: `linkBytes` (directed link id, bytes) highlighted and labelled, `chunks`
    /// moving along their routes, coloured over `colours` hues.
    void setStep(const std::vector<std::pair<int, double>> &linkBytes,
        const std::vector<Chunk> &chunks, int colours);
    void clearStep();
    /// The next step of the same phase: the same links and routes, other chunk indexes
    /// (`colours` per chunk, in setStep()'s order); nothing is rebuilt.
    void setChunkColours(const std::vector<int> &colours);
    /// Where the chunks are along their routes: 0 at their sources, 1 at their destinations.
    void setProgress(double progress);
    double progress() const { return m_progress; }
    /// Text and dots scaled by `scale` (presentation mode draws them larger).
    void setTextScale(double scale);

    /// The links drawn highlighted and the bytes written beside them (tests read them).
    const std::unordered_map<int, double> &highlightedLinks() const { return m_bytes; }
    int chunkCount() const { return static_cast<int>(m_chunkFirst.size()); }
    /// Scene position of chunk `i` at the current progress.
    QPointF chunkPosition(int i) const;
    /// The directed link's line in scene coordinates, from its source end to its target end
    /// (empty for a link the layout does not draw).
    QPolygonF linkLine(int link) const;
    static QColor linkColour() { return QColor(0xff, 0x6a, 0x00); }
    static QColor chunkColour(int index, int count);

    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    class LinkLayer;
    const FabricItem *m_root;
    std::unordered_map<int, double> m_bytes;
    LinkLayer *m_linkLayer; ///< child: the highlighted links and their labels, cached
    // Chunks: polyline points of all chunks in one array, cumulative lengths beside them.
    std::vector<QPointF> m_points;
    std::vector<double> m_lengths; ///< per point: path length from its chunk's first point
    std::vector<int> m_chunkFirst; ///< per chunk: its first point
    std::vector<int> m_chunkCount; ///< per chunk: its points
    std::vector<int> m_chunkColour;
    std::vector<int> m_chunkInput; ///< per chunk: its index in setStep()'s list
    std::vector<unsigned char> m_cells; ///< per frame: device cells already holding a dot
    std::vector<QImage> m_sprites; ///< a dot per colour, `m_spriteSize` pixels square
    int m_spriteSize = 0;
    qreal m_spriteRatio = 1.0;
    int m_colours = 1;
    std::vector<std::vector<QPointF>> m_framePoints; ///< per colour, reused frame to frame
    double m_progress = 0.0;
    double m_textScale = 1.0;
    QRectF m_bounds;
};

} // namespace railyard
