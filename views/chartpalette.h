#pragma once

#include "base/units.h"

#include <QColor>

#include <array>

namespace railyard {

/**
 * The colours the timeline, charts and summary bar share: one per parallel dimension, one per
 * link tier, forward/backward compute and the chunk shades of an interleaved pipeline. Chosen
 * from the Tableau 10 palette so neighbouring series stay distinguishable in print.
 */
namespace chartpalette {

inline QColor dimColor(Dim d)
{
    static const std::array<QColor, kDimCount> colors { QColor(0x4e, 0x79, 0xa7), // tp: blue
        QColor(0xf2, 0x8e, 0x2b), // pp: orange
        QColor(0x59, 0xa1, 0x4f), // dp: green
        QColor(0xb0, 0x7a, 0xa1), // ep: purple
        QColor(0x76, 0xb7, 0xb2) }; // cp: teal
    return colors[static_cast<std::size_t>(index(d))];
}

inline QColor forwardColor()
{
    return QColor(0x4e, 0x79, 0xa7);
}
inline QColor backwardColor()
{
    return QColor(0xe1, 0x57, 0x59);
}
inline QColor sendColor()
{
    return QColor(0x59, 0x59, 0x59);
}
inline QColor idleColor()
{
    return QColor(0xee, 0xee, 0xee);
}
inline QColor idleHatchColor()
{
    return QColor(0xc4, 0xc4, 0xc4);
}
inline QColor goodColor()
{
    return QColor(0x2e, 0x7d, 0x32);
}
inline QColor badColor()
{
    return QColor(0xc6, 0x28, 0x28);
}
inline QColor warnColor()
{
    return QColor(0xb2, 0x6a, 0x00);
}

/// A deferred weight-gradient pass (W of ZB-H1 and DualPipe): amber, apart from F and B.
inline QColor weightGradColor()
{
    return QColor(0xed, 0xa2, 0x1c);
}

/// Model chunk c of an interleaved stage: the base colour lightened or darkened in turn, so
/// adjacent chunks differ while F stays blue and B stays red.
inline QColor chunkShade(const QColor &base, int chunk)
{
    static constexpr std::array<int, 8> factors { 100, 150, 72, 185, 58, 125, 86, 165 };
    const int f = factors[static_cast<std::size_t>(chunk) % factors.size()];
    return f >= 100 ? base.lighter(f) : base.darker(100 * 100 / f);
}

/// Black or white, whichever reads better on `background`.
inline QColor textOn(const QColor &background)
{
    const double luma
        = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luma > 0.6 ? QColor(Qt::black) : QColor(Qt::white);
}

} // namespace chartpalette

} // namespace railyard
