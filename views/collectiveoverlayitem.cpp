#include "collectiveoverlayitem.h"

#include "chartformat.h"
#include "fabricitem.h"
#include "fabriclayout.h"

#include <QPaintEngine>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace railyard {

namespace {

/// Stroke width classes: a link's bytes over the step's largest, in kWidths steps, so a step's
/// links are stroked in a few calls whatever their number.
constexpr int kWidths = 4;
/// Chunk colours cycle over this many hues: more would not be told apart on screen.
constexpr int kMaxHues = 12;
/// Labels are written only when this few fall in the repainted area (more would be a smear of
/// text, and a 16,384-GPU ring's 100,000 labels a slow frame).
constexpr int kMaxLabels = 400;
/// On-screen sizes in pixels (before the presentation scale): label type, chunk dot.
constexpr double kLabelPixels = 11.0;
constexpr double kDotPixels = 9.0;
/// From this many chunks a frame draws one dot per dot-sized screen cell (paint()): below it
/// every dot is drawn (a DP group of a few hundred members).
constexpr int kThinFrom = 4096;
/// Scene units around the links for the labels and dots drawn at a fixed screen size: a label
/// ("2.17 GB", about 60 pixels) at the overview's zoom (FabricView::kOverviewBelow, 0.22)
/// spans some 270 scene units; beyond that zoom out labels are not readable anyway.
constexpr double kMargin = 280.0;

} // namespace

/**
 * The step's links stroked and labelled: the same picture for every frame of a step, so it is
 * cached in device coordinates and repainted only when the step or the zoom changes (a ring of
 * 16,384 members strokes some 65,000 links).
 */
class CollectiveOverlayItem::LinkLayer : public QGraphicsItem
{
public:
    explicit LinkLayer(QGraphicsItem *parent)
        : QGraphicsItem(parent)
    {
        setFlag(ItemStacksBehindParent); // the chunks move over the links
        setAcceptedMouseButtons(Qt::NoButton);
    }
    struct Label
    {
        QPointF at;
        QString text;
    };
    /// Stroke paths by width class: a step's links drawn in kWidths calls.
    std::vector<QPainterPath> strokes;
    std::vector<Label> labels;
    QRectF bounds;
    double scale = 1.0;

    void reset(const QRectF &r)
    {
        prepareGeometryChange();
        bounds = r;
        invalidate();
    }
    /// The picture changed (step, scale): the next paint draws it again.
    void invalidate()
    {
        m_cache = QImage();
        update();
    }
    QRectF boundingRect() const override { return bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *) override
    {
        // The picture is the same for every frame of a step at one zoom: drawn once into an
        // image of the visible part, then blitted. (QGraphicsItem's DeviceCoordinateCache
        // shares QPixmapCache with the fabric's cached items and lost it every frame.)
        const QTransform t = painter->worldTransform();
        const double lod = option->levelOfDetailFromTransform(t);
        if (!painter->device() || t.isRotating() || !painter->paintEngine()
            || painter->paintEngine()->type() != QPaintEngine::Raster) {
            draw(painter, option->exposedRect, lod); // SVG, printing: vectors stay vectors
            return;
        }
        const QRect visible = t.mapRect(bounds).toAlignedRect().intersected(
            QRect(0, 0, painter->device()->width(), painter->device()->height()));
        if (visible.isEmpty())
            return;
        if (m_cache.isNull() || m_cacheTransform != t || m_cacheRect != visible
            || m_cache.devicePixelRatio() != painter->device()->devicePixelRatio()) {
            // At the screen's resolution (a scale-2 screen gets twice the pixels).
            const qreal dpr = painter->device()->devicePixelRatio();
            m_cache = QImage(visible.size() * dpr, QImage::Format_ARGB32_Premultiplied);
            m_cache.setDevicePixelRatio(dpr);
            m_cache.fill(Qt::transparent);
            QPainter p(&m_cache);
            p.translate(-QPointF(visible.topLeft()));
            p.setWorldTransform(t, true);
            draw(&p, t.inverted().mapRect(QRectF(visible)), lod);
            m_cacheTransform = t;
            m_cacheRect = visible;
        }
        painter->save();
        painter->resetTransform();
        painter->drawImage(visible.topLeft(), m_cache);
        painter->restore();
    }

private:
    void draw(QPainter *painter, const QRectF &exposed, double lod) const
    {
        painter->setRenderHint(QPainter::Antialiasing, lod > 0.3);
        QColor stroke = linkColour();
        stroke.setAlpha(210);
        for (int w = 0; w < kWidths; ++w) {
            const QPainterPath &path = strokes[static_cast<std::size_t>(w)];
            if (path.isEmpty())
                continue;
            QPen pen(stroke, (1.5 + 1.2 * w) * scale);
            pen.setCosmetic(true);
            pen.setCapStyle(Qt::RoundCap);
            painter->strokePath(path, pen);
        }
        // Bytes beside the links at a fixed size on screen, when few enough are in view.
        int inView = 0;
        for (const Label &l : labels)
            inView += exposed.contains(l.at) ? 1 : 0;
        if (inView == 0 || inView > kMaxLabels || lod <= 0.0)
            return;
        QFont font = painter->font();
        font.setPointSizeF(kLabelPixels * scale / lod); // scene units: kLabelPixels on screen
        font.setBold(true);
        painter->setFont(font);
        const QFontMetricsF metrics(font);
        const double pad = 3.0 / lod;
        // Greedy: a label that would cover one already written is left out (the two
        // directions of a short PCIe or NVLink link would sit on each other).
        std::vector<QRectF> written;
        for (const Label &l : labels) {
            if (!exposed.contains(l.at))
                continue;
            // The advance, not the ink: at scaled sizes the ink box can be narrower than the
            // text as drawn.
            QRectF box(0.0, 0.0, metrics.horizontalAdvance(l.text) * 1.1 + 2.0 * pad,
                metrics.height() + pad);
            box.moveCenter(l.at + QPointF(box.width() / 2.0 + 4.0 / lod, 0.0));
            if (std::any_of(written.begin(), written.end(),
                    [&box](const QRectF &w) { return w.intersects(box); }))
                continue;
            written.push_back(box);
            painter->fillRect(box, QColor(255, 255, 255, 225));
            painter->setPen(QColor(0x8a, 0x38, 0x00));
            painter->drawText(box, Qt::AlignCenter | Qt::TextDontClip, l.text);
        }
    }

    QImage m_cache;
    QTransform m_cacheTransform;
    QRect m_cacheRect;
};

CollectiveOverlayItem::CollectiveOverlayItem(const FabricItem *root)
    : m_root(root)
    , m_linkLayer(new LinkLayer(this))
{
    // Above the cables, servers, switches and labels (the root's items stay under 10).
    setZValue(50.0);
    setAcceptedMouseButtons(Qt::NoButton);
    setAcceptHoverEvents(false);
}

QColor CollectiveOverlayItem::chunkColour(int index, int count)
{
    const int hues = std::clamp(count, 1, kMaxHues);
    const int i = ((index % hues) + hues) % hues;
    return QColor::fromHsv(i * 360 / hues, 200, 230);
}

QPolygonF CollectiveOverlayItem::linkLine(int link) const
{
    const Fabric &f = m_root->fabric();
    const FabricLayout &layout = m_root->layout();
    if (link < 0 || link >= f.linkCount())
        return {};
    const FabricLink &l = f.link(link);
    if (l.tier == Tier::Pcie || l.tier == Tier::ScaleUp) {
        const bool srcGpu = f.node(l.src).kind == NodeKind::Gpu;
        const int gpu = srcGpu ? l.src : l.dst;
        const int other = srcGpu ? l.dst : l.src;
        if (f.node(gpu).kind != NodeKind::Gpu)
            return {};
        const FabricNode &g = f.node(gpu);
        const QPointF origin = layout.serverPos(g.server);
        const QRectF chip = layout.slotRect(g.local).translated(origin);
        QPointF near, far;
        if (l.tier == Tier::Pcie) { // the server item draws PCIe from the NIC down to the chip
            const QRectF nic = layout.nicRect(f.node(other).local).translated(origin);
            near = QPointF(chip.center().x(), chip.top());
            far = QPointF(nic.center().x(), nic.bottom());
        } else { // NVLink: from the chip down to the NVSwitch bar
            const QRectF bar = layout.barRect().translated(origin);
            near = QPointF(chip.center().x() + 6.0, chip.bottom());
            far = QPointF(chip.center().x() + 6.0, bar.top());
            if (!srcGpu) { // the way back beside the way in, so both directions show
                near.rx() -= 12.0;
                far.rx() -= 12.0;
            }
        }
        return srcGpu ? QPolygonF { near, far } : QPolygonF { far, near };
    }
    QPolygonF path = layout.cablePath(link >> 1);
    if (link & 1) // the reverse direction runs from the upper end
        std::reverse(path.begin(), path.end());
    return path;
}

void CollectiveOverlayItem::setStep(const std::vector<std::pair<int, double>> &linkBytes,
    const std::vector<Chunk> &chunks, int colours)
{
    prepareGeometryChange();
    m_bytes.clear();
    std::vector<QPainterPath> &strokes = m_linkLayer->strokes;
    strokes.assign(kWidths, QPainterPath());
    m_linkLayer->labels.clear();
    m_points.clear();
    m_lengths.clear();
    m_chunkFirst.clear();
    m_chunkCount.clear();
    m_chunkColour.clear();
    m_chunkInput.clear();
    m_colours = std::clamp(colours, 1, kMaxHues);
    m_framePoints.assign(static_cast<std::size_t>(m_colours), {});
    QRectF bounds;
    double largest = 0.0;
    for (const auto &[link, bytes] : linkBytes)
        largest = std::max(largest, bytes);
    for (const auto &[link, bytes] : linkBytes) {
        m_bytes[link] += bytes;
        const QPolygonF line = linkLine(link);
        if (line.size() < 2)
            continue;
        const int w = largest > 0.0
            ? std::clamp(static_cast<int>(std::ceil(bytes / largest * kWidths)) - 1, 0, kWidths - 1)
            : 0;
        strokes[static_cast<std::size_t>(w)].addPolygon(line);
        bounds |= line.boundingRect();
        // A third of the way from the link's source: the two directions of a cable are
        // labelled at different places.
        const QPointF at = line.first() + (line.at(1) - line.first()) / 3.0;
        m_linkLayer->labels.push_back({ at, chartformat::bytes(bytes) });
    }
    for (std::size_t ci = 0; ci < chunks.size(); ++ci) {
        const Chunk &c = chunks[ci];
        const int first = static_cast<int>(m_points.size());
        double length = 0.0;
        for (const int link : c.links) {
            const QPolygonF line = linkLine(link);
            for (const QPointF &p : line) {
                if (static_cast<int>(m_points.size()) > first) {
                    const QPointF d = p - m_points.back();
                    const double step = std::hypot(d.x(), d.y());
                    if (step == 0.0)
                        continue;
                    length += step;
                }
                m_points.push_back(p);
                m_lengths.push_back(length);
            }
        }
        if (static_cast<int>(m_points.size()) == first)
            continue;
        m_chunkFirst.push_back(first);
        m_chunkCount.push_back(static_cast<int>(m_points.size()) - first);
        m_chunkColour.push_back(((c.colour % m_colours) + m_colours) % m_colours);
        m_chunkInput.push_back(static_cast<int>(ci));
    }
    m_bounds = bounds.adjusted(-kMargin, -kMargin, kMargin, kMargin);
    m_linkLayer->reset(m_bounds);
    update();
}

void CollectiveOverlayItem::clearStep()
{
    setStep({}, {}, 1);
}

void CollectiveOverlayItem::setChunkColours(const std::vector<int> &colours)
{
    for (std::size_t i = 0; i < m_chunkInput.size(); ++i) {
        const auto input = static_cast<std::size_t>(m_chunkInput[i]);
        if (input < colours.size())
            m_chunkColour[i] = ((colours[input] % m_colours) + m_colours) % m_colours;
    }
    update();
}

void CollectiveOverlayItem::setProgress(double progress)
{
    m_progress = std::clamp(progress, 0.0, 1.0);
    update();
}

void CollectiveOverlayItem::setTextScale(double scale)
{
    m_textScale = std::max(0.5, scale);
    m_linkLayer->scale = m_textScale;
    m_linkLayer->invalidate();
    update();
}

QPointF CollectiveOverlayItem::chunkPosition(int i) const
{
    const int first = m_chunkFirst[static_cast<std::size_t>(i)];
    const int count = m_chunkCount[static_cast<std::size_t>(i)];
    const double *len = m_lengths.data() + first;
    const QPointF *pts = m_points.data() + first;
    const double target = m_progress * len[count - 1];
    // Few points per route (a handful of links): a linear walk beats a binary search.
    int k = 1;
    while (k < count - 1 && len[k] < target)
        ++k;
    if (count == 1)
        return pts[0];
    const double span = len[k] - len[k - 1];
    const double t = span > 0.0 ? (target - len[k - 1]) / span : 1.0;
    return pts[k - 1] + (pts[k] - pts[k - 1]) * std::clamp(t, 0.0, 1.0);
}

void CollectiveOverlayItem::paint(
    QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    // Chunks: every position at this progress, a dot each.
    for (std::vector<QPointF> &pts : m_framePoints)
        pts.clear();
    const QRectF exposed = option->exposedRect.adjusted(-kMargin, -kMargin, kMargin, kMargin);
    const double dot = kDotPixels * m_textScale;
    // Many chunks (a ring of 16,384 members on 8 channels moves 131,072): one dot per
    // dot-sized cell of the screen is what can be seen anyway, and bounds the frame's drawing
    // by the viewport's area instead of the chunk count.
    const bool thin = chunkCount() > kThinFrom;
    const QTransform toDevice = painter->worldTransform();
    const QRect device = toDevice.mapRect(exposed).toAlignedRect();
    const double cell = std::max(2.0, 0.75 * dot);
    const int cols = static_cast<int>(device.width() / cell) + 1;
    const int rows = static_cast<int>(device.height() / cell) + 1;
    if (thin)
        m_cells.assign(static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows), 0);
    for (int i = 0; i < chunkCount(); ++i) {
        const QPointF p = chunkPosition(i);
        if (!exposed.contains(p))
            continue;
        if (thin) {
            const QPointF d = toDevice.map(p) - QPointF(device.topLeft());
            const int cx = std::clamp(static_cast<int>(d.x() / cell), 0, cols - 1);
            const int cy = std::clamp(static_cast<int>(d.y() / cell), 0, rows - 1);
            unsigned char &taken
                = m_cells[static_cast<std::size_t>(cy) * static_cast<std::size_t>(cols)
                    + static_cast<std::size_t>(cx)];
            if (taken)
                continue;
            taken = 1;
        }
        m_framePoints[static_cast<std::size_t>(m_chunkColour[static_cast<std::size_t>(i)])]
            .push_back(p);
    }
    // One pre-drawn dot per colour, blitted at each position (stroking a round point per
    // chunk flattens a circle each time).
    const int size = static_cast<int>(std::ceil(dot)) + 2;
    const qreal dpr = painter->device() ? painter->device()->devicePixelRatio() : 1.0;
    if (m_spriteSize != size || m_spriteRatio != dpr
        || static_cast<int>(m_sprites.size()) != m_colours) {
        m_sprites.clear();
        for (int c = 0; c < m_colours; ++c) {
            QImage sprite(QSize(size, size) * dpr, QImage::Format_ARGB32_Premultiplied);
            sprite.setDevicePixelRatio(dpr);
            sprite.fill(Qt::transparent);
            QPainter p(&sprite);
            p.setRenderHint(QPainter::Antialiasing);
            p.setPen(QPen(QColor(0x20, 0x20, 0x20), 1.0));
            p.setBrush(chunkColour(c, m_colours));
            p.drawEllipse(QRectF(0.5, 0.5, size - 1.0, size - 1.0));
            p.end();
            m_sprites.push_back(sprite);
        }
        m_spriteSize = size;
        m_spriteRatio = dpr;
    }
    painter->save();
    painter->resetTransform();
    const QPointF half(size / 2.0, size / 2.0);
    for (int c = 0; c < m_colours; ++c) {
        const QImage &sprite = m_sprites[static_cast<std::size_t>(c)];
        for (const QPointF &pt : m_framePoints[static_cast<std::size_t>(c)])
            painter->drawImage((toDevice.map(pt) - half).toPoint(), sprite);
    }
    painter->restore();
}

} // namespace railyard
