#include "cableraster.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace railyard {

namespace {

/// x's four 8-bit channels times a / 255, rounded, two channels per 32-bit multiply (each
/// product fits its 16-bit lane: 255 x 255 + 255 + 128 < 65,536).
inline std::uint32_t byteMul(std::uint32_t x, std::uint32_t a)
{
    std::uint32_t rb = (x & 0x00ff00ffu) * a;
    rb = ((rb + ((rb >> 8) & 0x00ff00ffu) + 0x00800080u) >> 8) & 0x00ff00ffu;
    std::uint32_t ag = ((x >> 8) & 0x00ff00ffu) * a;
    ag = (ag + ((ag >> 8) & 0x00ff00ffu) + 0x00800080u) & 0xff00ff00u;
    return rb | ag;
}

inline std::uint32_t sourceOver(std::uint32_t dst, std::uint32_t colour, std::uint32_t coverage)
{
    const std::uint32_t s = coverage >= 255 ? colour : byteMul(colour, coverage);
    // Premultiplied channels never exceed alpha, so the sum stays within 8 bits.
    return s + byteMul(dst, 255u - (s >> 24));
}

} // namespace

CableRaster::CableRaster(std::uint32_t *bits, int width, int height, int stride)
    : m_bits(bits)
    , m_width(width)
    , m_height(height)
    , m_stride(stride)
{
}

std::uint32_t CableRaster::blend(std::uint32_t dst, std::uint32_t colour, int coverage)
{
    return sourceOver(dst, colour, static_cast<std::uint32_t>(std::clamp(coverage, 0, 255)));
}

void CableRaster::stroke(QPointF a, QPointF b, double width, QRgb colour)
{
    if (qAlpha(colour) == 0 || !(width > 0.0))
        return;
    const double half = width / 2.0;
    if (a.x() == b.x() || a.y() == b.y()) {
        // Whole pixels whose centres the stroke (with its caps) covers; at least one row and
        // column, as a thin aliased pen never vanishes.
        const auto lo = [](double v) { return static_cast<int>(std::floor(v + 0.5)); };
        int x0 = lo(std::min(a.x(), b.x()) - half), x1 = lo(std::max(a.x(), b.x()) + half);
        int y0 = lo(std::min(a.y(), b.y()) - half), y1 = lo(std::max(a.y(), b.y()) + half);
        x1 = std::max(x1, x0 + 1);
        y1 = std::max(y1, y0 + 1);
        fillRect(x0, y0, x1, y1, colour);
        return;
    }
    strokeSlanted(a, b, width, colour);
}

void CableRaster::fillRect(int x0, int y0, int x1, int y1, std::uint32_t colour)
{
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, m_width);
    y1 = std::min(y1, m_height);
    const bool opaque = (colour >> 24) == 255;
    for (int y = y0; y < y1; ++y) {
        std::uint32_t *p = pixel(x0, y);
        for (int x = x0; x < x1; ++x, ++p)
            *p = opaque ? colour : sourceOver(*p, colour, 255);
    }
}

void CableRaster::strokeSlanted(QPointF a, QPointF b, double width, std::uint32_t colour)
{
    const QPointF d = b - a;
    const double length = std::hypot(d.x(), d.y());
    const double half = width / 2.0;
    // Square caps: the stroke runs half its width past both ends.
    const QPointF cap = d * (half / length);
    a -= cap;
    b += cap;
    // Walk the major axis one pixel column (or row) at a time, the stroke's cross-section
    // along the minor axis in 16.16 fixed point (64-bit: a zoomed-in cable reaches far
    // outside the buffer).
    const bool xMajor = std::abs(d.x()) >= std::abs(d.y());
    double m0 = xMajor ? a.x() : a.y(), m1 = xMajor ? b.x() : b.y();
    double n0 = xMajor ? a.y() : a.x(), n1 = xMajor ? b.y() : b.x();
    if (m0 > m1) {
        std::swap(m0, m1);
        std::swap(n0, n1);
    }
    const double slope = (n1 - n0) / (m1 - m0);
    const double reach = half * length / std::abs(xMajor ? d.x() : d.y());
    const int majorLimit = xMajor ? m_width : m_height;
    const int minorLimit = xMajor ? m_height : m_width;
    const std::ptrdiff_t majorStep = xMajor ? 4 : m_stride;
    const std::ptrdiff_t minorStep = xMajor ? m_stride : 4;
    const int i0 = std::max(static_cast<int>(std::floor(m0)), 0);
    const int i1 = std::min(static_cast<int>(std::floor(m1)), majorLimit - 1);
    if (i0 > i1)
        return;
    constexpr double kOne = 65536.0;
    const auto fixed = [](double v) { return static_cast<std::int64_t>(std::llround(v * kOne)); };
    const std::int64_t reachFx = fixed(reach);
    const std::int64_t slopeFx = fixed(slope);
    std::int64_t centre = fixed(n0 + (i0 + 0.5 - m0) * slope);
    auto *base = reinterpret_cast<unsigned char *>(m_bits);
    for (int i = i0; i <= i1; ++i, centre += slopeFx) {
        std::int64_t share = 255; // of this column the stroke covers: less at its two ends
        if (i == i0 || i == i1) {
            const double covered = std::min(i + 1.0, m1) - std::max(static_cast<double>(i), m0);
            share = static_cast<std::int64_t>(covered * 255.0 + 0.5);
            if (share <= 0)
                continue;
        }
        const std::int64_t top = centre - reachFx, bottom = centre + reachFx;
        const int j0 = static_cast<int>(std::max<std::int64_t>(top >> 16, 0));
        const int j1 = static_cast<int>(std::min<std::int64_t>((bottom - 1) >> 16, minorLimit - 1));
        unsigned char *p = base + i * majorStep + j0 * minorStep;
        for (int j = j0; j <= j1; ++j, p += minorStep) {
            const std::int64_t cell = static_cast<std::int64_t>(j) << 16;
            const std::int64_t inside = std::min(cell + 65536, bottom) - std::max(cell, top);
            const auto coverage = static_cast<std::uint32_t>((inside * share) >> 16);
            if (coverage > 0) {
                auto *px = reinterpret_cast<std::uint32_t *>(p);
                *px = sourceOver(*px, colour, coverage);
            }
        }
    }
}

} // namespace railyard
