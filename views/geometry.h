#pragma once

#include <QLineF>
#include <QPointF>

#include <algorithm>

namespace railyard {

/// Distance from `p` to the segment a-b (hit tests of cables, bundles and arrows).
inline double distanceToSegment(const QPointF &p, const QPointF &a, const QPointF &b)
{
    const QPointF d = b - a;
    const double len2 = QPointF::dotProduct(d, d);
    const double t = len2 > 0.0 ? std::clamp(QPointF::dotProduct(p - a, d) / len2, 0.0, 1.0) : 0.0;
    return QLineF(p, a + t * d).length();
}

} // namespace railyard
