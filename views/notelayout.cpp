#include "notelayout.h"

#include <QLineF>

#include <algorithm>
#include <limits>

namespace railyard {

namespace {
constexpr double kOffFrameWeight = 3.0;
} // namespace

double NoteLayout::cost(const QRectF &rect) const
{
    double area = 0.0;
    for (qsizetype i = 0; i < m_taken.size(); ++i) {
        // Touching edges (and rounding's slivers) are no overlap: under half a pixel either way.
        const QRectF overlap = rect.intersected(m_taken[i]);
        if (overlap.width() > 0.5 && overlap.height() > 0.5)
            area += m_weight[i] * overlap.width() * overlap.height();
    }
    if (!m_frame.isEmpty()) {
        const QRectF inside = rect.intersected(m_frame);
        const double in = inside.isEmpty() ? 0.0 : inside.width() * inside.height();
        // Off-screen text is not there at all: worse than covered text, which still shows its
        // plate's edge (three times, so a box rather covers chips than leaves the screen).
        const double out = rect.width() * rect.height() - in;
        if (out > 0.5)
            area += kOffFrameWeight * out;
    }
    return area;
}

double NoteLayout::hardCost(const QRectF &rect) const
{
    NoteLayout hard(m_frame);
    for (qsizetype i = 0; i < m_taken.size(); ++i)
        if (m_weight[i] >= 1.0)
            hard.addObstacle(m_taken[i]);
    return hard.cost(rect);
}

QRectF NoteLayout::place(const Box &box, double *placedCost)
{
    const QRectF r = best(box, placedCost);
    if (!r.isEmpty())
        addObstacle(r);
    return r;
}

QRectF NoteLayout::best(const Box &box, double *bestCostOut) const
{
    if (bestCostOut)
        *bestCostOut = 0.0;
    if (box.candidates.isEmpty())
        return QRectF();
    QRectF best;
    double bestCost = std::numeric_limits<double>::infinity();
    for (const QPointF &p : box.candidates) {
        const QRectF r(p, box.size);
        const double c = cost(r);
        if (c < bestCost) { // strictly less: the earlier candidate wins a tie
            bestCost = c;
            best = r;
            if (c <= 0.0)
                break;
        }
    }
    if (bestCostOut)
        *bestCostOut = bestCost;
    return best;
}

QList<QPointF> NoteLayout::around(const QRectF &anchor, const QSizeF &size, double gap)
{
    QList<QPointF> out;
    const double w = size.width(), h = size.height();
    // Three rings: next to the anchor, then one and two box sizes further out.
    for (int ring = 0; ring < 3; ++ring) {
        const double gx = gap + ring * (w + gap);
        const double gy = gap + ring * (h + gap);
        const QRectF a = anchor.adjusted(-gx, -gy, gx, gy);
        const double cy = anchor.center().y() - h / 2.0;
        const double cx = anchor.center().x() - w / 2.0;
        out << QPointF(a.right(), cy) << QPointF(a.left() - w, cy) // right, left
            << QPointF(cx, a.top() - h) << QPointF(cx, a.bottom()) // above, below
            << QPointF(a.right(), a.top() - h) << QPointF(a.left() - w, a.top() - h)
            << QPointF(a.right(), a.bottom()) << QPointF(a.left() - w, a.bottom());
    }
    return out;
}

QList<QPointF> NoteLayout::grid(const QRectF &frame, const QSizeF &size, const QPointF &near)
{
    QList<QPointF> out;
    if (frame.isEmpty() || size.isEmpty())
        return out;
    const double dx = std::max(4.0, size.width() / 4.0);
    const double dy = std::max(4.0, size.height() / 4.0);
    for (double y = frame.top(); y + size.height() <= frame.bottom(); y += dy)
        for (double x = frame.left(); x + size.width() <= frame.right(); x += dx)
            out << QPointF(x, y);
    const QPointF half(size.width() / 2.0, size.height() / 2.0);
    // Stable: equal distances keep the grid's order (top to bottom, left to right).
    std::stable_sort(out.begin(), out.end(), [&](const QPointF &a, const QPointF &b) {
        return QLineF(a + half, near).length() < QLineF(b + half, near).length();
    });
    return out;
}

} // namespace railyard
