#pragma once

#include <QPointF>
#include <QRgb>

#include <cstddef>
#include <cstdint>

namespace railyard {

/**
 * A small scanline rasteriser for the cable layer: straight strokes with square caps blended
 * source-over into a premultiplied 32-bit ARGB buffer (QImage::Format_ARGB32_Premultiplied).
 * Axis-aligned strokes are filled as whole pixels (crisp, as an aliased pen draws them);
 * slanted ones get box-filtered coverage: per pixel column (or row, for steep strokes) the
 * stroke's cross-section is intersected with each pixel's span, the usual area-coverage
 * antialiasing of thin lines (Foley, van Dam et al., "Computer Graphics: Principles and
 * Practice", 2nd ed., section 3.17.2, unweighted area sampling).
 *
 * Why not QPainter: on the raster engine each antialiased cosmetic line goes through the
 * generic span pipeline (a blended span per pixel). At 1,024 GPUs (1,536 cables, ~640,000
 * antialiased pixels per repaint) QPainter::drawLines took ~120 M instructions per repaint
 * under callgrind, these loops ~50 M for the same cables. The blend is the Porter-Duff
 * "source over" of premultiplied colours (Porter & Duff, "Compositing Digital
 * Images", SIGGRAPH 1984): dst = src x coverage + dst x (1 - alpha(src) x coverage).
 */
class CableRaster
{
public:
    /// `bits` points at `width` x `height` pixels, `stride` bytes per row.
    CableRaster(std::uint32_t *bits, int width, int height, int stride);

    /// A stroke from `a` to `b` (buffer pixel coordinates, pixel (x, y) covers [x, x+1) x
    /// [y, y+1)) of `width` pixels with square caps, in premultiplied `colour`. Clipped to the
    /// buffer.
    void stroke(QPointF a, QPointF b, double width, QRgb colour);

    /// Source-over of premultiplied `colour` scaled by `coverage` (0..255) onto one pixel.
    static std::uint32_t blend(std::uint32_t dst, std::uint32_t colour, int coverage);

private:
    void fillRect(int x0, int y0, int x1, int y1, std::uint32_t colour);
    void strokeSlanted(QPointF a, QPointF b, double width, std::uint32_t colour);
    std::uint32_t *pixel(int x, int y) const
    {
        return reinterpret_cast<std::uint32_t *>(reinterpret_cast<unsigned char *>(m_bits)
                   + static_cast<std::ptrdiff_t>(y) * m_stride)
            + x;
    }

    std::uint32_t *m_bits;
    int m_width;
    int m_height;
    int m_stride;
};

} // namespace railyard
